/* Compaction: plan, summarise, archive, then replace, in that order, so a
 * failure at any step before the last leaves the session as it was. */
#include "ac_compact.h"

#include "ac_archive.h"
#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_json_scan.h"
#include "ac_file.h"
#include "ac_messages.h"
#include "ac_proc.h"
#include "ac_session.h"
#include "ac_time.h"
#include "ac_tokens.h"

#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINE_BYTES 200      /* a message's line in the built-in summary */
#define EDGE_MESSAGES 30    /* long histories: this many lines from each end */
#define INPUT_DEPTH 32      /* how deep file paths are looked for in tool inputs */

void ac_compact_options_init(ac_compact_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->trigger_tokens = AC_COMPACT_TRIGGER_TOKENS;
	opts->fraction = AC_COMPACT_FRACTION;
	opts->summarizer_timeout_ms = AC_COMPACT_SUMMARIZER_TIMEOUT_MS;
}

/* The plan's counts for n messages of tokens; true when a cut is to be
 * chosen (then plan_cut() finishes the plan). */
static bool plan_counts(ac_compact_result *out, size_t n, uint64_t tokens,
			const ac_compact_options *opts)
{
	memset(out, 0, sizeof(*out));
	out->messages_before = n;
	out->messages_after = n;
	out->tokens_before = tokens;
	/* One message cannot be made shorter by replacing it with a summary
	 * of itself plus the rest of nothing. */
	if (n < 2) {
		out->why_not = "fewer than 2 messages: nothing to summarise";
		return false;
	}
	if (!(opts->force || out->tokens_before > opts->trigger_tokens)) {
		out->why_not = "below the compaction trigger (use --force to compact anyway)";
		return false;
	}
	return true;
}

static void plan_cut(ac_compact_result *out, size_t n, size_t cut)
{
	if (cut == 0 || cut > n) {
		out->why_not = "no place to cut that keeps tool calls with their results";
		return;
	}
	out->needed = true;
	out->summarized = cut;
	out->messages_after = n - cut + 1;
}

/* ac_compact_plan() with the messages' tokens counted already. */
static void plan(ac_compact_result *out, const json_t *messages, uint64_t tokens,
		 const ac_compact_options *opts)
{
	size_t n = json_array_size(messages);

	if (plan_counts(out, n, tokens, opts))
		plan_cut(out, n, ac_messages_compaction_cut(messages, opts->fraction));
}

void ac_compact_plan(ac_compact_result *out, const json_t *messages,
		     const ac_compact_options *opts)
{
	plan(out, messages, ac_messages_tokens(messages), opts);
}

void ac_compact_result_free(ac_compact_result *result)
{
	if (!result)
		return;
	free(result->archive_path);
	result->archive_path = NULL;
}

/* ---- the built-in summariser ---- */

typedef struct {
	json_t *tools;       /* [[name, count], ...] in first-use order */
	json_t *files;       /* [path, ...] in first-seen order */
	json_t *files_seen;  /* {path: true}, for de-duplication */
	int rc;
} summary_facts;

static bool is_path_key(const char *key)
{
	static const char *const keys[] = {"path", "file", "file_path", "filename", "filePath",
					   "paths"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

static void add_file(summary_facts *f, const json_t *value)
{
	const char *path = json_string_value(value);

	if (!path || !*path || json_object_get(f->files_seen, path))
		return;
	if (json_object_set_new(f->files_seen, path, json_true()) ||
	    json_array_append_new(f->files, json_string(path)))
		f->rc = AC_ENOMEM;
}

/* File paths anywhere in a tool input: under a path-like key, a string or
 * an array of strings; elsewhere, looked for further down. */
static void collect_files(summary_facts *f, const json_t *value, int depth)
{
	const char *key;
	json_t *item;
	size_t i;

	if (depth > INPUT_DEPTH)
		return;
	if (json_is_array(value)) {
		json_array_foreach(value, i, item)
			collect_files(f, item, depth + 1);
		return;
	}
	json_object_foreach((json_t *)value, key, item) {
		if (!is_path_key(key)) {
			collect_files(f, item, depth + 1);
		} else if (json_is_array(item)) {
			json_t *path;

			json_array_foreach(item, i, path)
				add_file(f, path);
		} else {
			add_file(f, item);
		}
	}
}

static void note_tool_call(const char *id, const char *name, const json_t *input, void *ctx)
{
	summary_facts *f = ctx;
	json_t *entry = NULL, *parsed = NULL;
	size_t i;

	(void)id;
	if (!name)
		name = "?";
	json_array_foreach(f->tools, i, entry)
		if (!strcmp(json_string_value(json_array_get(entry, 0)), name))
			break;
	if (i < json_array_size(f->tools)) {
		json_t *count = json_array_get(entry, 1);

		json_integer_set(count, json_integer_value(count) + 1);
	} else if (json_array_append_new(f->tools, json_pack("[s,i]", name, 1))) {
		f->rc = AC_ENOMEM;
	}
	/* OpenAI-style calls carry their arguments as JSON text. */
	if (json_is_string(input))
		input = parsed = json_loads(json_string_value(input), 0, NULL);
	if (input)
		collect_files(f, input, 0);
	json_decref(parsed);
}

/* Appends text as one line: line breaks folded to single spaces, ends
 * trimmed, cut to LINE_BYTES at a character boundary. */
static int append_line(ac_buf *out, const char *text, size_t len)
{
	size_t start = out->len, kept;
	bool space = true; /* drops leading white space */

	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		bool blank = c == '\n' || c == '\r' || c == ' ' || c == '\t';

		if (blank && space)
			continue;
		if (ac_buf_putc(out, blank ? ' ' : c))
			return AC_ENOMEM;
		space = blank;
	}
	while (out->len > start && out->data[out->len - 1] == ' ')
		out->len--;
	kept = out->len - start;
	if (kept > LINE_BYTES) {
		kept = LINE_BYTES;
		while (kept > 0 && ((unsigned char)out->data[start + kept] & 0xc0) == 0x80)
			kept--;
		out->len = start + kept;
		return ac_buf_append(out, "\xe2\x80\xa6", 3); /* "…" */
	}
	if (out->data)
		out->data[out->len] = '\0';
	return 0;
}

static int append_message_line(ac_buf *out, const json_t *msg, ac_buf *scratch)
{
	ac_buf_clear(scratch);
	if (ac_message_text(scratch, msg) ||
	    ac_buf_printf(out, "- %s: ", ac_message_role(msg)) ||
	    append_line(out, scratch->data ? scratch->data : "", scratch->len) ||
	    ac_buf_putc(out, '\n'))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

static int append_facts(ac_buf *out, const summary_facts *facts)
{
	json_t *item;
	size_t i;

	json_array_foreach(facts->tools, i, item)
		if (ac_buf_printf(out, "%s%s (%lld)", i ? ", " : "Tools used: ",
				  json_string_value(json_array_get(item, 0)),
				  (long long)json_integer_value(json_array_get(item, 1))))
			return AC_ENOMEM;
	if (i && ac_buf_putc(out, '\n'))
		return AC_ENOMEM;
	json_array_foreach(facts->files, i, item)
		if (ac_buf_printf(out, "%s%s", i ? ", " : "Files: ", json_string_value(item)))
			return AC_ENOMEM;
	if (i && ac_buf_putc(out, '\n'))
		return AC_ENOMEM;
	return 0;
}

/* The built-in summary made one message at a time, so that a history need
 * not be held whole: counts and facts over all, lines from both ends. */
typedef struct {
	size_t n;    /* messages to summarise */
	size_t seen; /* messages added so far */
	size_t users, assistants, tools, other;
	summary_facts facts;
	ac_buf lines, scratch;
} builtin_summary;

static void builtin_free(builtin_summary *b)
{
	json_decref(b->facts.tools);
	json_decref(b->facts.files);
	json_decref(b->facts.files_seen);
	ac_buf_free(&b->lines);
	ac_buf_free(&b->scratch);
}

static int builtin_begin(builtin_summary *b, size_t n)
{
	memset(b, 0, sizeof(*b));
	b->n = n;
	b->facts = (summary_facts){json_array(), json_array(), json_object(), 0};
	if (!b->facts.tools || !b->facts.files || !b->facts.files_seen)
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

static int builtin_add(builtin_summary *b, const json_t *msg)
{
	const char *role = ac_message_role(msg);
	size_t i = b->seen++, n = b->n;

	if (!strcmp(role, "user"))
		b->users++;
	else if (!strcmp(role, "assistant"))
		b->assistants++;
	else if (!strcmp(role, "tool"))
		b->tools++;
	else
		b->other++;
	ac_message_tool_calls(msg, note_tool_call, &b->facts);
	if (b->facts.rc)
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* A long history keeps its beginning and its end. */
	if (n > 2 * EDGE_MESSAGES && i >= EDGE_MESSAGES && i < n - EDGE_MESSAGES) {
		if (i == EDGE_MESSAGES && ac_buf_printf(&b->lines, "- \xe2\x80\xa6 (%zu more messages)\n",
							n - 2 * EDGE_MESSAGES))
			return ac_error_set(AC_ENOMEM, "out of memory");
		return 0;
	}
	return append_message_line(&b->lines, msg, &b->scratch);
}

static int builtin_finish(char **out, builtin_summary *b)
{
	ac_buf text = AC_BUF_INIT;
	size_t n = b->seen;
	int rc = 0;

	if (ac_buf_printf(&text, "%zu message%s compacted (user %zu, assistant %zu, tool %zu", n,
			  n == 1 ? "" : "s", b->users, b->assistants, b->tools) ||
	    (b->other && ac_buf_printf(&text, ", other %zu", b->other)) ||
	    ac_buf_printf(&text, ").\n") || append_facts(&text, &b->facts) ||
	    ac_buf_printf(&text, "Conversation:\n") ||
	    (b->lines.len && ac_buf_append(&text, b->lines.data, b->lines.len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	/* No trailing line break: the summary ends with its last line. */
	if (text.len && text.data[text.len - 1] == '\n')
		text.data[--text.len] = '\0';
	if (!(*out = ac_buf_detach(&text)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	ac_buf_free(&text);
	return rc;
}

int ac_summarize_builtin(char **out, const json_t *messages)
{
	builtin_summary b;
	json_t *msg;
	size_t i;
	int rc;

	if ((rc = builtin_begin(&b, json_array_size(messages))))
		goto done;
	json_array_foreach(messages, i, msg)
		if ((rc = builtin_add(&b, msg)))
			goto done;
	rc = builtin_finish(out, &b);
done:
	builtin_free(&b);
	return rc;
}

/* ---- the command summariser ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The command summariser on behalf of session_id (NULL: none), see
 * ac_proc_run_for_session(). */
static int summarize_command(char **out, const char *const *argv, const char *session_id,
			     const char *input, size_t input_len, int timeout_ms)
{
	ac_proc_result result;
	ac_buf why = AC_BUF_INIT;
	const char *start, *end;
	json_t *check = NULL;
	int rc;

	if ((rc = ac_proc_run_for_session(&result, argv, session_id, NULL, input, input_len,
					  timeout_ms))) {
		char reason[512];

		snprintf(reason, sizeof(reason), "%s", ac_error_last());
		ac_error_set(rc, "summarizer: %s", reason);
		goto done;
	}
	if (result.timed_out || result.exit_status != 0) {
		ac_proc_describe_failure(&why, &result, timeout_ms);
		rc = ac_error_set(AC_EIO, "summarizer %s %s", argv[0], why.data ? why.data : "failed");
		goto done;
	}
	start = result.out.data ? result.out.data : "";
	end = start + result.out.len;
	while (start < end && is_blank(*start))
		start++;
	while (end > start && is_blank(end[-1]))
		end--;
	if (start == end) {
		rc = ac_error_set(AC_EIO, "summarizer %s printed no summary on its standard output",
				  argv[0]);
		goto done;
	}
	/* The summary goes into a JSON string: it must be UTF-8 text. */
	check = json_stringn(start, (size_t)(end - start));
	if (!check || memchr(start, '\0', (size_t)(end - start))) {
		rc = ac_error_set(AC_EIO, "summarizer %s printed a summary that is not UTF-8 text",
				  argv[0]);
		goto done;
	}
	if (!(*out = strndup(start, (size_t)(end - start))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	json_decref(check);
	ac_buf_free(&why);
	ac_proc_result_free(&result);
	return rc;
}

/* The summariser's input: the messages as one compact JSON array. */
static int summarize_messages(char **out, const char *const *argv, const char *session_id,
			      const json_t *messages, int timeout_ms)
{
	size_t input_len = 0;
	char *input = ac_json_exact_dumps(messages, JSON_COMPACT, &input_len);
	int rc;

	if (!input)
		return ac_error_set(AC_ENOMEM, "out of memory (or messages that are not JSON)");
	rc = summarize_command(out, argv, session_id, input, input_len, timeout_ms);
	free(input);
	return rc;
}

int ac_summarize_command(char **out, const char *const *argv, const json_t *messages,
			 int timeout_ms)
{
	return summarize_messages(out, argv, NULL, messages, timeout_ms);
}

/* ---- compacting a session ---- */

/* A session's history as the file's text, walked one message at a time. */
typedef struct {
	ac_json_span span; /* conversationHistory's value in the text */
	const char *what;  /* the file, for errors */
} history_text;

typedef int (*message_fn)(const json_t *msg, void *ctx);

/* Calls fn for each of messages [from, to) of h, each parsed on its own and
 * released after the call. */
static int each_message(const history_text *h, size_t from, size_t to, message_fn fn,
			void *ctx)
{
	ac_json_cursor cursor;
	ac_json_span value;
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
		if ((rc = ac_json_exact_load(&msg, value.start, value.len, flags, h->what)))
			return rc;
		rc = fn(msg, ctx);
		json_decref(msg);
		if (rc)
			return rc;
	}
	return 0;
}

static int append_to_array(const json_t *msg, void *ctx)
{
	if (json_array_append(ctx, (json_t *)msg))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

typedef struct {
	const char *id;
	json_t *replaced;         /* the messages that were summarised */
	const char *summary;
	const char *archive;      /* relative to the sessions folder */
	const char *at;
	ac_compact_result *result;
	const ac_compact_options *opts;
	bool applied;             /* the last call changed the content */
	/* The history as loaded (a reference is held, so no other array
	 * takes its address) and its counts, which stand while the content
	 * is that document. */
	const json_t *loaded;
	uint64_t loaded_tokens, replaced_tokens;
	/* Compacting from the file's text: its history (NULL otherwise), the
	 * document without it, and how many messages are summarised. */
	const history_text *text;
	json_t *rest;
	size_t cut;
} replacement;

/* True when metadata.compactions records the archive: the session holds
 * this compaction already. */
static bool names_archive(const json_t *metadata, const char *archive)
{
	json_t *record;
	size_t i;

	json_array_foreach(json_object_get(metadata, "compactions"), i, record) {
		const char *named = json_string_value(json_object_get(record, "archive"));

		if (named && !strcmp(named, archive))
			return true;
	}
	return false;
}

/* The summary message that replaces the first messages. New reference, or
 * NULL when out of memory. */
static json_t *summary_message(const char *summary)
{
	ac_buf content = AC_BUF_INIT;
	json_t *msg = NULL;

	if (ac_buf_printf(&content, "%s%s", AC_SUMMARY_PREFIX, summary) == 0)
		msg = json_pack("{s:s, s:s}", "role", "user", "content", content.data);
	ac_buf_free(&content);
	return msg;
}

/* Checks root's metadata and appends this compaction's record to
 * metadata.compactions (both made when absent). Nothing changes on a
 * refusal. */
static int record_compaction(json_t *root, const replacement *r, uint64_t before, uint64_t after)
{
	json_t *metadata = json_object_get(root, "metadata"), *compactions;

	/* Refused rather than replaced: whatever is there is someone's data. */
	if (metadata && !json_is_object(metadata))
		return ac_error_set(AC_ECORRUPT, "session %s: metadata is not an object", r->id);
	compactions = metadata ? json_object_get(metadata, "compactions") : NULL;
	if (compactions && !json_is_array(compactions))
		return ac_error_set(AC_ECORRUPT, "session %s: metadata.compactions is not an array",
				    r->id);
	if (!metadata) {
		metadata = json_object();
		if (json_object_set_new(root, "metadata", metadata))
			return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if (!compactions) {
		compactions = json_array();
		if (json_object_set_new(metadata, "compactions", compactions))
			return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if (json_array_append_new(compactions,
				  json_pack("{s:s, s:I, s:I, s:I, s:s}", "at", r->at, "messages",
					    (json_int_t)r->cut, "tokensBefore", (json_int_t)before,
					    "tokensAfter", (json_int_t)after, "archive", r->archive)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

/* The change applied to the session's current content: only if its first
 * messages are still the ones summarised. */
static int replace_with_summary(json_t *root, void *ctx)
{
	replacement *r = ctx;
	json_t *history = json_object_get(root, "conversationHistory");
	json_t *metadata = json_object_get(root, "metadata"), *kept = NULL;
	size_t cut = r->cut, n = json_array_size(history);
	uint64_t before, after;
	int rc = 0;

	if (r->opts->guard && (rc = r->opts->guard(root, r->opts->guard_ctx)))
		return rc;
	r->applied = false;
	if (names_archive(metadata, r->archive))
		return AC_SESSION_UNCHANGED; /* a reader saved our version again */
	if (!json_is_array(history) || n < cut)
		goto changed;
	/* Compacting from the text, the summarised messages are parsed only
	 * now that another writer's version must be compared with them. */
	if (!r->replaced) {
		if (!(r->replaced = json_array())) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		if ((rc = each_message(r->text, 0, cut, append_to_array, r->replaced)))
			goto done;
	}
	for (size_t i = 0; i < cut; i++)
		if (!json_equal(json_array_get(history, i), json_array_get(r->replaced, i)))
			goto changed;
	before = history == r->loaded ? r->loaded_tokens : ac_messages_tokens(history);
	if (!(kept = json_array()) || json_array_append_new(kept, summary_message(r->summary))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = cut; i < n; i++)
		if (json_array_append(kept, json_array_get(history, i))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	after = history == r->loaded ? before - r->replaced_tokens +
						ac_message_tokens(json_array_get(kept, 0))
				     : ac_messages_tokens(kept);
	if ((rc = record_compaction(root, r, before, after)))
		goto done;
	if (json_object_set(root, "conversationHistory", kept)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	r->result->messages_before = n;
	r->result->messages_after = json_array_size(kept);
	r->result->tokens_before = before;
	r->result->tokens_after = after;
	r->applied = true;
	goto done;
changed:
	rc = ac_error_set(AC_ECONFLICT,
			  "session %s changed while it was being compacted; nothing was changed", r->id);
done:
	json_decref(kept);
	return rc;
}

/* ---- the same change made on the file's text ---- */

/* The document as the file holds it with the history left empty: every
 * top-level member but the messages, parsed (small). */
static int load_rest(json_t **out, const char *text, size_t len, const history_text *h)
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
static int replace_text_with_summary(ac_buf *out, const char *text, size_t len,
				     const char *now, void *ctx)
{
	replacement *r = ctx;
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
	if (!(summary = summary_message(r->summary))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	after = before - r->replaced_tokens + ac_message_tokens(summary);
	if ((rc = record_compaction(rest, r, before, after)))
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
	if ((rc = each_message(r->text, r->cut, n, append_kept, out)))
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

/* ---- compacting ---- */

/* Returns the freed pages of one step's large buffer (the summariser's
 * input, the archive) to the system before the next step builds its own:
 * glibc keeps a freed buffer of a few MB in its heap, where it would add
 * to the next step's. */
static void give_back_memory(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/* What compacting needs from either source: the session's first cut
 * messages for the summariser and the archive, and the change. */
typedef struct {
	ac_session *session;      /* parsed, or text only (history set) */
	const history_text *text; /* NULL: compacting the parsed document */
	json_t *messages;         /* parsed: the history */
	json_t *replaced;         /* parsed: its first cut messages */
} compact_source;

static int add_to_summary(const json_t *msg, void *ctx)
{
	return builtin_add(ctx, msg);
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
static int summarize_text(char **out, const history_text *h, size_t cut, const char *id,
			  const ac_compact_options *opts)
{
	ac_buf input = AC_BUF_INIT;
	builtin_summary b;
	int rc;

	if (!opts->summarizer) {
		if ((rc = builtin_begin(&b, cut)) == 0 &&
		    (rc = each_message(h, 0, cut, add_to_summary, &b)) == 0)
			rc = builtin_finish(out, &b);
		builtin_free(&b);
		return rc;
	}
	if ((rc = each_message(h, 0, cut, add_to_input, &input)) == 0 &&
	    (rc = ac_buf_putc(&input, ']') ? ac_error_set(AC_ENOMEM, "out of memory") : 0) == 0)
		rc = summarize_command(out, opts->summarizer, id, input.data, input.len,
				       opts->summarizer_timeout_ms);
	ac_buf_free(&input);
	return rc;
}

static int summarize(char **out, const compact_source *src, size_t cut, const char *id,
		     const ac_compact_options *opts)
{
	int rc;

	if (src->text)
		rc = summarize_text(out, src->text, cut, id, opts);
	else if (opts->summarize)
		rc = opts->summarize(out, src->replaced, opts->summarize_ctx);
	else if (opts->summarizer)
		rc = summarize_messages(out, opts->summarizer, id, src->replaced,
					opts->summarizer_timeout_ms);
	else
		rc = ac_summarize_builtin(out, src->replaced);
	if (rc == 0 && !*out)
		rc = ac_error_set(AC_EINVAL, "session %s: the summariser returned no summary", id);
	return rc;
}

static int add_to_archive(const json_t *msg, void *ctx)
{
	return ac_archive_add(ctx, msg);
}

static int archive(char **out_path, char **out_relative, const compact_source *src, size_t cut,
		   const char *sessions_dir, const char *id, const char *created_at,
		   int64_t now_ms)
{
	ac_buf doc = AC_BUF_INIT;
	int rc;

	if (!src->text)
		return ac_archive_write(out_path, out_relative, sessions_dir, ".compactions", id,
					created_at, now_ms, src->replaced, NULL);
	if ((rc = ac_archive_begin(&doc, id, created_at)) == 0 &&
	    (rc = each_message(src->text, 0, cut, add_to_archive, &doc)) == 0)
		rc = ac_archive_write_built(out_path, out_relative, sessions_dir, ".compactions", id,
					    now_ms, &doc);
	ac_buf_free(&doc);
	return rc;
}

static int add_to_finder(const json_t *msg, void *ctx)
{
	return ac_cut_finder_add(ctx, msg);
}

/* Plans from the text: tokens from the bytes, the cut from each message's
 * tool calls and results, no tree of the history. */
static int plan_text(ac_compact_result *out, const history_text *h,
		     const ac_compact_options *opts)
{
	ac_cut_finder *finder = NULL;
	size_t n = h->span.count;
	int rc;

	if (!plan_counts(out, n, ac_tokens_history_json(h->span.start, h->span.len), opts))
		return 0;
	if ((rc = ac_cut_finder_new(&finder)) == 0 &&
	    (rc = each_message(h, 0, n, add_to_finder, finder)) == 0)
		plan_cut(out, n, ac_cut_finder_cut(finder, opts->fraction));
	ac_cut_finder_free(finder);
	return rc;
}

/* Loads the session as text when its history can be walked from the text
 * (*out_text set), else parsed whole (*out_text NULL). */
static int load_source(compact_source *src, history_text *h, const char *sessions_dir,
		       const char *id)
{
	static const char history_key[] = "conversationHistory", status_key[] = "status";
	const ac_json_path paths[2] = {{{history_key}, {sizeof(history_key) - 1}, 1},
				       {{status_key}, {sizeof(status_key) - 1}, 1}};
	ac_json_span found[2];
	const char *text, *p;
	size_t len;
	int rc;

	memset(src, 0, sizeof(*src));
	if ((rc = ac_session_load_text(&src->session, sessions_dir, id)))
		return rc;
	text = ac_session_text(src->session, &len);
	for (p = text; p < text + len && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r');)
		p++;
	/* Anything unusual (not an object, a history that is not an array, a
	 * scanner's refusal) takes the parsed way, which names the fault. */
	if (p < text + len && *p == '{' && !ac_json_exact_holds_marker(text, len) &&
	    ac_json_scan(found, text, len, paths, 2, NULL) == 0 &&
	    found[0].type == AC_JSON_ARRAY &&
	    (found[1].type == AC_JSON_NONE || found[1].type == AC_JSON_STRING)) {
		h->span = found[0];
		src->text = h;
		return 0;
	}
	ac_error_clear();
	ac_session_free(src->session);
	src->session = NULL;
	if ((rc = ac_session_load(&src->session, sessions_dir, id)))
		return rc;
	src->messages = json_incref(ac_session_messages(src->session));
	return 0;
}

int ac_compact_session(ac_compact_result *out, const char *sessions_dir, const char *id,
		       const ac_compact_options *opts)
{
	char at[AC_TIME_ISO_LEN + 1], *summary = NULL, *archive_relative = NULL;
	char *archive_path = NULL, *what = NULL;
	const char *created_at;
	ac_session *after = NULL;
	ac_session_write_options write;
	compact_source src = {0};
	history_text h = {{0}, NULL};
	json_t *rest = NULL;
	uint64_t replaced_tokens;
	bool published = false;
	int64_t now_ms;
	replacement change;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_session_path(&what, sessions_dir, id)))
		goto done;
	h.what = what;
	/* A caller's summarise callback takes the messages as one array. */
	if (opts->summarize) {
		memset(&src, 0, sizeof(src));
		if ((rc = ac_session_load(&src.session, sessions_dir, id)))
			goto done;
		src.messages = json_incref(ac_session_messages(src.session));
	} else if ((rc = load_source(&src, &h, sessions_dir, id))) {
		goto done;
	}
	if (src.text) {
		if ((rc = plan_text(out, src.text, opts)) || !out->needed)
			goto done;
		replaced_tokens = ac_tokens_history_prefix_json(h.span.start, h.span.len,
							       out->summarized);
	} else {
		/* One parse: the counts come from the file's text, and the
		 * update below starts from this document while the file stays
		 * the same. */
		plan(out, src.messages, ac_session_tokens(src.session, SIZE_MAX), opts);
		if (!out->needed)
			goto done;
		replaced_tokens = ac_session_tokens(src.session, out->summarized);
		/* Counted: the text need not sit beside the summariser's input. */
		ac_session_release_text(src.session);
		if (!(src.replaced = json_array())) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		for (size_t i = 0; i < out->summarized; i++)
			if (json_array_append(src.replaced, json_array_get(src.messages, i))) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				goto done;
			}
	}
	if ((rc = summarize(&summary, &src, out->summarized, id, opts)))
		goto done;
	give_back_memory();
	if (src.text) {
		size_t len;
		const char *text = ac_session_text(src.session, &len);

		if ((rc = load_rest(&rest, text, len, src.text)))
			goto done;
		created_at = json_string_value(json_object_get(rest, "createdAt"));
	} else {
		created_at = json_string_value(json_object_get(ac_session_root(src.session),
							       "createdAt"));
	}
	now_ms = ac_time_now_ms();
	ac_time_format_iso(at, now_ms);
	if ((rc = archive(&archive_path, &archive_relative, &src, out->summarized, sessions_dir, id,
			  created_at ? created_at : "", now_ms)))
		goto done;
	give_back_memory();
	if (opts->after_archive)
		opts->after_archive(opts->after_archive_ctx);
	change = (replacement){id, src.replaced, summary, archive_relative, at, out, opts, false,
			       src.messages, out->tokens_before, replaced_tokens, src.text, rest,
			       out->summarized};
	src.replaced = NULL; /* the change's now (it may make one) */
	write = opts->write;
	write.published = &published;
	if (src.text) {
		rc = ac_session_update_text_from(&after, src.session, sessions_dir, id,
						 replace_text_with_summary, replace_with_summary,
						 &change, &write);
	} else {
		rc = ac_session_update_from(&after, src.session, sessions_dir, id,
					    replace_with_summary, &change, &write);
		src.session = NULL; /* taken over */
	}
	json_decref(change.replaced);
	if (rc) {
		/* A version naming the archive may have been read (and saved
		 * again by its reader): then the archive must stay. */
		if (!published) {
			unlink(archive_path);
		} else {
			char *why = strdup(ac_error_last());

			ac_error_set(rc, "%s (the archive %s is kept: a version naming it was "
				     "visible for a moment)", why ? why : "", archive_path);
			free(why);
		}
		goto done;
	}
	if (!change.applied && after) {
		/* Applied already (our version came back): report from the file. */
		json_t *messages_now = ac_session_messages(after);

		out->messages_before = json_array_size(messages_now) + out->summarized - 1;
		out->messages_after = json_array_size(messages_now);
		out->tokens_after = ac_messages_tokens(messages_now);
	}
	out->archive_path = archive_path;
	archive_path = NULL;
done:
	if (rc)
		out->needed = false;
	ac_session_free(src.session);
	ac_session_free(after);
	json_decref(src.messages);
	json_decref(src.replaced);
	json_decref(rest);
	free(summary);
	free(archive_relative);
	free(archive_path);
	free(what);
	return rc;
}
