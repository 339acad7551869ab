/* Compaction: plan, summarise, archive, then replace, in that order, so a
 * failure at any step before the last leaves the session as it was. */
#include "ac_compact_impl.h"

#include "ac_archive.h"
#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_file.h"
#include "ac_fs_calls.h"
#include "ac_lock.h"
#include "ac_messages.h"
#include "ac_proc.h"
#include "ac_struct_version.h"
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

void ac_compact_options_init(ac_compact_options *opts)
{
	*opts = (ac_compact_options)AC_COMPACT_OPTIONS_INIT;
}

int ac_compact_options_check(const ac_compact_options *opts)
{
	int rc;

	if (!opts)
		return 0;
	if ((rc = ac_struct_version_check("ac_compact_options", opts->version,
					  AC_COMPACT_OPTIONS_VERSION, "AC_COMPACT_OPTIONS_INIT")))
		return rc;
	return ac_struct_version_check("ac_compact_options' ac_session_write_options",
				       opts->write.version, AC_SESSION_WRITE_OPTIONS_VERSION,
				       "AC_SESSION_WRITE_OPTIONS_INIT");
}

/* The plan's counts for n messages of tokens; true when a cut is to be
 * chosen (then ac_compact_plan_cut() finishes the plan). */
bool ac_compact_plan_counts(ac_compact_result *out, size_t n, uint64_t tokens,
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
	if (!opts->force && n < opts->min_messages) {
		out->why_not = "fewer messages than compaction.minMessages (use --force to compact anyway)";
		return false;
	}
	return true;
}

void ac_compact_plan_cut(ac_compact_result *out, size_t n, size_t cut)
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

	if (ac_compact_plan_counts(out, n, tokens, opts))
		ac_compact_plan_cut(out, n, ac_messages_compaction_cut(messages, opts->fraction));
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

/* ---- the command summariser ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The command summariser on behalf of session_id (NULL: none), see
 * ac_proc_run_for_session(). */
int ac_compact_run_summarizer(char **out, const char *const *argv, const char *session_id,
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
	rc = ac_compact_run_summarizer(out, argv, session_id, input, input_len, timeout_ms);
	free(input);
	return rc;
}

int ac_summarize_command(char **out, const char *const *argv, const json_t *messages,
			 int timeout_ms)
{
	return summarize_messages(out, argv, NULL, messages, timeout_ms);
}

/* ---- compacting a session ---- */

static int append_to_array(const json_t *msg, void *ctx)
{
	if (json_array_append(ctx, (json_t *)msg))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

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
json_t *ac_compact_summary_message(const char *summary)
{
	ac_buf content = AC_BUF_INIT;
	json_t *msg = NULL;

	if (ac_buf_printf(&content, "%s%s", AC_SUMMARY_PREFIX, summary) == 0)
		/* The summary may quote a lone surrogate the messages hold. */
		msg = json_pack("{s:s, s:o}", "role", "user", "content",
				ac_json_exact_stringn(content.data, content.len));
	ac_buf_free(&content);
	return msg;
}

/* Checks root's metadata and appends this compaction's record to
 * metadata.compactions (both made when absent). Nothing changes on a
 * refusal. */
int ac_compact_record(json_t *root, const ac_compact_change *r, uint64_t before,
		      uint64_t after)
{
	json_t *metadata = json_object_get(root, "metadata"), *compactions;
	struct stat st;

	/* Refused rather than replaced: whatever is there is someone's data. */
	if (metadata && !json_is_object(metadata))
		return ac_error_set(AC_ECORRUPT, "session %s: metadata is not an object", r->id);
	/* Checked under the folder lock, just before the version naming it is
	 * published: whatever removed it, the session is left as it was. */
	if (r->archive_path && ac_fs_stat(r->archive_path, &st) != 0)
		return ac_error_set(AC_EIO, "session %s: its compaction archive %s is gone (%s: "
				    "removed while the compaction ran); nothing was changed", r->id,
				    r->archive_path, strerror(errno));
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
	ac_compact_change *r = ctx;
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
		if ((rc = ac_history_text_each(r->text, 0, cut, append_to_array, r->replaced)))
			goto done;
	}
	for (size_t i = 0; i < cut; i++)
		if (!json_equal(json_array_get(history, i), json_array_get(r->replaced, i)))
			goto changed;
	before = history == r->loaded ? r->loaded_tokens : ac_messages_tokens(history);
	if (!(kept = json_array()) ||
	    json_array_append_new(kept, ac_compact_summary_message(r->summary))) {
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
	if ((rc = ac_compact_record(root, r, before, after)))
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
	const ac_history_text *text; /* NULL: compacting the parsed document */
	json_t *messages;         /* parsed: the history */
	json_t *replaced;         /* parsed: its first cut messages */
} compact_source;

static int summarize(char **out, const compact_source *src, size_t cut, const char *id,
		     const ac_compact_options *opts)
{
	int rc;

	if (src->text)
		rc = ac_compact_text_summarize(out, src->text, cut, id, opts);
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

static int archive(char **out_path, char **out_relative, const compact_source *src, size_t cut,
		   const char *sessions_dir, const char *id, const char *created_at,
		   int64_t now_ms)
{
	if (src->text)
		return ac_compact_text_archive(out_path, out_relative, src->text, cut, sessions_dir,
					       id, created_at, now_ms);
	return ac_archive_write(out_path, out_relative, sessions_dir, ".compactions", id,
				created_at, now_ms, src->replaced, NULL);
}

/* Loads the session as text when its history can be walked from the text
 * (src->text set to h), else parsed whole. */
static int load_source(compact_source *src, ac_history_text *h, const char *sessions_dir,
		       const char *id, const char *what)
{
	const char *text;
	size_t len;
	int rc;

	memset(src, 0, sizeof(*src));
	if ((rc = ac_session_load_text(&src->session, sessions_dir, id)))
		return rc;
	text = ac_session_text(src->session, &len);
	if (ac_history_text_find(h, text, len, what)) {
		src->text = h;
		return 0;
	}
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
	ac_history_text h;
	json_t *rest = NULL;
	uint64_t replaced_tokens;
	bool published = false;
	int64_t now_ms;
	ac_compact_change change;
	int rc, held = -1;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_compact_options_check(opts)))
		return rc;
	/* Held until the session names its archive: gc leaves the session's
	 * files alone meanwhile (ac_lock_session()). */
	if ((rc = ac_session_path(&what, sessions_dir, id)) ||
	    (rc = ac_lock_session(&held, sessions_dir, id, false)))
		goto done;
	/* A caller's summarise callback takes the messages as one array. */
	if (opts->summarize) {
		memset(&src, 0, sizeof(src));
		if ((rc = ac_session_load(&src.session, sessions_dir, id)))
			goto done;
		src.messages = json_incref(ac_session_messages(src.session));
	} else if ((rc = load_source(&src, &h, sessions_dir, id, what))) {
		goto done;
	}
	if (src.text) {
		if ((rc = ac_compact_text_plan(out, src.text, opts)) || !out->needed)
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

		if ((rc = ac_compact_text_load_rest(&rest, text, len, src.text)))
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
	change = (ac_compact_change){id, src.replaced, summary, archive_relative, archive_path, at,
			       out, opts, false,
			       src.messages, out->tokens_before, replaced_tokens, src.text, rest,
			       out->summarized};
	src.replaced = NULL; /* the change's now (it may make one) */
	write = opts->write;
	write.published = &published;
	if (src.text) {
		rc = ac_session_update_text_from(&after, src.session, sessions_dir, id,
						 ac_compact_text_replace, replace_with_summary,
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
			ac_fs_unlink(archive_path);
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
	if (held >= 0)
		ac_fs_close(held);
	return rc;
}
