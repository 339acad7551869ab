/* What the transcript index read, kept between processes
 * ($XDG_CACHE_HOME/agentctl/sources-<hash>.json, one per workspace and
 * scope), so that a new `session list` or dashboard reads only what was
 * appended since, not gigabytes of transcripts again.
 *
 * The cache is input like any file: anyone who can write the folder can
 * write it. Every entry is checked (types, bounds, the file's identity
 * and size now); one that does not fit is dropped and its file read
 * again, and a cache that does not parse is ignored and rewritten. It
 * holds only what the transcripts say (shown escaped, like them), never a
 * command. */
#include "ac_source_cache.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_fast.h"
#include "ac_sha256.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CACHE_VERSION 1
#define CACHE_MAX_BYTES (512u * 1024 * 1024) /* more is not a cache of ours */
#define PENDING_MAX 4096

int ac_source_cache_path(char **out, const ac_source_options *opts)
{
	char hash[AC_SHA256_HEX_LEN + 1];
	ac_buf key = AC_BUF_INIT, path = AC_BUF_INIT;
	int rc;

	*out = NULL;
	if (!opts->cache_dir)
		return 0;
	/* The folders are part of the key: other folders, another cache. */
	ac_buf_printf(&key, "%s%c%d", opts->workspace, 0, opts->all_projects);
	for (int k = 0; k < AC_SOURCE_COUNT; k++)
		ac_buf_printf(&key, "%c%s", 0, opts->dir[k] ? opts->dir[k] : "");
	if (!key.data) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	ac_sha256_hex(hash, key.data, key.len);
	if ((rc = ac_buf_printf(&path, "%s/sources-%.32s.json", opts->cache_dir, hash)))
		goto done;
	*out = ac_buf_detach(&path);
done:
	ac_buf_free(&key);
	ac_buf_free(&path);
	return rc;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *entry_of(const ac_source_session *s)
{
	json_t *pending = json_array(), *e;

	for (size_t i = 0; i < s->npending; i++)
		json_array_append_new(pending, json_string(s->pending[i]));
	e = json_pack("{s:i, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:i, s:b, "
		      "s:I, s:I, s:I, s:I, s:I, s:o}",
		      "kind", (int)s->kind, "path", s->path, "id", str_or_null(s->id),
		      "cwd", str_or_null(s->cwd), "task", str_or_null(s->task),
		      "title", str_or_null(s->title), "model", str_or_null(s->model),
		      "started", str_or_null(s->started), "updated", str_or_null(s->updated),
		      "messages", (json_int_t)s->messages, "malformed", (json_int_t)s->malformed,
		      "turn", (int)s->turn, "approval", s->awaiting_approval,
		      "offset", (json_int_t)s->offset, "dev", (json_int_t)s->dev,
		      "ino", (json_int_t)s->ino, "size", (json_int_t)s->size,
		      "mtime", (json_int_t)s->mtime_ns, "pending", pending);
	/* Where the session sits: a sub-agent's first entry, read once, says. */
	if (e && (json_object_set_new(e, "relation", json_integer((json_int_t)s->relation)) ||
		  json_object_set_new(e, "parent", str_or_null(s->parent_id)) ||
		  json_object_set_new(e, "tokens", json_integer((json_int_t)s->tokens)) ||
		  json_object_set_new(e, "lastCall", json_integer((json_int_t)s->last_call)) ||
		  json_object_set_new(e, "lastAction", str_or_null(s->last_action)))) {
		json_decref(e);
		e = NULL;
	}
	return e;
}

int ac_source_cache_save(const char *path, ac_source_session *const *list, size_t n)
{
	json_t *doc = json_pack("{s:i, s:[]}", "version", CACHE_VERSION, "files"), *files;
	char *text = NULL, *slash, *dir = NULL;
	int rc = 0;

	if (!doc) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	files = json_object_get(doc, "files");
	for (size_t i = 0; i < n; i++) {
		json_t *e = list[i]->offset ? entry_of(list[i]) : NULL;

		if (e)
			json_array_append_new(files, e);
	}
	if (!(text = json_dumps(doc, JSON_COMPACT)) || !(dir = strdup(path))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	/* A cache is rebuilt after a crash: no fsync is worth its wait. */
	if ((rc = ac_file_mkdirs(dir)) == 0)
		rc = ac_atomic_write_unsynced(path, text, strlen(text));
done:
	free(dir);
	free(text);
	json_decref(doc);
	return rc;
}

static bool get_uint(uint64_t *out, const json_t *e, const char *key)
{
	const json_t *v = json_object_get(e, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return false;
	*out = (uint64_t)json_integer_value(v);
	return true;
}

static bool get_str(char **out, const json_t *e, const char *key)
{
	const json_t *v = json_object_get(e, key);

	if (json_is_null(v))
		return true;
	if (!json_is_string(v))
		return false;
	return ac_source_set(out, v) == 0;
}

/* Fills s (fresh, for the same path) from entry e when e is well formed
 * and still describes the file; false otherwise (s is then reset by the
 * caller's first read). */
static bool restore(ac_source_session *s, const json_t *e, const struct stat *st)
{
	uint64_t kind, turn, messages, malformed, offset, dev, ino, size, mtime, relation, tokens;
	const json_t *last_call = json_object_get(e, "lastCall");
	const json_t *pending = json_object_get(e, "pending"), *p;
	size_t i;

	if (!get_uint(&kind, e, "kind") || kind != (uint64_t)s->kind ||
	    !get_uint(&turn, e, "turn") || turn > AC_TURN_USER ||
	    !get_uint(&messages, e, "messages") || !get_uint(&malformed, e, "malformed") ||
	    !get_uint(&offset, e, "offset") || !get_uint(&dev, e, "dev") ||
	    !get_uint(&ino, e, "ino") || !get_uint(&size, e, "size") ||
	    !get_uint(&mtime, e, "mtime") || !json_is_boolean(json_object_get(e, "approval")) ||
	    /* An entry of a cache written before relations: read again. */
	    !get_uint(&relation, e, "relation") || relation > AC_SOURCE_SUBAGENT ||
	    !get_uint(&tokens, e, "tokens") || !json_is_integer(last_call) ||
	    !json_is_array(pending) || json_array_size(pending) > PENDING_MAX)
		return false;
	/* The same file, not shorter than what was read of it. */
	if (dev != (uint64_t)st->st_dev || ino != (uint64_t)st->st_ino || offset > size ||
	    size > (uint64_t)st->st_size || offset == 0)
		return false;
	if (!get_str(&s->id, e, "id") || !get_str(&s->cwd, e, "cwd") ||
	    !get_str(&s->task, e, "task") || !get_str(&s->title, e, "title") ||
	    !get_str(&s->model, e, "model") || !get_str(&s->started, e, "started") ||
	    !get_str(&s->updated, e, "updated") || !get_str(&s->parent_id, e, "parent") ||
	    !get_str(&s->last_action, e, "lastAction"))
		return false;
	s->relation = (ac_source_relation)relation;
	s->tokens = tokens;
	s->last_call = (uint64_t)json_integer_value(last_call); /* a hash: any 64 bits */
	json_array_foreach(pending, i, p)
		if (!json_is_string(p) || ac_source_pending_add(s, json_string_value(p)) != 0)
			return false;
	s->turn = (ac_turn)turn;
	s->messages = (size_t)messages;
	s->malformed = (size_t)malformed;
	s->awaiting_approval = json_is_true(json_object_get(e, "approval"));
	s->offset = offset;
	s->dev = dev;
	s->ino = ino;
	s->size = size;
	s->mtime_ns = (int64_t)mtime;
	s->mtime_ms = s->mtime_ns / 1000000;
	return true;
}

int ac_source_cache_load(json_t **out, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	json_t *doc;
	struct stat st;

	*out = NULL;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > CACHE_MAX_BYTES ||
	    ac_file_read(&text, &len, path) != 0) {
		ac_error_clear();
		return 0;
	}
	/* Megabytes at each start: the fast builder when it can. */
	if (!(doc = ac_json_fast_load(text, len)))
		doc = json_loadb(text, len, 0, NULL);
	free(text);
	if (json_integer_value(json_object_get(doc, "version")) != CACHE_VERSION ||
	    !json_is_array(json_object_get(doc, "files"))) {
		json_decref(doc); /* not ours, or torn: rebuilt */
		return 0;
	}
	*out = json_object();
	if (!*out) {
		json_decref(doc);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	{
		const json_t *files = json_object_get(doc, "files"), *e;
		size_t i;

		json_array_foreach(files, i, e) {
			const char *p = json_string_value(json_object_get(e, "path"));

			if (p && json_object_set(*out, p, (json_t *)e))
				break;
		}
	}
	json_decref(doc);
	return 0;
}

bool ac_source_cache_restore(ac_source_session *s, const json_t *cache)
{
	const json_t *e = json_object_get(cache, s->path);
	struct stat st;

	if (!e || lstat(s->path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	if (restore(s, e, &st))
		return true;
	/* Half filled: forgotten; the first read starts from the beginning. */
	s->dev = s->ino = s->size = 0;
	s->offset = 0;
	s->mtime_ns = 0;
	return false;
}
