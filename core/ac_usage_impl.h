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

#endif
