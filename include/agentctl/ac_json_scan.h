/* A strict, allocation-free JSON scanner for one document held in memory.
 *
 * It validates the whole text (RFC 8259 grammar, UTF-8, a nesting limit) and
 * records where chosen values are, without building a tree: the journal's
 * readers use it to check and pick fields from millions of lines at close to
 * memory speed. It is not for building or rewriting JSON: use jansson.
 * Public (<agentctl/ac_json_scan.h>): an agent reading the journal or
 * session files in bulk picks fields the same way. Nothing here allocates:
 * spans point into the caller's text, paths borrow the caller's strings. */
#ifndef AC_JSON_SCAN_H
#define AC_JSON_SCAN_H

#include "ac_json_span.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AC_JSON_MAX_DEPTH 256    /* deeper nesting is rejected */
#define AC_JSON_MAX_SEGMENTS 8   /* keys in one path */
#define AC_JSON_MAX_PATHS 64     /* paths in one scan */

/* ac_json_type and ac_json_span are public (ac_json_span.h): the spans the
 * scanner fills are what ac_event_parse() and the query hand callers. */

/* A path of object keys from the top-level object, e.g. "action.type".
 * A key that holds a '.' cannot be named. Segments borrow the dotted string,
 * which must outlive the path. */
struct ac_json_path {
	const char *segment[AC_JSON_MAX_SEGMENTS];
	size_t segment_len[AC_JSON_MAX_SEGMENTS];
	size_t nsegments;
};

/* Splits dotted into out. Fails (AC_EINVAL) on an empty path, an empty
 * segment ("a..b", ".a", "a.") or more than AC_JSON_MAX_SEGMENTS keys. */
int ac_json_path_init(ac_json_path *out, const char *dotted);

#define AC_JSON_ERROR_TEXT_LENGTH 128

/* Where and why a scan stopped, like jansson's json_error_t. */
typedef struct {
	size_t offset; /* 0-based byte offset of the fault */
	size_t line;   /* 1-based line of the fault... */
	size_t column; /* ...and 1-based byte column within that line */
	char text[AC_JSON_ERROR_TEXT_LENGTH]; /* the reason, without a position */
} ac_json_scan_error;

/* Scans text[0..len) as exactly one JSON document; whitespace may surround
 * it, anything else after it is an error. For each of the npaths paths
 * (at most AC_JSON_MAX_PATHS) out[i] receives the span of the value found at
 * paths[i], or type AC_JSON_NONE; when an object repeats a key the last
 * value wins. Paths only descend through objects, never into arrays.
 * Returns 0, or AC_ECORRUPT with ac_error_last() set to
 * "column N: reason" (N the 1-based byte offset of the fault), e.g.
 * "column 17: invalid UTF-8 in string", "column 3: nesting deeper than 256".
 * error (may be NULL; caller-owned) is cleared on entry and, on
 * AC_ECORRUPT, receives the fault's offset, line, column and bare reason,
 * so a caller with multi-line text can name a line. More than
 * AC_JSON_MAX_PATHS paths is AC_EINVAL, error left clear.
 * Rejects: control bytes below 0x20 inside strings, invalid escapes,
 * invalid or overlong UTF-8 and encoded surrogates, leading zeros,
 * NaN/Infinity, trailing commas, an empty text. A \u escape of a lone
 * surrogate ("\ud83d", what JavaScript's JSON.stringify writes for text cut
 * inside an emoji) is valid, as for JSON.parse and RFC 8259's grammar. */
int ac_json_scan(ac_json_span *out, const char *text, size_t len,
		 const ac_json_path *paths, size_t npaths, ac_json_scan_error *error);

/* Paths prepared once for many scans: a table of their keys by length and
 * first byte, so a key is compared with the one or two paths it could
 * be, and a scan starts without building it. About 2 KiB. */
#define AC_JSON_KEY_BUCKETS 32
typedef struct {
	const ac_json_path *paths; /* borrowed */
	size_t npaths, depths;
	uint64_t descend;
	uint64_t by_key[AC_JSON_MAX_SEGMENTS][AC_JSON_KEY_BUCKETS]; /* [0..depths) set */
} ac_json_paths;

/* Prepares paths[0..npaths) for ac_json_scan_prepared(); paths is
 * borrowed and must outlive out. More than AC_JSON_MAX_PATHS is AC_EINVAL. */
int ac_json_paths_prepare(ac_json_paths *out, const ac_json_path *paths, size_t npaths);

/* ac_json_scan() over prepared paths. */
int ac_json_scan_prepared(ac_json_span *out, const char *text, size_t len,
			  const ac_json_paths *paths, ac_json_scan_error *error);

/* ac_json_scan_prepared() that also says, when the text is valid, whether
 * every string in it (keys too) holds only printable ASCII as written:
 * no byte from 0x7F (DEL, or UTF-8). Outside strings valid JSON has only
 * printable ASCII and whitespace, so such a text is safe to show as it
 * is; its escapes may stand for anything, and stay escapes. */
int ac_json_scan_prepared_printable(ac_json_span *out, const char *text, size_t len,
				    const ac_json_paths *paths, ac_json_scan_error *error,
				    bool *out_printable);

/* Decodes a string span found by ac_json_scan() into out, which must have
 * room for span->len bytes (the decoded text is never longer than the raw
 * one); *out_len receives the decoded length. \u0000 decodes to a NUL byte,
 * so use the length. A lone surrogate decodes to its generalized UTF-8
 * (WTF-8) form, ED A0..BF xx, as ac_json_exact.h keeps it. The result is
 * not NUL-terminated. */
void ac_json_string_decode(char *out, size_t *out_len, const ac_json_span *span);

/* Whether decoded text s[0..len) holds a lone surrogate as
 * ac_json_string_decode() writes it (ED A0..BF: in text that is
 * otherwise UTF-8, nothing else starts so). */
bool ac_json_holds_lone_surrogate(const char *s, size_t len);

/* Walks the elements of an array, or the members of an object, in text
 * that ac_json_scan() validated, without building anything: e.g. one
 * message of a session's history at a time. It does not validate: only
 * for a span of text the scanner accepted. */
typedef struct {
	const char *p, *end; /* the rest of the container's inside */
	bool object;
} ac_json_cursor;

/* Starts at the first element or member of container (an array or object
 * span from ac_json_scan(), borrowed). */
void ac_json_cursor_init(ac_json_cursor *cursor, const ac_json_span *container);

/* The next element (key NULL or ignored for an array) or member: value
 * (start, len and type set; other fields zero) and, in an object, key (a
 * string span with its quotes; has_escape set). False after the last. */
bool ac_json_cursor_next(ac_json_cursor *cursor, ac_json_span *key, ac_json_span *value);

/* True when span is a string whose decoded value is exactly value[0..len).
 * Does not allocate; compares the raw bytes directly when there is no escape. */
bool ac_json_string_equals(const ac_json_span *span, const char *value, size_t len);

#endif
