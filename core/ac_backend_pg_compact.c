/* The PostgreSQL backend's compaction: large tool results to artifacts,
 * then the oldest messages to a summary.
 *
 * Both steps read first, with no transaction open, do their slow part
 * (storing artifacts; running the summariser, which may be a command
 * that takes minutes) still outside any transaction, and then change the
 * messages in one short transaction that first takes the session's row
 * lock (which every append takes too) and checks that what it replaces is
 * still there unchanged: each externalised message compared by its text,
 * the summarised prefix by a digest of (seq, text). Anything else is
 * AC_ECONFLICT and nothing changes; messages appended meanwhile are kept.
 * The summarised messages go to the compactions table (the archive) in
 * the same transaction that removes them. */
#include "ac_backend_pg_impl.h"

#include "ac_backend_check.h"
#include "ac_compact.h"
#include "ac_compact_impl.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_messages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER)

int ac_backend_pg_archive(ac_backend_pg *b, PGresult **res, const char *tenant,
			  const char *session_id, const char *kind, const char *first,
			  const char *last)
{
	const char *values[5] = {tenant, session_id, first, last, kind};

	return ac_pg_exec(b->pg, res, "archiving the messages removed",
			  "INSERT INTO compactions (tenant, session_id, first_seq, last_seq, messages,"
			  " kind)"
			  " SELECT $1, $2, $3::bigint, $4::bigint,"
			  " ('[' || string_agg(message::text, ',' ORDER BY seq) || ']')::json, $5"
			  " FROM messages WHERE tenant = $1 AND session_id = $2"
			  " AND seq BETWEEN $3::bigint AND $4::bigint"
			  " RETURNING " AC_BACKEND_PG_ARCHIVE_NAME ","
			  " to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')",
			  5, values, NULL);
}

int ac_backend_pg_lock_session(ac_backend_pg *b, const char *tenant, const char *session_id)
{
	const char *values[2] = {tenant, session_id};
	PGresult *res = NULL;
	int rc = ac_pg_exec(b->pg, &res, "locking a session",
			    "SELECT 1 FROM sessions WHERE tenant = $1 AND id = $2 FOR UPDATE", 2,
			    values, NULL);

	if (!rc && sym_PQntuples(res) == 0)
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' not found for tenant '%s'", session_id,
				  tenant);
	sym_PQclear(res);
	return rc;
}

int ac_backend_pg_bump_session(ac_backend_pg *b, const char *tenant, const char *session_id,
			       long long message_delta, long long token_delta, const char *kind)
{
	char messages[24], tokens[24];
	const char *values[6] = {tenant, session_id, messages, tokens, b->host, b->agent};

	int rc;

	snprintf(messages, sizeof(messages), "%lld", message_delta);
	snprintf(tokens, sizeof(tokens), "%lld", token_delta);
	rc = ac_pg_exec(b->pg, NULL, "updating the session's counts",
			"UPDATE sessions SET message_count = message_count + $3::bigint,"
			" tokens = greatest(tokens + $4::bigint, 0), version = version + 1,"
			" history_epoch = history_epoch + 1,"
			" updated_at = now(), written_by_host = $5, written_by_agent = $6"
			" WHERE tenant = $1 AND id = $2",
			6, values, NULL);
	return rc ? rc : ac_pg_notify(b->pg, kind, tenant, session_id);
}

/* ---- step 1: large tool results to artifacts ---- */

typedef struct {
	ac_backend_pg *b;
	const char *tenant;
	const char *session_id;
	size_t threshold;
	json_t *moved;   /* id -> {"bytes": N} */
	ac_backend_compact_result *out;
	int rc;
} externalize;

/* Stores each large output as an artifact and puts the reference in its
 * place in the (loaded) message. */
static int move_large(json_t *holder, const char *id, void *ctx)
{
	externalize *x = ctx;
	json_t *content = json_object_get(holder, "content");
	ac_buf ref = AC_BUF_INIT;
	size_t len = 0;
	char *bytes;
	int rc;

	/* One artifact per id: a second large result under the same id (or
	 * an id no artifact can be named by) stays inline; nothing is lost. */
	if (json_object_get(x->moved, id) || ac_backend_id_check("tool call id", id) != 0)
		return 0;
	if (json_is_string(content) && json_string_length(content) <= x->threshold)
		return 0;
	if (!(bytes = ac_backend_tool_output(content, &len)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = len <= x->threshold ? 1
	     : ac_backend_pg_artifact_put(x->b, x->tenant, x->session_id, id, bytes, len);
	free(bytes);
	if (rc == 1 || rc == AC_ECONFLICT)
		return 0;
	if (rc)
		return rc;
	if (ac_backend_artifact_reference(&ref, id, len, x->session_id) ||
	    json_object_set_new(x->moved, id, json_integer((json_int_t)len)) ||
	    json_object_set_new(holder, "content", json_string(ref.data)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	ac_buf_free(&ref);
	if (!rc) {
		x->out->externalized++;
		x->out->artifact_bytes += len;
	}
	return rc;
}

/* Replaces message seq (still equal to old as JSON) by new: 1 when done,
 * 0 when it changed meanwhile. */
static int replace_message(ac_backend_pg *b, const char *tenant, const char *session_id,
			   long long seq, const char *old, const char *new)
{
	char seq_text[24];
	const char *values[5] = {tenant, session_id, seq_text, old, new};
	PGresult *res = NULL;
	int rc;

	snprintf(seq_text, sizeof(seq_text), "%lld", seq);
	rc = ac_pg_exec(b->pg, &res, "replacing a message",
			"UPDATE messages SET message = $5::json WHERE tenant = $1 AND session_id = $2"
			" AND seq = $3::bigint AND message::jsonb = $4::jsonb RETURNING 1",
			5, values, NULL);
	if (!rc)
		rc = sym_PQntuples(res) == 1;
	sym_PQclear(res);
	return rc;
}

static int externalize_results(ac_backend_pg *b, ac_backend_compact_result *out,
			       const char *tenant, const char *session_id, json_t *messages,
			       const long long *seqs, size_t threshold)
{
	externalize x = {b, tenant, session_id, threshold, json_object(), out, 0};
	char **before = NULL;
	size_t n = json_array_size(messages), text_len;
	long long token_delta = 0;
	int rc = 0;

	if (!x.moved || !(before = calloc(n ? n : 1, sizeof(*before)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n && !rc; i++)
		if (!(before[i] = ac_json_exact_dumps(json_array_get(messages, i), TEXT_FLAGS,
						      &text_len)))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
	/* Artifacts first, durably; only then the references to them. */
	if (rc || (rc = ac_backend_each_tool_result(messages, move_large, &x)) ||
	    !json_object_size(x.moved))
		goto done;
	if ((rc = ac_pg_begin(b->pg, "externalising tool results")) ||
	    (rc = ac_backend_pg_lock_session(b, tenant, session_id)))
		goto rollback;
	for (size_t i = 0; i < n && !rc; i++) {
		json_t *msg = json_array_get(messages, i);
		char *after = ac_json_exact_dumps(msg, TEXT_FLAGS, &text_len);

		if (!after) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		} else if (strcmp(after, before[i]) != 0) {
			json_t *old = NULL;

			rc = replace_message(b, tenant, session_id, seqs[i], before[i], after);
			if (rc == 0)
				rc = ac_error_set(AC_ECONFLICT, "session %s: message %zu changed while its "
						  "tool results were stored; try again", session_id, i);
			else if (rc == 1 && !(rc = ac_json_exact_load(&old, before[i], strlen(before[i]),
								      0, "message")))
				token_delta += (long long)ac_message_tokens(msg) -
					       (long long)ac_message_tokens(old);
			json_decref(old);
		}
		free(after);
	}
	if (!rc)
		rc = ac_backend_pg_bump_session(b, tenant, session_id, 0, token_delta, "compaction");
	if (!rc)
		rc = ac_pg_commit(b->pg, "externalising tool results");
rollback:
	if (rc)
		ac_pg_rollback(b->pg);
done:
	if (rc) {
		out->externalized = 0;
		out->artifact_bytes = 0;
	}
	for (size_t i = 0; before && i < n; i++)
		free(before[i]);
	free(before);
	json_decref(x.moved);
	return rc;
}

/* ---- step 2: the oldest messages to a summary ---- */

/* A digest of the messages up to seq last: what the summary replaces. */
static int prefix_digest(ac_backend_pg *b, char out[33], const char *tenant,
			 const char *session_id, long long last)
{
	char last_text[24];
	const char *values[3] = {tenant, session_id, last_text};
	PGresult *res = NULL;
	int rc;

	snprintf(last_text, sizeof(last_text), "%lld", last);
	if ((rc = ac_pg_exec(b->pg, &res, "reading the messages to summarise",
			     "SELECT md5(string_agg(seq::text || ':' || message::text, ',' ORDER BY seq))"
			     " FROM messages WHERE tenant = $1 AND session_id = $2 AND seq <= $3::bigint",
			     3, values, NULL)))
		return rc;
	snprintf(out, 33, "%s", ac_pg_text(res, 0, 0));
	sym_PQclear(res);
	return 0;
}

static int summarize(char **out, const json_t *part, const ac_compact_options *opts)
{
	if (opts->summarize)
		return opts->summarize(out, part, opts->summarize_ctx);
	if (opts->summarizer)
		return ac_summarize_command(out, opts->summarizer, part,
					    opts->summarizer_timeout_ms > 0
						    ? opts->summarizer_timeout_ms
						    : AC_COMPACT_SUMMARIZER_TIMEOUT_MS);
	return ac_summarize_builtin(out, part);
}

/* The document's metadata.compactions record, as the file store writes
 * it (ac_compact_record): its archive named as a copy to files names the
 * archive's file, so the record leads there too. */
typedef struct {
	ac_compact_change change;
	uint64_t before, after;
} compaction_note;

static int note_compaction(json_t *root, void *ctx)
{
	compaction_note *n = ctx;

	return ac_compact_record(root, &n->change, n->before, n->after);
}

static int record_compaction(ac_backend_pg *b, const PGresult *archived, const char *tenant,
			     const char *session_id, size_t cut, uint64_t before, uint64_t after)
{
	compaction_note n = {{.id = session_id, .cut = cut}, before, after};
	ac_buf archive = AC_BUF_INIT;
	int rc;

	if (sym_PQntuples(archived) != 1)
		return ac_error_set(AC_EIO, "session %s: the compaction archived no messages",
				    session_id);
	if (ac_buf_printf(&archive, ".compactions/%s/%s.json", session_id,
			  sym_PQgetvalue(archived, 0, 0)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	n.change.archive = archive.data;
	n.change.at = sym_PQgetvalue(archived, 0, 1);
	rc = ac_backend_pg_change_document(b, tenant, session_id, note_compaction, &n);
	ac_buf_free(&archive);
	return rc;
}

static int replace_prefix(ac_backend_pg *b, const char *tenant, const char *session_id,
			  long long first, long long last, const char *summary_text,
			  long long message_delta, long long token_delta, const char *digest,
			  uint64_t tokens_before)
{
	char first_text[24], last_text[24], now_digest[33];
	const char *values[5] = {tenant, session_id, first_text, last_text, summary_text};
	PGresult *archived = NULL;
	int rc;

	snprintf(first_text, sizeof(first_text), "%lld", first);
	snprintf(last_text, sizeof(last_text), "%lld", last);
	if ((rc = ac_pg_begin(b->pg, "compacting a session")) ||
	    (rc = ac_backend_pg_lock_session(b, tenant, session_id)) ||
	    (rc = prefix_digest(b, now_digest, tenant, session_id, last)))
		goto done;
	if (strcmp(now_digest, digest) != 0) {
		rc = ac_error_set(AC_ECONFLICT, "session %s: the messages being summarised changed "
				  "meanwhile; nothing was changed", session_id);
		goto done;
	}
	/* The archive, then the summary in the last summarised message's
	 * place (so it sorts first), then the rest of the prefix goes. */
	if ((rc = ac_backend_pg_archive(b, &archived, tenant, session_id, "compaction", first_text,
					  last_text)) ||
	    (rc = ac_pg_exec(b->pg, NULL, "writing the summary",
			     "UPDATE messages SET message = $5::json WHERE tenant = $1"
			     " AND session_id = $2 AND seq = $4::bigint AND seq >= $3::bigint",
			     5, values, NULL)) ||
	    (rc = ac_pg_exec(b->pg, NULL, "removing the summarised messages",
			     "DELETE FROM messages WHERE tenant = $1 AND session_id = $2"
			     " AND seq >= $3::bigint AND seq < $4::bigint",
			     4, values, NULL)) ||
	    (rc = ac_backend_pg_bump_session(b, tenant, session_id, message_delta, token_delta,
						     "compaction")) ||
	    (rc = record_compaction(b, archived, tenant, session_id, (size_t)(1 - message_delta),
				    tokens_before, tokens_before + (uint64_t)token_delta)))
		goto done;
	rc = ac_pg_commit(b->pg, "compacting a session");
done:
	if (rc)
		ac_pg_rollback(b->pg);
	sym_PQclear(archived);
	return rc;
}

static int summarize_if_needed(ac_backend_pg *b, ac_backend_compact_result *out,
			       const char *tenant, const char *session_id,
			       const ac_compact_options *opts)
{
	json_t *messages = NULL, *part = NULL, *summary_msg = NULL;
	long long *seqs = NULL;
	char digest[33], *summary = NULL, *summary_text = NULL;
	ac_compact_result plan;
	ac_buf content = AC_BUF_INIT;
	uint64_t part_tokens;
	int rc;

	if ((rc = ac_backend_pg_load_messages(b, &messages, &seqs, tenant, session_id)))
		return rc;
	ac_compact_plan(&plan, messages, opts);
	out->messages_before = plan.messages_before;
	out->messages_after = plan.messages_before;
	out->tokens_after = plan.tokens_before;
	out->why_not = plan.why_not;
	if (!plan.needed || plan.summarized == 0)
		goto done;
	if (!(part = json_array())) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < plan.summarized; i++)
		json_array_append(part, json_array_get(messages, i));
	if ((rc = prefix_digest(b, digest, tenant, session_id, seqs[plan.summarized - 1])))
		goto done;
	/* The summariser runs with no transaction open. */
	if ((rc = summarize(&summary, part, opts)))
		goto done;
	if (ac_buf_printf(&content, "%s%s", AC_SUMMARY_PREFIX, summary) ||
	    !(summary_msg = json_pack("{s:s, s:s}", "role", "user", "content", content.data)) ||
	    !(summary_text = json_dumps(summary_msg, TEXT_FLAGS))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	part_tokens = ac_messages_tokens(part);
	rc = replace_prefix(b, tenant, session_id, seqs[0], seqs[plan.summarized - 1], summary_text,
			    1 - (long long)plan.summarized,
			    (long long)ac_message_tokens(summary_msg) - (long long)part_tokens,
			    digest, plan.tokens_before);
	if (!rc) {
		out->compacted = true;
		out->summarized = plan.summarized;
		out->messages_after = plan.messages_before - plan.summarized + 1;
		out->tokens_after = plan.tokens_before - part_tokens + ac_message_tokens(summary_msg);
	}
done:
	ac_compact_result_free(&plan);
	ac_buf_free(&content);
	json_decref(summary_msg);
	json_decref(part);
	json_decref(messages);
	free(summary_text);
	free(summary);
	free(seqs);
	return rc;
}

static int compact_now(ac_backend_pg *b, ac_backend_compact_result *out, const char *tenant,
		       const char *session_id, const ac_backend_compact_options *opts)
{
	ac_backend_compact_options defaults;
	ac_backend_compact_result ignored;
	json_t *messages = NULL;
	long long *seqs = NULL;
	int rc;

	if ((rc = ac_backend_compact_begin(&opts, &defaults, &out, &ignored, tenant,
					   session_id)))
		return rc;
	if ((rc = ac_backend_pg_load_messages(b, &messages, &seqs, tenant, session_id)))
		return rc;
	out->tokens_before = ac_messages_tokens(messages);
	rc = externalize_results(b, out, tenant, session_id, messages, seqs,
				 opts->artifact_threshold);
	json_decref(messages);
	free(seqs);
	if (!rc)
		rc = summarize_if_needed(b, out, tenant, session_id, &opts->compact);
	return rc;
}

static json_t *result_json(const ac_backend_compact_result *r)
{
	return json_pack("{s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:s?}", "externalized",
			 (json_int_t)r->externalized, "artifactBytes", (json_int_t)r->artifact_bytes,
			 "compacted", r->compacted, "summarized", (json_int_t)r->summarized,
			 "messagesBefore", (json_int_t)r->messages_before, "messagesAfter",
			 (json_int_t)r->messages_after, "tokensBefore", (json_int_t)r->tokens_before,
			 "tokensAfter", (json_int_t)r->tokens_after, "whyNot", r->why_not);
}

static size_t count_of(const json_t *answer, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(answer, key));

	return v > 0 ? (size_t)v : 0;
}

/* A retry's result: the first call's counts. */
static void result_from(ac_backend_compact_result *r, const json_t *answer)
{
	r->externalized = count_of(answer, "externalized");
	r->artifact_bytes = count_of(answer, "artifactBytes");
	r->compacted = json_is_true(json_object_get(answer, "compacted"));
	r->summarized = count_of(answer, "summarized");
	r->messages_before = count_of(answer, "messagesBefore");
	r->messages_after = count_of(answer, "messagesAfter");
	r->tokens_before = count_of(answer, "tokensBefore");
	r->tokens_after = count_of(answer, "tokensAfter");
	r->why_not = r->compacted ? NULL : "done already (a retry of the same request id)";
}

/* Under a request id, the key is checked first and added after (a
 * deferred key: the summary may take longer than a transaction may idle). */
int ac_backend_pg_compact(void *impl, ac_backend_compact_result *out, const char *tenant,
			  const char *session_id, const ac_backend_compact_options *opts)
{
	ac_backend_pg *b = impl;
	ac_backend_compact_result mine = {0};
	json_t *args = json_pack("{s:s?, s:b}", "session", session_id, "force",
				 opts && opts->compact.force);
	bool open, replayed;
	int rc;

	if (!out)
		out = &mine;
	if (!args)
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* Before the request is recorded: nothing of it is written. */
	if ((rc = ac_backend_compact_options_check(opts))) {
		json_decref(args);
		return rc;
	}
	rc = ac_backend_pg_request_begin(b, &open, &replayed, tenant ? tenant : "", "session.compact",
					 args);
	json_decref(args);
	if (rc)
		return rc;
	if (replayed) {
		*out = (ac_backend_compact_result){0};
		result_from(out, b->answer);
		return 0;
	}
	if (open)
		ac_backend_pg_request_defer(b);
	rc = compact_now(b, out, tenant, session_id, opts);
	return ac_backend_pg_request_end(b, rc, rc || !open ? NULL : result_json(out));
}
