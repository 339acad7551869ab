/* What the transcript index read, kept between processes
 * ($XDG_CACHE_HOME/agentctl/sources-<hash>.bin, one per workspace and
 * scope), so that a new `session list` or dashboard reads only what was
 * appended since, not gigabytes of transcripts again.
 *
 * A compact binary file, not JSON: at 200,000 transcripts a JSON cache
 * built 200,000 jansson trees at each start (most of a 16 s warm list and
 * most of its 900 MB). Here a record is its length, then length-prefixed
 * strings and little-endian integers in the order of the tables below;
 * loading one allocates one block, the summary with its strings in it.
 *
 * The cache is input like any file: anyone who can write the folder can
 * write it. Every record is checked (bounds, enums, UTF-8 strings without
 * NUL); one that does not fit is dropped and its file read again, and a
 * file that is not ours is ignored and rewritten. Whether a record still
 * describes its file (identity, size, time) is the index's stat. It holds
 * only what the transcripts say (shown escaped, like them), never a
 * command. */
#include "ac_source_cache.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_sha256.h"
#include "ac_source_impl.h"
#include "ac_text.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Bumped whenever a table below changes: an older file is then not ours. */
#define CACHE_MAGIC "agentctl sources cache 5\n" /* 5: last_call_tokens */
#define CACHE_MAGIC_LEN (sizeof(CACHE_MAGIC) - 1)
#define RECORD_MAX (8u * 1024 * 1024) /* more is not a record of ours */
#define PENDING_MAX 4096
#define NO_STRING 0xffffffffu

/* The summary's strings, in record order (path first, apart). */
static const size_t string_fields[] = {
	offsetof(ac_source_session, id),
	offsetof(ac_source_session, cwd),
	offsetof(ac_source_session, task),
	offsetof(ac_source_session, title),
	offsetof(ac_source_session, model),
	offsetof(ac_source_session, started),
	offsetof(ac_source_session, updated),
	offsetof(ac_source_session, parent_id),
	offsetof(ac_source_session, last_action),
};
#define N_STRINGS (sizeof(string_fields) / sizeof(string_fields[0]))

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
	if ((rc = ac_buf_printf(&path, "%s/sources-%.32s.bin", opts->cache_dir, hash)))
		goto done;
	*out = ac_buf_detach(&path);
done:
	ac_buf_free(&key);
	ac_buf_free(&path);
	return rc;
}

/* ---- writing ---- */

static int put_u64(ac_buf *b, uint64_t v)
{
	unsigned char bytes[8];

	for (int i = 0; i < 8; i++)
		bytes[i] = (unsigned char)(v >> (8 * i));
	return ac_buf_append(b, bytes, sizeof(bytes));
}

static int put_u32(ac_buf *b, uint32_t v)
{
	unsigned char bytes[4];

	for (int i = 0; i < 4; i++)
		bytes[i] = (unsigned char)(v >> (8 * i));
	return ac_buf_append(b, bytes, sizeof(bytes));
}

static int put_str(ac_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!s || n >= RECORD_MAX)
		return put_u32(b, NO_STRING);
	return put_u32(b, (uint32_t)n) || ac_buf_append(b, s, n);
}

static int put_record(ac_buf *b, const ac_source_session *s)
{
	size_t start = b->len;
	int rc = put_u32(b, 0) || put_str(b, s->path) || put_u64(b, (uint64_t)s->kind);

	for (size_t i = 0; i < N_STRINGS && rc == 0; i++)
		rc = put_str(b, *(char *const *)((const char *)s + string_fields[i]));
	rc = rc || put_u64(b, s->messages) || put_u64(b, s->malformed) ||
	     put_u64(b, (uint64_t)s->turn) || put_u64(b, s->awaiting_approval) ||
	     put_u64(b, (uint64_t)s->relation) || put_u64(b, s->offset) || put_u64(b, s->dev) ||
	     put_u64(b, s->ino) || put_u64(b, s->size) || put_u64(b, (uint64_t)s->mtime_ns) ||
	     put_u64(b, s->unknown_other) || put_u64(b, s->nunknown);
	for (size_t i = 0; i < s->nunknown && rc == 0; i++)
		rc = put_str(b, s->unknown[i].type) || put_u64(b, s->unknown[i].count);
	rc = rc || put_u64(b, s->npending);
	for (size_t i = 0; i < s->npending && rc == 0; i++)
		rc = put_str(b, s->pending[i]);
	/* The adapter's own: which title won (Claude), a fork's copy
	 * (Codex), a chat's messages by id (Gemini, as JSON: few files). */
	rc = rc || put_u64(b, s->title_rank) || put_u64(b, s->reader_flags) ||
	     put_u64(b, (uint64_t)s->reader_mark[0]) || put_u64(b, (uint64_t)s->reader_mark[1]) ||
	     put_u64(b, s->tokens) || put_u64(b, s->last_call) || put_u64(b, s->last_call_tokens);
	if (rc == 0) {
		const ac_source_adapter *a = ac_source_adapter_of(s->kind);
		json_t *state = a && a->state_save ? a->state_save(s) : NULL;
		char *text = state ? json_dumps(state, JSON_COMPACT) : NULL;

		rc = put_str(b, text);
		free(text);
		json_decref(state);
	}
	if (rc)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (b->len - start - 4 > RECORD_MAX) {
		b->len = start; /* not kept: read again next time */
		return 0;
	}
	for (int i = 0; i < 4; i++)
		b->data[start + (size_t)i] = (char)((uint32_t)(b->len - start - 4) >> (8 * i));
	return 0;
}

int ac_source_cache_save(const char *path, ac_source_session *const *list, size_t n)
{
	ac_buf out = AC_BUF_INIT;
	char *slash, *dir = NULL;
	int rc;

	if ((rc = ac_buf_append(&out, CACHE_MAGIC, CACHE_MAGIC_LEN)))
		goto done;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (list[i]->offset && list[i]->path)
			rc = put_record(&out, list[i]);
	if (rc)
		goto done;
	if (!(dir = strdup(path))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	/* A cache is rebuilt after a crash: no fsync is worth its wait. */
	if ((rc = ac_file_mkdirs(dir)) == 0)
		rc = ac_atomic_write_unsynced(path, out.data, out.len);
done:
	free(dir);
	ac_buf_free(&out);
	return rc;
}

/* ---- reading ---- */

typedef struct {
	const unsigned char *p, *end;
	bool bad;
} reader;

static uint64_t get_u64(reader *r)
{
	uint64_t v = 0;

	if (r->bad || r->end - r->p < 8) {
		r->bad = true;
		return 0;
	}
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += 8;
	return v;
}

static uint32_t get_u32(reader *r)
{
	uint32_t v = 0;

	if (r->bad || r->end - r->p < 4) {
		r->bad = true;
		return 0;
	}
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)r->p[i] << (8 * i);
	r->p += 4;
	return v;
}

/* A string of the record, in place: valid UTF-8 without NUL, as every
 * string of a summary is, or the record is bad. n NO_STRING: none. */
typedef struct {
	const unsigned char *p;
	uint32_t n;
} view;

static void get_view(reader *r, view *v)
{
	uint32_t n = get_u32(r);

	*v = (view){NULL, NO_STRING};
	if (r->bad || n == NO_STRING)
		return;
	if ((size_t)(r->end - r->p) < n || memchr(r->p, '\0', n) ||
	    !ac_text_is_utf8((const char *)r->p, n)) {
		r->bad = true;
		return;
	}
	*v = (view){r->p, n};
	r->p += n;
}

/* v copied to *at (advanced past it), NUL-terminated: the bytes are not
 * (strndup may look one past them, and a string can end the record).
 * NULL for none. */
static char *put_view(char **at, const view *v)
{
	char *s = *at;

	if (v->n == NO_STRING)
		return NULL;
	memcpy(s, v->p, v->n);
	s[v->n] = '\0';
	*at += (size_t)v->n + 1;
	return s;
}

/* A string of the record into *out (NULL for none), allocated. */
static void get_str(reader *r, char **out)
{
	view v;
	char *at;

	get_view(r, &v);
	*out = NULL;
	if (v.n != NO_STRING && !r->bad && !(*out = at = malloc((size_t)v.n + 1)))
		r->bad = true;
	else if (*out)
		put_view(&at, &v);
}

/* The adapter's own state from its JSON (NULL: none kept); false when it
 * does not fit s, which is then read from its start. */
static bool adapter_restored(ac_source_session *s, const char *text)
{
	const ac_source_adapter *a = ac_source_adapter_of(s->kind);
	json_t *saved;
	bool ok;

	/* The adapter may change a string (the path says again where a
	 * Gemini chat sits). */
	if (!a || !a->state_restore)
		return true;
	if (ac_source_session_own(s))
		return false;
	saved = text ? json_loads(text, 0, NULL) : NULL;
	if (text && !saved)
		return false;
	ok = a->state_restore(s, saved);
	json_decref(saved);
	return ok;
}

/* The session a record describes (new), or NULL when it does not fit. */
static ac_source_session *restore(reader *r)
{
	ac_source_session *s = NULL;
	uint64_t kind, turn, approval, relation, nunknown, npending, title_rank, reader_flags;
	view path, strings[N_STRINGS];
	size_t bytes;
	char *text, *at;

	get_view(r, &path);
	kind = get_u64(r);
	for (size_t i = 0; i < N_STRINGS; i++)
		get_view(r, &strings[i]);
	if (r->bad || path.n == NO_STRING || path.n == 0 || kind >= AC_SOURCE_COUNT)
		return NULL;
	/* The session and its strings in one block (packed). */
	bytes = sizeof(*s) + path.n + 1;
	for (size_t i = 0; i < N_STRINGS; i++)
		bytes += strings[i].n == NO_STRING ? 0 : (size_t)strings[i].n + 1;
	if (!(s = malloc(bytes)))
		return NULL;
	memset(s, 0, sizeof(*s));
	at = (char *)(s + 1);
	s->packed = true;
	s->path = put_view(&at, &path);
	s->kind = (ac_source_kind)kind;
	for (size_t i = 0; i < N_STRINGS; i++)
		*(char **)((char *)s + string_fields[i]) = put_view(&at, &strings[i]);
	s->messages = (size_t)get_u64(r);
	s->malformed = (size_t)get_u64(r);
	turn = get_u64(r);
	approval = get_u64(r);
	relation = get_u64(r);
	s->offset = get_u64(r);
	s->dev = get_u64(r);
	s->ino = get_u64(r);
	s->size = get_u64(r);
	s->mtime_ns = (int64_t)get_u64(r);
	s->unknown_other = (size_t)get_u64(r);
	nunknown = get_u64(r);
	if (turn > AC_TURN_USER || approval > 1 || relation > AC_SOURCE_SUBAGENT ||
	    nunknown > AC_SOURCE_UNKNOWN_TYPES || s->offset == 0 || s->offset > s->size)
		r->bad = true;
	for (uint64_t i = 0; i < nunknown && !r->bad; i++) {
		get_str(r, &text);
		if (!text) {
			r->bad = true;
			break;
		}
		s->unknown[s->nunknown].type = text;
		s->unknown[s->nunknown++].count = (size_t)get_u64(r);
	}
	npending = get_u64(r);
	if (npending > PENDING_MAX)
		r->bad = true;
	for (uint64_t i = 0; i < npending && !r->bad; i++) {
		get_str(r, &text);
		if (!text || ac_source_pending_add(s, text) != 0)
			r->bad = true;
		free(text);
	}
	title_rank = get_u64(r);
	reader_flags = get_u64(r);
	s->reader_flags = (uint32_t)reader_flags;
	s->reader_mark[0] = (int64_t)get_u64(r);
	s->reader_mark[1] = (int64_t)get_u64(r);
	s->tokens = get_u64(r);
	s->last_call = get_u64(r);
	s->last_call_tokens = get_u64(r);
	get_str(r, &text);
	if (title_rank > 3 || reader_flags > UINT32_MAX)
		r->bad = true;
	s->title_rank = (unsigned char)title_rank;
	s->relation = (ac_source_relation)relation;
	if (!r->bad && r->p == r->end && !adapter_restored(s, text))
		r->bad = true;
	free(text);
	if (r->bad || r->p != r->end) {
		ac_error_clear();
		ac_source_session_free(s);
		return NULL;
	}
	s->turn = (ac_turn)turn;
	s->awaiting_approval = approval;
	s->relation = (ac_source_relation)relation;
	s->mtime_ms = s->mtime_ns / 1000000;
	return s;
}

static bool read_exact(FILE *f, void *buf, size_t n)
{
	return fread(buf, 1, n, f) == n;
}

int ac_source_cache_load(const char *path, ac_source_cache_fn fn, void *ctx)
{
	unsigned char *record = NULL, head[CACHE_MAGIC_LEN];
	size_t cap = 0;
	struct stat st;
	int rc = 0;
	FILE *f;

	/* Not ours (a link, a folder, another version): ignored, rewritten. */
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(f = fopen(path, "rbe")))
		return 0;
	/* Megabytes of records: read a MiB at a time, not stdio's 4 KiB. */
	setvbuf(f, NULL, _IOFBF, 1u << 20);
	if (!read_exact(f, head, CACHE_MAGIC_LEN) || memcmp(head, CACHE_MAGIC, CACHE_MAGIC_LEN))
		goto done;
	for (;;) {
		unsigned char len_bytes[4];
		reader r;
		uint32_t len;
		ac_source_session *s;

		if (!read_exact(f, len_bytes, 4))
			break;
		len = (uint32_t)len_bytes[0] | (uint32_t)len_bytes[1] << 8 |
		      (uint32_t)len_bytes[2] << 16 | (uint32_t)len_bytes[3] << 24;
		if (len > RECORD_MAX)
			break; /* torn or not ours: what follows is read again */
		if (len > cap) {
			unsigned char *grown = realloc(record, len);

			if (!grown) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				break;
			}
			record = grown;
			cap = len;
		}
		if (!read_exact(f, record, len))
			break;
		r = (reader){record, record + len, false};
		if ((s = restore(&r)) && (rc = fn(s, ctx)))
			break;
	}
done:
	fclose(f);
	free(record);
	return rc;
}
