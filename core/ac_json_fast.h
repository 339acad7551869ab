/* A fast way to the jansson value of plain JSON text: trace records read
 * back by the hundred thousand, session files of megabytes.
 *
 * jansson's parser reads a byte at a time through a stream; here the strict
 * scanner (ac_json_scan.h) checks the text first and the value is then built
 * in one walk, at several times the speed. Only text whose value cannot
 * differ from jansson's is taken: anything else (a real number, an integer
 * of more than 18 digits, a repeated or NUL-holding key, deep nesting, a
 * scalar at the top, a lone surrogate escape, text the scanner refuses) is
 * left to jansson. Not a
 * parser of its own: no errors, no positions. */
#ifndef AC_JSON_FAST_H
#define AC_JSON_FAST_H

#include <jansson.h>
#include <stddef.h>

/* The value json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
 * NULL) gives (a new reference), or NULL when that is left to jansson:
 * call it then. */
json_t *ac_json_fast_load(const char *text, size_t len);

/* ac_json_fast_load(), but a lone surrogate escape ("\ud83d", which
 * jansson refuses and JSON.parse reads) is taken too, as its WTF-8 bytes
 * in the string (see ac_json_exact.h, the one caller fit to dump them). */
json_t *ac_json_fast_load_wtf8(const char *text, size_t len);

#endif
