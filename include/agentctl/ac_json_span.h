/* Where a value sits in a line of JSON: what the journal's scanner hands
 * out (ac_event_parse(), ac_query_match(), a scan match's fields). A span
 * borrows the text it was found in; nothing here allocates. The scanner
 * itself, and its paths, are the library's own (ac_json_path stays opaque);
 * to work on a value, decode it with jansson (json_loadb(span.start,
 * span.len, JSON_DECODE_ANY, NULL)). */
#ifndef AC_JSON_SPAN_H
#define AC_JSON_SPAN_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	AC_JSON_NONE = 0, /* the path was not found */
	AC_JSON_OBJECT,
	AC_JSON_ARRAY,
	AC_JSON_STRING,
	AC_JSON_NUMBER,
	AC_JSON_TRUE,
	AC_JSON_FALSE,
	AC_JSON_NULL,
} ac_json_type;

/* Where one value sits in the scanned text (borrowed from that text). */
typedef struct ac_json_span {
	ac_json_type type;
	const char *start; /* first byte of the raw value; a string's opening quote */
	size_t len;        /* raw length; a string's includes both quotes */
	bool has_escape;   /* a string that holds at least one backslash escape */
	bool all_strings;  /* an array whose elements are all strings (true when empty) */
	size_t count;      /* an array's elements or an object's members; 0 for scalars */
} ac_json_span;

/* A dotted path of keys, prepared by the library (opaque). */
typedef struct ac_json_path ac_json_path;

#endif
