/* Finding transcript files (ac_source_impl.h): a folder's entries by
 * name, then each one's lstat, then the found ones to the index.
 *
 * A warm `session list` of 200,000 transcripts is a stat per file more
 * than anything else (the kernel's lookup of each name): the entries of
 * a folder are read WALK_BATCH at a time, and while the caller's thread
 * takes the entries of one batch in turn (in the order the folder gave),
 * a second thread reads the next batch and stats it by name in the open
 * folder; the caller's thread, done with its batch, stats the rest of
 * the next with it (both take STAT_CHUNK entries at a time). The second
 * thread does nothing else. */
#include "ac_source_impl.h"

#include "ac_buf.h"
#include "ac_error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WALK_BATCH 4096
#define STAT_CHUNK 64 /* entries a thread takes at a time */

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

/* Stats the entries of b not yet taken, STAT_CHUNK at a time (*next:
 * the first not taken, shared by the threads). */
static void stat_chunks(batch *b, atomic_size_t *next)
{
	size_t from;

	while ((from = atomic_fetch_add(next, STAT_CHUNK)) < b->n) {
		size_t to = from + STAT_CHUNK < b->n ? from + STAT_CHUNK : b->n;

		for (size_t i = from; i < to; i++)
			b->ok[i] = fstatat(b->dir, b->names.data + b->at[i], &b->st[i],
					   AT_SYMLINK_NOFOLLOW) == 0;
	}
}

static int read_batch(batch *b, DIR *dir, bool *out_end);

/* The next batch, read and stat'ed on the second thread. */
typedef struct {
	batch *b;
	DIR *dir;
	bool end;
	int rc;
	atomic_size_t next; /* the first entry not yet taken to stat */
	bool read;          /* the batch is read (under lock): its entries may be taken */
	pthread_mutex_t lock;
	pthread_cond_t cond;
} ahead;

static void *stat_ahead(void *arg)
{
	ahead *a = arg;

	stat_chunks(a->b, &a->next);
	return NULL;
}

static void *read_ahead(void *arg)
{
	ahead *a = arg;
	int rc = read_batch(a->b, a->dir, &a->end);

	/* The error is the caller's to report, from its own thread. */
	a->rc = rc;
	pthread_mutex_lock(&a->lock);
	a->read = true;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	if (rc == 0)
		stat_chunks(a->b, &a->next);
	return NULL;
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

/* The first batch of a folder, stat'ed on two threads when it is large
 * enough (else here). */
static void stat_first(batch *b)
{
	atomic_size_t next = 0;
	ahead a = {.b = b};
	pthread_t thread;
	bool split = b->n >= 8 * STAT_CHUNK;

	atomic_init(&a.next, 0);
	/* The second thread only stats: as read_ahead() past its read. */
	split = split && pthread_create(&thread, NULL, stat_ahead, &a) == 0;
	stat_chunks(b, split ? &a.next : &next);
	if (split)
		pthread_join(thread, NULL);
}

/* Takes the entries of b in turn: folders walked, files to fn (or, not
 * named as the walk wants, to the unread one). */
static int take_batch(const batch *b, ac_buf *path, size_t base, const char *prefix,
		      const char *suffix, int depth, ac_source_found_fn fn, void *ctx)
{
	int rc = 0;

	for (size_t i = 0; i < b->n && rc == 0; i++) {
		const char *name = b->names.data + b->at[i];
		const struct stat *st = &b->st[i];

		if (!b->ok[i])
			continue;
		path->len = base;
		if ((rc = ac_buf_append(path, name, strlen(name))))
			break;
		if (S_ISDIR(st->st_mode) && depth > 0)
			rc = ac_source_walk(path->data, prefix, suffix, depth - 1, fn, ctx);
		else if (S_ISREG(st->st_mode) && name_fits(name, prefix, suffix))
			rc = fn(path->data, st, ctx);
		else if (S_ISREG(st->st_mode) && walk_unread_fn)
			rc = walk_unread_fn(path->data, st, walk_unread_ctx);
	}
	return rc;
}

static void batch_free(batch *b)
{
	ac_buf_free(&b->names);
	free(b->at);
	free(b->st);
	free(b->ok);
}

int ac_source_walk(const char *folder, const char *prefix, const char *suffix, int depth,
		   ac_source_found_fn fn, void *ctx)
{
	ac_buf path = AC_BUF_INIT;
	batch two[2] = {{.names = AC_BUF_INIT}, {.names = AC_BUF_INIT}};
	batch *cur = &two[0], *next = &two[1], *swap;
	DIR *dir = opendir(folder);
	bool end = false;
	size_t base;
	int rc = 0;

	if (!dir)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES
			       ? 0 : ac_error_errno(errno, "%s", folder);
	two[0].dir = two[1].dir = dirfd(dir);
	/* folder/, then each name after it */
	rc = ac_buf_printf(&path, "%s/", folder);
	base = path.len;
	if (rc == 0 && (rc = read_batch(cur, dir, &end)) == 0)
		stat_first(cur);
	while (rc == 0) {
		ahead a = {.b = next, .dir = dir};
		pthread_t thread;
		bool started = false;
		int taken;

		atomic_init(&a.next, 0);
		if (!end && pthread_mutex_init(&a.lock, NULL) == 0) {
			if (pthread_cond_init(&a.cond, NULL) == 0) {
				started = pthread_create(&thread, NULL, read_ahead, &a) == 0;
				if (!started)
					pthread_cond_destroy(&a.cond);
			}
			if (!started)
				pthread_mutex_destroy(&a.lock);
		}
		taken = take_batch(cur, &path, base, prefix, suffix, depth, fn, ctx);
		if (started) {
			/* Done here: the rest of the next batch's stats with
			 * the second thread, once it is read. */
			pthread_mutex_lock(&a.lock);
			while (!a.read)
				pthread_cond_wait(&a.cond, &a.lock);
			pthread_mutex_unlock(&a.lock);
			if (a.rc == 0)
				stat_chunks(next, &a.next);
			pthread_join(thread, NULL);
			pthread_cond_destroy(&a.cond);
			pthread_mutex_destroy(&a.lock);
			end = a.end;
			/* Its error was set on its thread: said again here. */
			if (a.rc && !taken)
				taken = ac_error_set(AC_ENOMEM, "out of memory");
		} else if (!end && !taken && (taken = read_batch(next, dir, &end)) == 0) {
			stat_first(next);
		} else if (end) {
			rc = taken;
			break;
		}
		if ((rc = taken))
			break;
		swap = cur;
		cur = next;
		next = swap;
	}
	closedir(dir);
	ac_buf_free(&path);
	batch_free(&two[0]);
	batch_free(&two[1]);
	return rc;
}
