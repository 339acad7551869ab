/* The file checkpoint provider: "<dir>/<sessionId>/<checkpointId>.json",
 * the layout the reference writers use.
 *
 * Every write is atomic (ac_atomic_write: temp names never end in .json).
 * Listing reads each "*.json" of the session's folder; anything that is not
 * a regular file holding a checkpoint of that session under its own name is
 * reported (file, reason) and skipped, so one bad file never hides the
 * others. Listing headers scans each file without building it and keeps
 * no document; a file the scan cannot vouch for is loaded whole, so it is
 * judged and reported exactly as a full listing would. */
#include "ac_checkpoint.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_fs_calls.h"
#include "ac_json_exact.h"
#include "ac_json_scan.h"
#include "ac_file.h"
#include "ac_session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	/* Seed 002's writers (Koog's AgentCheckpointData) keep the session in
	 * the folder's name, not in the document: take it from there. */
	if (json_is_object(doc) && !json_object_get(doc, "sessionId") &&
	    json_object_set_new(doc, "sessionId", json_string(session_id))) {
		json_decref(doc);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
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

/* The members a header is read from, in ac_json_scan()'s path order. */
enum {
	H_ID, H_SESSION, H_VERSION, H_HISTORY, H_NODE, H_CREATED, H_PARENT, H_TOMBSTONE, H_COUNT
};
static const char *const header_keys[H_COUNT] = {
	"checkpointId", "sessionId", "version", "messageHistory", "nodeId", "createdAt", "parentId",
	"properties.tombstone",
};

/* A string span's decoded value, NUL-terminated, its length in *out_len
 * (may be NULL); NULL when out of memory. */
static char *span_dup(const ac_json_span *span, size_t *out_len)
{
	char *copy = malloc(span->len + 1);
	size_t len;

	if (copy) {
		ac_json_string_decode(copy, &len, span);
		copy[len] = '\0';
		if (out_len)
			*out_len = len;
	}
	return copy;
}

/* A version parse() accepts: digits only (jansson's integers; anything
 * else is kept as a marker string or is negative) that fit a json_int_t. */
static bool plain_version(int64_t *out, const ac_json_span *span)
{
	int64_t v = 0;

	if (span->type != AC_JSON_NUMBER || span->len == 0)
		return false;
	for (size_t i = 0; i < span->len; i++) {
		int d = span->start[i] - '0';

		if (d < 0 || d > 9 || v > (INT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* Reads the header of a checkpoint text without building it: 1 when text
 * is a checkpoint parse() accepts as written, with *out filled; 0 when the
 * scan cannot tell (not JSON, not valid, or something only jansson decides,
 * such as a \u0000 it may refuse in a key): the caller then parses the
 * file, so a corrupt one is reported exactly as before. AC_ENOMEM. */
static int scan_header(ac_checkpoint_header *out, const char *text, size_t len,
		       const char *session_id, const char *checkpoint_id)
{
	ac_json_path paths[H_COUNT];
	ac_json_span span[H_COUNT];
	int64_t version;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < H_COUNT; i++)
		if (ac_json_path_init(&paths[i], header_keys[i]) != 0)
			return 0;
	if (memmem(text, len, "\\u0000", 6) || ac_json_exact_holds_marker(text, len) ||
	    ac_json_scan(span, text, len, paths, H_COUNT, NULL) != 0)
		return 0;
	/* No sessionId: the folder's session, as parse() takes it. */
	if (!ac_json_string_equals(&span[H_ID], checkpoint_id, strlen(checkpoint_id)) ||
	    (span[H_SESSION].type != AC_JSON_NONE &&
	     !ac_json_string_equals(&span[H_SESSION], session_id, strlen(session_id))) ||
	    !plain_version(&version, &span[H_VERSION]) || span[H_HISTORY].type != AC_JSON_ARRAY)
		return 0;
	out->version = version;
	out->messages = span[H_HISTORY].count;
	if (!(out->checkpoint_id = strdup(checkpoint_id)) ||
	    !(out->node_id = span[H_NODE].type == AC_JSON_STRING ? span_dup(&span[H_NODE], NULL)
								   : strdup("")) ||
	    (span[H_CREATED].type == AC_JSON_STRING &&
	     !(out->created_at = span_dup(&span[H_CREATED], NULL))) ||
	    (span[H_PARENT].type == AC_JSON_STRING &&
	     !(out->parent_id = span_dup(&span[H_PARENT], &out->parent_id_len)))) {
		ac_checkpoint_header_clear(out);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	/* Either form, as ac_checkpoint_is_tombstone() judges a document. */
	out->tombstone = !strcmp(out->node_id, AC_CHECKPOINT_TOMBSTONE) ||
			 span[H_TOMBSTONE].type == AC_JSON_TRUE;
	return 1;
}

static int make_path(char **out, const file_store *f, const char *session_id,
		     const char *checkpoint_id)
{
	ac_buf path = AC_BUF_INIT;

	/* Every caller's ids may come from a file or a database row: the store
	 * itself refuses any that is not one plain name, so no id leads out of
	 * its folder whatever the caller checked. */
	if (ac_session_id_check(session_id) != 0 ||
	    (checkpoint_id && ac_checkpoint_id_check(checkpoint_id) != 0))
		return ac_error_set(AC_EINVAL, "%s", ac_error_last());
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
	struct stat st;
	bool new_folder;
	int rc;

	if ((rc = make_path(&folder, f, ac_checkpoint_session(doc), NULL)) ||
	    (rc = make_path(&path, f, ac_checkpoint_session(doc), ac_checkpoint_id(doc))))
		goto done;
	/* The session's first checkpoint creates its folder: its name is
	 * synced in the store's folder (and that one's in its parent), or a
	 * power cut takes the folder and every checkpoint in it although each
	 * was reported saved (found by the simulator: seed 1 of "checkpoint",
	 * docs/RELIABILITY.md "Simulation"). Creates of one session take
	 * turns (ac_checkpoint_create_with()), so the next finds it synced. */
	new_folder = ac_fs_stat(folder, &st) != 0;
	if ((rc = ac_file_mkdirs(folder)))
		goto done;
	if (new_folder && ((rc = ac_file_sync_folder_of(folder)) ||
			   (rc = ac_file_sync_folder_of(f->dir))))
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

/* A regular file named like a checkpoint id with no '.' at all (no
 * extension: not a writer's temp file, ours or the seeds', nor a note):
 * Koog's own layout (FilePersistenceStorageProvider writes "<root>/
 * checkpoints/<agentId>/<checkpointId>"). Its messageHistory holds Koog's Message
 * objects, not this workspace's messages, so no rollback could use it: it
 * is not read, and said so once per listing instead of being skipped
 * without a word. 0 always (the listing goes on). */
static int koog_file(file_store *f, int dir_fd, const char *folder, const char *name)
{
	ac_buf path = AC_BUF_INIT;
	struct stat st;

	if (strchr(name, '.') || ac_checkpoint_id_check(name) != 0 ||
	    ac_fs_fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (ac_buf_printf(&path, "%s/%s", folder, name) == 0) {
		ac_error_set(AC_ECORRUPT, "%s: not read: a checkpoint file without .json is Koog's "
			     "own layout (FilePersistenceStorageProvider), whose messages are Koog "
			     "Message objects, not this workspace's; agentctl reads "
			     "<checkpointId>.json", path.data);
		report(&f->base, path.data, ac_error_last());
	}
	ac_buf_free(&path);
	return 0;
}

/* Reads one entry of the open folder: the document into *out, or with
 * header non-NULL only its header into *header (and *out stays NULL).
 * 0 with nothing read (*out NULL, header->checkpoint_id NULL) when skipped. */
static int read_entry(json_t **out, ac_checkpoint_header *header, file_store *f, int dir_fd,
		      const char *folder, const char *name, const char *session_id)
{
	size_t name_len = strlen(name), len;
	char *stem = NULL, *text = NULL, *shown = NULL;
	ac_buf path = AC_BUF_INIT;
	int rc = 0;

	*out = NULL;
	if (header)
		memset(header, 0, sizeof(*header));
	if (name_len <= 5 || strcmp(name + name_len - 5, ".json") != 0)
		return koog_file(f, dir_fd, folder, name);
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
	if (rc == 0 && header) {
		if ((rc = scan_header(header, text, len, session_id, stem)) != 0) {
			rc = rc < 0 ? rc : 0;
			goto done;
		}
	}
	if (rc == 0 && parse(out, shown, text, len, session_id, stem) == 0) {
		if (header) {
			rc = ac_checkpoint_header_get(header, *out);
			json_decref(*out);
			*out = NULL;
		}
		goto done;
	}
	rc = 0;
	report(&f->base, shown, ac_error_last());
done:
	ac_buf_free(&path);
	free(shown);
	free(stem);
	free(text);
	return rc;
}

/* Lists the session's folder into array or, with headers non-NULL, into
 * headers (one document at a time, none kept). */
static int list_folder(json_t *array, ac_checkpoint_header_list *headers, file_store *f,
		       const ac_checkpoint_filter *filter)
{
	char *folder = NULL;
	json_t *doc;
	ac_checkpoint_header header;
	ac_fs_dir *d = NULL;
	const char *name;
	int fd = -1, dir_fd = -1, rc;

	if ((rc = make_path(&folder, f, filter->session_id, NULL)))
		goto done;
	fd = ac_fs_open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0 && errno == ENOENT)
		goto done;
	if (fd < 0) {
		rc = errno == ELOOP || errno == ENOTDIR
			     ? ac_error_set(AC_ECORRUPT, "%s: not a folder", folder)
			     : ac_error_errno(errno, "%s", folder);
		goto done;
	}
	if (!(d = ac_fs_fdopendir(fd))) {
		rc = ac_error_errno(errno, "%s", folder);
		goto done;
	}
	/* The listing owns fd now; it stays open (dirfd(3)) until closedir. */
	dir_fd = fd;
	fd = -1;
	while ((name = ac_fs_readdir(d))) {
		if ((rc = read_entry(&doc, headers ? &header : NULL, f, dir_fd, folder, name,
				     filter->session_id)))
			goto done;
		if (headers) {
			if (!header.checkpoint_id ||
			    (!filter->include_tombstones && header.tombstone)) {
				ac_checkpoint_header_clear(&header);
				continue;
			}
			if ((rc = ac_checkpoint_header_list_take(headers, &header)))
				goto done;
			continue;
		}
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
done:
	if (d)
		ac_fs_closedir(d);
	if (fd >= 0)
		ac_fs_close(fd);
	free(folder);
	return rc;
}

static int file_list(ac_checkpoint_store *store, json_t **out, const ac_checkpoint_filter *filter)
{
	json_t *array = json_array();
	int rc;

	if (!array)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = list_folder(array, NULL, (file_store *)store, filter))) {
		json_decref(array);
		return rc;
	}
	*out = array;
	return 0;
}

static int file_list_headers(ac_checkpoint_store *store, ac_checkpoint_header_list *out,
			     const ac_checkpoint_filter *filter)
{
	return list_folder(NULL, out, (file_store *)store, filter);
}

static int file_get(ac_checkpoint_store *store, json_t **out, const char *session_id,
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
	if (ac_fs_unlink(path) != 0)
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

/* Every folder is a session's (a stray one lists no checkpoint). */
static int file_sessions(ac_checkpoint_store *store, char ***out, size_t *out_n)
{
	return ac_file_list(out, out_n, ((file_store *)store)->dir, true);
}

static const ac_checkpoint_store_ops file_ops = {
	.version = AC_CHECKPOINT_STORE_OPS_VERSION,
	.name = "file",
	.save = file_save,
	.list = file_list,
	.latest = NULL, /* derived from list: every file is read anyway */
	.get = file_get,
	.remove = file_remove,
	.free = file_free,
	.list_headers = file_list_headers,
	.sessions = file_sessions,
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
