/* What the byte-exact JSON loader's files share (core/ac_json_exact.c,
 * core/ac_json_surrogate.c: one module split by concern); not API.
 *
 * Both carry a value jansson cannot hold through its parser and printer
 * as text holding this process's random tag: a number as a whole marker
 * string, tag + its bytes; a lone surrogate inside a string as tag + 'u' +
 * its 4 hex digits. No file can hold the tag (the loader refuses one
 * that does), so a marker is never text someone wrote. */
#ifndef AC_JSON_EXACT_IMPL_H
#define AC_JSON_EXACT_IMPL_H

#include "ac_buf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* "ac-number-" + 32 hex digits + ':' */
#define AC_JSON_TAG_LEN (10 + 32 + 1)
/* tag + 'u' + 4 hex digits */
#define AC_JSON_SURROGATE_MARKER_LEN (AC_JSON_TAG_LEN + 5)

/* The tag (AC_JSON_TAG_LEN bytes, NUL-terminated; static). */
const char *ac_json_exact_tag(void);

/* Copies JSON text[0..len) into out with each lone surrogate escape
 * ("\ud83d": no low one follows a high one, or a low one stands alone)
 * inside a string swapped for its marker; *out_changed says whether any
 * was (out is left empty if none). Text that is not JSON is copied as
 * far as it goes: jansson reports it. 0 or AC_ENOMEM. */
int ac_json_surrogates_mark(ac_buf *out, bool *out_changed, const char *text, size_t len);

/* Turns each marker in root's strings and keys (a tree jansson loaded
 * from marked text) into the surrogate's WTF-8 bytes. 0 or AC_ENOMEM. */
int ac_json_surrogates_unmark(json_t *root);

/* For dumping root: *out_copy NULL when no string or key holds a WTF-8
 * surrogate (dump root itself), else a new tree (the caller's to
 * json_decref()) sharing root's other values, with each one as its
 * marker, which jansson dumps as plain text. 0 or AC_ENOMEM. */
int ac_json_surrogates_for_dump(json_t **out_copy, const json_t *root);

/* Rewrites each marker in out from byte from on as the \u escape
 * JSON.stringify writes ("\ud83d", lowercase). Never grows out. */
void ac_json_surrogates_restore(ac_buf *out, size_t from);

#endif
