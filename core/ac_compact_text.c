/* Compaction from the session file's text: the history is walked one
 * message at a time with the scanner's cursor, each message parsed alone
 * and released, so a large session is held as its text plus one step's
 * output (the summariser's input, the archive or the new document), never
 * as one tree. The output is byte for byte what the parsed way writes.
 * The steps' order and the compare-and-swap are ac_compact.c's. */
#include "ac_compact_impl.h"

#include "ac_archive.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_messages.h"
#include "ac_tokens.h"

#include <stdlib.h>
#include <string.h>

bool ac_history_text_find(ac_history_text *out, const char *text, size_t len, const char *what)
{
	static const char history_key[] = "conversationHistory", status_key[] = "status";
	const ac_json_path paths[2] = {{{history_key}, {sizeof(history_key) - 1}, 1},
				       {{status_key}, {sizeof(status_key) - 1}, 1}};
	ac_json_span found[2];
	const char *p = text;

	while (p < text + len && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	if (p < text + len && *p == '{' && !ac_json_exact_holds_marker(text, len) &&
	    ac_json_scan(found, text, len, paths, 2, NULL) == 0 &&
	    found[0].type == AC_JSON_ARRAY &&
	    (found[1].type == AC_JSON_NONE || found[1].type == AC_JSON_STRING)) {
		out->span = found[0];
		out->what = what;
		return true;
	}
	ac_error_clear();
	return false;
}

/* Filters messages by their text before they are parsed (may be NULL:
 * every message). */
typedef bool (*text_filter)(const char *text, size_t len);

/* ac_history_text_each(); a message the filter refuses reaches fn as an
 * empty object, unparsed. */
static int each(const ac_history_text *h, size_t from, size_t to, text_filter filter,
		ac_history_fn fn, void *ctx)
{
	ac_json_cursor cursor;
	ac_json_span value;
	json_t *empty = NULL;
	int rc = 0;

	ac_json_cursor_init(&cursor, &h->span);
	for (size_t i = 0; i < to && ac_json_cursor_next(&cursor, NULL, &value); i++) {
		json_t *msg = NULL;
		/* A message that is not an object or array is an unknown shape,
		 * kept as it is. */
		size_t flags = value.type == AC_JSON_OBJECT || value.type == AC_JSON_ARRAY
				       ? 0 : JSON_DECODE_ANY;

		if (i < from)
			continue;
		if (filter && !filter(value.start, value.len)) {
			if (!empty && !(empty = json_object())) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				break;
			}
			if ((rc = fn(empty, ctx)))
				break;
			continue;
		}
		if ((rc = ac_json_exact_load(&msg, value.start, value.len, flags, h->what)))
			break;
		rc = fn(msg, ctx);
		json_decref(msg);
		if (rc)
			break;
	}
	json_decref(empty);
	return rc;
}

int ac_history_text_each(const ac_history_text *h, size_t from, size_t to, ac_history_fn fn,
			 void *ctx)
{
	return each(h, from, to, NULL, fn, ctx);
}

/* False when a message's text cannot hold a tool call or result: every
 * key and block type that pairing reads (tool_calls, toolCallId,
 * tool_call_id, tool_use, tool_result, tool_use_id, role "tool") has
 * "tool" in it, unless spelt with \u escapes. Most messages of a long
 * chat need not be parsed to plan the cut. */
static bool may_pair(const char *text, size_t len)
{
	return memmem(text, len, "tool", 4) || memmem(text, len, "\\u", 2);
}

static int add_to_finder(const json_t *msg, void *ctx)
{
	return ac_cut_finder_add(ctx, msg);
}

/* Plans from the text: tokens from the bytes, the cut from each message's
 * tool calls and results, no tree of the history. */
int ac_compact_text_plan(ac_compact_result *out, const ac_history_text *h,
			 const ac_compact_options *opts)
{
	ac_cut_finder *finder = NULL;
	size_t n = h->span.count;
	int rc;

	if (!ac_compact_plan_counts(out, n, ac_tokens_history_json(h->span.start, h->span.len), opts))
		return 0;
	if ((rc = ac_cut_finder_new(&finder)) == 0 &&
	    (rc = each(h, 0, n, may_pair, add_to_finder, finder)) == 0)
		ac_compact_plan_cut(out, n, ac_cut_finder_cut(finder, opts->fraction));
	ac_cut_finder_free(finder);
	return rc;
}

static int add_to_summary(const json_t *msg, void *ctx)
{
	return ac_summary_builtin_add(ctx, msg);
}

static int add_to_input(const json_t *msg, void *ctx)
{
	ac_buf *input = ctx;

	if (ac_buf_putc(input, input->len ? ',' : '['))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (ac_json_exact_dump_nested(input, msg, JSON_COMPACT, 0))
		return ac_error_set(AC_ENOMEM, "out of memory (or messages that are not JSON)");
	return 0;
}

/* The summary of the first cut messages, read one at a time from the
 * text: only the summariser's own input is held whole. */
int ac_compact_text_summarize(char **out, const ac_history_text *h, size_t cut, const char *id,
			      const ac_compact_options *opts)
{
	ac_buf input = AC_BUF_INIT;
	ac_summary_builtin b;
	int rc;

	if (!opts->summarizer) {
		if ((rc = ac_summary_builtin_begin(&b, cut)) == 0 &&
		    (rc = ac_history_text_each(h, 0, cut, add_to_summary, &b)) == 0)
			rc = ac_summary_builtin_finish(out, &b);
		ac_summary_builtin_free(&b);
		return rc;
	}
	if ((rc = ac_history_text_each(h, 0, cut, add_to_input, &input)) == 0 &&
	    (rc = ac_buf_putc(&input, ']') ? ac_error_set(AC_ENOMEM, "out of memory") : 0) == 0)
		rc = ac_compact_run_summarizer(out, opts->summarizer, id, input.data, input.len,
					       opts->summarizer_timeout_ms);
	ac_buf_free(&input);
	return rc;
}

static int add_to_archive(const json_t *msg, void *ctx)
{
	return ac_archive_add(ctx, msg);
}

int ac_compact_text_archive(char **out_path, char **out_relative, const ac_history_text *h,
			    size_t cut, const char *sessions_dir, const char *id,
			    const char *created_at, int64_t now_ms)
{
	ac_buf doc = AC_BUF_INIT;
	int rc;

	if ((rc = ac_archive_begin(&doc, id, created_at)) == 0 &&
	    (rc = ac_history_text_each(h, 0, cut, add_to_archive, &doc)) == 0)
		rc = ac_archive_write_built(out_path, out_relative, sessions_dir, ".compactions", id,
					    now_ms, &doc);
	ac_buf_free(&doc);
	return rc;
}

/* The document as the file holds it with the history left empty: every
 * top-level member but the messages, parsed (small). */
int ac_compact_text_load_rest(json_t **out, const char *text, size_t len,
			      const ac_history_text *h)
{
	size_t before = (size_t)(h->span.start - text);
	size_t after = len - before - h->span.len;
	ac_buf rest = AC_BUF_INIT;
	int rc;

	if (ac_buf_reserve(&rest, before + 2 + after) || ac_buf_append(&rest, text, before) ||
	    ac_buf_append(&rest, "[]", 2) ||
	    ac_buf_append(&rest, h->span.start + h->span.len, after)) {
		ac_buf_free(&rest);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	rc = ac_json_exact_load(out, rest.data, rest.len, 0, h->what);
	ac_buf_free(&rest);
	return rc;
}

static int append_kept(const json_t *msg, void *ctx)
{
	ac_buf *out = ctx;

	if (ac_buf_append(out, ",\n    ", 6))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return ac_json_exact_dump_nested(out, msg, JSON_INDENT(2), 4);
}

/* The history's place in the serialised rest: an empty array as the
 * layout writes it at the top level, where no string can hold a raw line
 * break. */
#define EMPTY_HISTORY "\n  \"conversationHistory\": []"

/* ac_session_text_change_fn: the document as replace_with_summary() and the
 * session's serialiser would write it, with the messages written one at a
 * time instead of held as one tree. */
int ac_compact_text_replace(ac_buf *out, const char *text, size_t len, const char *now,
			    void *ctx)
{
	ac_compact_change *r = ctx;
	size_t n = r->result->messages_before, mark;
	json_t *summary = NULL, *rest = r->rest;
	uint64_t before = r->loaded_tokens, after;
	char *layout = NULL;
	const char *hole;
	size_t layout_len = 0;
	int rc;

	(void)text;
	(void)len;
	if (r->opts->guard && (rc = r->opts->guard(rest, r->opts->guard_ctx)))
		return rc;
	r->applied = false;
	if (!(summary = ac_compact_summary_message(r->summary))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	after = before - r->replaced_tokens + ac_message_tokens(summary);
	if ((rc = ac_compact_record(rest, r, before, after)))
		goto done;
	if (json_object_set_new(rest, "updatedAt", json_string(now)) ||
	    !(layout = ac_json_exact_dumps(rest, JSON_INDENT(2), &layout_len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (!(hole = strstr(layout, EMPTY_HISTORY))) {
		rc = ac_error_set(AC_EINVAL, "session %s: no history to compact", r->id);
		goto done;
	}
	hole += strlen(EMPTY_HISTORY) - 1; /* at the ']' */
	mark = (size_t)(hole - layout);
	if (ac_buf_reserve(out, layout_len + r->text->span.len) ||
	    ac_buf_append(out, layout, mark) || ac_buf_append(out, "\n    ", 5) ||
	    ac_json_exact_dump_nested(out, summary, JSON_INDENT(2), 4)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_history_text_each(r->text, r->cut, n, append_kept, out)))
		goto done;
	if (ac_buf_append(out, "\n  ", 3) ||
	    ac_buf_append(out, layout + mark, layout_len - mark)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	r->result->messages_after = n - r->cut + 1;
	r->result->tokens_before = before;
	r->result->tokens_after = after;
	r->applied = true;
done:
	json_decref(summary);
	free(layout);
	return rc;
}
