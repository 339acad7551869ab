/* Making text from files safe to show on a terminal or embed in JSON output.
 *
 * Files are written by other programs and may hold escape sequences, C0 and
 * C1 controls, bidi overrides or invalid UTF-8. Nothing from a file reaches
 * the terminal before passing through here. Display width is the UI's
 * business, not this module's. Public (<agentctl/ac_text.h>): an agent
 * printing what it read from a workspace needs the same care. Everything
 * here appends to the caller's ac_buf (freed with ac_buf_free()) or hands
 * bytes to the caller's sink; nothing is allocated for the caller. */
#ifndef AC_TEXT_H
#define AC_TEXT_H

#include "ac_buf.h"

#include <stdbool.h>
#include <stddef.h>

/* Appends text[0..len) to out with everything that could drive a terminal
 * made visible: C0 controls and DEL in caret notation (ESC as "^[", newline
 * as "^J"), C1 controls and bidi/invisible formatting characters as
 * "<U+202E>" (see is_format_hazard() in ac_text.c for the list: also
 * U+2028/2029, soft hyphen, CGJ, tag characters, zero-width characters),
 * a surrogate's 3-byte form (a lone surrogate from JSON, ac_json_exact.h)
 * as its escape "\ud83d", other bytes that are not valid UTF-8 as "\xNN".
 * Printable UTF-8
 * (CJK, emoji) passes unchanged. 0 or AC_ENOMEM. */
int ac_text_sanitize(ac_buf *out, const char *text, size_t len);

/* True when text is all printable ASCII (0x20..0x7E): what
 * ac_text_sanitize() appends unchanged, so a caller may copy it. */
bool ac_text_plain(const char *text, size_t len);

/* Whether text[0..len) is valid UTF-8 (no overlong forms, surrogates or
 * code points past U+10FFFF; a NUL byte is valid), as jansson requires of
 * every string it holds. */
bool ac_text_is_utf8(const char *text, size_t len);

/* ac_text_sanitize() over a text given in pieces (a file read in blocks),
 * with line breaks and tabs kept as they are: a document shown whole.
 * What comes out goes to sink as it is made, runs that need no change
 * straight from the piece fed (no copy); a non-zero return from sink stops
 * and is returned. Feeding pieces gives the bytes feeding the joined text
 * once would; a character split between two pieces is held until the next.
 * ac_text_stream_end() flushes what is held (a file that ends inside a
 * character shows those bytes as "\xNN"). */
typedef int (*ac_text_sink)(const char *bytes, size_t len, void *ctx);

typedef struct {
	ac_text_sink sink;
	void *sink_ctx;
	char held[4];
	size_t nheld;
} ac_text_stream;

#define AC_TEXT_STREAM_INIT(sink, ctx) {(sink), (ctx), {0}, 0}

int ac_text_stream_feed(ac_text_stream *st, const char *text, size_t len);
int ac_text_stream_end(ac_text_stream *st);

/* Appends valid JSON text to out, rewriting DEL, C1 controls and the same
 * bidi/invisible formatting characters (which can only stand inside strings there) as
 * \uXXXX escapes, so the JSON means the same but cannot reorder or drive the
 * terminal it is printed on. 0 or AC_ENOMEM. */
int ac_text_json_safe(ac_buf *out, const char *json, size_t len);

#endif
