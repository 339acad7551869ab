/* What the journal's scan engine (ac_journal_scan.c) shares with its
 * parallel, formatting front (ac_journal_scan_format.c): one scan's state
 * and the functions that run it over a block or a byte range. Internal to
 * the core. */
#ifndef AC_JOURNAL_SCAN_IMPL_H
#define AC_JOURNAL_SCAN_IMPL_H

#include "ac_journal_reader.h"
#include "ac_journal_scan.h"
#include "ac_json_scan.h"
#include "ac_search.h"

#include <stdbool.h>
#include <stdint.h>

/* Bytes of the first block counted to choose the needle's search bytes:
 * some 150 events, enough to see the journal's mix, and a few hundredths
 * of a millisecond, next to the 4 MiB windows the dashboard's search scans
 * one scan at a time. */
#define AC_SCAN_SAMPLE_BYTES (64u * 1024)

typedef struct {
	const ac_query *q;
	const ac_event_schema *schema;
	ac_json_paths paths; /* the query's, prepared */
	ac_scan_stats *stats;
	const char *path;
	ac_scan_fn fn;
	void *ctx;
	ac_json_span spans[AC_JSON_MAX_PATHS];
	bool have_finder; /* finder is set up, from the first block's bytes */
	ac_finder finder;
} ac_scan_ctx;

/* Readies s for a scan of q (borrowed) handing matches to fn; stats may be
 * NULL (then local counts). 0 or a negative AC_E* code. */
int ac_scan_ctx_init(ac_scan_ctx *s, ac_scan_stats *stats, ac_scan_stats *local,
		     const ac_query *q, const ac_event_schema *schema, ac_scan_fn fn, void *ctx);

/* Hands s->fn the matching events among block's lines (those the
 * prefilter lets through); the first call chooses the search bytes from
 * the block unless s->have_finder. Returns 0 or fn's non-zero return. */
int ac_scan_block(ac_scan_ctx *s, const ac_journal_block *block);

/* Scans [start, end) of s->path forward (start a line start); *out_next
 * and *in_out_number, when given, receive where to resume and the line
 * number; report_tail counts an unterminated last line in s->stats. */
int ac_scan_range(ac_scan_ctx *s, uint64_t start, uint64_t end, uint64_t *out_next,
		  uint64_t *in_out_number, bool report_tail);

#endif
