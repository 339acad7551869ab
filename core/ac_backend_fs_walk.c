/* The file-system backend: walking a log one record at a time.
 *
 * Records are appended in seq order under the log's lock, so a log is
 * normally sorted as it lies: a first pass checks that from each line's
 * leading seq without parsing, then the lines are parsed in batches on a
 * second thread while the caller's function handles the batch before, so
 * parsing (two thirds of showing a trace) and the caller's work overlap on
 * two cores. Memory holds a few batches, whatever the log's size. A log
 * out of order (a writer that skipped the lock) is loaded and sorted
 * whole, as ac_backend_fs_log_load() does. */
#include "ac_backend_fs_impl.h"

#include "ac_error.h"
#include "ac_file.h"
#include "ac_journal_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BATCH_RECORDS 256 /* records parsed per hand-over */
#define BATCHES_AHEAD 3   /* parsed batches waiting at most */

/* ---- lines ---- */

typedef int (*line_fn)(const char *text, size_t len, void *ctx);

/* Calls fn for each line of path[0..end), and for the piece after its last
 * newline (a complete record there lost only its newline, see the logs'
 * highest_seq); an over-long line (never appended) counts as skipped. A
 * non-zero return from fn stops the walk and is returned. */
static int each_line(const char *path, uint64_t end, line_fn fn, void *ctx, size_t *skipped)
{
	ac_journal_reader *r = NULL;
	ac_journal_line line;
	uint64_t tail_at, tail_len;
	char *tail = NULL;
	int rc, fd = -1;

	if ((rc = ac_journal_reader_open(&r, path, 0, end, 1)))
		return rc;
	while ((rc = ac_journal_reader_next(r, &line)) == 1) {
		if (line.overlong)
			(*skipped)++;
		else if (line.len && (rc = fn(line.text, line.len, ctx)))
			goto done;
	}
	if (rc < 0 || !(tail_len = ac_journal_reader_tail(r, &tail_at)))
		goto done;
	if (tail_len > AC_JOURNAL_MAX_LINE) {
		(*skipped)++;
		goto done;
	}
	if (!(tail = malloc((size_t)tail_len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY | O_NOFOLLOW, 0, path)))
		goto done;
	if (pread(fd, tail, (size_t)tail_len, (off_t)tail_at) != (ssize_t)tail_len)
		rc = ac_error_errno(errno ? errno : EIO, "%s: read at byte %llu", path,
				    (unsigned long long)tail_at);
	else
		rc = fn(tail, (size_t)tail_len, ctx);
done:
	if (fd >= 0)
		close(fd);
	free(tail);
	ac_journal_reader_free(r);
	return rc;
}

/* ---- the order check ---- */

/* The seq a line starts with as an append writes it ({"seq":N,...}),
 * found without parsing; otherwise the parse's. A line this reads a seq
 * from that the parse would refuse only makes the check stricter; a torn
 * line (no closing brace) is parsed, so a crash's leftover does not cost
 * the walk. */
static uint64_t quick_seq(const char *text, size_t len)
{
	static const char lead[] = "{\"seq\":";
	size_t i = sizeof(lead) - 1, digits = i;
	uint64_t seq = 0;

	if (len > i && !memcmp(text, lead, i) && text[len - 1] == '}') {
		while (i < len && text[i] >= '0' && text[i] <= '9' && seq < UINT64_MAX / 10 - 9)
			seq = seq * 10 + (uint64_t)(text[i++] - '0');
		if (i > digits && i < len && text[i] == ',')
			return seq;
	}
	return ac_backend_fs_record_seq(text, len, NULL);
}

#define OUT_OF_ORDER 1 /* check_order's stop: not an AC_E* code */

static int check_order(const char *text, size_t len, void *ctx)
{
	uint64_t *last = ctx, seq = quick_seq(text, len);

	if (!seq)
		return 0;
	if (seq <= *last)
		return OUT_OF_ORDER;
	*last = seq;
	return 0;
}

/* ---- parsing ahead ---- */

typedef struct {
	json_t *records[BATCH_RECORDS];
	size_t n;
} batch;

typedef struct {
	const char *path;
	uint64_t end;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	batch *queue[BATCHES_AHEAD]; /* parsed, oldest at head */
	size_t head, count;
	batch *filling;             /* the parser's own */
	size_t skipped;             /* torn or corrupt lines, parser's count */
	bool parsed_all, stop;
	int parse_rc;
	char why[512];              /* its message (errors are per thread) */
} walk;

static void batch_free(batch *b)
{
	for (size_t i = 0; b && i < b->n; i++)
		json_decref(b->records[i]);
	free(b);
}

/* Hands the batch being filled to the reader, waiting for room; 1 when
 * the reader stopped. */
static int hand_over(walk *w)
{
	int stopped;

	pthread_mutex_lock(&w->lock);
	while (w->count == BATCHES_AHEAD && !w->stop)
		pthread_cond_wait(&w->changed, &w->lock);
	stopped = w->stop;
	if (!stopped) {
		w->queue[(w->head + w->count) % BATCHES_AHEAD] = w->filling;
		w->count++;
		w->filling = NULL;
		pthread_cond_broadcast(&w->changed);
	}
	pthread_mutex_unlock(&w->lock);
	return stopped;
}

static int parse_line(const char *text, size_t len, void *ctx)
{
	walk *w = ctx;
	json_t *record = NULL;

	if (!w->filling && !(w->filling = calloc(1, sizeof(*w->filling))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (!ac_backend_fs_record_seq(text, len, &record)) {
		w->skipped++;
		return 0;
	}
	w->filling->records[w->filling->n++] = record;
	return w->filling->n == BATCH_RECORDS ? hand_over(w) : 0;
}

static void *parse_all(void *arg)
{
	walk *w = arg;
	size_t overlong = 0;
	int rc = each_line(w->path, w->end, parse_line, w, &overlong);

	if (rc == 0 && w->filling && w->filling->n)
		rc = hand_over(w);
	pthread_mutex_lock(&w->lock);
	w->skipped += overlong;
	w->parse_rc = rc < 0 ? rc : 0;
	if (rc < 0)
		snprintf(w->why, sizeof(w->why), "%s", ac_error_last());
	w->parsed_all = true;
	pthread_cond_broadcast(&w->changed);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* The next parsed batch, NULL once there is none. */
static batch *take(walk *w)
{
	batch *b = NULL;

	pthread_mutex_lock(&w->lock);
	while (w->count == 0 && !w->parsed_all)
		pthread_cond_wait(&w->changed, &w->lock);
	if (w->count) {
		b = w->queue[w->head];
		w->head = (w->head + 1) % BATCHES_AHEAD;
		w->count--;
		pthread_cond_broadcast(&w->changed);
	}
	pthread_mutex_unlock(&w->lock);
	return b;
}

/* Walks a sorted log: parsed on a second thread, handed to fn here. */
static int walk_sorted(const char *path, uint64_t end, ac_backend_record_fn fn, void *ctx,
		       size_t *out_skipped)
{
	walk w = {.path = path, .end = end};
	pthread_t parser;
	batch *b;
	int rc = 0;

	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.changed, NULL);
	if (pthread_create(&parser, NULL, parse_all, &w) != 0) {
		rc = ac_error_set(AC_ENOMEM, "%s: cannot start a thread to read it", path);
		goto done;
	}
	while (rc == 0 && (b = take(&w))) {
		for (size_t i = 0; i < b->n && rc == 0; i++)
			rc = fn(b->records[i], ctx);
		batch_free(b);
	}
	pthread_mutex_lock(&w.lock);
	w.stop = true; /* the parser may be waiting for room */
	pthread_cond_broadcast(&w.changed);
	pthread_mutex_unlock(&w.lock);
	pthread_join(parser, NULL);
	while (w.count) {
		batch_free(w.queue[w.head]);
		w.head = (w.head + 1) % BATCHES_AHEAD;
		w.count--;
	}
	batch_free(w.filling);
	if (rc == 0 && w.parse_rc)
		rc = ac_error_set(w.parse_rc, "%s", w.why);
	if (out_skipped)
		*out_skipped = w.skipped;
done:
	pthread_cond_destroy(&w.changed);
	pthread_mutex_destroy(&w.lock);
	return rc;
}

int ac_backend_fs_log_each(const char *path, ac_backend_record_fn fn, void *ctx,
			   size_t *out_skipped)
{
	uint64_t last = 0;
	struct stat st;
	json_t *all = NULL, *record;
	size_t i, ignored = 0;
	int rc, fd;

	if (out_skipped)
		*out_skipped = 0;
	/* The checks a whole read makes (no link, a regular file). */
	if ((rc = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY | O_NOFOLLOW, 0, path)))
		return rc == AC_ENOTFOUND ? 0 : rc;
	rc = fstat(fd, &st) != 0 ? ac_error_errno(errno, "%s", path) : 0;
	close(fd);
	if (rc)
		return rc;
	/* Both passes read the same bytes: what was there at the start. */
	rc = each_line(path, (uint64_t)st.st_size, check_order, &last, &ignored);
	if (rc == 0)
		return walk_sorted(path, (uint64_t)st.st_size, fn, ctx, out_skipped);
	if (rc != OUT_OF_ORDER)
		return rc == AC_ENOTFOUND ? 0 : rc;
	if ((rc = ac_backend_fs_log_load(&all, out_skipped, path, 0)))
		return rc;
	json_array_foreach(all, i, record)
		if ((rc = fn(record, ctx)))
			break;
	json_decref(all);
	return rc;
}
