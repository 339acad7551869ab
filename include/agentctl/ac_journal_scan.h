/* Scanning journal files for events: the engine behind read, query and
 * check, and the dashboard's journal tail.
 *
 * Lines that cannot match the query's byte needle are skipped unparsed;
 * "the last N" is found by reading backward in growing windows, so its cost
 * depends on N and the query's selectivity, not on the file's size. */
#ifndef AC_JOURNAL_SCAN_H
#define AC_JOURNAL_SCAN_H

#include "ac_buf.h"
#include "ac_event.h"
#include "ac_query.h"

#include <stdint.h>

typedef struct {
	uint64_t matched;     /* events handed to the callback */
	uint64_t invalid;     /* lines parsed and skipped: not valid events (with
			       * ac_query_show_invalid(), over-long ones only) */
	const char *invalid_path; /* the file of the first (borrowed from the paths given) */
	uint64_t torn;        /* files that end in an unterminated line */
	uint64_t torn_offset; /* the last such line's offset... */
	const char *torn_path;/* ...and file (borrowed from the paths given) */
} ac_scan_stats;

typedef struct {
	const char *path;   /* the file (borrowed from the paths given) */
	const char *line;   /* the raw line, without '\n' */
	size_t len;
	uint64_t offset;    /* the line's offset in path */
	const ac_json_span *fields; /* spans for ac_query_paths(), event fields first;
				     * all absent (type 0) when the line is not JSON */
	/* NULL for a valid event. For a line that is not one, handed only when
	 * the query shows invalid records (ac_query_show_invalid()): why, as
	 * journal check words it ("agent: 'claude' is not one of ...", or
	 * "not JSON: column N: ..."). Unterminated and over-long lines are
	 * never handed; they are counted in ac_scan_stats. */
	const char *invalid;
	/* The line is JSON whose strings hold only printable ASCII as written
	 * (ac_json_scan_prepared_printable()): safe to show as it is. False
	 * when not known. */
	bool printable;
} ac_scan_match;

/* Called for each matching event, oldest first. A non-zero return stops
 * the scan and is returned by it. All pointers are borrowed for the call. */
typedef int (*ac_scan_fn)(const ac_scan_match *match, void *ctx);

/* Hands fn every valid event of the files paths[0..npaths) (oldest file
 * first) that matches q, in file order; with last_n > 0, only the last
 * last_n such events. stats (may be NULL) counts what was skipped.
 * Returns 0, fn's non-zero return, or a negative AC_E* code. */
int ac_journal_scan(ac_scan_stats *stats, const char *const *paths, size_t npaths,
		    const ac_query *q, size_t last_n, const ac_event_schema *schema,
		    ac_scan_fn fn, void *ctx);

/* Formats one matching event onto the end of out. Called on any thread,
 * maybe on several at once, so it must not change what ctx points to;
 * scratch is the calling thread's own buffer, for the function's use.
 * match is borrowed for the call. Returns 0 or a negative AC_E* code. */
typedef int (*ac_scan_format_fn)(ac_buf *out, ac_buf *scratch, const ac_scan_match *match,
				 const void *ctx);

/* Takes formatted events, in file order, on the thread that called the
 * scan; data is borrowed for the call. Non-zero stops the scan and is
 * returned by it. */
typedef int (*ac_scan_write_fn)(const char *data, size_t len, void *ctx);

/* ac_journal_scan() for output: the same events, formatted by format and
 * handed to write in file order. Without last_n, a large file is scanned
 * and formatted on all cores, a few pieces at a time (memory does not grow
 * with the file); the bytes written are those a single thread would
 * write. stats may be NULL. Returns 0, format's or write's non-zero
 * return, or a negative code. */
int ac_journal_scan_format(ac_scan_stats *stats, const char *const *paths, size_t npaths,
			   const ac_query *q, size_t last_n, const ac_event_schema *schema,
			   ac_scan_format_fn format, const void *format_ctx,
			   ac_scan_write_fn write, void *write_ctx);

/* Hands fn the valid events of path from byte offset on (a line start),
 * for a watcher: *out_next receives where to resume (just after the last
 * complete line) and *in_out_number tracks line numbers. */
int ac_journal_scan_from(uint64_t *out_next, uint64_t *in_out_number,
			 ac_scan_stats *stats, const char *path, uint64_t offset,
			 const ac_query *q, const ac_event_schema *schema,
			 ac_scan_fn fn, void *ctx);

/* Hands fn the valid events of path that match q among the whole lines of
 * [start, end) (start a line start; a line that ends past end is left to
 * the next range), oldest first: a bounded piece of work, so a caller can
 * search a large file backward one window at a time (the dashboard's
 * search). stats may be NULL. Returns 0, fn's non-zero return, or a
 * negative code (AC_ENOTFOUND when path does not exist). */
int ac_journal_scan_range(ac_scan_stats *stats, const char *path, uint64_t start, uint64_t end,
			  const ac_query *q, const ac_event_schema *schema,
			  ac_scan_fn fn, void *ctx);

/* Called by ac_journal_check() for each line that is not a valid event. */
typedef int (*ac_check_fn)(const char *path, uint64_t line_number, uint64_t offset,
			   const char *reason, void *ctx);

/* Validates every line of path; counts valid and invalid lines and calls
 * fn (may be NULL) for each invalid one, including a torn last line, in
 * file order on the calling thread (a large file is validated on all
 * cores).
 * Returns 0 (whatever was found), fn's non-zero return, or a negative code. */
int ac_journal_check(uint64_t *out_valid, uint64_t *out_invalid, const char *path,
		     const ac_event_schema *schema, ac_check_fn fn, void *ctx);

#endif
