/* What the session listing read, kept between processes
 * ($XDG_CACHE_HOME/agentctl/sessions-<hash>.bin, one per session folder),
 * so that `session list` and the dashboard's first screen read only the
 * session files that changed since, not every file of the folder again.
 *
 * The format follows the transcript cache's (ac_source_cache.c) and the
 * usage index's (ac_usage_index.c): binary, little-endian, a record is its
 * length then length-prefixed strings and 64-bit integers, and the whole
 * file is closed by a checksum (ac_hash64, at memory speed: FNV-1a cost a
 * warm listing of 10,000 sessions 5 ms), so that a torn or
 * damaged file is thrown away whole, never half believed.
 *
 * The cache is input like any file and never trusted for correctness: one
 * that another user owns or others may write, a link, another version or a
 * cache of another folder (device and inode) is ignored and rewritten;
 * every record is checked (bounds, string layout). Whether a record still
 * describes its file is the index's stat (ac_session_index.c): any change
 * of name, size, inode, mtime or ctime and the file is read again. */
#include "ac_session_cache.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_hash64.h"
#include "ac_le.h"
#include "ac_sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bumped whenever the record changes: an older file is then not ours. */
#define CACHE_MAGIC "agentctl sessions cache 2\n"
#define CACHE_MAGIC_LEN (sizeof(CACHE_MAGIC) - 1)
#define HEAD_LEN (CACHE_MAGIC_LEN + 3 * 8) /* magic, folder dev and inode, count */
#define SUM_SEED UINT64_C(0x736573732d636163) /* "sess-cac" */
#define STRINGS_MAX (64u * 1024 * 1024) /* more is not a record of ours */
#define CACHE_MAX ((size_t)1 << 31)
#define N_STRINGS 8

int ac_session_cache_path(char **out, const char *dir)
{
	const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char hash[AC_SHA256_HEX_LEN + 1];
	char resolved[PATH_MAX];
	const char *key = realpath(dir, resolved) ? resolved : dir;
	ac_buf b = AC_BUF_INIT;

	*out = NULL;
	/* The folder is the key: another folder, another cache. */
	ac_sha256_hex(hash, key, strlen(key));
	if (cache && cache[0] == '/')
		ac_buf_printf(&b, "%s/agentctl/sessions-%.32s.bin", cache, hash);
	else if (home && home[0] == '/')
		ac_buf_printf(&b, "%s/.cache/agentctl/sessions-%.32s.bin", home, hash);
	else
		return 0;
	if (!b.data)
		return ac_error_set(AC_ENOMEM, "out of memory");
	*out = ac_buf_detach(&b);
	return 0;
}

/* ---- writing ---- */

static int put_bytes(ac_buf *b, const char *s, size_t n)
{
	return ac_le_put_u32(b, (uint32_t)n) || ac_buf_append(b, s, n);
}

static int put_record(ac_buf *b, const ac_session_cache_record *r)
{
	const ac_session_summary *s = &r->summary;
	size_t start = b->len;
	int rc;

	if (r->strings_len > STRINGS_MAX)
		return 0; /* not kept: read again next time */
	rc = ac_le_put_u32(b, 0) || put_bytes(b, r->name, strlen(r->name)) ||
	     ac_le_put_u64(b, r->ino) || ac_le_put_u64(b, r->size) ||
	     ac_le_put_u64(b, (uint64_t)r->mtime.tv_sec) ||
	     ac_le_put_u64(b, (uint64_t)r->mtime.tv_nsec) ||
	     ac_le_put_u64(b, (uint64_t)r->ctime.tv_sec) ||
	     ac_le_put_u64(b, (uint64_t)r->ctime.tv_nsec) || ac_le_put_u64(b, s->messages) ||
	     ac_le_put_u64(b, s->tokens) || ac_le_put_u64(b, s->input_tokens) ||
	     ac_le_put_u64(b, s->output_tokens) || ac_le_put_u64(b, s->turns) ||
	     ac_le_put_u64(b, s->task_len) ||
	     put_bytes(b, r->strings, r->strings_len);
	if (rc)
		return ac_error_set(AC_ENOMEM, "out of memory");
	ac_le_store_u32(b->data + start, (uint32_t)(b->len - start - 4));
	return 0;
}

int ac_session_cache_save(const char *path, uint64_t dir_dev, uint64_t dir_ino,
			  const ac_session_cache_record *records, size_t n)
{
	ac_buf out = AC_BUF_INIT;
	char *slash, *dir = NULL;
	int rc;

	if ((rc = ac_buf_append(&out, CACHE_MAGIC, CACHE_MAGIC_LEN)) ||
	    (rc = ac_le_put_u64(&out, dir_dev)) || (rc = ac_le_put_u64(&out, dir_ino)) ||
	    (rc = ac_le_put_u64(&out, n)))
		goto oom;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = put_record(&out, &records[i]);
	if (rc || (rc = ac_le_put_u64(&out, ac_hash64(SUM_SEED, out.data, out.len))))
		goto oom;
	if (!(dir = strdup(path)))
		goto oom;
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	/* A cache is rebuilt after a crash: no fsync is worth its wait. */
	if ((rc = ac_file_mkdirs(dir)) == 0)
		rc = ac_atomic_write_unsynced(path, out.data, out.len);
	goto done;
oom:
	rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	free(dir);
	ac_buf_free(&out);
	return rc;
}

/* ---- reading ---- */

/* Length-prefixed bytes of the record in place (*out_len of them), NULL
 * when they do not fit. */
static const char *get_bytes(ac_le_reader *r, size_t *out_len)
{
	uint32_t n = ac_le_get_u32(r);
	const char *s = (const char *)ac_le_get_bytes(r, n);

	*out_len = s ? n : 0;
	return s;
}

/* Points the summary's strings into strings[0..len), laid out as the
 * index lays them out (ac_session_cache_record); false when they are not. */
static bool place_strings(ac_session_summary *s, const char *strings, size_t len)
{
	const char **targets[N_STRINGS] = {&s->id, &s->task, &s->status, &s->created_at,
					   &s->updated_at, &s->tenant, &s->user, &s->agent};
	size_t at = 0;

	for (int i = 0; i < N_STRINGS; i++) {
		const char *end;
		size_t n;

		if (at >= len)
			return false;
		if (i == 1) { /* the task may hold a NUL: its length says where it ends */
			if (s->task_len >= len - at || strings[at + s->task_len] != '\0')
				return false;
			n = s->task_len;
		} else if ((end = memchr(strings + at, '\0', len - at))) {
			n = (size_t)(end - (strings + at));
		} else {
			return false;
		}
		*targets[i] = strings + at;
		at += n + 1;
	}
	return at == len && *s->id;
}

struct ac_session_cache {
	char *data;          /* the file, checked */
	size_t len;
	const char *records; /* the first record, after the head */
	uint64_t count;
	char *names;         /* each record's name with a NUL (the file has none) */
};

/* The record at r to fn, its name copied to *names with its NUL, or
 * nothing when it does not fit. */
static int take_record(ac_le_reader *r, char **names, ac_session_cache_fn fn, void *ctx)
{
	ac_session_cache_record rec = {0};
	const char *name, *strings;
	size_t name_len = 0, strings_len = 0;
	uint64_t task_len;

	name = get_bytes(r, &name_len);
	rec.ino = ac_le_get_u64(r);
	rec.size = ac_le_get_u64(r);
	rec.mtime.tv_sec = (time_t)ac_le_get_u64(r);
	rec.mtime.tv_nsec = (long)ac_le_get_u64(r);
	rec.ctime.tv_sec = (time_t)ac_le_get_u64(r);
	rec.ctime.tv_nsec = (long)ac_le_get_u64(r);
	rec.summary.messages = (size_t)ac_le_get_u64(r);
	rec.summary.tokens = ac_le_get_u64(r);
	rec.summary.input_tokens = ac_le_get_u64(r);
	rec.summary.output_tokens = ac_le_get_u64(r);
	rec.summary.turns = ac_le_get_u64(r);
	task_len = ac_le_get_u64(r);
	strings = get_bytes(r, &strings_len);
	if (r->bad || r->p != r->end || name_len <= 5 || memchr(name, '\0', name_len) ||
	    memchr(name, '/', name_len) || memcmp(name + name_len - 5, ".json", 5) ||
	    rec.mtime.tv_nsec < 0 || rec.mtime.tv_nsec >= 1000000000L ||
	    rec.ctime.tv_nsec < 0 || rec.ctime.tv_nsec >= 1000000000L || task_len > strings_len)
		return 0;
	rec.summary.task_len = (size_t)task_len;
	/* In place: the checksum held, and the block ends with its NUL. */
	if (!place_strings(&rec.summary, strings, strings_len))
		return 0;
	memcpy(*names, name, name_len);
	(*names)[name_len] = '\0';
	rec.name = *names;
	*names += name_len + 1;
	rec.strings = strings;
	rec.strings_len = strings_len;
	return fn(&rec, ctx);
}

/* The whole file at fd, if it is ours to believe: a regular file of this
 * user that no one else may write. */
static bool read_ours(char **out, size_t *out_len, int fd)
{
	struct stat st;
	size_t got = 0;
	char *data;

	*out = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size < (off_t)(HEAD_LEN + 8) ||
	    (uint64_t)st.st_size > CACHE_MAX || !(data = malloc((size_t)st.st_size)))
		return false;
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, data + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got != (size_t)st.st_size) {
		free(data);
		return false;
	}
	*out = data;
	*out_len = got;
	return true;
}

/* The checked cache for that folder, or NULL when data is not one. */
static ac_session_cache *checked(char *data, size_t len, uint64_t dir_dev, uint64_t dir_ino)
{
	ac_session_cache *cache;
	ac_le_reader r, sum;

	if (memcmp(data, CACHE_MAGIC, CACHE_MAGIC_LEN))
		return NULL;
	sum = ac_le_reader_of(data + len - 8, 8);
	if (ac_le_get_u64(&sum) != ac_hash64(SUM_SEED, data, len - 8))
		return NULL;
	r = ac_le_reader_of(data + CACHE_MAGIC_LEN, len - 8 - CACHE_MAGIC_LEN);
	if (ac_le_get_u64(&r) != dir_dev || ac_le_get_u64(&r) != dir_ino)
		return NULL;
	if (!(cache = calloc(1, sizeof(*cache))))
		return NULL;
	cache->count = ac_le_get_u64(&r);
	cache->records = (const char *)r.p;
	cache->data = data;
	cache->len = len;
	return cache;
}

int ac_session_cache_load(ac_session_cache **out, const char *path, uint64_t dir_dev,
			  uint64_t dir_ino)
{
	char *data = NULL;
	size_t len = 0;
	int fd;

	*out = NULL;
	/* Opened without following a link, never waiting (a FIFO). */
	if (!path || (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) < 0)
		return 0;
	if (read_ours(&data, &len, fd) && !(*out = checked(data, len, dir_dev, dir_ino)))
		free(data);
	close(fd);
	return 0;
}

size_t ac_session_cache_count(const ac_session_cache *cache)
{
	return cache && cache->count < SIZE_MAX ? (size_t)cache->count : 0;
}

int ac_session_cache_each(ac_session_cache *cache, ac_session_cache_fn fn, void *ctx)
{
	ac_le_reader r;
	char *names;
	int rc = 0;

	if (!cache)
		return 0;
	/* Names are shorter than the file: room for them all, touched only
	 * as far as they go. */
	free(cache->names);
	if (!(cache->names = malloc(cache->len)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	names = cache->names;
	r = ac_le_reader_of(cache->records, (size_t)(cache->data + cache->len - 8 - cache->records));
	for (uint64_t i = 0; i < cache->count && rc == 0; i++) {
		size_t record_len = 0;
		const char *record = get_bytes(&r, &record_len);
		ac_le_reader one;

		if (r.bad)
			break;
		one = ac_le_reader_of(record, record_len);
		rc = take_record(&one, &names, fn, ctx);
	}
	return rc;
}

void ac_session_cache_free(ac_session_cache *cache)
{
	if (!cache)
		return;
	free(cache->data);
	free(cache->names);
	free(cache);
}
