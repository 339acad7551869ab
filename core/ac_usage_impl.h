/* The usage extractors' private helpers (core/ac_usage_*.c); not API. */
#ifndef AC_USAGE_IMPL_H
#define AC_USAGE_IMPL_H

#include "ac_usage_record.h"

#include <jansson.h>

/* *out = usage[key] when it is a whole number 0..2^53-1 (absent: 0);
 * false when it is something else. */
bool ac_usage_count_of(uint64_t *out, const json_t *usage, const char *key);

/* Replaces *field with a copy of value when it differs (value NULL: kept).
 * 0 or AC_ENOMEM. */
int ac_usage_remember(char **field, const char *value);

/* One JSON line parsed (the fast loader, else jansson), or NULL. */
json_t *ac_usage_parse_line(const char *line, size_t len);

/* A source's prefilter: whether a line's raw bytes may hold usage (only
 * those are parsed). */
typedef bool (*ac_usage_line_wanted_fn)(const char *line, size_t len);
/* A source's reading of one parsed line: 1 when it gave a record, 0 when
 * it is not a usage line, -1 when it should have been one and could not
 * be read (counted as skipped), or an AC_E* code (stops the walk). */
typedef int (*ac_usage_line_fn)(ac_usage_file_state *state, const json_t *obj,
				const char *fallback, ac_usage_record_fn fn, void *ctx);

/* The walk every extractor shares: each complete line of text that wanted
 * lets through is parsed and handed to record; lines that do not parse,
 * or that record calls unreadable, are added to *out_skipped (may be
 * NULL). 0, or the AC_E* code record or fn returned. */
int ac_usage_each_line(ac_usage_file_state *state, const char *text, size_t len,
		       const char *fallback, ac_usage_line_wanted_fn wanted,
		       ac_usage_line_fn record, ac_usage_record_fn fn, void *ctx,
		       size_t *out_skipped);

#endif
