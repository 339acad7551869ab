/* Formatted scans: read and query output made on all cores, written in
 * file order (ac_journal_scan_format()). */
#include "ac_journal_scan.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_journal_scan_impl.h"
#include "ac_journal_split.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


typedef struct {
	ac_scan_format_fn format;
	const void *format_ctx;
	ac_scan_write_fn write;
	void *write_ctx;
} format_target;

/* The single-threaded way: each match formatted and written at once. */
typedef struct {
	const format_target *target;
	ac_buf out, scratch;
} serial_printer;

static int format_and_write(const ac_scan_match *m, void *ctx)
{
	serial_printer *sp = ctx;
	int rc;

	ac_buf_clear(&sp->out);
	if ((rc = sp->target->format(&sp->out, &sp->scratch, m, sp->target->format_ctx)))
		return rc;
	return sp->target->write(sp->out.data, sp->out.len, sp->target->write_ctx);
}

/* A worker: its own spans and finder, formatting into the piece's output. */
typedef struct {
	ac_scan_ctx s;
	ac_scan_stats stats; /* of the block at hand */
	const format_target *target;
	ac_split_output *piece;
	ac_buf scratch;
} format_worker;

static int format_into_piece(const ac_scan_match *m, void *ctx)
{
	format_worker *w = ctx;
	int rc;

	if ((rc = w->target->format(&w->piece->out, &w->scratch, m, w->target->format_ctx)))
		return rc;
	return ac_split_flush(w->piece);
}

static int format_block(ac_split_output *piece, const ac_journal_block *block, void *ctx)
{
	format_worker *w = ctx;
	int rc;

	w->piece = piece;
	memset(&w->stats, 0, sizeof(w->stats));
	rc = ac_scan_block(&w->s, block);
	piece->invalid += w->stats.invalid;
	piece->matched += w->stats.matched;
	return rc;
}

typedef struct {
	const format_target *target;
	ac_scan_stats *stats;
	const char *path;
} format_delivery;

static int deliver_formatted(const ac_split_output *piece, bool done, uint64_t first_number,
			     void *ctx)
{
	format_delivery *d = ctx;
	int rc;

	(void)first_number;
	if (piece->out.len &&
	    (rc = d->target->write(piece->out.data, piece->out.len, d->target->write_ctx)))
		return rc;
	if (done) {
		if (piece->invalid && d->stats->invalid == 0)
			d->stats->invalid_path = d->path;
		d->stats->invalid += piece->invalid;
		d->stats->matched += piece->matched;
	}
	return 0;
}

/* Chooses the needle's search bytes from the file's first bytes, as the
 * single-threaded scan does from its first block, for every worker. */
static int sample_finder(ac_scan_ctx *s, const char *path)
{
	const char *needle;
	size_t needle_len = 0;
	ac_byte_counts counts;
	char *sample;
	ssize_t got;
	int fd, rc;

	if (!(needle = ac_query_needle(s->q, &needle_len)))
		return 0;
	if (!(sample = malloc(AC_SCAN_SAMPLE_BYTES)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY, 0, path))) {
		free(sample);
		return rc;
	}
	got = pread(fd, sample, AC_SCAN_SAMPLE_BYTES, 0);
	close(fd);
	ac_byte_counts_sample(&counts, sample, got > 0 ? (size_t)got : 0);
	free(sample);
	ac_finder_init(&s->finder, needle, needle_len, &counts);
	s->have_finder = true;
	return 0;
}

/* The complete lines [0, end) of s->path on nthreads threads; *out_started
 * false: nothing done, no thread could start. */
static int format_parallel(bool *out_started, ac_scan_ctx *s, uint64_t end, size_t nthreads,
			   const format_target *target)
{
	format_worker *workers = calloc(nthreads, sizeof(*workers));
	void **contexts = calloc(nthreads, sizeof(*contexts));
	format_delivery d = {target, s->stats, s->path};
	ac_scan_ctx shared = *s;
	int rc;

	*out_started = false;
	if (!workers || !contexts) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = sample_finder(&shared, s->path)))
		goto done;
	for (size_t i = 0; i < nthreads; i++) {
		format_worker *w = &workers[i];

		w->s = shared;
		w->s.stats = &w->stats;
		w->s.fn = format_into_piece;
		w->s.ctx = w;
		w->target = target;
		contexts[i] = w;
	}
	rc = ac_split_run(out_started, s->path, end, nthreads, format_block, contexts,
			  deliver_formatted, &d);
done:
	for (size_t i = 0; workers && i < nthreads; i++)
		ac_buf_free(&workers[i].scratch);
	free(workers);
	free(contexts);
	return rc;
}

static int format_file(ac_scan_ctx *s, const format_target *target)
{
	uint64_t end, next = 0;
	size_t nthreads;
	int rc;

	if ((rc = ac_split_end(&end, s->path)))
		return rc;
	nthreads = ac_split_threads(end);
	if (ac_split_wanted(end, nthreads)) {
		bool started;

		if ((rc = format_parallel(&started, s, end, nthreads, target)))
			return rc;
		if (started)
			next = end;
	}
	/* The rest (all of a small file): what follows end, torn tail included. */
	return ac_scan_range(s, next, UINT64_MAX, NULL, NULL, true);
}

int ac_journal_scan_format(ac_scan_stats *stats, const char *const *paths, size_t npaths,
			   const ac_query *q, size_t last_n, const ac_event_schema *schema,
			   ac_scan_format_fn format, const void *format_ctx,
			   ac_scan_write_fn write, void *write_ctx)
{
	format_target target = {format, format_ctx, write, write_ctx};
	serial_printer printer = {&target, AC_BUF_INIT, AC_BUF_INIT};
	ac_scan_stats local;
	ac_scan_ctx s;
	int rc = 0;

	/* The last N are found reading backward, a few windows: one thread. */
	if (last_n > 0) {
		rc = ac_journal_scan(stats, paths, npaths, q, last_n, schema, format_and_write,
				     &printer);
		goto done;
	}
	if ((rc = ac_scan_ctx_init(&s, stats, &local, q, schema, format_and_write, &printer)))
		goto done;
	for (size_t f = 0; f < npaths && rc == 0; f++) {
		s.path = paths[f];
		s.have_finder = false;
		rc = format_file(&s, &target);
		if (rc == AC_ENOTFOUND)
			rc = 0;
	}
done:
	ac_buf_free(&printer.out);
	ac_buf_free(&printer.scratch);
	return rc;
}
