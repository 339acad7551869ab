/* agentctl session fork ID [--at N|--checkpoint C] [--id NEW] [--json]:
 * a new session from another's conversation (ac_session_fork.h), printed
 * by its id, and journaled as a SESSION_START by Human that names the
 * parent. On a database store (storage.url) the parent is read with
 * session.get and the fork created with session.create_document, one
 * transaction, in the parent's tenant. A coding agent's transcript (an id
 * no session file has) forks into a new session file; the transcript is
 * only read. */
#include "cli.h"
#include "cli_sources.h"

#include "ac_checkpoint.h"
#include "ac_checkpoint_runtime.h"
#include "ac_error.h"
#include "ac_journal_store.h"
#include "ac_session_fork.h"

#include <stdlib.h>
#include <string.h>

/* The checkpoint's messageHistory, checked to be ID's: *out a new reference. */
static int checkpoint_history(json_t **out, const cli_context *ctx, const char *id,
			      const char *checkpoint)
{
	ac_checkpoint_store *store = NULL;
	json_t *doc = NULL;
	int status = CLI_OK;

	*out = NULL;
	if (ac_checkpoint_store_open(&store, &ctx->ws) != 0 ||
	    ac_checkpoint_store_get(&doc, store, id, checkpoint) != 0) {
		status = cli_error(CLI_FAILED, "session fork: --checkpoint %s: %s", checkpoint,
				   ac_error_last());
		goto done;
	}
	*out = json_incref(json_object_get(doc, "messageHistory"));
	if (!json_is_array(*out))
		status = cli_error(CLI_FAILED, "session fork: checkpoint '%s' of session '%s' has "
				   "no messageHistory array", checkpoint, id);
done:
	json_decref(doc);
	ac_checkpoint_store_free(store);
	return status;
}

static void journal_fork(const cli_context *ctx, const json_t *child, const char *parent,
			 const ac_session_fork_options *opts)
{
	const char *child_id = json_string_value(json_object_get(child, "id"));
	json_t *params = json_pack("{s:s, s:s}", "sessionId", child_id, "parentSessionId", parent);
	ac_buf message = AC_BUF_INIT;

	if (opts->checkpoint_id) {
		json_object_set_new(params, "checkpointId", json_string(opts->checkpoint_id));
		ac_buf_printf(&message, "forked session %s from %s at checkpoint %s", child_id,
			      parent, opts->checkpoint_id);
	} else {
		size_t kept = json_array_size(json_object_get(child, "conversationHistory"));

		json_object_set_new(params, "atMessage", json_integer((json_int_t)kept));
		ac_buf_printf(&message, "forked session %s from %s at message %zu", child_id, parent,
			      kept);
	}
	/* The fork is written: a journal that cannot be is only a note. */
	if (!params || !message.data ||
	    ac_journal_operator_event(&ctx->ws, "SESSION_START", "SUCCESS", child_id, params,
				      message.data) != 0)
		cli_note("session fork: the journal was not written: %s", ac_error_last());
	ac_buf_free(&message);
}

/* The fork printed: its id, or (--json) its whole document. */
static int print_fork(const json_t *child, bool json)
{
	if (json) {
		cli_write_json(child);
	} else {
		ac_buf line = AC_BUF_INIT;

		cli_put_cell(&line, json_string_value(json_object_get(child, "id")), 0);
		ac_buf_putc(&line, '\n');
		cli_write(line.data, line.len);
		ac_buf_free(&line);
	}
	return cli_finish_output();
}

/* The fork as a new session file (from checkpoint's history when not
 * NULL): *out its document. No session file id: *out_missing, nothing
 * said (it may be a transcript's id). */
static int fork_file(json_t **out, bool *out_missing, const cli_context *ctx, const char *id,
		     const ac_session_fork_options *opts, const char *checkpoint)
{
	ac_session_fork_options with = *opts;
	ac_session *parent = NULL, *child = NULL;
	json_t *history = NULL;
	int status = CLI_OK, rc;

	*out_missing = false;
	if ((rc = ac_session_load(&parent, ctx->ws.sessions_dir, id)) == AC_ENOTFOUND) {
		*out_missing = true;
		goto done;
	}
	if (rc != 0) {
		status = cli_error(CLI_FAILED, "session fork: %s", ac_error_last());
		goto done;
	}
	if (checkpoint && (status = checkpoint_history(&history, ctx, id, checkpoint)))
		goto done;
	with.checkpoint_history = history;
	with.checkpoint_id = checkpoint;
	if (ac_session_fork(&child, ctx->ws.sessions_dir, parent, &with) != 0)
		status = cli_error(CLI_FAILED, "session fork: %s", ac_error_last());
	else
		*out = json_incref(ac_session_root(child));
done:
	json_decref(history);
	ac_session_free(parent);
	ac_session_free(child);
	return status;
}

/* The fork in the database store, in the parent's tenant: *out its
 * document. */
static int fork_in_store(json_t **out, const cli_context *ctx, const char *id,
			 const ac_session_fork_options *opts)
{
	ac_backend_session_info info = {0};
	json_t *parent = NULL, *child = NULL;
	ac_backend *b = NULL;
	int status;

	if ((status = cli_open_backend(&b, ctx)))
		return status;
	if (ac_backend_inspector_find(b, &info, id) != 0 ||
	    ac_backend_session_get(b, &parent, info.tenant, id) != 0 ||
	    ac_session_fork_document(&child, parent, opts) != 0 ||
	    ac_backend_session_create_document(b, info.tenant, child) != 0) {
		status = cli_error(CLI_FAILED, "session fork: %s", ac_error_last());
		goto done;
	}
	*out = child;
	child = NULL;
done:
	json_decref(parent);
	json_decref(child);
	ac_backend_session_info_clear(&info);
	cli_close_backend(ctx, b);
	return status;
}

/* The fork of the transcript id into a new session file: *out its
 * document; *out_found false when no transcript has that id. */
static int fork_transcript(json_t **out, bool *out_found, const cli_context *ctx,
			   const char *id, const ac_session_fork_options *opts, bool checkpoint)
{
	ac_source_index *index = NULL;
	ac_source_session *s = NULL;
	ac_session *child = NULL;
	int status;

	*out_found = false;
	if ((status = cli_source_find(&index, &s, ctx, id)) || !s)
		goto done;
	*out_found = true;
	if (checkpoint) {
		status = cli_error(CLI_USAGE, "session fork: --checkpoint: '%s' is a %s transcript, "
				   "which has no checkpoints (fork it --at N)", id,
				   ac_source_name(s->kind));
		goto done;
	}
	if (ac_session_fork_transcript(&child, ctx->ws.sessions_dir, s, opts) != 0) {
		status = cli_error(CLI_FAILED, "session fork: %s", ac_error_last());
		goto done;
	}
	*out = json_incref(ac_session_root(child));
done:
	ac_session_free(child);
	ac_source_index_free(index);
	return status;
}

int cli_session_fork(const cli_context *ctx, int argc, char **argv)
{
	const char *id = NULL, *at_text = NULL, *checkpoint = NULL, *new_id = NULL;
	ac_session_fork_options opts = AC_SESSION_FORK_OPTIONS_INIT;
	json_t *history = NULL, *child = NULL;
	bool json, missing = false, shared;
	ac_backend *b = NULL;
	cli_args args;
	int status = CLI_OK;

	if ((status = cli_args_parse_as(&args, "session fork", argc, argv)))
		return status;
	json = cli_args_has(&args, "--json");
	at_text = cli_args_get(&args, "--at");
	checkpoint = cli_args_get(&args, "--checkpoint");
	new_id = cli_args_get(&args, "--id");
	id = args.pos[0];
	if (at_text && checkpoint)
		return cli_error(CLI_USAGE, "session fork: --at and --checkpoint exclude each other");
	if (at_text && ((status = cli_parse_count(&opts.at, "session fork: --at", at_text)) ||
			(opts.at == 0 && (status = cli_error(CLI_USAGE, "session fork: --at 0: "
							     "messages count from 1")))))
		return status;
	if (new_id && (status = cli_check_new_id("session fork", new_id)))
		return status;
	if (ac_session_id_check(id) != 0 || (new_id && ac_session_id_check(new_id) != 0) ||
	    (checkpoint && ac_checkpoint_id_check(checkpoint) != 0))
		return cli_error(CLI_USAGE, "session fork: %s", ac_error_last());
	opts.new_id = new_id;
	if ((status = cli_open_backend(&b, ctx)))
		goto done;
	shared = !ac_backend_has_local_sessions(b);
	cli_close_backend(ctx, b);
	if (shared) {
		if (checkpoint && (status = checkpoint_history(&history, ctx, id, checkpoint)))
			goto done;
		opts.checkpoint_history = history;
		opts.checkpoint_id = checkpoint;
		status = fork_in_store(&child, ctx, id, &opts);
	} else if ((status = fork_file(&child, &missing, ctx, id, &opts, checkpoint)) == CLI_OK &&
		   missing) {
		/* No session file: perhaps a coding agent's transcript. */
		char *why = strdup(ac_error_last());
		bool found = false;

		status = fork_transcript(&child, &found, ctx, id, &opts, checkpoint != NULL);
		if (status == CLI_OK && !found)
			status = cli_error(CLI_FAILED, "session fork: %s", why ? why : "no such session");
		free(why);
	}
	if (status)
		goto done;
	journal_fork(ctx, child, id, &opts);
	status = print_fork(child, json);
done:
	json_decref(history);
	json_decref(child);
	return status;
}
