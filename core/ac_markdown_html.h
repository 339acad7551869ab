/* A small Markdown-to-HTML renderer for text agents wrote (the HTML
 * export's message bodies, ac_session_export.h): ATX headings, emphasis,
 * code spans, fenced code blocks, block quotes, lists, rules and links.
 *
 * The text is hostile, so the output is closed: every byte of it is
 * escaped (no raw HTML passes, whatever the text holds), every element
 * opened is closed within the call, links are made only to http:, https:
 * and mailto: addresses (with rel="noopener noreferrer"), anything else
 * stays text, and the work is linear in the input (a 1 MB line of
 * delimiters included). Not CommonMark: no indented code, no nested lists
 * or quotes, no reference links, no images (shown as text with their
 * link), no raw HTML. Not a sanitiser of terminal bytes: the caller makes
 * controls visible first (ac_text_sanitize). */
#ifndef AC_MARKDOWN_HTML_H
#define AC_MARKDOWN_HTML_H

#include "ac_buf.h"

#include <stddef.h>

/* Appends the HTML of the Markdown text[0..len) to out (text may hold NUL
 * bytes: shown as U+FFFD). Headings start at <h4> (the page's own h1-h3
 * frame the messages). 0, or AC_ENOMEM (out then holds part of it). */
int ac_markdown_html(ac_buf *out, const char *text, size_t len);

#endif
