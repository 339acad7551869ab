/* One pass over a journal file on several threads: the file is cut into
 * pieces at line starts, worker threads turn each piece into output, and
 * the calling thread receives that output piece by piece in file order, so
 * whatever it prints reads exactly as a single-threaded pass would.
 *
 * Memory stays bounded: only a few pieces per worker are in flight, and a
 * piece whose output grows past a limit hands it over in parts. The pass
 * covers the complete lines [0, end) fixed when it starts; the bytes after
 * end (a torn line, or what was appended since) are the caller's, for the
 * single-threaded reader (ac_journal_reader.h). Lines are judged over-long
 * exactly as that reader judges them. Internal to the core. */
#ifndef AC_JOURNAL_SPLIT_H
#define AC_JOURNAL_SPLIT_H

#include "ac_buf.h"
#include "ac_journal_reader.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct split_run;

/* What a worker made of one piece so far. */
typedef struct {
	ac_buf out;       /* for the calling thread, in the worker's own format */
	uint64_t lines;   /* lines of the piece gone through (when the worker counts) */
	uint64_t valid, invalid, matched; /* the worker's tallies for the piece */
	struct split_run *run; /* the engine's, for ac_split_flush() */
	size_t slot;
} ac_split_output;

/* Called on a worker thread for the piece's complete lines (one block)
 * and, when the piece's last line is over-long, for that line alone (a
 * block with overlong set). Appends to out; worker is the context given
 * for this thread. Returns 0, or non-zero to end the pass (a negative
 * AC_E* code with ac_error_last() set, or what ac_split_flush() returned). */
typedef int (*ac_split_work_fn)(ac_split_output *out, const ac_journal_block *block,
				void *worker);

/* Called on the calling thread with each piece's output in file order;
 * done is false for a part handed over early (more of the piece follows;
 * out->out is then emptied, the tallies are not). first_number is the
 * piece's first line number, from the workers' line counts. Non-zero ends
 * the pass and is returned by it. */
typedef int (*ac_split_deliver_fn)(const ac_split_output *out, bool done,
				   uint64_t first_number, void *ctx);

/* The end of path's complete lines, for ac_split_run(); 0 when there are
 * none, or when the file ends in an unterminated line too long to look
 * past (the single-threaded reader then takes the whole file). */
int ac_split_end(uint64_t *out_end, const char *path);

/* How many workers a pass over [0, end) should use: 1 for a small file or
 * one core, else the online cores, capped. */
size_t ac_split_threads(uint64_t end);

/* Whether a pass over [0, end) with nthreads (ac_split_threads()) should
 * go through ac_split_run(): on several threads, or on one when the file
 * is large enough for its mapping to pay; else the caller reads it with
 * ac_journal_reader.h. */
bool ac_split_wanted(uint64_t end, size_t nthreads);

/* From work: when out->out has outgrown the limit, waits until the
 * calling thread has taken it (then out->out is empty). Returns 0, or 1
 * when the pass is ending: stop working on the piece. */
int ac_split_flush(ac_split_output *out);

/* Runs work over the complete lines of path's [0, end) (end just past a
 * newline) on nthreads threads (workers[i] is thread i's context; with
 * one, the calling thread does the work) and hands each piece's output to
 * deliver. The file is read through a mapping (ac_map.h) where it can be
 * mapped, else copied in with pread; either way a file cut short during
 * the pass ends it with the error "PATH: the file shrank while being
 * read (at byte N)". *out_started is false when no
 * thread could be started: then nothing was done or delivered, and the
 * caller does the pass itself. Returns 0, a non-zero return of work or
 * deliver, or a negative AC_E* code. */
int ac_split_run(bool *out_started, const char *path, uint64_t end, size_t nthreads,
		 ac_split_work_fn work, void *const *workers, ac_split_deliver_fn deliver,
		 void *ctx);

/* For tests: piece and flush sizes in bytes and a thread count that
 * replace the defaults (0 keeps a default), so that the parallel pass runs
 * on small files and any machine. */
void ac_split_set_limits(size_t piece_bytes, size_t flush_bytes, size_t threads);

/* For tests: false reads every piece with pread, as when the file cannot
 * be mapped; true (the default) maps it when it can. */
void ac_split_set_mapping(bool map);

#endif
