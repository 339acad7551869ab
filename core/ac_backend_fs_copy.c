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
#include "ac_turn_usage.h"

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

static int fs_get_untenanted(void *impl, json_t **out_doc, json_t **out_usage,
			     const char *session_id)
{
	ac_backend_fs *fs = impl;
	ac_session *s = NULL;
	const json_t *metadata;
	int rc;

	*out_doc = *out_usage = NULL;
	if ((rc = ac_backend_id_check("session", session_id)) ||
	    (rc = ac_session_load(&s, fs->sessions_dir, session_id)))
		goto done;
	metadata = json_object_get(ac_session_root(s), "metadata");
	if (json_object_get(metadata, "tenantId")) {
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' has a tenant", session_id);
		goto done;
	}
	if ((rc = ac_turn_usage_load(out_usage, fs->sessions_dir, session_id,
				     json_object_get(metadata, "usage"))))
		goto done;
	*out_doc = json_incref(ac_session_root(s));
done:
	ac_session_free(s);
	return rc;
}

/* ---- turn usage rows: the sidecar file, checked against the session ---- */

/* *out the session, when tenant owns it (else AC_ENOTFOUND, naming both). */
static int owned_session(ac_backend_fs *fs, ac_session **out, const char *tenant,
			 const char *session)
{
	int rc;

	*out = NULL;
	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session)))
		return rc;
	if (!(rc = ac_session_load(out, fs->sessions_dir, session)) &&
	    (rc = ac_backend_fs_owned(ac_session_root(*out), tenant, session))) {
		ac_session_free(*out);
		*out = NULL;
	}
	if (rc == AC_ENOTFOUND)
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' not found for tenant '%s'", session,
				  tenant);
	return rc;
}

static int fs_usage_rows(void *impl, json_t **out, const char *tenant, const char *session)
{
	ac_backend_fs *fs = impl;
	json_t *loaded = NULL;
	ac_session *s = NULL;
	int rc;

	*out = NULL;
	/* No legacy totals handed in: only the rows the file holds. */
	if (!(rc = owned_session(fs, &s, tenant, session)) &&
	    !(rc = ac_turn_usage_load(&loaded, fs->sessions_dir, session, NULL)))
		*out = json_incref(json_object_get(loaded, "turns"));
	json_decref(loaded);
	ac_session_free(s);
	return rc;
}

/* The rows go in beside the session's document, which must be tenant's.
 * Its metadata.usage came with it (put_session) and is not rewritten here
 * (a rewrite would stamp a new updatedAt on the copied document); it is
 * handed on for the rows counted before rows were kept. */
static int fs_put_usage_rows(void *impl, const char *tenant, const char *session,
			     const json_t *rows)
{
	ac_backend_fs *fs = impl;
	ac_session *s = NULL;
	int rc;

	if (!(rc = owned_session(fs, &s, tenant, session)))
		rc = ac_turn_usage_put_rows(
			fs->sessions_dir, session,
			json_object_get(json_object_get(ac_session_root(s), "metadata"), "usage"),
			rows);
	ac_session_free(s);
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

/* ---- archives of removed messages: <sessions>/.compactions/<id>/<name>.json
 * and .rollbacks/<id>/<name>.json (ac_archive.c) ---- */

static const char *archive_folder(const char *kind)
{
	if (!strcmp(kind, "compaction"))
		return ".compactions";
	return !strcmp(kind, "rollback") ? ".rollbacks" : NULL;
}

/* The archive's path from its key, every part checked (the key may come
 * from another store). */
static int archive_path(ac_buf *path, const ac_backend_fs *fs, const char *const *key)
{
	const char *folder = archive_folder(key[2]);
	int rc;

	if ((rc = ac_backend_id_check("session", key[1])) ||
	    (rc = ac_backend_id_check("archive", key[3])))
		return rc;
	if (!folder)
		return ac_error_set(AC_EINVAL, "archive kind '%s': not compaction or rollback",
				    key[2]);
	if (ac_buf_printf(path, "%s/%s/%s/%s.json", fs->sessions_dir, folder, key[1], key[3]))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

/* One session's archives of one kind; tenant from its document ("" when
 * it cannot be read: the copy reports such an archive, it cannot place it). */
static int archives_of(ac_backend_fs *fs, const char *kind, const char *dir, const char *id,
		       ac_backend_key_fn fn, void *ctx)
{
	ac_buf sub = AC_BUF_INIT;
	ac_session *s = NULL;
	const char *tenant = "";
	char **names = NULL;
	size_t n = 0;
	int rc;

	if (ac_buf_printf(&sub, "%s/%s", dir, id)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_backend_fs_names(&names, &n, sub.data)))
		goto done;
	if (n && ac_session_load(&s, fs->sessions_dir, id) == 0) {
		const char *owner = json_string_value(json_object_get(
			json_object_get(ac_session_root(s), "metadata"), "tenantId"));

		tenant = owner ? owner : "";
	}
	for (size_t i = 0; i < n && !rc; i++) {
		size_t len = strlen(names[i]);
		const char *key[4] = {tenant, id, kind, names[i]};

		if (len <= 5 || strcmp(names[i] + len - 5, ".json") != 0)
			continue;
		names[i][len - 5] = '\0';
		if (ac_backend_id_check("archive", names[i]) == 0)
			rc = fn(key, ctx);
	}
done:
	ac_session_free(s);
	ac_backend_names_free(names, n);
	ac_buf_free(&sub);
	return rc;
}

static int fs_each_archive(void *impl, ac_backend_key_fn fn, void *ctx)
{
	static const char *const kinds[2] = {"compaction", "rollback"};
	ac_backend_fs *fs = impl;
	ac_buf dir = AC_BUF_INIT;
	char **ids = NULL;
	size_t n = 0;
	int rc = 0;

	for (int k = 0; k < 2 && !rc; k++) {
		ac_buf_clear(&dir);
		if (ac_buf_printf(&dir, "%s/%s", fs->sessions_dir, archive_folder(kinds[k]))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		if ((rc = ac_file_list(&ids, &n, dir.data, true)))
			break;
		for (size_t i = 0; i < n && !rc; i++)
			if (ac_backend_id_check("session", ids[i]) == 0)
				rc = archives_of(fs, kinds[k], dir.data, ids[i], fn, ctx);
		ac_backend_names_free(ids, n);
		ids = NULL;
		n = 0;
	}
	ac_buf_free(&dir);
	return rc;
}

static int fs_get_archive(void *impl, json_t **out, const char *const *key)
{
	ac_buf path = AC_BUF_INIT;
	char *text = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if (!(rc = archive_path(&path, impl, key)) &&
	    !(rc = ac_file_read(&text, &len, path.data)) &&
	    !(rc = ac_json_exact_load(out, text, len, 0, path.data)) &&
	    (!json_is_object(*out) || !json_is_array(json_object_get(*out, "messages")))) {
		rc = ac_error_set(AC_ECORRUPT, "%s: not an archive (an object with messages)",
				  path.data);
		json_decref(*out);
		*out = NULL;
	}
	ac_buf_free(&path);
	free(text);
	return rc;
}

/* Laid out as ac_archive_write() lays it out; one atomic create that never
 * replaces a file there (an archive written meanwhile stays). */
static int fs_put_archive(void *impl, const char *const *key, const json_t *doc)
{
	ac_buf path = AC_BUF_INIT;
	char *text = NULL, *displaced = NULL, *slash;
	size_t len = 0, displaced_len = 0;
	struct stat st;
	int rc;

	if ((rc = archive_path(&path, impl, key)))
		goto done;
	if (!(text = ac_json_exact_dumps(doc, JSON_INDENT(2), &len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	slash = strrchr(path.data, '/');
	*slash = '\0';
	rc = ac_file_mkdirs(path.data);
	*slash = '/';
	if (rc)
		goto done;
	rc = ac_atomic_swap(&displaced, &displaced_len, path.data, text, len, true);
	if (rc == AC_ENOTSUP)
		rc = lstat(path.data, &st) == 0 ? AC_ECONFLICT
						 : ac_atomic_write(path.data, text, len, NULL, NULL);
	if (rc == AC_ECONFLICT)
		rc = ac_error_set(AC_ECONFLICT, "%s: an archive is there already", path.data);
done:
	ac_buf_free(&path);
	free(text);
	free(displaced);
	return rc;
}

void ac_backend_fs_fill_copy(ac_backend *b)
{
	b->session.create_document = fs_create_document;
	b->copy.put_session = fs_put_session;
	b->copy.get_untenanted = fs_get_untenanted;
	b->copy.each_memo = fs_each_memo;
	b->copy.each_artifact = fs_each_artifact;
	b->copy.each_log = fs_each_log;
	b->copy.usage_rows = fs_usage_rows;
	b->copy.put_usage_rows = fs_put_usage_rows;
	b->copy.each_archive = fs_each_archive;
	b->copy.get_archive = fs_get_archive;
	b->copy.put_archive = fs_put_archive;
}
