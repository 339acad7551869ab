/* agentctl session list|show|create|append|pause|resume|complete|fail|compact
 * on a database store (storage.url set): read and changed through the
 * ac_backend interface alone, printed as cli_session.c prints the session files, plus what a
 * store shared by many hosts knows and the files do not: the host that
 * last wrote each session (a HOST column, "host" in --json; show adds the
 * agent that wrote it).
 *
 * A status change is the store's compare-and-set from the status read
 * (ac_operator_set_status_in): when another host changed it in between,
 * nothing is written and the command fails saying so. Pause requests and
 * signals are the file store's way to reach a local agent; here the agent
 * may be anywhere and reads its status from the store. */
#include "cli.h"

#include "ac_backend.h"
#include "ac_buf.h"
#include "ac_checkpoint.h"
#include "ac_checkpoint_runtime.h"
#include "ac_control.h"
#include "ac_error.h"
#include "ac_messages.h"
#include "ac_operator.h"
#include "ac_text.h"

#include <stdlib.h>
#include <string.h>

static const char *or_dash(const char *text)
{
	return text && *text ? text : "-";
}

/* cli_session.c's list entry, with the writing host. The task and creation
 * time are the row's columns (documents are never loaded to list). */
static json_t *info_json(const ac_backend_session_info *s)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:s, s:s}",
			 "id", s->session_id, "task", s->task ? s->task : "", "status", s->status,
			 "createdAt", s->created_at ? s->created_at : "",
			 "updatedAt", s->updated_at, "tenantId", s->tenant, "userId", s->user,
			 "agentId", s->agent, "messages", (json_int_t)s->messages,
			 "turns", (json_int_t)s->turns,
			 "tokens", (json_int_t)s->tokens, "inputTokens", (json_int_t)s->input_tokens,
			 "outputTokens", (json_int_t)s->output_tokens,
			 "pending", ac_pending_text(AC_PENDING_NONE), "host", s->host);
}

static void put_row(ac_buf *line, const ac_backend_session_info *s)
{
	ac_buf who = AC_BUF_INIT;
	char number[32];

	ac_buf_clear(line);
	cli_put_cell(line, s->session_id, 37);
	ac_buf_putc(line, ' ');
	cli_put_cell(line, s->status, 10);
	ac_buf_putc(line, ' ');
	snprintf(number, sizeof(number), "%5zu %8llu", s->messages, (unsigned long long)s->tokens);
	cli_put_cell(line, number, 16);
	cli_put_cell(line, s->updated_at, 26);
	cli_put_cell(line, or_dash(s->host), 16);
	ac_buf_putc(line, ' ');
	ac_buf_printf(&who, "%s/%s", or_dash(s->user), or_dash(s->agent));
	cli_put_cell(line, who.data, 20);
	ac_buf_free(&who);
	ac_buf_putc(line, ' ');
	cli_put_cell(line, s->task ? s->task : "", 0);
	ac_buf_putc(line, '\n');
}

int cli_session_store_list(const cli_context *ctx, const char *want_status,
			   const char *want_user, bool json)
{
	static const char header[] = "ID                                    STATUS     MSGS   TOKENS  "
				     "UPDATED                   HOST             USER/AGENT           TASK\n";
	ac_backend b = {0};
	ac_backend_session_info *list = NULL;
	ac_buf line = AC_BUF_INIT;
	json_t *array = NULL;
	size_t n = 0;
	int status;

	if ((status = cli_open_backend(&b, ctx)))
		return status;
	if (b.inspector.list_sessions(b.impl, &list, &n, NULL) != 0) {
		status = cli_error(CLI_FAILED, "session list: %s", ac_error_last());
		goto done;
	}
	if (json && !(array = json_array())) {
		status = cli_error(CLI_FAILED, "out of memory");
		goto done;
	}
	if (!json)
		cli_write(header, sizeof(header) - 1);
	for (size_t i = 0; i < n; i++) {
		const ac_backend_session_info *s = &list[i];

		if ((want_status && strcmp(s->status, want_status)) ||
		    (want_user && strcmp(s->user, want_user)))
			continue;
		if (json) {
			json_array_append_new(array, info_json(s));
			continue;
		}
		put_row(&line, s);
		cli_write(line.data, line.len);
	}
	if (json)
		cli_write_json(array);
	status = cli_finish_output();
done:
	json_decref(array);
	ac_buf_free(&line);
	ac_backend_sessions_free(list, n);
	ac_backend_close(&b);
	return status;
}

static const char *member(const json_t *object, const char *key)
{
	return or_dash(json_string_value(json_object_get(object, key)));
}

int cli_session_store_show(const cli_context *ctx, const char *id, bool json)
{
	ac_backend b = {0};
	ac_backend_session_info info = {0};
	ac_buf out = AC_BUF_INIT, text = AC_BUF_INIT;
	json_t *doc = NULL, *messages, *metadata, *usage = NULL;
	int status;

	if (ac_backend_id_check("session", id) != 0)
		return cli_error(CLI_USAGE, "session show: %s", ac_error_last());
	if ((status = cli_open_backend(&b, ctx)))
		return status;
	/* The operator names a session by id: its tenant comes from the store. */
	if (b.inspector.find(b.impl, &info, id) != 0 ||
	    b.session.get(b.impl, &doc, info.tenant, id) != 0 ||
	    b.session.load_usage(b.impl, &usage, info.tenant, id) != 0) {
		status = cli_error(CLI_FAILED, "session show: %s", ac_error_last());
		goto done;
	}
	if (json) {
		if (json_object_set(doc, "usage", usage)) {
			status = cli_error(CLI_FAILED, "out of memory");
			goto done;
		}
		cli_write_json(doc);
		status = cli_finish_output();
		goto done;
	}
	messages = json_object_get(doc, "conversationHistory");
	metadata = json_object_get(doc, "metadata");
	/* Every field was written by an agent: the whole header is sanitised. */
	ac_buf_printf(&text, "session  %s\nstatus   %s\ntask     ", id, info.status);
	cli_put_string(&text, json_object_get(doc, "task"), "-");
	ac_buf_printf(&text, "\ncreated  %s\nupdated  %s\n", member(doc, "createdAt"),
		      member(doc, "updatedAt"));
	ac_buf_printf(&text, "host     %s   written by %s\n", or_dash(info.host), or_dash(info.writer));
	ac_buf_printf(&text, "user     %s   agent %s   tenant %s\nmessages %zu (~%llu tokens)\n\n",
		      member(metadata, "userId"), member(metadata, "agentId"),
		      member(metadata, "tenantId"), json_array_size(messages),
		      (unsigned long long)ac_messages_tokens(messages));
	cli_turn_usage_table(&text, usage);
	ac_buf_putc(&text, '\n');
	cli_put_lines(&out, &text, "");
	cli_put_conversation(&out, messages);
	cli_write(out.data, out.len);
	status = cli_finish_output();
done:
	json_decref(doc);
	json_decref(usage);
	ac_backend_session_info_clear(&info);
	ac_buf_free(&out);
	ac_buf_free(&text);
	ac_backend_close(&b);
	return status;
}

int cli_session_store_set_status(const cli_context *ctx, const char *id, const char *status,
				 const char *done)
{
	ac_backend b = {0};
	ac_buf notes = AC_BUF_INIT;
	bool retry = false;
	int rc, exit_status;

	if (ac_backend_id_check("session", id) != 0)
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	if ((exit_status = cli_open_backend(&b, ctx)))
		return exit_status;
	if ((exit_status = cli_request_status(&b, ctx, id, status, &retry)) || retry) {
		if (retry) {
			cli_say("session %s %s", id, done);
			exit_status = cli_finish_output();
		}
		ac_backend_close(&b);
		return exit_status;
	}
	rc = ac_operator_set_status_in(&ctx->ws, &b, id, NULL, status, &notes);
	if (notes.len)
		cli_note("%s", notes.data);
	if (rc != 0) {
		exit_status = cli_error(CLI_FAILED, "%s", ac_error_last());
	} else {
		cli_say("session %s %s", id, done);
		exit_status = cli_finish_output();
	}
	ac_buf_free(&notes);
	ac_backend_close(&b);
	return exit_status;
}

/* ---- writes: create, append, compact ---- */

/* The session written (--json: the whole document as the store holds it
 * now), or the one line a program needs next, made safe. */
static int print_written(const ac_backend *b, const char *tenant, const char *id, bool json,
			 const char *plain)
{
	ac_buf line = AC_BUF_INIT;
	json_t *doc = NULL;

	if (json) {
		if (b->session.get(b->impl, &doc, tenant, id) != 0)
			return cli_error(CLI_FAILED, "session %s: written, but not read back: %s", id,
					 ac_error_last());
		cli_write_json(doc);
		json_decref(doc);
		return CLI_OK;
	}
	cli_put_cell(&line, plain, 0);
	ac_buf_putc(&line, '\n');
	cli_write(line.data, line.len);
	ac_buf_free(&line);
	return CLI_OK;
}

/* cli_session.c's resume_or_create on the store: a paused session req->id
 * of tenant is set running (a compare-and-set from paused: of two agents
 * resuming it, one gets it) and *resumed says so; another status leaves
 * *id NULL (a new id, as the seed does); no such session: create it. */
static int resume_or_create(const ac_backend *b, bool *resumed, const char **id,
			    const char *tenant)
{
	ac_backend_session_info info = {0};
	int rc = b->inspector.find(b->impl, &info, *id), status = CLI_OK;

	*resumed = false;
	if (rc == AC_ENOTFOUND)
		return CLI_OK;
	if (rc)
		return cli_error(CLI_FAILED, "session create: %s", ac_error_last());
	if (strcmp(info.tenant, tenant))
		/* As the backend: another tenant's session is not revealed. */
		status = cli_error(CLI_FAILED, "session create: session '%s' not found for tenant '%s'",
				   *id, tenant);
	else if (strcmp(info.status, "paused"))
		*id = NULL;
	else if (b->session.set_status(b->impl, tenant, *id, "paused", "running") != 0)
		status = cli_error(CLI_FAILED, "session create --resume: %s", ac_error_last());
	else
		*resumed = true;
	ac_backend_session_info_clear(&info);
	return status;
}

int cli_session_store_create(const cli_context *ctx, const cli_session_new *req)
{
	const char *id = req->id;
	ac_backend b = {0};
	char *made = NULL;
	bool resumed = false;
	int status;

	/* Every call a store takes names a tenant (ac_backend.h): a session
	 * of no tenant could not be reached through it afterwards. */
	if (!req->tenant)
		return cli_error(CLI_USAGE, "session create: a database store keeps every session in "
				 "a tenant: add --tenant T");
	if ((status = cli_open_backend(&b, ctx)))
		return status;
	if (req->resume && (status = resume_or_create(&b, &resumed, &id, req->tenant)))
		goto done;
	if (resumed) {
		if (!(made = strdup(id)))
			status = cli_error(CLI_FAILED, "out of memory");
	} else if ((status = cli_request_use(&b, ctx, "create"))) {
		goto done;
	} else if (b.session.create(b.impl, &made, req->tenant, req->user, req->agent, id,
				    req->task) != 0) {
		status = cli_error(CLI_FAILED, "session create: %s", ac_error_last());
	}
	if (!status && (status = print_written(&b, req->tenant, made, req->json, made)) == CLI_OK)
		status = cli_finish_output();
done:
	free(made);
	ac_backend_close(&b);
	return status;
}

int cli_session_store_append(const cli_context *ctx, const char *id, const json_t *messages,
			     bool json)
{
	ac_backend_session_info info = {0}, after = {0};
	ac_backend b = {0};
	long long length = -1;
	char count[32];
	int status;

	if ((status = cli_open_backend(&b, ctx)))
		return status;
	/* The agent names its session by id, as in the files: the tenant is
	 * the store's. The count is read back from the row (one lookup). */
	if ((status = cli_request_use(&b, ctx, "append")))
		goto done;
	if (b.inspector.find(b.impl, &info, id) != 0 ||
	    b.session.append(b.impl, info.tenant, id, messages) != 0 ||
	    b.inspector.find(b.impl, &after, id) != 0) {
		status = cli_error(CLI_FAILED, "session append: %s", ac_error_last());
		goto done;
	}
	/* What a program needs next: how long the history is now (under a
	 * request id, as the write left it: a retry says what the first did). */
	cli_request_replayed(&b, ctx, "messages", &length);
	snprintf(count, sizeof(count), "%lld", length < 0 ? (long long)after.messages : length);
	if ((status = print_written(&b, info.tenant, id, json, count)) == CLI_OK)
		status = cli_finish_output();
done:
	ac_backend_session_info_clear(&info);
	ac_backend_session_info_clear(&after);
	ac_backend_close(&b);
	return status;
}

int cli_session_store_record_turn(const cli_context *ctx, const char *id,
				  const json_t *messages, const ac_usage *usage, bool json)
{
	ac_backend_session_info info = {0};
	ac_checkpoint_store *store = NULL;
	ac_backend b = {0};
	json_t *rows = NULL, *doc = NULL;
	long long number;
	char turn[32];
	int status;

	if ((status = cli_open_backend(&b, ctx)))
		return status;
	/* One transaction writes the messages, the turn's row and the totals;
	 * the turn's number is the rows' count read back (another host's turn
	 * may follow at once, never come between: the row lock). */
	if ((status = cli_request_use(&b, ctx, "record-turn")))
		goto done;
	if (b.inspector.find(b.impl, &info, id) != 0 ||
	    b.session.record_turn(b.impl, info.tenant, id, messages, usage) != 0 ||
	    b.session.load_usage(b.impl, &rows, info.tenant, id) != 0) {
		status = cli_error(CLI_FAILED, "session record-turn: %s", ac_error_last());
		goto done;
	}
	number = json_integer_value(json_object_get(json_object_get(rows, "totals"), "turns"));
	/* The automatic checkpoint, when the stored document asks for one
	 * (checkpoint auto), from the history the store holds; a retry's turn
	 * was the first call's, and so was its checkpoint. */
	if (!cli_request_replayed(&b, ctx, "turns", &number) &&
	    (ac_checkpoint_store_open(&store, &ctx->ws) != 0 ||
	    b.session.get(b.impl, &doc, info.tenant, id) != 0 ||
	     ac_checkpoint_after_turn_from(NULL, store, id, doc) != 0)) {
		status = cli_error(CLI_FAILED, "session record-turn: the turn is recorded, but its "
				   "automatic checkpoint failed: %s", ac_error_last());
		goto done;
	}
	snprintf(turn, sizeof(turn), "%lld", number);
	if ((status = print_written(&b, info.tenant, id, json, turn)) == CLI_OK)
		status = cli_finish_output();
done:
	json_decref(rows);
	json_decref(doc);
	ac_checkpoint_store_free(store);
	ac_backend_session_info_clear(&info);
	ac_backend_close(&b);
	return status;
}

int cli_session_store_compact(const cli_context *ctx, const char *id, bool force)
{
	const ac_workspace *ws = &ctx->ws;
	ac_backend_compact_result result = {0};
	ac_buf notes = AC_BUF_INIT;
	ac_backend b = {0};
	int status;

	if ((status = cli_open_backend(&b, ctx)))
		return status;
	if ((status = cli_request_use(&b, ctx, "compact")))
		goto done;
	if (ac_operator_compact_in(ws, &b, id, force, &result, &notes) != 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	if (notes.len)
		cli_note("%s", notes.data);
	/* The store moves large tool results out first (the files' command
	 * does not): said only when it happened, so the lines agree otherwise. */
	if (result.externalized)
		cli_say("session %s: %zu tool result%s (%llu bytes) moved to artifacts", id,
		       result.externalized, result.externalized == 1 ? "" : "s",
		       (unsigned long long)result.artifact_bytes);
	cli_print_compacted(ws, id, result.compacted, result.why_not, result.summarized,
			    result.messages_before, result.tokens_before, result.tokens_after,
			    "the store (compactions)");
	status = cli_finish_output();
done:
	ac_buf_free(&notes);
	ac_backend_close(&b);
	return status;
}
