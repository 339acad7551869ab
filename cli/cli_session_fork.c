/* agentctl session fork ID [--at N|--checkpoint C] [--id NEW] [--json]:
 * a new session from another's conversation (ac_session_fork.h), printed
 * by its id, and journaled as a SESSION_START by Human that names the
 * parent. Session files only: a PostgreSQL store says so. A coding
 * agent's transcript (an id no session file has) forks into a new session
 * file; the transcript is only read. */
#include "cli.h"
#include "cli_sources.h"

#include "ac_checkpoint.h"
#include "ac_checkpoint_runtime.h"
#include "ac_error.h"
#include "ac_operator.h"
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

static void journal_fork(const cli_context *ctx, const ac_session *child, const char *parent,
			 const ac_session_fork_options *opts)
{
	json_t *params = json_pack("{s:s, s:s}", "sessionId", ac_session_id(child),
				   "parentSessionId", parent);
	ac_buf message = AC_BUF_INIT;

	if (opts->checkpoint_id) {
		json_object_set_new(params, "checkpointId", json_string(opts->checkpoint_id));
		ac_buf_printf(&message, "forked session %s from %s at checkpoint %s",
			      ac_session_id(child), parent, opts->checkpoint_id);
	} else {
		size_t kept = json_array_size(ac_session_messages(child));

		json_object_set_new(params, "atMessage", json_integer((json_int_t)kept));
		ac_buf_printf(&message, "forked session %s from %s at message %zu",
			      ac_session_id(child), parent, kept);
	}
	/* The fork is written: a journal that cannot be is only a note. */
	if (!params || !message.data ||
	    ac_operator_journal(&ctx->ws, "SESSION_START", ac_session_id(child), params,
				message.data) != 0)
		cli_note("session fork: the journal was not written: %s", ac_error_last());
	ac_buf_free(&message);
}

static int print_child(const ac_session *child, bool json)
{
	if (json) {
		cli_write_json(ac_session_root(child));
	} else {
		ac_buf line = AC_BUF_INIT;

		cli_put_cell(&line, ac_session_id(child), 0);
		ac_buf_putc(&line, '\n');
		cli_write(line.data, line.len);
		ac_buf_free(&line);
	}
	return cli_finish_output();
}

/* The fork of the transcript id, when one has that id (*out_found). */
static int fork_transcript(bool *out_found, const cli_context *ctx, const char *id,
			   ac_session_fork_options *opts, const char *new_id, bool checkpoint,
			   bool json)
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
	opts->new_id = new_id;
	if (ac_session_fork_transcript(&child, ctx->ws.sessions_dir, s, opts) != 0) {
		status = cli_error(CLI_FAILED, "session fork: %s", ac_error_last());
		goto done;
	}
	journal_fork(ctx, child, id, opts);
	status = print_child(child, json);
done:
	ac_session_free(child);
	ac_source_index_free(index);
	return status;
}

int cli_session_fork(const cli_context *ctx, int argc, char **argv)
{
	const char *id = NULL, *at_text = NULL, *checkpoint = NULL, *new_id = NULL;
	ac_session_fork_options opts = {0};
	ac_session *parent = NULL, *child = NULL;
	json_t *history = NULL;
	bool json = false, found = false;
	int status = CLI_OK, rc;

	for (int i = 0; i < argc && status == CLI_OK; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (cli_option(&at_text, "--at", argc, argv, &i, &status) ||
			 cli_option(&checkpoint, "--checkpoint", argc, argv, &i, &status) ||
			 cli_option(&new_id, "--id", argc, argv, &i, &status))
			continue;
		else if (!id && argv[i][0] != '-')
			id = argv[i];
		else
			return cli_error(CLI_USAGE, "session fork: unexpected '%s'", argv[i]);
	}
	if (status)
		return status;
	if (!id)
		return cli_error(CLI_USAGE, "session fork needs a session id");
	if (at_text && checkpoint)
		return cli_error(CLI_USAGE, "session fork: --at and --checkpoint exclude each other");
	if (at_text && ((status = cli_parse_count(&opts.at, "session fork: --at", at_text)) ||
			(opts.at == 0 && (status = cli_error(CLI_USAGE, "session fork: --at 0: "
							     "messages count from 1")))))
		return status;
	if (ac_session_id_check(id) != 0 || (new_id && ac_session_id_check(new_id) != 0) ||
	    (checkpoint && ac_checkpoint_id_check(checkpoint) != 0))
		return cli_error(CLI_USAGE, "session fork: %s", ac_error_last());
	if (cli_store_is_database(ctx))
		return cli_error(CLI_FAILED, "session fork: not available on a PostgreSQL store yet "
				 "(storage.url); it forks session files");
	if ((rc = ac_session_load(&parent, ctx->ws.sessions_dir, id)) == AC_ENOTFOUND) {
		char *message = strdup(ac_error_last());

		status = fork_transcript(&found, ctx, id, &opts, new_id, checkpoint != NULL, json);
		if (status == CLI_OK && !found)
			status = cli_error(CLI_FAILED, "session fork: %s",
					   message ? message : "no such session");
		free(message);
		return status;
	}
	if (rc != 0)
		return cli_error(CLI_FAILED, "session fork: %s", ac_error_last());
	if (checkpoint && (status = checkpoint_history(&history, ctx, id, checkpoint)))
		goto done;
	opts.new_id = new_id;
	opts.checkpoint_history = history;
	opts.checkpoint_id = checkpoint;
	if (ac_session_fork(&child, ctx->ws.sessions_dir, parent, &opts) != 0) {
		status = cli_error(CLI_FAILED, "session fork: %s", ac_error_last());
		goto done;
	}
	journal_fork(ctx, child, id, &opts);
	status = print_child(child, json);
done:
	json_decref(history);
	ac_session_free(parent);
	ac_session_free(child);
	return status;
}
