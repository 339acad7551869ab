/* Display width of text for the dashboard: how many terminal columns a
 * UTF-8 string takes (wcwidth: CJK and most emoji take two), cutting text
 * to a number of columns without splitting a character, padding, and
 * wrapping. No curses here, so views can be tested without a terminal.
 *
 * Input is expected to be sanitised already (ac_text.h); a byte that is not
 * valid UTF-8 still counts as one column and is never split. The process
 * must run with a UTF-8 LC_CTYPE for wcwidth to know wide characters
 * (ui_text_locale() arranges that). */
#ifndef UI_TEXT_H
#define UI_TEXT_H

#include "ac_buf.h"

#include <stdbool.h>
#include <stddef.h>

enum {
	UI_FIT_PAD = 1 << 0,      /* pad with spaces to exactly the width */
	UI_FIT_RIGHT = 1 << 1,    /* right-align (implies padding on the left) */
	UI_FIT_ELLIPSIS = 1 << 2, /* mark a cut with a final "…" */
};

/* Sets LC_ALL from the environment and, when its character set is not
 * UTF-8, LC_CTYPE to C.UTF-8 (the files are UTF-8 whatever the locale). */
void ui_text_locale(void);

/* Decodes one character at s[0..len) (len > 0): *out_cp receives the code
 * point (an invalid byte decodes as itself, 0x80..0xFF) and the return is
 * the bytes used (>= 1). */
size_t ui_utf8_next(const char *s, size_t len, unsigned *out_cp);

/* Encodes code point cp (< 0x110000) as UTF-8 into out; returns the bytes
 * written (1 to 4; out is not NUL-terminated). */
size_t ui_utf8_encode(char out[4], unsigned cp);

/* Columns taken by code point cp: 0 (combining), 1 or 2. */
int ui_cp_width(unsigned cp);

/* Columns taken by s[0..len). */
int ui_text_width(const char *s, size_t len);

/* Bytes of the longest prefix of s[0..len) that fits in width columns;
 * *out_cols (may be NULL) receives its width. Zero-width characters that
 * follow the last one kept stay with it. */
size_t ui_text_prefix(const char *s, size_t len, int width, int *out_cols);

/* Appends s[0..len) to out cut to at most width columns (flags UI_FIT_*).
 * A wide character that would straddle the edge is left out (and the
 * column padded when UI_FIT_PAD). Returns the columns appended. */
int ui_text_fit(ac_buf *out, const char *s, size_t len, int width, unsigned flags);

/* Appends the line of an input being typed, cut to width columns: label,
 * text, a "_" cursor, then keys (the help after it). When text does not
 * fit, its end stays in view (its start is cut, marked "…") and keys are
 * left out: what is typed is always seen. */
void ui_text_input(ac_buf *out, const char *label, const char *text, const char *keys,
		   int width);

/* ui_text_fit() of a NUL-terminated string (NULL counts as ""). */
int ui_text_fits(ac_buf *out, const char *s, int width, unsigned flags);

/* Calls fn for each row of s[0..len) wrapped to width columns (>= 1): at
 * the last space that fits when there is one, else by width. Rows are
 * borrowed slices of s without the breaking space. An empty text gives one
 * empty row. Returns the number of rows. */
size_t ui_text_wrap(const char *s, size_t len, int width,
		    void (*fn)(const char *row, size_t row_len, void *ctx), void *ctx);

/* True when needle occurs in hay: case-insensitively (ASCII) unless needle
 * holds an upper-case letter ("smart case"). An empty needle matches. */
bool ui_text_match(const char *hay, const char *needle);

#endif
