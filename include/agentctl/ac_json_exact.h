/* Loading and rewriting JSON files that agents write, keeping every value
 * they hold byte for byte.
 *
 * jansson refuses some JSON that JavaScript's JSON.parse reads (a number
 * too big for a double, 1e999, or for json_int_t, 123456789012345678901234567890)
 * and rewrites other numbers differently (0.1 as 0.10000000000000001, -0 as
 * 0). So before parsing, each number that jansson would not give back as it
 * was read is swapped for a marker string holding a per-process random tag
 * and the number's bytes; the dumps below put the bytes back. Code that
 * reads such a value sees a string, not a number: fine for the session
 * fields agentctl reads (ids, status, integer token counts). \u0000 inside
 * strings is allowed (JSON_ALLOW_NUL): use json_string_length().
 *
 * A lone surrogate escape ("\ud83d": JavaScript writes one for text cut
 * with .slice() inside an emoji, JSON.parse reads it, jansson refuses it)
 * is read too, and held in the string as its generalized UTF-8 (WTF-8)
 * bytes, ED A0..BF xx: 3 bytes that keep the code unit, never valid UTF-8,
 * shown by ac_text_sanitize() as "\ud83d". The dumps below write it back
 * as the escape JSON.stringify writes (lowercase hex), so what a Node
 * program wrote comes back byte for byte. jansson's own json_dumps() and
 * json_string() refuse such a string: dump through here.
 * Not a validator or a streaming parser. Public (<agentctl/ac_json_exact.h>):
 * an agent rewriting a session file keeps other writers' values so.
 * Documents handed out are the caller's (json_decref()); text handed out
 * is the caller's to free(). */
#ifndef AC_JSON_EXACT_H
#define AC_JSON_EXACT_H

#include "ac_buf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Parses text[0..len) (flags as for json_loadb(); JSON_ALLOW_NUL is added)
 * into *out, which the caller releases with json_decref(). Errors name what
 * (usually the file's path): AC_ECORRUPT "<what>: line L column C: reason"
 * with the position in the original text, or AC_ENOMEM "<what>: out of
 * memory" (a resource failure, not a bad file). */
int ac_json_exact_load(json_t **out, const char *text, size_t len, size_t flags,
		       const char *what);

/* json_loadb(text, len, flags, NULL) (a new reference, or NULL when
 * refused), fast where ac_json_fast_load() can, with a lone surrogate
 * escape taken as ac_json_exact_load() takes it, numbers as jansson reads
 * them: for the records of other Node programs (Claude Code's and Gemini
 * CLI's transcripts) that are read, never rewritten. */
json_t *ac_json_load_js(const char *text, size_t len, size_t flags);

/* json_stringn(text, len) (a new reference), but a lone surrogate's
 * WTF-8 form, as ac_json_exact_load() holds it, is taken too: for text
 * copied out of a loaded document into a new value. NULL when text holds
 * other bytes that are not UTF-8, or out of memory. */
json_t *ac_json_exact_stringn(const char *text, size_t len);

/* True when text[0..len) holds this process's number marker, which
 * ac_json_exact_load() refuses (a file made to turn a string into a
 * number); for readers that check a file without loading it. */
bool ac_json_exact_holds_marker(const char *text, size_t len);

/* The error for a failed jansson load of text[0..len) (text may be NULL
 * when jansson read a file itself): AC_ENOMEM "<what>: out of memory" when
 * an allocation failed (jansson words some of those as syntax errors; with
 * text, ac_json_scan() tells), else AC_ECORRUPT "<what>: line L column C:
 * reason". Returns the code, with ac_error_last() set. */
int ac_json_load_error(const json_error_t *jerr, const char *text, size_t len, const char *what);

/* Like json_dumps(root, flags), with every number kept by
 * ac_json_exact_load() written back as its original bytes, and every
 * WTF-8 surrogate as its \u escape. *out_len receives the length. The
 * caller frees the result; NULL when out of memory, or when a string
 * holds bytes that are neither UTF-8 nor a WTF-8 surrogate (built
 * without checks; jansson gives no reason). */
char *ac_json_exact_dumps(const json_t *root, size_t flags, size_t *out_len);

/* Appends value to out as ac_json_exact_dumps(value, flags |
 * JSON_ENCODE_ANY) gives it, with indent spaces added after each line
 * break: the value as it reads nested in a JSON_INDENT document, so a
 * large document can be written one part at a time. 0, AC_ENOMEM, or
 * AC_EINVAL for a string of bytes that are neither UTF-8 nor a WTF-8
 * surrogate (out is left as it was). */
int ac_json_exact_dump_nested(ac_buf *out, const json_t *value, size_t flags, size_t indent);

/* Writes root to path as ac_json_exact_dumps(root, flags) gives it,
 * atomically (ac_atomic_write()), making path's folder if needed. */
int ac_json_exact_write_file(const char *path, const json_t *root, size_t flags);

/* Rewrites each real number in JSON text (outside strings) as the shortest
 * digits that read back as the same double, as JavaScript prints it:
 * jansson dumps a double with 17 digits, so 0.2 comes out as
 * 0.20000000000000001. For values agentctl printed from jansson's doubles
 * (configuration); numbers kept by ac_json_exact_load() need nothing. */
int ac_json_shortest_reals(ac_buf *text);

#endif
