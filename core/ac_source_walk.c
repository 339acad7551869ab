/* Finding transcript files (ac_source_impl.h): a folder's entries by
 * name, then each one's lstat, then the found ones to the index.
 *
 * A warm `session list` of 200,000 transcripts is a stat per file more
 * than anything else (the kernel's lookup of each name): the entries of
 * a folder are read WALK_BATCH at a time and a large batch is stat'ed
 * on two threads, each half by name in the open folder. The threads do
 * nothing else: every entry is then taken in turn, in the order the
 * folder gave, on the caller's thread. */
#include "ac_source_impl.h"

#include "ac_buf.h"
#include "ac_error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WALK_BATCH 4096
#define WALK_SPLIT 512 /* a smaller batch is not worth a thread */

static bool name_fits(const char *name, const char *prefix, const char *suffix)
{
	size_t n = strlen(name), np = strlen(prefix), ns = strlen(suffix);

	return n >= np + ns && !strncmp(name, prefix, np) && !strcmp(name + n - ns, suffix);
}

static _Thread_local ac_source_found_fn walk_unread_fn;
static _Thread_local void *walk_unread_ctx;

void ac_source_walk_unread(ac_source_found_fn fn, void *ctx)
{
	walk_unread_fn = fn;
	walk_unread_ctx = ctx;
}

int ac_source_walk_passed(const char *path, const struct stat *st)
{
	return walk_unread_fn ? walk_unread_fn(path, st, walk_unread_ctx) : 0;
}

/* A batch of a folder's entries: names (each NUL-terminated, at its
 * offset) and, once stat'ed, their lstat. */
typedef struct {
	int dir;
	ac_buf names;
	size_t *at;
	struct stat *st;
	bool *ok; /* the lstat succeeded */
	size_t n, cap;
} batch;

typedef struct {
	batch *b;
	size_t from, to;
} stat_range;

static void *stat_some(void *arg)
{
	const stat_range *r = arg;
	batch *b = r->b;

	for (size_t i = r->from; i < r->to; i++)
		b->ok[i] = fstatat(b->dir, b->names.data + b->at[i], &b->st[i],
				   AT_SYMLINK_NOFOLLOW) == 0;
	return NULL;
}

/* The first half on a thread of its own, when there are enough (and it
 * starts: else all here). */
static void stat_batch(batch *b)
{
	stat_range first = {b, 0, b->n / 2}, second = {b, b->n / 2, b->n};
	pthread_t thread;
	bool split = b->n >= WALK_SPLIT && pthread_create(&thread, NULL, stat_some, &first) == 0;

	if (!split)
		second.from = 0;
	stat_some(&second);
	if (split)
		pthread_join(thread, NULL);
}

static int add_name(batch *b, const char *name)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		size_t *at = realloc(b->at, cap * sizeof(*at));
		struct stat *st = at ? realloc(b->st, cap * sizeof(*st)) : NULL;
		bool *ok = st ? realloc(b->ok, cap * sizeof(*ok)) : NULL;

		if (at)
			b->at = at;
		if (st)
			b->st = st;
		if (!ok)
			return ac_error_set(AC_ENOMEM, "out of memory");
		b->ok = ok;
		b->cap = cap;
	}
	b->at[b->n] = b->names.len;
	if (ac_buf_append(&b->names, name, strlen(name) + 1))
		return ac_error_set(AC_ENOMEM, "out of memory");
	b->n++;
	return 0;
}

/* Reads up to WALK_BATCH entries of dir (none hidden) into b. */
static int read_batch(batch *b, DIR *dir, bool *out_end)
{
	struct dirent *d = NULL;
	int rc = 0;

	b->n = 0;
	ac_buf_clear(&b->names);
	while (b->n < WALK_BATCH && (d = readdir(dir)))
		if (d->d_name[0] != '.' && (rc = add_name(b, d->d_name)))
			break;
	*out_end = d == NULL;
	return rc;
}

int ac_source_walk(const char *folder, const char *prefix, const char *suffix, int depth,
		   ac_source_found_fn fn, void *ctx)
{
	ac_buf path = AC_BUF_INIT;
	batch b = {.names = AC_BUF_INIT};
	DIR *dir = opendir(folder);
	bool end = false;
	size_t base;
	int rc = 0;

	if (!dir)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES
			       ? 0 : ac_error_errno(errno, "%s", folder);
	b.dir = dirfd(dir);
	/* folder/, then each name after it */
	rc = ac_buf_printf(&path, "%s/", folder);
	base = path.len;
	while (!end && rc == 0 && (rc = read_batch(&b, dir, &end)) == 0) {
		stat_batch(&b);
		for (size_t i = 0; i < b.n && rc == 0; i++) {
			const char *name = b.names.data + b.at[i];
			const struct stat *st = &b.st[i];

			if (!b.ok[i])
				continue;
			path.len = base;
			if ((rc = ac_buf_append(&path, name, strlen(name))))
				break;
			if (S_ISDIR(st->st_mode) && depth > 0)
				rc = ac_source_walk(path.data, prefix, suffix, depth - 1, fn, ctx);
			else if (S_ISREG(st->st_mode) && name_fits(name, prefix, suffix))
				rc = fn(path.data, st, ctx);
			else if (S_ISREG(st->st_mode) && walk_unread_fn)
				rc = walk_unread_fn(path.data, st, walk_unread_ctx);
		}
	}
	closedir(dir);
	ac_buf_free(&path);
	ac_buf_free(&b.names);
	free(b.at);
	free(b.st);
	free(b.ok);
	return rc;
}
