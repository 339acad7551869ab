/* Transcripts in Markdown and HTML, with hostile text kept as text. */
#include "ac_session_export.h"

#include "ac_error.h"
#include "ac_markdown_html.h"
#include "ac_text.h"

#include <stdbool.h>
#include <string.h>

/* One piece of a message, as both formats show it. */
typedef enum { PART_TEXT, PART_TOOL_USE, PART_TOOL_RESULT, PART_OTHER } part_kind;

typedef struct {
	int (*begin)(ac_buf *out, const json_t *root);
	int (*message)(ac_buf *out, size_t number, const char *role);
	/* title[0..title_len) may hold NUL bytes (a tool's name or call id
	 * holding \u0000): shown as ^@, never cut there. */
	int (*part)(ac_buf *out, part_kind kind, const char *title, size_t title_len,
		    const char *body, size_t len);
	int (*message_end)(ac_buf *out);
	int (*end)(ac_buf *out);
} renderer;

/* ---- safe text ---------------------------------------------------------- */

static int put(ac_buf *out, const char *literal)
{
	return ac_buf_append(out, literal, strlen(literal));
}

/* text made terminal-safe with its line breaks kept: each line through
 * ac_text_sanitize(), joined by "\n". */
static int safe_lines(ac_buf *out, const char *text, size_t len)
{
	size_t start = 0;
	int rc = 0;

	while (rc == 0 && start <= len) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (end > start && text[end - 1] == '\r')
			end--; /* CRLF is a line break, not a visible ^M */
		rc = ac_text_sanitize(out, text + start, end - start);
		if (rc == 0 && nl)
			rc = ac_buf_putc(out, '\n');
		if (!nl)
			break;
		start = (size_t)(nl - text) + 1;
	}
	return rc;
}

static int html_escape(ac_buf *out, const char *text, size_t len)
{
	ac_buf safe = AC_BUF_INIT;
	int rc = safe_lines(&safe, text, len);

	for (size_t i = 0; rc == 0 && i < safe.len; i++) {
		switch (safe.data[i]) {
		case '&': rc = put(out, "&amp;"); break;
		case '<': rc = put(out, "&lt;"); break;
		case '>': rc = put(out, "&gt;"); break;
		case '"': rc = put(out, "&quot;"); break;
		case '\'': rc = put(out, "&#39;"); break;
		default: rc = ac_buf_putc(out, safe.data[i]);
		}
	}
	ac_buf_free(&safe);
	return rc;
}

static int html_str(ac_buf *out, const char *text)
{
	return html_escape(out, text, strlen(text));
}

/* A value on one Markdown line: line breaks visible (^J), HTML's
 * specials as entities, Markdown's punctuation escaped. text[0..len) may
 * hold NUL bytes (a task's \u0000): shown as ^@, never cut there. */
static int md_inline_n(ac_buf *out, const char *text, size_t len)
{
	ac_buf safe = AC_BUF_INIT;
	int rc = ac_text_sanitize(&safe, text, len);

	for (size_t i = 0; rc == 0 && i < safe.len; i++) {
		char c = safe.data[i];

		if (c == '&')
			rc = put(out, "&amp;");
		else if (c == '<')
			rc = put(out, "&lt;");
		else if (c == '>')
			rc = put(out, "&gt;");
		else if (c && strchr("\\`*_[]#|~!", c) && (rc = ac_buf_putc(out, '\\')) == 0)
			rc = ac_buf_putc(out, c);
		else if (rc == 0)
			rc = ac_buf_putc(out, c);
	}
	ac_buf_free(&safe);
	return rc;
}

static int md_inline(ac_buf *out, const char *text)
{
	return md_inline_n(out, text, strlen(text));
}

/* ---- the header's fields ------------------------------------------------ */

static const char *field(const json_t *object, const char *key)
{
	const char *value = json_string_value(json_object_get(object, key));

	return value && *value ? value : "-";
}

/* field() whole: *len receives its bytes, a \u0000 in it included. */
static const char *field_n(const json_t *object, const char *key, size_t *len)
{
	const json_t *value = json_object_get(object, key);

	*len = json_string_length(value);
	if (json_is_string(value) && *len)
		return json_string_value(value);
	*len = 1;
	return "-";
}

/* "<sessionId> at message N" / "<sessionId> checkpoint C", or NULL. */
static int parent_text(ac_buf *out, const json_t *root)
{
	const json_t *parent = json_object_get(json_object_get(root, "metadata"), "parent");

	if (!json_is_object(parent))
		return 0;
	if (json_is_integer(json_object_get(parent, "atMessage")))
		return ac_buf_printf(out, "%s at message %lld", field(parent, "sessionId"),
				     (long long)json_integer_value(json_object_get(parent, "atMessage")));
	return ac_buf_printf(out, "%s checkpoint %s", field(parent, "sessionId"),
			     field(parent, "checkpointId"));
}

/* ---- Markdown ------------------------------------------------------------ */

static int md_begin(ac_buf *out, const json_t *root)
{
	const json_t *metadata = json_object_get(root, "metadata");
	static const char *const rows[][2] = {
		{"Task", "task"}, {"Status", "status"}, {"Created", "createdAt"},
		{"Updated", "updatedAt"},
	};
	static const char *const tenancy[][2] = {
		{"Tenant", "tenantId"}, {"User", "userId"}, {"Agent", "agentId"},
	};
	ac_buf parent = AC_BUF_INIT;
	int rc;

	if ((rc = put(out, "# Session ")) || (rc = md_inline(out, field(root, "id"))) ||
	    (rc = put(out, "\n\n")))
		goto done;
	for (size_t i = 0; i < 4; i++) {
		size_t len;
		const char *value = field_n(root, rows[i][1], &len);

		if ((rc = ac_buf_printf(out, "- %s: ", rows[i][0])) ||
		    (rc = md_inline_n(out, value, len)) || (rc = ac_buf_putc(out, '\n')))
			goto done;
	}
	for (size_t i = 0; i < 3; i++)
		if ((rc = ac_buf_printf(out, "- %s: ", tenancy[i][0])) ||
		    (rc = md_inline(out, field(metadata, tenancy[i][1]))) ||
		    (rc = ac_buf_putc(out, '\n')))
			goto done;
	if ((rc = parent_text(&parent, root)) ||
	    (parent.len && ((rc = put(out, "- Forked from: ")) ||
			    (rc = md_inline(out, parent.data)) || (rc = ac_buf_putc(out, '\n')))))
		goto done;
	rc = ac_buf_printf(out, "- Messages: %zu\n",
			   json_array_size(json_object_get(root, "conversationHistory")));
done:
	ac_buf_free(&parent);
	return rc;
}

static int md_message(ac_buf *out, size_t number, const char *role)
{
	int rc = ac_buf_printf(out, "\n## %zu. ", number);

	return rc ? rc : (rc = md_inline(out, role)) ? rc : ac_buf_putc(out, '\n');
}

/* A fenced block the body cannot close: its fence is longer than the
 * longest run of backticks in it (and at least three). */
static int md_fence(ac_buf *out, const char *info, const char *body, size_t len)
{
	ac_buf safe = AC_BUF_INIT;
	size_t run = 0, longest = 0, fence;
	int rc = safe_lines(&safe, body, len);

	for (size_t i = 0; i < safe.len; i++) {
		run = safe.data[i] == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	fence = longest < 3 ? 3 : longest + 1;
	for (size_t i = 0; rc == 0 && i < fence; i++)
		rc = ac_buf_putc(out, '`');
	if (rc == 0 && (rc = ac_buf_printf(out, "%s\n", info)) == 0 && safe.len)
		rc = ac_buf_append(out, safe.data, safe.len);
	if (rc == 0 && (!safe.len || safe.data[safe.len - 1] != '\n'))
		rc = ac_buf_putc(out, '\n');
	for (size_t i = 0; rc == 0 && i < fence; i++)
		rc = ac_buf_putc(out, '`');
	if (rc == 0)
		rc = ac_buf_putc(out, '\n');
	ac_buf_free(&safe);
	return rc;
}

static int md_part(ac_buf *out, part_kind kind, const char *title, size_t title_len,
		   const char *body, size_t len)
{
	static const char *const heads[] = {NULL, "Tool call", "Tool result", "Block"};
	int rc = ac_buf_putc(out, '\n');

	if (rc == 0 && heads[kind] &&
	    ((rc = ac_buf_printf(out, "**%s** ", heads[kind])) || (rc = md_inline_n(out, title, title_len)) ||
	     (rc = put(out, "\n\n"))))
		return rc;
	return rc ? rc : md_fence(out, kind == PART_TOOL_USE ? "json" : "text", body, len);
}

static int md_nothing(ac_buf *out)
{
	(void)out;
	return 0;
}

static const renderer markdown = {md_begin, md_message, md_part, md_nothing, md_nothing};

/* ---- HTML ---------------------------------------------------------------- */

/* No script may run and nothing may be fetched, whatever a message holds. */
static const char html_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	"style-src 'unsafe-inline'; script-src 'none'; img-src 'none'; form-action 'none'; "
	"base-uri 'none'\">\n"
	"<meta name=\"referrer\" content=\"no-referrer\">\n"
	"<style>body{font-family:sans-serif;max-width:60em;margin:1em auto;padding:0 1em}"
	"pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:.5em}"
	"th{text-align:left;padding-right:1em}section{border-top:1px solid #ccc}"
	".md pre,.md code{background:#f4f4f4}.md blockquote{border-left:3px solid #ccc;"
	"margin-left:0;padding-left:1em}</style>\n";

static int html_row_n(ac_buf *out, const char *name, const char *value, size_t len)
{
	int rc = ac_buf_printf(out, "<tr><th>%s</th><td>", name);

	return rc ? rc : (rc = html_escape(out, value, len)) ? rc : put(out, "</td></tr>\n");
}

static int html_row(ac_buf *out, const char *name, const char *value)
{
	return html_row_n(out, name, value, strlen(value));
}

/* The row of root's key, its value whole (field_n()). */
static int html_field_row(ac_buf *out, const char *name, const json_t *root, const char *key)
{
	size_t len;
	const char *value = field_n(root, key, &len);

	return html_row_n(out, name, value, len);
}

static int html_begin(ac_buf *out, const json_t *root)
{
	const json_t *metadata = json_object_get(root, "metadata");
	ac_buf parent = AC_BUF_INIT;
	char count[32];
	int rc;

	snprintf(count, sizeof(count), "%zu",
		 json_array_size(json_object_get(root, "conversationHistory")));
	if ((rc = ac_buf_append(out, html_head, sizeof(html_head) - 1)) ||
	    (rc = put(out, "<title>Session ")) ||
	    (rc = html_str(out, field(root, "id"))) ||
	    (rc = put(out, "</title>\n</head>\n<body>\n<h1>Session ")) ||
	    (rc = html_str(out, field(root, "id"))) ||
	    (rc = put(out, "</h1>\n<table>\n")) ||
	    (rc = html_field_row(out, "Task", root, "task")) ||
	    (rc = html_row(out, "Status", field(root, "status"))) ||
	    (rc = html_row(out, "Created", field(root, "createdAt"))) ||
	    (rc = html_row(out, "Updated", field(root, "updatedAt"))) ||
	    (rc = html_row(out, "Tenant", field(metadata, "tenantId"))) ||
	    (rc = html_row(out, "User", field(metadata, "userId"))) ||
	    (rc = html_row(out, "Agent", field(metadata, "agentId"))) ||
	    (rc = parent_text(&parent, root)) ||
	    (parent.len && (rc = html_row(out, "Forked from", parent.data))) ||
	    (rc = html_row(out, "Messages", count)))
		goto done;
	rc = put(out, "</table>\n");
done:
	ac_buf_free(&parent);
	return rc;
}

static int html_message(ac_buf *out, size_t number, const char *role)
{
	int rc = ac_buf_printf(out, "<section>\n<h2>%zu. ", number);

	return rc ? rc : (rc = html_str(out, role)) ? rc : put(out, "</h2>\n");
}

static int html_part(ac_buf *out, part_kind kind, const char *title, size_t title_len,
		     const char *body, size_t len)
{
	static const char *const heads[] = {NULL, "Tool call", "Tool result", "Block"};
	int rc = 0;

	if (heads[kind] && ((rc = ac_buf_printf(out, "<h3>%s ", heads[kind])) ||
			    (rc = html_escape(out, title, title_len)) || (rc = put(out, "</h3>\n"))))
		return rc;
	if (kind == PART_TEXT) {
		/* A message's text is Markdown: rendered, closed, escaped. */
		ac_buf safe = AC_BUF_INIT;

		if ((rc = safe_lines(&safe, body, len)) == 0 && (rc = put(out, "<div class=\"md\">\n")) == 0 &&
		    (rc = ac_markdown_html(out, safe.data ? safe.data : "", safe.len)) == 0)
			rc = put(out, "</div>\n");
		ac_buf_free(&safe);
		return rc;
	}
	if ((rc = put(out, "<pre>")) || (rc = html_escape(out, body, len)))
		return rc;
	return put(out, "</pre>\n");
}

static int html_message_end(ac_buf *out)
{
	return put(out, "</section>\n");
}

static int html_end(ac_buf *out)
{
	return put(out, "</body>\n</html>\n");
}

static const renderer html = {html_begin, html_message, html_part, html_message_end, html_end};

/* ---- the walk over a message --------------------------------------------- */

static int part_json(ac_buf *out, const renderer *r, part_kind kind, const char *title,
		     size_t title_len, const json_t *value)
{
	char *text = value ? json_dumps(value, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					JSON_ENCODE_ANY) : NULL;
	int rc;

	if (value && !text)
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = r->part(out, kind, title, title_len, text ? text : "", text ? strlen(text) : 0);
	free(text);
	return rc;
}

/* A tool result's content: a string, or blocks whose text is joined. */
static int part_result(ac_buf *out, const renderer *r, const char *id, size_t id_len,
		       const json_t *content)
{
	ac_buf text = AC_BUF_INIT;
	const json_t *block;
	size_t i;
	int rc = 0;

	if (json_is_string(content))
		return r->part(out, PART_TOOL_RESULT, id, id_len, json_string_value(content),
			       json_string_length(content));
	if (!json_is_array(content))
		return part_json(out, r, PART_TOOL_RESULT, id, id_len, content);
	json_array_foreach (content, i, block) {
		const json_t *t = json_object_get(block, "text");

		if (text.len && (rc = ac_buf_putc(&text, '\n')))
			break;
		if (json_is_string(t))
			rc = ac_buf_append(&text, json_string_value(t), json_string_length(t));
		else
			rc = ac_buf_printf(&text, "[%s]", field(block, "type"));
		if (rc)
			break;
	}
	if (rc == 0)
		rc = r->part(out, PART_TOOL_RESULT, id, id_len, text.data ? text.data : "", text.len);
	ac_buf_free(&text);
	return rc;
}

static int part_block(ac_buf *out, const renderer *r, const json_t *block)
{
	const char *type = json_string_value(json_object_get(block, "type"));
	const json_t *text = json_object_get(block, "text");
	const char *title;
	size_t len;

	if (json_is_string(block))
		return r->part(out, PART_TEXT, "", 0, json_string_value(block),
			       json_string_length(block));
	if (type && !strcmp(type, "text") && json_is_string(text))
		return r->part(out, PART_TEXT, "", 0, json_string_value(text),
			       json_string_length(text));
	if (type && !strcmp(type, "tool_use")) {
		title = field_n(block, "name", &len);
		return part_json(out, r, PART_TOOL_USE, title, len, json_object_get(block, "input"));
	}
	if (type && !strcmp(type, "tool_result")) {
		title = field_n(block, "tool_use_id", &len);
		return part_result(out, r, title, len, json_object_get(block, "content"));
	}
	return part_json(out, r, PART_OTHER, type ? type : "?", type ? strlen(type) : 1, block);
}

/* An OpenAI-style call: {id, function: {name, arguments (JSON text)}}. */
static int part_openai_call(ac_buf *out, const renderer *r, const json_t *call)
{
	const json_t *function = json_object_get(call, "function");
	const json_t *args = json_object_get(function, "arguments");
	size_t len;
	const char *name = field_n(json_is_object(function) ? function : call, "name", &len);
	json_t *parsed = NULL;
	int rc;

	if (json_is_string(args))
		parsed = json_loadb(json_string_value(args), json_string_length(args), 0, NULL);
	if (json_is_string(args) && !parsed)
		return r->part(out, PART_TOOL_USE, name, len, json_string_value(args),
			       json_string_length(args));
	rc = part_json(out, r, PART_TOOL_USE, name, len,
		       parsed ? parsed : args ? args : json_object_get(call, "input"));
	json_decref(parsed);
	return rc;
}

static int render_message(ac_buf *out, const renderer *r, size_t number, const json_t *msg)
{
	const json_t *content = json_object_get(msg, "content"), *item;
	const json_t *calls = json_object_get(msg, "tool_calls");
	const char *role = json_string_value(json_object_get(msg, "role"));
	const json_t *id = json_object_get(msg, "toolCallId");
	const char *result_id;
	size_t i, id_len;
	int rc;

	if (!json_is_string(id))
		id = json_object_get(msg, "tool_call_id");
	result_id = json_string_value(id);
	id_len = json_string_length(id);
	if ((rc = r->message(out, number, role ? role : "?")))
		return rc;
	if (result_id && role && !strcmp(role, "tool"))
		rc = part_result(out, r, result_id, id_len, content);
	else if (json_is_string(content))
		rc = r->part(out, PART_TEXT, "", 0, json_string_value(content),
			     json_string_length(content));
	else if (json_is_array(content))
		json_array_foreach (content, i, item)
			if ((rc = part_block(out, r, item)))
				break;
	if (rc == 0 && json_is_array(calls))
		json_array_foreach (calls, i, item)
			if ((rc = part_openai_call(out, r, item)))
				break;
	return rc ? rc : r->message_end(out);
}

int ac_session_export_format(ac_export_format *out, const char *name)
{
	if (!strcmp(name, "md") || !strcmp(name, "markdown"))
		*out = AC_EXPORT_MARKDOWN;
	else if (!strcmp(name, "html"))
		*out = AC_EXPORT_HTML;
	else
		return ac_error_set(AC_EINVAL, "--format: '%s' is not md or html", name);
	return 0;
}

int ac_session_export(ac_buf *out, const json_t *root, ac_export_format format)
{
	const renderer *r = format == AC_EXPORT_HTML ? &html : &markdown;
	const json_t *messages = json_object_get(root, "conversationHistory"), *msg;
	size_t i;
	int rc;

	if ((rc = r->begin(out, root)))
		goto done;
	json_array_foreach (messages, i, msg)
		if ((rc = render_message(out, r, i + 1, msg)))
			goto done;
	rc = r->end(out);
done:
	return rc ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
}
