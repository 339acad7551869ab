/* Operator actions shared by the command line and the dashboard. */
#include "ac_operator.h"

#include "ac_error.h"
#include "ac_proc.h"
#include "ac_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ac_operator_journal(const ac_workspace *ws, const char *action_type,
			const char *session_id, json_t *params, const char *message)
{
	json_t *event = json_pack("{s:s, s:s, s:{s:s, s:o}, s:{s:s}, s:{s:s}}",
				  "agent", "Human", "status", "SUCCESS",
				  "action", "type", action_type, "params", params,
				  "result", "message", message,
				  "trace", "correlation_id", session_id);
	char id[AC_EVENT_ID_LEN + 1], *text = NULL, *line = NULL;
	size_t len;
	int rc;

	if (!event)
		return ac_error_set(AC_ENOMEM, "out of memory");
	text = json_dumps(event, JSON_COMPACT);
	json_decref(event);
	if (!text)
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_event_prepare(&line, &len, id, text, &ws->schema);
	if (rc == 0)
		rc = ac_journal_append(NULL, ws->journal_path, line, len, &ws->journal);
	free(text);
	free(line);
	return rc;
}

/* The resume command with an argument that is exactly "{id}" replaced by
 * the session id (never spliced into a larger argument; see
 * ac_proc_expand_argv()). NULL when out of memory or refused. */
static char **expand_resume(const char *const *argv, const char *id)
{
	static const char *const names[] = AC_PROC_PLACEHOLDERS;
	const char *const values[] = {id, NULL};
	char **out = NULL;

	return ac_proc_expand_argv(&out, argv, names, values) == 0 ? out : NULL;
}

static void free_argv(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

int ac_operator_set_status(const ac_workspace *ws, const char *id, const char *status,
			   pid_t *out_pid, ac_buf *notes)
{
	ac_session *before = NULL;
	const char *action = NULL;
	char from[32] = "";
	ac_buf message = AC_BUF_INIT;
	const char *const *resume = NULL;
	int rc;

	if (out_pid)
		*out_pid = 0;
	/* An untrusted resumeCommand refuses the resume before anything changes. */
	if (!strcmp(status, "running") && (rc = ac_workspace_command(&resume, ws, "resumeCommand")))
		return rc;
	/* The previous status, for the journal; the change itself is judged
	 * again on the file's content at write time. */
	if ((rc = ac_session_load(&before, ws->sessions_dir, id)))
		return rc;
	snprintf(from, sizeof(from), "%s", ac_session_status(before));
	ac_session_free(before);
	if ((rc = ac_session_set_status(NULL, ws->sessions_dir, id, status)))
		return rc;
	if (!strcmp(status, "paused"))
		action = "SESSION_PAUSE";
	else if (!strcmp(status, "running"))
		action = "SESSION_RESUME";
	if (action) {
		ac_buf_printf(&message, "%s session %s", !strcmp(status, "paused") ? "Paused" : "Resumed", id);
		if (ac_operator_journal(ws, action, id,
					json_pack("{s:s, s:s, s:s}", "sessionId", id, "from", from, "to", status),
					message.data) != 0 && notes)
			ac_buf_printf(notes, "the journal was not written: %s", ac_error_last());
	}
	if (!strcmp(status, "running") && resume) {
		char **argv = expand_resume(resume, id);
		const char *const env[] = {"AGENT_SESSION_ID", id, NULL};
		ac_buf log = AC_BUF_INIT;

		ac_buf_printf(&log, "%s/.agent/logs/%s.log", ws->root, id);
		if (!argv || ac_proc_spawn_detached_env(out_pid, (const char *const *)argv, env, ws->root,
							log.data) != 0) {
			if (notes)
				ac_buf_printf(notes, "%sresumeCommand did not start: %s",
					      notes->len ? "; " : "", argv ? ac_error_last() : "out of memory");
		}
		free_argv(argv);
		ac_buf_free(&log);
	}
	ac_buf_free(&message);
	return 0;
}

int ac_operator_compact(const ac_workspace *ws, const char *id, bool force,
			ac_compact_result *out, ac_buf *notes)
{
	ac_compact_options opts = ws->compact;
	ac_buf message = AC_BUF_INIT;
	int rc;

	opts.force = force;
	if ((rc = ac_compact_session(out, ws->sessions_dir, id, &opts)))
		return rc;
	if (!out->needed)
		return 0;
	ac_buf_printf(&message, "Compacted session %s: %zu messages summarised, ~%llu -> ~%llu tokens",
		      id, out->summarized, (unsigned long long)out->tokens_before,
		      (unsigned long long)out->tokens_after);
	if (ac_operator_journal(ws, "SESSION_COMPACT", id,
				json_pack("{s:s, s:I, s:I, s:I, s:s?}", "sessionId", id,
					  "messages", (json_int_t)out->summarized,
					  "tokensBefore", (json_int_t)out->tokens_before,
					  "tokensAfter", (json_int_t)out->tokens_after,
					  "archive", out->archive_path),
				message.data) != 0 && notes)
		ac_buf_printf(notes, "the journal was not written: %s", ac_error_last());
	ac_buf_free(&message);
	return 0;
}

int ac_operator_rollback_checkpoint(const ac_workspace *ws, const char *session_id,
				    ac_checkpoint_plan *plan, size_t *out_ran, ac_buf *notes)
{
	ac_buf message = AC_BUF_INIT;
	int rc;

	*out_ran = 0;
	if ((rc = ac_checkpoint_rollback(out_ran, plan, ws->sessions_dir, ws->root, 0)))
		return rc;
	ac_buf_printf(&message, "Rolled back session %s to checkpoint %s (version %lld): "
		      "%zu messages removed, %zu compensations ran", session_id,
		      ac_checkpoint_id(plan->checkpoint), (long long)ac_checkpoint_version(plan->checkpoint),
		      plan->remove, *out_ran);
	if (ac_operator_journal(ws, "ROLLBACK", session_id,
				json_pack("{s:s, s:s, s:I, s:I, s:I}", "sessionId", session_id,
					  "checkpointId", ac_checkpoint_id(plan->checkpoint),
					  "version", (json_int_t)ac_checkpoint_version(plan->checkpoint),
					  "removedMessages", (json_int_t)plan->remove,
					  "compensations", (json_int_t)*out_ran),
				message.data) != 0 && notes)
		ac_buf_printf(notes, "the journal was not written: %s", ac_error_last());
	ac_buf_free(&message);
	return 0;
}
