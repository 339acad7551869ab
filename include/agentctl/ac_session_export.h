/* A session's transcript as a document to read elsewhere: Markdown or a
 * standalone HTML page.
 *
 * Everything in a session file is written by agents, so nothing from it
 * may change the document's structure: in Markdown, message bodies sit in
 * code fences longer than any run of backticks they hold (the text inside
 * is literal), and header values are escaped (&, <, > as entities, Markdown
 * punctuation with a backslash); in HTML every text node is escaped, the
 * page carries a Content-Security-Policy that forbids scripts and any
 * fetch, and loads nothing external. Either way control bytes, escape
 * sequences and bidi overrides are made visible first (ac_text_sanitize,
 * line by line). A message's text is Markdown: in HTML it is rendered by
 * ac_markdown_html.h (closed: escaped, links to http/https/mailto only);
 * tool calls and results show as text. */
#ifndef AC_SESSION_EXPORT_H
#define AC_SESSION_EXPORT_H

#include "ac_buf.h"

#include <jansson.h>

typedef enum { AC_EXPORT_MARKDOWN, AC_EXPORT_HTML } ac_export_format;

/* "md" or "html" into *out; AC_EINVAL naming name otherwise. */
int ac_session_export_format(ac_export_format *out, const char *name);

/* Appends the transcript of the session document root (borrowed): a
 * header (id, task, status, times, tenancy, parent), then each message
 * numbered from 1 with its role, text, tool calls (name and input as
 * indented JSON) and tool results. 0 or AC_ENOMEM. */
int ac_session_export(ac_buf *out, const json_t *root, ac_export_format format);

#endif
