/* Following the journal like `tail -F`: new complete events since the last
 * look, read from the last byte offset only.
 *
 * A rotated, replaced or re-created journal (a new inode) is read from its
 * start; a truncated one (smaller than our offset) too. A line is handed
 * out only once its newline has arrived. */
#ifndef AC_JOURNAL_FOLLOW_H
#define AC_JOURNAL_FOLLOW_H

#include "ac_journal_scan.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ac_journal_follow ac_journal_follow;

/* Follows path; the first ac_journal_follow_read() starts at the last
 * `backlog` events (so a 1 GB journal costs what its end costs). */
int ac_journal_follow_new(ac_journal_follow **out, const char *path, size_t backlog,
			  const ac_event_schema *schema);

void ac_journal_follow_free(ac_journal_follow *follow);

/* Hands fn the events that completed since the last call, oldest first,
 * and the lines among them that are not valid events, marked
 * (ac_scan_match.invalid): a viewer shows what it cannot read.
 * *out_restarted (may be NULL) is set when the file was rotated, replaced
 * or truncated (the caller may want to clear what it shows). stats counts
 * what was skipped. Returns 0 (also when the file is absent), fn's
 * non-zero return, or a negative code. */
int ac_journal_follow_read(ac_journal_follow *follow, bool *out_restarted,
			   ac_scan_stats *stats, ac_scan_fn fn, void *ctx);

/* The byte offset read up to (for tests and diagnostics). */
uint64_t ac_journal_follow_offset(const ac_journal_follow *follow);

#endif
