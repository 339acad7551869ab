/* Parallel passes over a journal file, delivered in file order. */
#include "ac_journal_split.h"

#include "ac_error.h"
#include "ac_file.h"
#include "ac_map.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A piece is large enough that its bookkeeping is noise: each hand-over
 * wakes every thread of the pass, and at 1 MiB a common-term query over
 * 1 GiB spent 7.5% more CPU and 9% more time than at 4 MiB (issue 28;
 * 8 MiB gained nothing more). It stays well inside the last-level cache
 * between the read that copies it in (a file that cannot be mapped) and
 * the scan that follows. */
#define PIECE_BYTES (4u << 20)
#define SLOTS_PER_THREAD 4
#define FLUSH_BYTES (4u << 20)
#define THREADS_MAX 8
/* Below this a thread costs more than it saves. */
#define PARALLEL_MIN_BYTES (8u << 20)
/* How much more of a line that runs past its piece's end is read at once. */
#define EXTEND_BYTES (64u * 1024)

static size_t piece_bytes = PIECE_BYTES, flush_bytes = FLUSH_BYTES, forced_threads;
static bool never_map;

void ac_split_set_mapping(bool map)
{
	never_map = !map;
}

void ac_split_set_limits(size_t piece, size_t flush, size_t threads)
{
	piece_bytes = piece ? piece : PIECE_BYTES;
	flush_bytes = flush ? flush : FLUSH_BYTES;
	forced_threads = threads;
}

bool ac_split_wanted(uint64_t end, size_t nthreads)
{
	return end > 0 && (nthreads > 1 || end >= PARALLEL_MIN_BYTES);
}

size_t ac_split_threads(uint64_t end)
{
	long cores;

	if (forced_threads)
		return forced_threads;
	if (end < PARALLEL_MIN_BYTES)
		return 1;
	cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (cores < 1)
		return 1;
	return cores > THREADS_MAX ? THREADS_MAX : (size_t)cores;
}

typedef enum {
	SLOT_FREE,    /* no piece, or its output was delivered */
	SLOT_WORKING, /* a worker has the piece */
	SLOT_FLUSH,   /* the worker waits for its output so far to be taken */
	SLOT_DONE,    /* the piece is finished; rc says how */
} slot_state;

typedef struct {
	ac_split_output o;
	slot_state state;
	int rc;
	char message[256]; /* the worker's ac_error_last() when rc < 0 */
} slot;

struct split_run {
	const char *path;
	int fd;
	uint64_t end, npieces;
	ac_split_work_fn work;
	ac_map map; /* [0, end), when the file could be mapped: pieces are read there */
	/* With one thread the calling thread works each piece itself and
	 * hands over its output at once. */
	bool inline_pass;
	ac_split_deliver_fn deliver;
	void *deliver_ctx;
	uint64_t number; /* of the piece being worked, in an inline pass */
	int deliver_rc;  /* what deliver returned when an inline flush ended the pass */
	pthread_mutex_t lock;
	pthread_cond_t changed; /* any slot or the counters below changed */
	slot *slots;
	size_t nslots;
	uint64_t next_piece; /* the next one a worker takes */
	uint64_t delivering; /* the one the calling thread waits for */
	bool stop;
};

typedef struct {
	struct split_run *run;
	void *ctx;
	char *buf;
	size_t cap;
} worker;

int ac_split_flush(ac_split_output *out)
{
	struct split_run *run = out->run;
	slot *s = &run->slots[out->slot];
	int stopping;

	if (out->out.len < flush_bytes)
		return 0;
	if (run->inline_pass) {
		run->deliver_rc = run->deliver(out, false, run->number, run->deliver_ctx);
		ac_buf_clear(&out->out);
		return run->deliver_rc ? 1 : 0;
	}
	pthread_mutex_lock(&run->lock);
	s->state = SLOT_FLUSH;
	pthread_cond_broadcast(&run->changed);
	while (s->state == SLOT_FLUSH && !run->stop)
		pthread_cond_wait(&run->changed, &run->lock);
	stopping = run->stop;
	pthread_mutex_unlock(&run->lock);
	return stopping ? 1 : 0;
}

static int reserve(worker *w, size_t n)
{
	char *grown;

	if (n <= w->cap)
		return 0;
	if (n < w->cap * 2) /* a long line grows the buffer a few times, not per read */
		n = w->cap * 2;
	if (!(grown = realloc(w->buf, n)))
		return ac_error_set(AC_ENOMEM, "out of memory reading %s", w->run->path);
	w->buf = grown;
	w->cap = n;
	return 0;
}

/* The bytes at offset were there when the pass began and are not now. */
static int shrank_error(const struct split_run *run, uint64_t offset)
{
	return ac_map_fault_error(run->fd, run->path, offset);
}

/* No data from `from` on, lseek says: a hole at the end of the file, or
 * the end itself, before hi, which was inside the file when the pass
 * began. */
static int past_the_end(const struct split_run *run, uint64_t from, uint64_t hi)
{
	struct stat st;

	if (fstat(run->fd, &st) == 0 && (uint64_t)st.st_size < hi)
		return shrank_error(run, (uint64_t)st.st_size > from ? (uint64_t)st.st_size : from);
	return 0;
}

/* Reads exactly n bytes at offset: the pass's bytes are all below end,
 * which was there when it started, so a short read means the file shrank. */
static int read_at(const worker *w, char *into, size_t n, uint64_t offset)
{
	while (n > 0) {
		ssize_t got = pread(w->run->fd, into, n, (off_t)offset);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return ac_error_errno(errno, "%s: read at byte %llu", w->run->path,
					      (unsigned long long)offset);
		if (got == 0)
			return shrank_error(w->run, offset);
		into += got;
		n -= (size_t)got;
		offset += (uint64_t)got;
	}
	return 0;
}

/* Where the lines of the piece [lo, hi) start: just past the first newline
 * at or after lo - 1. Sets *out_from (the file offset of buf[0]) and
 * *out_n (bytes read into buf); *out_start is the index of the first line
 * start, or *out_n when no line starts in the piece. A hole of a sparse
 * file holds no newline, so it is not read. */
static int read_piece(worker *w, uint64_t lo, uint64_t hi, uint64_t *out_from, size_t *out_n,
		      size_t *out_start)
{
	uint64_t from = lo ? lo - 1 : 0;
	const char *nl;
	size_t n;
	int rc;

	if (lo > 0) {
		off_t data = lseek(w->run->fd, (off_t)from, SEEK_DATA);

		if (data < 0 && errno == ENXIO && (rc = past_the_end(w->run, from, hi)))
			return rc;
		if ((data < 0 && errno == ENXIO) || (data >= 0 && (uint64_t)data >= hi)) {
			*out_from = hi;
			*out_n = *out_start = 0;
			return 0;
		}
		if (data > 0 && (uint64_t)data > from)
			from = (uint64_t)data;
	}
	n = (size_t)(hi - from);
	if ((rc = reserve(w, n + EXTEND_BYTES)) || (rc = read_at(w, w->buf, n, from)))
		return rc;
	*out_from = from;
	*out_n = n;
	if (lo == 0) {
		*out_start = 0;
		return 0;
	}
	nl = memchr(w->buf, '\n', n);
	*out_start = nl ? (size_t)(nl - w->buf) + 1 : n;
	return 0;
}

/* The last line of a piece starts at buf[line] and runs past the piece's
 * end (buf[*in_out_n]): reads on until its newline, or until it is known
 * to be over-long. On return buf[0..*in_out_n) ends with that newline, or
 * *out_overlong is set. */
static int extend_last_line(worker *w, uint64_t from, size_t line, size_t *in_out_n,
			    bool *out_overlong)
{
	size_t n = *in_out_n;
	int rc;

	*out_overlong = false;
	for (;;) {
		size_t text = n - line, want = EXTEND_BYTES;
		uint64_t at = from + n;
		const char *nl;

		if (text >= AC_JOURNAL_MAX_LINE) {
			*out_overlong = true;
			break;
		}
		if (at + want > w->run->end)
			want = (size_t)(w->run->end - at);
		if (want == 0) /* end follows a newline: not reached */
			return ac_error_set(AC_EIO, "%s: no newline before byte %llu",
					    w->run->path, (unsigned long long)at);
		if ((rc = reserve(w, n + want)) || (rc = read_at(w, w->buf + n, want, at)))
			return rc;
		nl = memchr(w->buf + n, '\n', want);
		n += want;
		if (nl) {
			n = (size_t)(nl - w->buf) + 1;
			if (n - 1 - line >= AC_JOURNAL_MAX_LINE)
				*out_overlong = true;
			break;
		}
	}
	*in_out_n = n;
	return 0;
}

/* Hands the lines that start in the piece [lo, hi) to the work function,
 * from the mapping: the piece's lines are those after the first newline
 * at or after lo - 1, up to the newline that ends the last one. */
static int work_mapped(worker *w, uint64_t lo, uint64_t hi, ac_split_output *o)
{
	struct split_run *run = w->run;
	const char *data = run->map.data, *nl;
	uint64_t from = lo ? lo - 1 : 0, start, last_line, n, limit;
	ac_journal_block block = {0};
	bool overlong = false;
	int rc;

	if (lo > 0) {
		/* A hole of a sparse file holds no newline: not read. */
		off_t at = lseek(run->fd, (off_t)from, SEEK_DATA);

		if (at < 0 && errno == ENXIO && (rc = past_the_end(run, from, hi)))
			return rc;
		if ((at < 0 && errno == ENXIO) || (at >= 0 && (uint64_t)at >= hi))
			return 0;
		if (at > 0 && (uint64_t)at > from)
			from = (uint64_t)at;
		if (!(nl = memchr(data + from, '\n', (size_t)(hi - from))))
			return 0;
		start = (uint64_t)(nl - data) + 1;
	} else {
		start = 0;
	}
	if (start >= hi)
		return 0;
	nl = memrchr(data + start, '\n', (size_t)(hi - start));
	last_line = nl ? (uint64_t)(nl - data) + 1 : start;
	n = hi;
	if (last_line < hi) {
		/* The last line runs past the piece: to its newline, which a
		 * line within the limit has before last_line + the limit. */
		limit = last_line + AC_JOURNAL_MAX_LINE < run->end ? last_line + AC_JOURNAL_MAX_LINE
								   : run->end;
		nl = memchr(data + hi, '\n', (size_t)(limit - hi));
		if (nl)
			n = (uint64_t)(nl - data) + 1;
		else if (limit - last_line >= AC_JOURNAL_MAX_LINE)
			overlong = true, n = limit;
		else /* end follows a newline: not reached */
			return ac_error_set(AC_EIO, "%s: no newline before byte %llu", run->path,
					    (unsigned long long)limit);
	}
	block.data = data + start;
	block.len = (size_t)((overlong ? last_line : n) - start);
	block.offset = start;
	if (block.len && (rc = run->work(o, &block, w->ctx)))
		return rc;
	if (!overlong)
		return 0;
	block.data = data + last_line;
	block.len = (size_t)(n - last_line);
	block.offset = last_line;
	block.overlong = true;
	return run->work(o, &block, w->ctx);
}

typedef struct {
	worker *w;
	uint64_t lo, hi;
	ac_split_output *o;
} mapped_piece;

static int work_mapped_piece(void *arg)
{
	mapped_piece *p = arg;

	return work_mapped(p->w, p->lo, p->hi, p->o);
}

/* Hands the lines that start in piece k to the work function. */
static int work_piece(worker *w, uint64_t k, ac_split_output *o)
{
	struct split_run *run = w->run;
	uint64_t lo = k * piece_bytes, hi = lo + piece_bytes, from;
	size_t n, start, last_line;
	ac_journal_block block = {0};
	bool overlong = false;
	const char *last_nl;
	int rc;

	if (hi > run->end)
		hi = run->end;
	if (run->map.data) {
		mapped_piece p = {w, lo, hi, o};
		uint64_t fault = 0;
		bool faulted;

		rc = ac_map_guarded(&run->map, work_mapped_piece, &p, &faulted, &fault);
		return faulted ? shrank_error(run, fault) : rc;
	}
	if ((rc = read_piece(w, lo, hi, &from, &n, &start)) || start >= n)
		return rc;
	last_nl = memrchr(w->buf + start, '\n', n - start);
	last_line = last_nl ? (size_t)(last_nl - w->buf) + 1 : start;
	if (last_line < n && (rc = extend_last_line(w, from, last_line, &n, &overlong)))
		return rc;
	/* n now ends the piece's last line, unless that one is over-long. */
	block.data = w->buf + start;
	block.len = (overlong ? last_line : n) - start;
	block.offset = from + start;
	if (block.len && (rc = run->work(o, &block, w->ctx)))
		return rc;
	if (!overlong)
		return 0;
	block.data = w->buf + last_line;
	block.len = n - last_line;
	block.offset = from + last_line;
	block.overlong = true;
	return run->work(o, &block, w->ctx);
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	struct split_run *run = w->run;

	pthread_mutex_lock(&run->lock);
	for (;;) {
		uint64_t k;
		slot *s;
		int rc;

		while (!run->stop && run->next_piece < run->npieces &&
		       run->next_piece >= run->delivering + run->nslots)
			pthread_cond_wait(&run->changed, &run->lock);
		if (run->stop || run->next_piece >= run->npieces)
			break;
		k = run->next_piece++;
		s = &run->slots[k % run->nslots];
		s->state = SLOT_WORKING;
		ac_buf_clear(&s->o.out);
		s->o.lines = s->o.valid = s->o.invalid = s->o.matched = 0;
		pthread_mutex_unlock(&run->lock);

		rc = work_piece(w, k, &s->o);

		pthread_mutex_lock(&run->lock);
		s->rc = rc;
		if (rc < 0)
			strncpy(s->message, ac_error_last(), sizeof(s->message) - 1);
		s->state = SLOT_DONE;
		pthread_cond_broadcast(&run->changed);
	}
	pthread_mutex_unlock(&run->lock);
	return NULL;
}

static void end_pass(struct split_run *run)
{
	pthread_mutex_lock(&run->lock);
	run->stop = true;
	pthread_cond_broadcast(&run->changed);
	pthread_mutex_unlock(&run->lock);
}

/* On the calling thread: waits for each piece in turn and delivers it. */
static int deliver_all(struct split_run *run, ac_split_deliver_fn deliver, void *ctx)
{
	uint64_t number = 1;

	for (uint64_t k = 0; k < run->npieces; k++) {
		slot *s = &run->slots[k % run->nslots];

		for (;;) {
			slot_state state;
			int rc;

			pthread_mutex_lock(&run->lock);
			while (s->state != SLOT_DONE && s->state != SLOT_FLUSH)
				pthread_cond_wait(&run->changed, &run->lock);
			state = s->state;
			pthread_mutex_unlock(&run->lock);
			if (state == SLOT_DONE && s->rc != 0) {
				if (s->rc < 0)
					ac_error_set(s->rc, "%s", s->message);
				return s->rc;
			}
			if ((rc = deliver(&s->o, state == SLOT_DONE, number, ctx)))
				return rc;
			pthread_mutex_lock(&run->lock);
			if (state == SLOT_DONE) {
				number += s->o.lines;
				s->state = SLOT_FREE;
				run->delivering = k + 1;
			} else {
				ac_buf_clear(&s->o.out);
				s->state = SLOT_WORKING;
			}
			pthread_cond_broadcast(&run->changed);
			pthread_mutex_unlock(&run->lock);
			if (state == SLOT_DONE)
				break;
		}
	}
	return 0;
}

/* One thread: the calling one works each piece and hands it over. */
static int run_inline(struct split_run *run, worker *w)
{
	ac_split_output *o = &run->slots[0].o;

	for (uint64_t k = 0; k < run->npieces; k++) {
		int rc;

		ac_buf_clear(&o->out);
		o->lines = o->valid = o->invalid = o->matched = 0;
		if ((rc = work_piece(w, k, o)))
			return run->deliver_rc ? run->deliver_rc : rc;
		if ((rc = run->deliver(o, true, run->number, run->deliver_ctx)))
			return rc;
		run->number += o->lines;
	}
	return 0;
}

/* Maps [0, end) for the pass, with its faults caught; when it cannot be,
 * the pieces are read with pread instead. No MADV_SEQUENTIAL: the fd's
 * POSIX_FADV_SEQUENTIAL already widens the readahead that faults use, and
 * the madvise would keep the pages' use from counting at unmap (Linux 6.3
 * on), so a journal read again and again would leave the cache first. */
static void map_pass(struct split_run *run)
{
	if (never_map || ac_map_file(&run->map, run->fd, 0, run->end) != 0)
		return;
	if (ac_map_guard_begin() != 0)
		ac_map_release(&run->map);
}

int ac_split_run(bool *out_started, const char *path, uint64_t end, size_t nthreads,
		 ac_split_work_fn work, void *const *workers, ac_split_deliver_fn deliver,
		 void *ctx)
{
	struct split_run run = {.path = path, .fd = -1, .end = end, .work = work,
				.deliver = deliver, .deliver_ctx = ctx, .number = 1};
	pthread_t *threads = calloc(nthreads, sizeof(*threads));
	worker *ws = calloc(nthreads, sizeof(*ws));
	size_t started = 0;
	sigset_t all, old;
	int rc;

	*out_started = false;
	run.npieces = (end + piece_bytes - 1) / piece_bytes;
	run.nslots = nthreads * SLOTS_PER_THREAD;
	run.slots = calloc(run.nslots, sizeof(*run.slots));
	pthread_mutex_init(&run.lock, NULL);
	pthread_cond_init(&run.changed, NULL);
	if (!threads || !ws || !run.slots) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_file_open_regular(&run.fd, AT_FDCWD, path, O_RDONLY, 0, path)))
		goto done;
	posix_fadvise(run.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	map_pass(&run);
	for (size_t i = 0; i < run.nslots; i++) {
		run.slots[i].o.run = &run;
		run.slots[i].o.slot = i;
	}
	if (nthreads == 1) {
		run.inline_pass = true;
		ws[0] = (worker){.run = &run, .ctx = workers[0]};
		*out_started = true;
		rc = run_inline(&run, &ws[0]);
		goto done;
	}
	/* Signals stay with the calling thread, as if there were no workers. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (size_t i = 0; i < nthreads; i++) {
		ws[i] = (worker){.run = &run, .ctx = workers[i]};
		if (pthread_create(&threads[started], NULL, worker_main, &ws[i]) == 0)
			started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	*out_started = started > 0;
	rc = started ? deliver_all(&run, deliver, ctx) : 0;
	end_pass(&run);
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
done:
	if (run.map.data) {
		ac_map_release(&run.map);
		ac_map_guard_end();
	}
	if (run.fd >= 0)
		close(run.fd);
	for (size_t i = 0; run.slots && i < run.nslots; i++)
		ac_buf_free(&run.slots[i].o.out);
	for (size_t i = 0; ws && i < nthreads; i++)
		free(ws[i].buf);
	pthread_cond_destroy(&run.changed);
	pthread_mutex_destroy(&run.lock);
	free(run.slots);
	free(threads);
	free(ws);
	return rc;
}

int ac_split_end(uint64_t *out_end, const char *path)
{
	uint64_t end = 0, size = 0;
	char last = 0;
	int fd = -1, rc;

	*out_end = 0;
	if ((rc = ac_journal_complete_end(&end, &size, path)) || end == 0)
		return rc;
	/* Past a search that gave up inside an over-long tail, end is no line
	 * end: leave the whole file to the single-threaded reader. */
	if ((rc = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY, 0, path)))
		return rc;
	if (pread(fd, &last, 1, (off_t)(end - 1)) == 1 && last == '\n')
		*out_end = end;
	close(fd);
	return 0;
}
