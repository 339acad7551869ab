/* The file checkpoint provider: "<dir>/<sessionId>/<checkpointId>.json",
 * the layout the reference writers use.
 *
 * Every write is atomic (ac_atomic_write: temp names never end in .json).
 * Listing reads each "*.json" of the session's folder; anything that is not
 * a regular file holding a checkpoint of that session under its own name is
 * reported (file, reason) and skipped, so one bad file never hides the
 * others. */
#include "ac_checkpoint.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	ac_checkpoint_store base;
	char *dir;
} file_store;

static void report(const ac_checkpoint_store *store, const char *path, const char *reason)
{
	if (store->problem)
		store->problem(path, reason, store->problem_ctx);
}

/* Parses and validates the text of path; the message names path. */
static int parse(json_t **out, const char *path, const char *text, size_t len,
		 const char *session_id, const char *checkpoint_id)
{
	json_t *doc = NULL;
	int rc;

	if ((rc = ac_json_exact_load(&doc, text, len, 0, path)))
		return rc;
	if ((rc = ac_checkpoint_validate(doc))) {
		ac_error_set(rc, "%s: %s", path, ac_error_last());
	} else if (strcmp(ac_checkpoint_id(doc), checkpoint_id) != 0) {
		rc = ac_error_set(AC_ECORRUPT, "%s: checkpointId '%.64s' does not match the file name",
				  path, ac_checkpoint_id(doc));
	} else if (strcmp(ac_checkpoint_session(doc), session_id) != 0) {
		rc = ac_error_set(AC_ECORRUPT, "%s: sessionId '%.64s' is not the folder's session",
				  path, ac_checkpoint_session(doc));
	}
	if (rc) {
		json_decref(doc);
		return rc;
	}
	*out = doc;
	return 0;
}

static int make_path(char **out, const file_store *f, const char *session_id,
		     const char *checkpoint_id)
{
	ac_buf path = AC_BUF_INIT;

	if (checkpoint_id ? ac_buf_printf(&path, "%s/%s/%s.json", f->dir, session_id, checkpoint_id)
			  : ac_buf_printf(&path, "%s/%s", f->dir, session_id))
		return ac_error_set(AC_ENOMEM, "out of memory");
	*out = ac_buf_detach(&path);
	return *out ? 0 : ac_error_set(AC_ENOMEM, "out of memory");
}

static int file_save(ac_checkpoint_store *store, const json_t *doc)
{
	file_store *f = (file_store *)store;
	char *folder = NULL, *path = NULL, *text = NULL;
	size_t text_len = 0;
	int rc;

	if ((rc = make_path(&folder, f, ac_checkpoint_session(doc), NULL)) ||
	    (rc = make_path(&path, f, ac_checkpoint_session(doc), ac_checkpoint_id(doc))))
		goto done;
	if ((rc = ac_file_mkdirs(folder)))
		goto done;
	/* A session's numbers jansson cannot hold stay numbers in the copy. */
	if (!(text = ac_json_exact_dumps(doc, JSON_INDENT(2), &text_len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	rc = ac_atomic_write(path, text, text_len, NULL, NULL);
done:
	free(text);
	free(path);
	free(folder);
	return rc;
}

/* Reads one entry of the open folder; 0 with *out NULL when skipped. */
static int read_entry(json_t **out, file_store *f, int dir_fd, const char *folder,
		      const char *name, const char *session_id)
{
	size_t name_len = strlen(name), len;
	char *stem = NULL, *text = NULL, *shown = NULL;
	ac_buf path = AC_BUF_INIT;
	int rc = 0;

	*out = NULL;
	if (name_len <= 5 || strcmp(name + name_len - 5, ".json") != 0)
		return 0;
	if (ac_buf_printf(&path, "%s/%s", folder, name) || !(shown = ac_buf_detach(&path)) ||
	    !(stem = strndup(name, name_len - 5))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (ac_checkpoint_id_check(stem) != 0) {
		ac_error_set(AC_ECORRUPT, "%s: %s", shown, ac_error_last());
		report(&f->base, shown, ac_error_last());
		goto done;
	}
	rc = ac_file_read_at(&text, &len, dir_fd, name, shown);
	if (rc == AC_ENOMEM)
		goto done;
	if (rc == AC_ENOTFOUND) { /* removed while we listed */
		rc = 0;
		goto done;
	}
	if (rc == 0 && parse(out, shown, text, len, session_id, stem) == 0)
		goto done;
	rc = 0;
	report(&f->base, shown, ac_error_last());
done:
	ac_buf_free(&path);
	free(shown);
	free(stem);
	free(text);
	return rc;
}

static int file_list(json_t **out, ac_checkpoint_store *store, const ac_checkpoint_filter *filter)
{
	file_store *f = (file_store *)store;
	char *folder = NULL;
	json_t *array = NULL, *doc;
	DIR *d = NULL;
	struct dirent *entry;
	int fd = -1, rc;

	if ((rc = make_path(&folder, f, filter->session_id, NULL)))
		goto done;
	if (!(array = json_array())) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		goto listed;
	if (fd < 0) {
		rc = errno == ELOOP || errno == ENOTDIR
			     ? ac_error_set(AC_ECORRUPT, "%s: not a folder", folder)
			     : ac_error_errno(errno, "%s", folder);
		goto done;
	}
	if (!(d = fdopendir(fd))) {
		rc = ac_error_errno(errno, "%s", folder);
		goto done;
	}
	fd = -1;
	errno = 0;
	while ((entry = readdir(d))) {
		if ((rc = read_entry(&doc, f, dirfd(d), folder, entry->d_name, filter->session_id)))
			goto done;
		if (!doc)
			continue;
		if (!filter->include_tombstones && ac_checkpoint_is_tombstone(doc)) {
			json_decref(doc);
			continue;
		}
		if (json_array_append_new(array, doc)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
listed:
	*out = array;
	array = NULL;
done:
	if (d)
		closedir(d);
	if (fd >= 0)
		close(fd);
	json_decref(array);
	free(folder);
	return rc;
}

static int file_get(json_t **out, ac_checkpoint_store *store, const char *session_id,
		    const char *checkpoint_id)
{
	file_store *f = (file_store *)store;
	char *path = NULL, *text = NULL;
	size_t len;
	int rc;

	if ((rc = make_path(&path, f, session_id, checkpoint_id)))
		goto done;
	rc = ac_file_read(&text, &len, path);
	if (rc == AC_ENOTFOUND)
		rc = ac_error_set(AC_ENOTFOUND, "checkpoint '%s' of session '%s' not found (%s)",
				  checkpoint_id, session_id, path);
	if (rc == 0)
		rc = parse(out, path, text, len, session_id, checkpoint_id);
done:
	free(text);
	free(path);
	return rc;
}

static int file_remove(ac_checkpoint_store *store, const char *session_id,
		       const char *checkpoint_id)
{
	file_store *f = (file_store *)store;
	char *path = NULL;
	int rc;

	if ((rc = make_path(&path, f, session_id, checkpoint_id)))
		return rc;
	if (unlink(path) != 0)
		rc = errno == ENOENT
			     ? ac_error_set(AC_ENOTFOUND, "checkpoint '%s' of session '%s' not found (%s)",
					    checkpoint_id, session_id, path)
			     : ac_error_errno(errno, "%s: cannot remove", path);
	free(path);
	return rc;
}

static void file_free(ac_checkpoint_store *store)
{
	file_store *f = (file_store *)store;

	free(f->dir);
	free(f);
}

static const ac_checkpoint_store_ops file_ops = {
	.name = "file",
	.save = file_save,
	.list = file_list,
	.latest = NULL, /* derived from list: every file is read anyway */
	.get = file_get,
	.remove = file_remove,
	.free = file_free,
};

int ac_checkpoint_store_file_new(ac_checkpoint_store **out, const char *dir)
{
	file_store *f;

	if (!dir || !*dir)
		return ac_error_set(AC_EINVAL, "checkpoint folder: empty path");
	if (!(f = calloc(1, sizeof(*f))) || !(f->dir = strdup(dir))) {
		free(f);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	f->base.ops = &file_ops;
	*out = &f->base;
	return 0;
}
