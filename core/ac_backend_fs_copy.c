/* The file-system backend: what a copy between stores needs (ac_backend.h
 * section 8). The walks read the folders the other contracts write, in
 * name order, and name only what those contracts would accept (ids that
 * pass ac_backend_id_check(); a stray file such as a temp file is not a
 * key). A session is put with one atomic create that never replaces a
 * file already there, as a new one is (session.create_document, a fork). */
#include "ac_backend_fs_impl.h"

#include "ac_atomic.h"
#include "ac_backend_check.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"
#include "ac_session.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- sessions ---- */

int ac_backend_document_check(const char *tenant, const json_t *doc)
{
	const char *id = json_string_value(json_object_get(doc, "id"));
	const json_t *history = json_object_get(doc, "conversationHistory");
	const char *owner = json_string_value(
		json_object_get(json_object_get(doc, "metadata"), "tenantId"));
	int rc;

	if (!json_is_object(doc))
		return ac_error_set(AC_EINVAL, "a session document is an object");
	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", id ? id : "")))
		return rc;
	if (!owner || strcmp(owner, tenant) != 0)
		return ac_error_set(AC_EINVAL, "session %s: metadata.tenantId is not '%s'", id, tenant);
	return history ? ac_backend_messages_check(history) : 0;
}

/* A new session from a whole document: the session file's atomic create,
 * never over an existing file. */
static int fs_create_document(void *impl, const char *tenant, const json_t *doc)
{
	ac_backend_fs *fs = impl;
	json_t *copy = NULL;
	int rc;

	if ((rc = ac_backend_document_check(tenant, doc)))
		return rc;
	if (!(copy = json_deep_copy(doc)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_file_mkdirs(fs->sessions_dir)) == 0)
		rc = ac_session_create_document(NULL, fs->sessions_dir, copy);
	json_decref(copy);
	return rc;
}

static int fs_put_session(void *impl, bool *out_created, const char *tenant, const json_t *doc)
{
	ac_backend_fs *fs = impl;
	const char *id = json_string_value(json_object_get(doc, "id"));
	const char *owner = json_string_value(
		json_object_get(json_object_get(doc, "metadata"), "tenantId"));
	ac_buf path = AC_BUF_INIT;
	char *text = NULL, *displaced = NULL;
	size_t len = 0, displaced_len = 0;
	struct stat st;
	int rc;

	*out_created = false;
	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", id ? id : "")))
		return rc;
	if (!owner || strcmp(owner, tenant) != 0)
		return ac_error_set(AC_EINVAL, "session %s: metadata.tenantId is not '%s'", id, tenant);
	if (ac_buf_printf(&path, "%s/%s.json", fs->sessions_dir, id) ||
	    !(text = ac_json_exact_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER, &len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_file_mkdirs(fs->sessions_dir)))
		goto done;
	/* Create only: a session written meanwhile by its agent stays. */
	rc = ac_atomic_swap(&displaced, &displaced_len, path.data, text, len, true);
	if (rc == AC_ENOTSUP) {
		/* No exchange here: the check and the write are two steps. */
		if (lstat(path.data, &st) == 0)
			rc = AC_ECONFLICT;
		else
			rc = ac_atomic_write(path.data, text, len, NULL, NULL);
	}
	if (rc == AC_ECONFLICT)
		rc = 0;
	else if (rc == 0)
		*out_created = true;
done:
	ac_buf_free(&path);
	free(text);
	free(displaced);
	return rc;
}

/* ---- the walks ---- */

/* Sorted names of dir's folders (want_dir) or regular files. */
static int entries(char ***out, size_t *out_n, const char *dir, bool want_dir)
{
	return want_dir ? ac_file_list(out, out_n, dir, true) : ac_backend_fs_names(out, out_n, dir);
}

/* Walks base/<k0>/<k1>/.../<k(depth-1)>: folders down to the last level,
 * whose entries are files (last_dir false) or folders; calls fn with the
 * names as the key, skipping what is not an id. */
typedef struct {
	ac_backend_key_fn fn;
	void *ctx;
	int depth;
	bool last_dir;
	const char *suffix; /* stripped from the last name (".jsonl"); NULL: none */
	const char *key[4];
} walk;

static int walk_level(walk *w, const char *dir, int level)
{
	bool last = level == w->depth - 1;
	char **names = NULL;
	size_t n = 0;
	ac_buf sub = AC_BUF_INIT;
	int rc;

	if ((rc = entries(&names, &n, dir, last ? w->last_dir : true)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		char *name = names[i];
		size_t len = strlen(name), slen = w->suffix && last ? strlen(w->suffix) : 0;

		if (slen) {
			if (len <= slen || strcmp(name + len - slen, w->suffix) != 0)
				continue;
			name[len - slen] = '\0';
		}
		if (ac_backend_id_check("name", name) != 0)
			continue;
		w->key[level] = name;
		if (last) {
			rc = w->fn(w->key, w->ctx);
			continue;
		}
		ac_buf_clear(&sub);
		if (ac_buf_printf(&sub, "%s/%s", dir, name))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		else
			rc = walk_level(w, sub.data, level + 1);
	}
	ac_buf_free(&sub);
	ac_backend_names_free(names, n);
	return rc;
}

static int walk_under(const ac_backend_fs *fs, const char *what, walk *w)
{
	ac_buf dir = AC_BUF_INIT;
	int rc;

	if (ac_buf_printf(&dir, "%s/%s", fs->data_dir, what))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = walk_level(w, dir.data, 0);
	ac_buf_free(&dir);
	return rc;
}

static int fs_each_memo(void *impl, ac_backend_key_fn fn, void *ctx)
{
	walk w = {.fn = fn, .ctx = ctx, .depth = 4};

	return walk_under(impl, "memo", &w);
}

static int fs_each_artifact(void *impl, ac_backend_key_fn fn, void *ctx)
{
	walk w = {.fn = fn, .ctx = ctx, .depth = 3};

	return walk_under(impl, "artifacts", &w);
}

/* The walk's key is {tenant, log}; fn receives {tenant, kind, log}. */
typedef struct {
	ac_backend_key_fn fn;
	void *ctx;
	const char *kind;
} log_walk;

static int log_key(const char *const *key, void *ctx)
{
	log_walk *l = ctx;
	const char *full[3] = {key[0], l->kind, key[1]};

	return l->fn(full, l->ctx);
}

static int fs_each_log(void *impl, ac_backend_key_fn fn, void *ctx)
{
	log_walk traces = {fn, ctx, "trace"}, runs = {fn, ctx, "run"};
	walk w = {.fn = log_key, .ctx = &traces, .depth = 2, .suffix = ".jsonl"};
	int rc;

	if ((rc = walk_under(impl, "traces", &w)))
		return rc;
	w = (walk){.fn = log_key, .ctx = &runs, .depth = 2, .last_dir = true};
	return walk_under(impl, "orchestration", &w);
}

void ac_backend_fs_fill_copy(ac_backend *b)
{
	b->session.create_document = fs_create_document;
	b->copy.put_session = fs_put_session;
	b->copy.each_memo = fs_each_memo;
	b->copy.each_artifact = fs_each_artifact;
	b->copy.each_log = fs_each_log;
}
