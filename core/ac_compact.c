/* Compaction: plan, summarise, archive, then replace, in that order, so a
 * failure at any step before the last leaves the session as it was. */
#include "ac_compact.h"

#include "ac_archive.h"
#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_file.h"
#include "ac_messages.h"
#include "ac_proc.h"
#include "ac_session.h"
#include "ac_time.h"

#include <errno.h>
#include <fcntl.h>
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
	opts->min_messages = AC_COMPACT_MIN_MESSAGES;
	opts->summarizer_timeout_ms = AC_COMPACT_SUMMARIZER_TIMEOUT_MS;
}

/* ac_compact_plan() with the messages' tokens counted already. */
static void plan(ac_compact_result *out, const json_t *messages, uint64_t tokens,
		 const ac_compact_options *opts)
{
	size_t n = json_array_size(messages), cut;

	memset(out, 0, sizeof(*out));
	out->messages_before = n;
	out->messages_after = n;
	out->tokens_before = tokens;
	/* One message cannot be made shorter by replacing it with a summary
	 * of itself plus the rest of nothing. */
	if (n < 2) {
		out->why_not = "fewer than 2 messages: nothing to summarise";
		return;
	}
	if (!(opts->force || out->tokens_before > opts->trigger_tokens)) {
		out->why_not = "below the compaction trigger (use --force to compact anyway)";
		return;
	}
	if (!opts->force && n < opts->min_messages) {
		out->why_not = "fewer messages than compaction.minMessages (use --force to compact anyway)";
		return;
	}
	cut = ac_messages_compaction_cut(messages, opts->fraction);
	if (cut == 0 || cut > n) {
		out->why_not = "no place to cut that keeps tool calls with their results";
		return;
	}
	out->needed = true;
	out->summarized = cut;
	out->messages_after = n - cut + 1;
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

static int append_counts(ac_buf *out, const json_t *messages, summary_facts *facts)
{
	size_t users = 0, assistants = 0, tools = 0, other = 0, i, n = json_array_size(messages);
	json_t *msg;

	json_array_foreach(messages, i, msg) {
		const char *role = ac_message_role(msg);

		if (!strcmp(role, "user"))
			users++;
		else if (!strcmp(role, "assistant"))
			assistants++;
		else if (!strcmp(role, "tool"))
			tools++;
		else
			other++;
		ac_message_tool_calls(msg, note_tool_call, facts);
	}
	if (facts->rc ||
	    ac_buf_printf(out, "%zu message%s compacted (user %zu, assistant %zu, tool %zu", n,
			  n == 1 ? "" : "s", users, assistants, tools) ||
	    (other && ac_buf_printf(out, ", other %zu", other)) || ac_buf_printf(out, ").\n"))
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

int ac_summarize_builtin(char **out, const json_t *messages)
{
	summary_facts facts = {json_array(), json_array(), json_object(), 0};
	ac_buf text = AC_BUF_INIT, scratch = AC_BUF_INIT;
	size_t n = json_array_size(messages);
	int rc;

	if (!facts.tools || !facts.files || !facts.files_seen) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = append_counts(&text, messages, &facts)))
		goto done;
	if (append_facts(&text, &facts) || ac_buf_printf(&text, "Conversation:\n")) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		/* A long history keeps its beginning and its end. */
		if (n > 2 * EDGE_MESSAGES && i == EDGE_MESSAGES) {
			if (ac_buf_printf(&text, "- \xe2\x80\xa6 (%zu more messages)\n",
					  n - 2 * EDGE_MESSAGES)) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				goto done;
			}
			i = n - EDGE_MESSAGES - 1;
			continue;
		}
		if ((rc = append_message_line(&text, json_array_get(messages, i), &scratch)))
			goto done;
	}
	/* No trailing line break: the summary ends with its last line. */
	if (text.len && text.data[text.len - 1] == '\n')
		text.data[--text.len] = '\0';
	if (!(*out = ac_buf_detach(&text)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	json_decref(facts.tools);
	json_decref(facts.files);
	json_decref(facts.files_seen);
	ac_buf_free(&text);
	ac_buf_free(&scratch);
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
			     const json_t *messages, int timeout_ms)
{
	ac_proc_result result;
	ac_buf why = AC_BUF_INIT;
	size_t input_len = 0;
	char *input = ac_json_exact_dumps(messages, JSON_COMPACT, &input_len);
	const char *start, *end;
	json_t *check = NULL;
	int rc;

	if (!input)
		return ac_error_set(AC_ENOMEM, "out of memory (or messages that are not JSON)");
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
	free(input);
	return rc;
}

int ac_summarize_command(char **out, const char *const *argv, const json_t *messages,
			 int timeout_ms)
{
	return summarize_command(out, argv, NULL, messages, timeout_ms);
}

/* ---- compacting a session ---- */

typedef struct {
	const char *id;
	const json_t *replaced;   /* the messages that were summarised */
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

/* The change applied to the session's current content: only if its first
 * messages are still the ones summarised. */
static int replace_with_summary(json_t *root, void *ctx)
{
	replacement *r = ctx;
	json_t *history = json_object_get(root, "conversationHistory");
	json_t *metadata = json_object_get(root, "metadata"), *compactions, *kept = NULL;
	size_t cut = json_array_size(r->replaced), n = json_array_size(history);
	ac_buf content = AC_BUF_INIT;
	uint64_t before;
	int rc = 0;

	if (r->opts->guard && (rc = r->opts->guard(root, r->opts->guard_ctx)))
		return rc;
	r->applied = false;
	if (names_archive(metadata, r->archive))
		return AC_SESSION_UNCHANGED; /* a reader saved our version again */
	if (!json_is_array(history) || n < cut)
		goto changed;
	for (size_t i = 0; i < cut; i++)
		if (!json_equal(json_array_get(history, i), json_array_get(r->replaced, i)))
			goto changed;
	/* Refused rather than replaced: whatever is there is someone's data. */
	if (metadata && !json_is_object(metadata))
		return ac_error_set(AC_ECORRUPT, "session %s: metadata is not an object", r->id);
	compactions = metadata ? json_object_get(metadata, "compactions") : NULL;
	if (compactions && !json_is_array(compactions))
		return ac_error_set(AC_ECORRUPT, "session %s: metadata.compactions is not an array",
				    r->id);
	before = history == r->loaded ? r->loaded_tokens : ac_messages_tokens(history);
	if (ac_buf_printf(&content, "%s%s", AC_SUMMARY_PREFIX, r->summary) ||
	    !(kept = json_pack("[{s:s, s:s}]", "role", "user", "content", content.data))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = cut; i < n; i++)
		if (json_array_append(kept, json_array_get(history, i))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	if (!metadata) {
		metadata = json_object();
		if (json_object_set_new(root, "metadata", metadata)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
	if (!compactions) {
		compactions = json_array();
		if (json_object_set_new(metadata, "compactions", compactions)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
	r->result->messages_before = n;
	r->result->messages_after = json_array_size(kept);
	r->result->tokens_before = before;
	r->result->tokens_after = history == r->loaded
					  ? before - r->replaced_tokens +
						    ac_message_tokens(json_array_get(kept, 0))
					  : ac_messages_tokens(kept);
	if (json_array_append_new(compactions,
				  json_pack("{s:s, s:I, s:I, s:I, s:s}", "at", r->at, "messages",
					    (json_int_t)cut, "tokensBefore", (json_int_t)before,
					    "tokensAfter", (json_int_t)r->result->tokens_after,
					    "archive", r->archive)) ||
	    json_object_set(root, "conversationHistory", kept)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	r->applied = true;
	goto done;
changed:
	rc = ac_error_set(AC_ECONFLICT,
			  "session %s changed while it was being compacted; nothing was changed", r->id);
done:
	json_decref(kept);
	ac_buf_free(&content);
	return rc;
}

int ac_compact_session(ac_compact_result *out, const char *sessions_dir, const char *id,
		       const ac_compact_options *opts)
{
	char at[AC_TIME_ISO_LEN + 1], *summary = NULL, *archive_relative = NULL;
	char *archive_path = NULL;
	const char *created_at;
	ac_session *session = NULL, *after = NULL;
	ac_session_write_options write;
	json_t *messages = NULL, *replaced = NULL;
	uint64_t replaced_tokens;
	bool published = false;
	int64_t now_ms;
	replacement change;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_session_load(&session, sessions_dir, id)))
		goto done;
	/* One parse: the counts come from the file's text, and the update
	 * below starts from this document while the file stays the same. */
	messages = json_incref(ac_session_messages(session));
	plan(out, messages, ac_session_tokens(session, SIZE_MAX), opts);
	if (!out->needed)
		goto done;
	replaced_tokens = ac_session_tokens(session, out->summarized);
	/* Counted: the text need not sit beside the summariser's input. */
	ac_session_release_text(session);
	if (!(replaced = json_array())) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < out->summarized; i++)
		if (json_array_append(replaced, json_array_get(messages, i))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	if (opts->summarize)
		rc = opts->summarize(&summary, replaced, opts->summarize_ctx);
	else if (opts->summarizer)
		rc = summarize_command(&summary, opts->summarizer, id, replaced,
				       opts->summarizer_timeout_ms);
	else
		rc = ac_summarize_builtin(&summary, replaced);
	if (rc)
		goto done;
	if (!summary) {
		rc = ac_error_set(AC_EINVAL, "session %s: the summariser returned no summary", id);
		goto done;
	}
	now_ms = ac_time_now_ms();
	ac_time_format_iso(at, now_ms);
	created_at = json_string_value(json_object_get(ac_session_root(session), "createdAt"));
	if ((rc = ac_archive_write(&archive_path, &archive_relative, sessions_dir, ".compactions",
				   id, created_at ? created_at : "", now_ms, replaced, NULL)))
		goto done;
	if (opts->after_archive)
		opts->after_archive(opts->after_archive_ctx);
	change = (replacement){id, replaced, summary, archive_relative, at, out, opts, false,
			       messages, out->tokens_before, replaced_tokens};
	write = opts->write;
	write.published = &published;
	rc = ac_session_update_from(&after, session, sessions_dir, id, replace_with_summary,
				    &change, &write);
	session = NULL; /* taken over */
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
	if (!change.applied) {
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
	ac_session_free(session);
	ac_session_free(after);
	json_decref(messages);
	json_decref(replaced);
	free(summary);
	free(archive_relative);
	free(archive_path);
	return rc;
}
