/* What the JSON scanner's files share (core/ac_json_scan*.c: one module
 * split by concern); not API. The small helpers stay static inline here so
 * the scanner's loop still inlines them as when they lived in its file. */
#ifndef AC_JSON_SCAN_IMPL_H
#define AC_JSON_SCAN_IMPL_H

#include "ac_json_scan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KEY_BUCKETS AC_JSON_KEY_BUCKETS

/* Keys of different lengths or first bytes mostly land apart; the event
 * keys ("id", "timestamp", "agent", "status", "action", "result",
 * "trace") all do. */
static inline size_t key_bucket(unsigned char first, size_t len)
{
	return (first + len * 5) & (KEY_BUCKETS - 1);
}

static inline const char *skip_space(const char *p, const char *end)
{
	/* Compact JSON has no space between tokens: one compare says so. */
	if (p < end && (unsigned char)*p > ' ')
		return p;
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* The value of four hex digits at p, or -1; p must have 4 bytes. */
static inline long hex4(const char *p)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= '0' && c <= '9')
			v = v * 16 + (c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = v * 16 + ((c | 0x20) - 'a' + 10);
		else
			return -1;
	}
	return v;
}

/* Whether the \u escape of the high surrogate at p (p[0..6) is
 * "\uD8xx".."\uDBxx") is followed by the \u escape of a low one, text
 * ending at end: the two are one character. Otherwise the high surrogate
 * stands alone, as JSON.parse reads it (a JavaScript string holds UTF-16
 * code units, paired or not). */
static inline bool surrogate_paired(const char *p, const char *end)
{
	long low;

	return end - p >= 12 && p[6] == '\\' && p[7] == 'u' &&
	       (low = hex4(p + 8)) >= 0xDC00 && low <= 0xDFFF;
}

/* Compares validated raw string content p[0..end) holding escapes with
 * value[0..len) (ac_json_scan_string.c; the scanner matches escaped keys
 * with it). */
bool ac_json_scan_escaped_equals(const char *p, const char *end, const char *value, size_t len);

/* The scanner's copies, by how they find the end of a string's plain
 * run; ac_json_scan_prepared() takes the fastest this build has. */
typedef enum {
	AC_JSON_SCAN_SCALAR, /* 8 bytes at a time, then byte by byte */
	AC_JSON_SCAN_SSE2,   /* 16 at a time (x86-64) */
} ac_json_scan_impl;

/* Whether this build and CPU have impl. */
bool ac_json_scan_has_impl(ac_json_scan_impl impl);

/* ac_json_scan_prepared() through impl (the scalar copy when this build
 * or CPU lacks it), so tests can compare the copies. */
int ac_json_scan_prepared_with(ac_json_scan_impl impl, ac_json_span *out, const char *text,
			       size_t len, const ac_json_paths *paths,
			       ac_json_scan_error *error, bool *out_printable);

#endif
