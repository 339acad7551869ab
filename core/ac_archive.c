/* Archives of removed messages: a unique name, then an atomic write. */
#include "ac_archive.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_fs_calls.h"
#include "ac_json_exact.h"
#include "ac_time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ac_archive_folder(ac_buf *dir, const char *sessions_dir, const char *folder, const char *id)
{
	ac_buf_clear(dir);
	if (ac_buf_printf(dir, "%s/%s/%s", sessions_dir, folder, id))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return ac_file_check_in(sessions_dir, dir->data);
}

/* Makes <sessions>/<folder>/<id> and the names on its way durable: the
 * archive's own sync (ac_atomic_write()) covers its name in <id>/ only,
 * and a session may name the archive once it is written, so a power cut
 * must not take <id>/ (or <folder>/) with it (found by the simulator: seed
 * 1 of "compact", docs/RELIABILITY.md "Simulation"). */
static int make_folder(const char *dir, const char *sessions_dir)
{
	/* <folder>/, which names <id>/; <sessions>/, which names <folder>/ */
	return ac_file_mkdirs_durable(dir, sessions_dir);
}

int ac_archive_durable_folder(ac_buf *dir, const char *sessions_dir, const char *folder,
			      const char *id)
{
	int rc = ac_archive_folder(dir, sessions_dir, folder, id);

	return rc ? rc : make_folder(dir->data, sessions_dir);
}

/* Creates the archive's file under a name no other holds and fills it. */
static int write_new(char **out_path, char **out_relative, const char *sessions_dir,
		     const char *folder, const char *id, int64_t now_ms, const char *data,
		     size_t data_len)
{
	char stamp[21];
	ac_buf dir = AC_BUF_INIT, relative = AC_BUF_INIT, path = AC_BUF_INIT;
	bool reserved = false;
	int rc, fd = -1;

	if ((rc = ac_archive_durable_folder(&dir, sessions_dir, folder, id)))
		goto done;
	ac_time_format_file(stamp, now_ms);
	for (int attempt = 0; fd < 0; attempt++) {
		ac_buf_clear(&relative);
		ac_buf_clear(&path);
		if ((attempt ? ac_buf_printf(&relative, "%s/%s/%s-%d.json", folder, id, stamp, attempt)
			     : ac_buf_printf(&relative, "%s/%s/%s.json", folder, id, stamp)) ||
		    ac_buf_printf(&path, "%s/%s", sessions_dir, relative.data)) {
			rc = AC_ENOMEM;
			goto done;
		}
		fd = ac_fs_open(path.data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && (errno != EEXIST || attempt >= 1000)) {
			rc = ac_error_errno(errno, "%s: cannot create the archive", path.data);
			goto done;
		}
	}
	reserved = true;
	ac_fs_close(fd);
	if ((rc = ac_atomic_write(path.data, data, data_len, NULL, NULL)))
		goto done;
	if (!(*out_relative = ac_buf_detach(&relative)) || !(*out_path = ac_buf_detach(&path))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		free(*out_relative);
		*out_relative = NULL;
	}
done:
	if (rc && reserved)
		ac_fs_unlink(path.data);
	ac_buf_free(&dir);
	ac_buf_free(&relative);
	ac_buf_free(&path);
	return rc;
}

int ac_archive_write(char **out_path, char **out_relative, const char *sessions_dir,
		     const char *folder, const char *id, const char *created_at, int64_t now_ms,
		     const json_t *messages, const json_t *extra)
{
	char *data = NULL;
	size_t data_len = 0;
	json_t *doc = json_pack("{s:s, s:s, s:O}", "sessionId", id, "createdAt", created_at,
				"messages", messages);
	int rc;

	if (doc && extra && json_object_update_missing(doc, (json_t *)extra)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (!doc || !(data = ac_json_exact_dumps(doc, JSON_INDENT(2), &data_len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	rc = write_new(out_path, out_relative, sessions_dir, folder, id, now_ms, data, data_len);
done:
	json_decref(doc);
	free(data);
	return rc;
}

int ac_archive_begin(ac_buf *doc, const char *id, const char *created_at)
{
	json_t *head = json_pack("{s:s, s:s, s:[]}", "sessionId", id, "createdAt", created_at,
				 "messages");
	int rc = AC_ENOMEM;

	ac_buf_clear(doc);
	/* ac_archive_write()'s layout up to the messages' opening bracket. */
	if (head && ac_json_exact_dump_nested(doc, head, JSON_INDENT(2), 0) == 0 &&
	    doc->len >= 4 && !memcmp(doc->data + doc->len - 4, "[]\n}", 4)) {
		doc->len -= 3;
		doc->data[doc->len] = '\0';
		rc = 0;
	}
	json_decref(head);
	return rc ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
}

int ac_archive_add(ac_buf *doc, const json_t *message)
{
	bool first = doc->len && doc->data[doc->len - 1] == '[';

	if (ac_buf_append(doc, first ? "\n    " : ",\n    ", first ? 5 : 6))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return ac_json_exact_dump_nested(doc, message, JSON_INDENT(2), 4);
}

int ac_archive_write_built(char **out_path, char **out_relative, const char *sessions_dir,
			   const char *folder, const char *id, int64_t now_ms, ac_buf *doc)
{
	bool empty = doc->len && doc->data[doc->len - 1] == '[';

	if (ac_buf_append(doc, empty ? "]\n}" : "\n  ]\n}", empty ? 3 : 6))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return write_new(out_path, out_relative, sessions_dir, folder, id, now_ms, doc->data,
			 doc->len);
}
