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
 * After the magic, the offset of the record that starts the second half
 * of the records: a large file is read in two halves on two threads, the
 * second half kept only when the first ends exactly where it starts.
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
#include "ac_le.h"
#include "ac_sha256.h"
#include "ac_source_impl.h"
#include "ac_text.h"

#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bumped whenever a table below changes: an older file is then not ours. */
#define CACHE_MAGIC "agentctl sources cache 6\n" /* 6: where the second half starts */
#define CACHE_MAGIC_LEN (sizeof(CACHE_MAGIC) - 1)
#define RECORD_MAX (8u * 1024 * 1024) /* more is not a record of ours */
#define PENDING_MAX 4096
#define NO_STRING 0xffffffffu
#define HALVES_MIN 4096 /* fewer records are read on one thread */
#define READ_BYTES (1u << 20) /* megabytes of records: read a MiB at a time */

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

static int put_str(ac_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!s || n >= RECORD_MAX)
		return ac_le_put_u32(b, NO_STRING);
	return ac_le_put_u32(b, (uint32_t)n) || ac_buf_append(b, s, n);
}

static int put_record(ac_buf *b, const ac_source_session *s)
{
	size_t start = b->len;
	int rc = ac_le_put_u32(b, 0) || put_str(b, s->path) || ac_le_put_u64(b, (uint64_t)s->kind);

	for (size_t i = 0; i < N_STRINGS && rc == 0; i++)
		rc = put_str(b, *(char *const *)((const char *)s + string_fields[i]));
	rc = rc || ac_le_put_u64(b, s->messages) || ac_le_put_u64(b, s->malformed) ||
	     ac_le_put_u64(b, (uint64_t)s->turn) || ac_le_put_u64(b, s->awaiting_approval) ||
	     ac_le_put_u64(b, (uint64_t)s->relation) || ac_le_put_u64(b, s->offset) ||
	     ac_le_put_u64(b, s->dev) || ac_le_put_u64(b, s->ino) || ac_le_put_u64(b, s->size) ||
	     ac_le_put_u64(b, (uint64_t)s->mtime_ns) || ac_le_put_u64(b, s->unknown_other) ||
	     ac_le_put_u64(b, s->nunknown);
	for (size_t i = 0; i < s->nunknown && rc == 0; i++)
		rc = put_str(b, s->unknown[i].type) || ac_le_put_u64(b, s->unknown[i].count);
	rc = rc || ac_le_put_u64(b, s->npending);
	for (size_t i = 0; i < s->npending && rc == 0; i++)
		rc = put_str(b, s->pending[i]);
	/* The adapter's own: which title won (Claude), a fork's copy
	 * (Codex), a chat's messages by id (Gemini, as JSON: few files). */
	rc = rc || ac_le_put_u64(b, s->title_rank) || ac_le_put_u64(b, s->reader_flags) ||
	     ac_le_put_u64(b, (uint64_t)s->reader_mark[0]) ||
	     ac_le_put_u64(b, (uint64_t)s->reader_mark[1]) || ac_le_put_u64(b, s->tokens) ||
	     ac_le_put_u64(b, s->last_call) || ac_le_put_u64(b, s->last_call_tokens);
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
	ac_le_store_u32(b->data + start, (uint32_t)(b->len - start - 4));
	return 0;
}

int ac_source_cache_save(const char *path, ac_source_session *const *list, size_t n)
{
	ac_buf out = AC_BUF_INIT;
	char *slash, *dir = NULL;
	int rc;

	if ((rc = ac_buf_append(&out, CACHE_MAGIC, CACHE_MAGIC_LEN)) || (rc = ac_le_put_u64(&out, 0)))
		goto done;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (i == n / 2 && n >= HALVES_MIN)
			for (int b = 0; b < 8; b++)
				out.data[CACHE_MAGIC_LEN + (size_t)b] =
					(char)((uint64_t)out.len >> (8 * b));
		if (list[i]->offset && list[i]->path)
			rc = put_record(&out, list[i]);
	}
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

/* A string of the record, in place: valid UTF-8 without NUL, as every
 * string of a summary is, or the record is bad. n NO_STRING: none. */
typedef struct {
	const unsigned char *p;
	uint32_t n;
} view;

static void get_view(ac_le_reader *r, view *v)
{
	uint32_t n = ac_le_get_u32(r);

	*v = (view){NULL, NO_STRING};
	if (r->bad || n == NO_STRING)
		return;
	if (ac_le_left(r) < n || memchr(r->p, '\0', n) ||
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
static void get_str(ac_le_reader *r, char **out)
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
static ac_source_session *restore(ac_le_reader *r)
{
	ac_source_session *s = NULL;
	uint64_t kind, turn, approval, relation, nunknown, npending, title_rank, reader_flags;
	view path, strings[N_STRINGS];
	size_t bytes;
	char *text, *at;

	get_view(r, &path);
	kind = ac_le_get_u64(r);
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
	s->messages = (size_t)ac_le_get_u64(r);
	s->malformed = (size_t)ac_le_get_u64(r);
	turn = ac_le_get_u64(r);
	approval = ac_le_get_u64(r);
	relation = ac_le_get_u64(r);
	s->offset = ac_le_get_u64(r);
	s->dev = ac_le_get_u64(r);
	s->ino = ac_le_get_u64(r);
	s->size = ac_le_get_u64(r);
	s->mtime_ns = (int64_t)ac_le_get_u64(r);
	s->unknown_other = (size_t)ac_le_get_u64(r);
	nunknown = ac_le_get_u64(r);
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
		s->unknown[s->nunknown++].count = (size_t)ac_le_get_u64(r);
	}
	npending = ac_le_get_u64(r);
	if (npending > PENDING_MAX)
		r->bad = true;
	for (uint64_t i = 0; i < npending && !r->bad; i++) {
		get_str(r, &text);
		if (!text || ac_source_pending_add(s, text) != 0)
			r->bad = true;
		free(text);
	}
	title_rank = ac_le_get_u64(r);
	reader_flags = ac_le_get_u64(r);
	s->reader_flags = (uint32_t)reader_flags;
	s->reader_mark[0] = (int64_t)ac_le_get_u64(r);
	s->reader_mark[1] = (int64_t)ac_le_get_u64(r);
	s->tokens = ac_le_get_u64(r);
	s->last_call = ac_le_get_u64(r);
	s->last_call_tokens = ac_le_get_u64(r);
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

/* Records read from an open cache at an offset, a MiB at a time with
 * pread (the two halves share the descriptor). */
typedef struct {
	int fd;
	uint64_t at;        /* the file offset of buf[0] */
	unsigned char *buf;
	size_t cap, start, end; /* unread bytes: buf[start..end) */
	bool eof;
} stream;

/* n bytes unread in a row at buf + start, else false (the file ends, or
 * no memory: *out_rc). */
static bool need(stream *st, size_t n, int *out_rc)
{
	if (st->end - st->start >= n)
		return true;
	if (st->start)
		memmove(st->buf, st->buf + st->start, st->end - st->start);
	st->at += st->start;
	st->end -= st->start;
	st->start = 0;
	if (n > st->cap) {
		size_t cap = n > READ_BYTES ? n : READ_BYTES;
		unsigned char *grown = realloc(st->buf, cap);

		if (!grown) {
			*out_rc = AC_ENOMEM;
			return false;
		}
		st->buf = grown;
		st->cap = cap;
	}
	while (st->end < n && !st->eof) {
		ssize_t got = pread(st->fd, st->buf + st->end, st->cap - st->end,
				    (off_t)(st->at + st->end));

		if (got <= 0)
			st->eof = true;
		else
			st->end += (size_t)got;
	}
	return st->end >= n;
}

/* The next record (its bytes at *out, *out_len), else false: the file
 * ends, or what follows is torn or not ours (read again), or no memory
 * (*out_rc). */
static bool next_record(stream *st, const unsigned char **out, uint32_t *out_len, int *out_rc)
{
	const unsigned char *b;
	uint32_t len;

	if (!need(st, 4, out_rc))
		return false;
	b = st->buf + st->start;
	len = ac_le_load_u32(b);
	if (len > RECORD_MAX || !need(st, (size_t)len + 4, out_rc))
		return false;
	*out = st->buf + st->start + 4;
	*out_len = len;
	st->start += (size_t)len + 4;
	return true;
}

/* The second half: its sessions, in order, until the file ends or a
 * record is torn. */
typedef struct {
	stream st;
	ac_source_session **list;
	size_t n, cap;
	int rc; /* AC_ENOMEM, said again on the caller's thread */
} half;

static void *read_half(void *arg)
{
	half *h = arg;
	const unsigned char *record;
	uint32_t len;

	while (next_record(&h->st, &record, &len, &h->rc)) {
		ac_le_reader r = ac_le_reader_of(record, len);
		ac_source_session *s = restore(&r);

		if (!s)
			continue;
		if (h->n == h->cap) {
			size_t cap = h->cap ? h->cap * 2 : 1024;
			ac_source_session **grown = realloc(h->list, cap * sizeof(*grown));

			if (!grown) {
				ac_source_session_free(s);
				h->rc = AC_ENOMEM;
				break;
			}
			h->list = grown;
			h->cap = cap;
		}
		h->list[h->n++] = s;
	}
	ac_error_clear();
	return NULL;
}

int ac_source_cache_load(const char *path, ac_source_cache_fn fn, void *ctx)
{
	unsigned char head[CACHE_MAGIC_LEN + 8];
	const unsigned char *record;
	uint32_t len;
	uint64_t second = 0;
	stream st = {0};
	half h = {0};
	pthread_t thread;
	bool split = false, joined = false, done = false;
	struct stat sb;
	int rc = 0;

	/* Not ours (a link, a folder, a FIFO, another version): ignored,
	 * rewritten. Opened without following a link, never waiting. */
	if ((st.fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) < 0)
		return 0;
	if (fstat(st.fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    pread(st.fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
	    memcmp(head, CACHE_MAGIC, CACHE_MAGIC_LEN))
		goto out;
	for (int b = 0; b < 8; b++)
		second |= (uint64_t)head[CACHE_MAGIC_LEN + (size_t)b] << (8 * b);
	st.at = sizeof(head);
	/* The second half on a thread of its own from where the file says it
	 * starts; kept only if the first half ends there (else read on). */
	if (second > sizeof(head) && second < (uint64_t)sb.st_size) {
		h.st = (stream){.fd = st.fd, .at = second};
		split = pthread_create(&thread, NULL, read_half, &h) == 0;
	}
	while (!done && rc == 0) {
		if (split && !joined && st.at + st.start == second) {
			pthread_join(thread, NULL);
			joined = true;
			if (h.rc) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				break;
			}
			/* Its records are the ones that follow: taken in order. */
			for (size_t i = 0; i < h.n; i++) {
				ac_source_session *s = h.list[i];

				h.list[i] = NULL;
				if ((rc = fn(s, ctx)))
					break;
			}
			break;
		}
		if (!next_record(&st, &record, &len, &rc)) {
			if (rc)
				rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		{
			ac_le_reader r = ac_le_reader_of(record, len);
			ac_source_session *s = restore(&r);

			if (s && (rc = fn(s, ctx)))
				done = true;
		}
	}
	if (split && !joined)
		pthread_join(thread, NULL);
	for (size_t i = 0; i < h.n; i++)
		ac_source_session_free(h.list[i]);
	free(h.list);
	free(h.st.buf);
out:
	close(st.fd);
	free(st.buf);
	return rc;
}
