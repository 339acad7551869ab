/* UTC timestamps in the forms the workspace files use.
 *
 * Canonical form: "YYYY-MM-DDTHH:mm:ss.sssZ" (24 bytes), which sorts as text
 * in time order; this module makes, checks and normalises it. */
#ifndef AC_TIME_H
#define AC_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AC_TIME_ISO_LEN 24

/* Milliseconds since the epoch, from the real-time clock. */
int64_t ac_time_now_ms(void);

/* Writes ms as "YYYY-MM-DDTHH:mm:ss.sssZ" into out (at least 25 bytes). */
void ac_time_format_iso(char out[AC_TIME_ISO_LEN + 1], int64_t ms);

/* Writes ms as "YYYYMMDDhhmmss" (the time part of an event id; 15 bytes). */
void ac_time_format_compact(char out[15], int64_t ms);

/* Writes ms as "YYYYMMDDThhmmss.sssZ" (file-name safe; 21 bytes). */
void ac_time_format_file(char out[21], int64_t ms);

/* The time ac_time_format_file() wrote at the start of name (what follows
 * the 20 bytes is not looked at); false when name does not start so. */
bool ac_time_parse_file(int64_t *out_ms, const char *name);

/* True when text[0..len) is exactly a canonical timestamp of a real date. */
bool ac_time_is_iso(const char *text, size_t len);

/* Parses a user-given time: "YYYY-MM-DD", optionally followed by
 * "THH:MM", ":SS" and ".s" to ".sss", then "Z", "+HH:MM" or "-HH:MM" (no
 * zone means UTC). *out_ms receives milliseconds since the epoch.
 * Returns 0 or AC_EINVAL. */
int ac_time_parse(int64_t *out_ms, const char *text);

#endif
