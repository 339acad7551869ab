/* The operator's actions, through the core, with their dialogs' text. */
#include "actions.h"

#include "undo.h"

#include "ac_compact.h"
#include "ac_error.h"
#include "ac_operator.h"
#include "ac_oplog.h"
#include "ac_session.h"
#include "ac_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ui_dialog_close(ui_dialog *d, ui_model *m)
{
	free(d->target);
	free(d->checkpoint);
	if (d->has_plan)
		ac_checkpoint_plan_free(&d->plan);
	memset(d, 0, sizeof(*d));
	ui_model_close_dialog(m);
}

static bool set_status(const ac_workspace *ws, ui_model *m, const char *id, const char *status)
{
	bool ok = false;

	ac_buf notes = AC_BUF_INIT;
	ac_operator_outcome out;
	const char *verb = !strcmp(status, "paused") ? "pause" : "resume";

	/* The dashboard does not wait for a takeover: the sessions pane shows
	 * "resuming" until the file says running. */
	if (ac_operator_set_status(ws, id, status, false, &out, &notes) != 0) {
		ui_model_set_action(m, true, "%s %s failed: %s", verb, id, ac_error_last());
	} else if ((ok = true) && out.pending == AC_PENDING_RESUMING) {
		ui_model_set_action(m, false, "resuming %s: resumeCommand started (pid %d), waiting for "
				    "the agent to take over%s%s", id, (int)out.pid,
				    notes.len ? "; " : "", notes.len ? notes.data : "");
	} else {
		ui_model_set_action(m, false, "%s %s%s%s%s", !strcmp(status, "paused") ? "paused" : "resumed",
				    id, out.signalled ? " (agent process signalled)" : "",
				    notes.len ? "; " : "", notes.len ? notes.data : "");
	}
	ac_buf_free(&notes);
	return ok;
}

void ui_act_plan_status(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *id,
			const char *status)
{
	bool pause = !strcmp(status, "paused");
	ac_session *s = NULL;
	const char *from;

	ui_dialog_close(d, m);
	if (ac_session_load(&s, ws->sessions_dir, id) != 0) {
		ui_model_set_action(m, true, "%s %s: %s", pause ? "pause" : "resume", id, ac_error_last());
		return;
	}
	from = ac_session_status(s);
	if (!ac_session_status_change_allowed(from, status)) {
		ui_model_set_action(m, true, "%s %s: the session is %s", pause ? "pause" : "resume", id,
				    *from ? from : "without a status");
		ac_session_free(s);
		return;
	}
	ac_session_free(s);
	d->kind = UI_DLG_STATUS;
	d->status = pause ? "paused" : "running";
	d->target = strdup(id);
	ui_model_dialog_title(m, "%s session %s?", pause ? "Pause" : "Resume", id);
	if (pause) {
		ui_model_dialog_line(m, "a pause request is left for the agent in %s/.requests/",
			       ws->sessions_dir);
		ui_model_dialog_line(m, "the file says paused once the agent has not written it for %d ms",
			       ws->session_write.quiet_ms);
		ui_model_dialog_line(m, "(waiting at most %d ms; no message is changed)",
			       ws->session_write.wait_ms);
		if (ws->pause_signal)
			ui_model_dialog_line(m, "an agent agentctl started is stopped with pauseSignal");
	} else if (ws->resume_command) {
		ui_model_dialog_line(m, "starts resumeCommand: %s ...", ws->resume_command[0]);
		ui_model_dialog_line(m, "the session stays paused until its agent takes it over");
		ui_model_dialog_line(m, "(shown as resuming meanwhile; no message is changed)");
	} else {
		ui_model_dialog_line(m, "the file says running once it has been quiet for %d ms",
			       ws->session_write.quiet_ms);
		ui_model_dialog_line(m, "(no resumeCommand is configured; no message is changed)");
	}
}

void ui_act_plan_compact(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *id)
{
	ac_session *s = NULL;
	ac_compact_result plan = {0};
	ac_compact_options opts = ws->compact;
	const char *const *summarizer = NULL;

	ui_dialog_close(d, m);
	if (ac_workspace_command(&summarizer, ws, "summarizer.command") != 0 ||
	    ac_session_load(&s, ws->sessions_dir, id) != 0) {
		ui_model_set_action(m, true, "compact %s: %s", id, ac_error_last());
		return;
	}
	opts.force = true; /* the operator asked: compact even below the trigger */
	ac_compact_plan(&plan, ac_session_messages(s), &opts);
	ac_session_free(s);
	if (!plan.needed) {
		ui_model_set_action(m, false, "compact %s: nothing to do (%s)", id,
				    plan.why_not ? plan.why_not : "no messages to summarise");
		return;
	}
	d->kind = UI_DLG_COMPACT;
	d->target = strdup(id);
	ui_model_dialog_title(m, "Compact session %s?", id);
	ui_model_dialog_line(m, "tokens before: %llu (trigger %llu%s)", (unsigned long long)plan.tokens_before,
		       (unsigned long long)opts.trigger_tokens,
		       plan.tokens_before < opts.trigger_tokens ? ", below it: forced" : "");
	ui_model_dialog_line(m, "messages to summarise: %zu of %zu, replaced by 1 summary", plan.summarized,
		       plan.messages_before);
	ui_model_dialog_line(m, "messages after: %zu", plan.messages_after);
	ui_model_dialog_line(m, "the originals are archived under %s/.compactions/", ws->sessions_dir);
	ui_model_dialog_line(m, "summariser: %s", opts.summarizer && opts.summarizer[0] ? opts.summarizer[0]
									      : "built-in");
}

void ui_act_plan_rollback_op(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *op_id)
{
	ac_oplog_rollback_result r = {0};
	ac_git_rollback_result *g = &r.git;

	ac_buf notes = AC_BUF_INIT;

	ui_dialog_close(d, m);
	if (ac_oplog_rollback(&r, ws, op_id, true, &notes) != 0) {
		ui_model_set_action(m, true, "rollback %s: %s", op_id, ac_error_last());
		ac_oplog_rollback_result_free(&r);
		ac_buf_free(&notes);
		return;
	}
	d->kind = UI_DLG_ROLLBACK_OP;
	d->target = strdup(op_id);
	ui_model_dialog_title(m, "Roll the workspace back to before operation %s?", op_id);
	ui_model_dialog_line(m, "target state: %s", g->target[0] ? g->target : "(empty tree)");
	ui_model_dialog_line(m, "%zu to remove, %zu to restore, %zu to change; the current state is "
		       "committed first (nothing is lost)", g->removed, g->restored, g->changed);
	if (g->n == 0)
		ui_model_dialog_line(m, "no file differs: only a snapshot and a rollback commit are made");
	if (g->kept)
		ui_model_dialog_line(m, "%zu ignored file%s will be overwritten; the snapshot keeps a copy",
			       g->kept, g->kept == 1 ? "" : "s");
	for (size_t i = 0; i < g->n; i++)
		ui_model_dialog_line(m, "  %-7s %s", ac_git_action_name(g->items[i].action), g->items[i].path);
	if (notes.len)
		ui_model_dialog_line(m, "note: %s", notes.data);
	ac_oplog_rollback_result_free(&r);
	ac_buf_free(&notes);
}

void ui_act_plan_rollback_checkpoint(ui_dialog *d, const ac_workspace *ws, ui_model *m,
				     const char *session, const char *checkpoint)
{
	ac_checkpoint_store *store = NULL;
	const json_t *tools = NULL;

	ui_dialog_close(d, m);
	if (ac_workspace_rollback_tools(&tools, ws) != 0 ||
	    ac_checkpoint_store_file_new(&store, ws->checkpoints_dir) != 0) {
		ui_model_set_action(m, true, "rollback: %s", ac_error_last());
		return;
	}
	d->has_plan = true;
	if (ac_checkpoint_plan_rollback(&d->plan, store, ws->sessions_dir, session, checkpoint,
					tools) != 0) {
		ui_model_set_action(m, true, "rollback %s to %s: %s", session, checkpoint, ac_error_last());
		ac_checkpoint_store_free(store);
		ui_dialog_close(d, m);
		return;
	}
	ac_checkpoint_store_free(store);
	if (d->plan.remove == 0 && d->plan.n_calls == 0) {
		ui_model_set_action(m, false, "rollback %s to %s: nothing to roll back", session, checkpoint);
		ui_dialog_close(d, m);
		return;
	}
	d->kind = UI_DLG_ROLLBACK_CKPT;
	d->target = strdup(session);
	d->checkpoint = strdup(checkpoint);
	ui_model_dialog_title(m, "Roll session %s back to checkpoint %s (version %lld)?", session, checkpoint,
		  (long long)ac_checkpoint_version(d->plan.checkpoint));
	ui_model_dialog_line(m, "messages: keep %zu, remove %zu", d->plan.keep, d->plan.remove);
	ui_model_dialog_line(m, "compensations that will run (newest first): %zu",
		       d->plan.n_calls - d->plan.n_unconfigured);
	for (size_t i = 0; i < d->plan.n_calls; i++) {
		const ac_checkpoint_compensation *c = &d->plan.calls[i];

		if (c->argv)
			ui_model_dialog_line(m, "  run %s for %s call %s", c->argv[0], c->tool, c->call_id);
	}
	if (d->plan.n_unconfigured)
		ui_model_dialog_line(m, "%zu tool calls have no rollbackTools entry: their effects stay",
			       d->plan.n_unconfigured);
}

static void confirm_rollback_checkpoint(ui_dialog *d, const ac_workspace *ws, ui_model *m,
					struct ui_undo *undo)
{
	ac_checkpoint_rollback_result result = {0};
	ac_buf notes = AC_BUF_INIT;

	/* The message says what ran before a failure: compensations are not
	 * undone, and a retry skips them. */
	if (ac_operator_rollback_checkpoint(ws, d->target, &d->plan, &result, &notes) != 0)
		ui_model_set_action(m, true, "rollback: %s", ac_error_last());
	else {
		ui_model_set_action(m, notes.len > 0, "rolled back session %s to checkpoint %s: "
				    "%zu messages removed and archived, %zu compensations ran%s%s",
				    d->target, d->checkpoint, d->plan.remove, result.ran,
				    notes.len ? "; " : "", notes.len ? notes.data : "");
		if (undo && result.archive_path)
			ui_undo_record(undo, UI_UNDO_ROLLBACK_CKPT, d->target, result.archive_path,
				       d->plan.keep, d->plan.remove, NULL, NULL);
	}
	ac_checkpoint_rollback_result_free(&result);
	ac_buf_free(&notes);
}

void ui_dialog_confirm(ui_dialog *d, const ac_workspace *ws, ui_model *m, struct ui_undo *undo)
{
	ac_buf notes = AC_BUF_INIT;

	switch (d->kind) {
	case UI_DLG_COMPACT: {
		ac_compact_result r = {0};

		if (ac_operator_compact(ws, d->target, true, &r, &notes) != 0)
			ui_model_set_action(m, true, "compact %s failed, nothing changed: %s", d->target,
					    ac_error_last());
		else if (!r.needed)
			ui_model_set_action(m, false, "compact %s: nothing done (%s)", d->target,
					    r.why_not ? r.why_not : "?");
		else {
			ui_model_set_action(m, false, "compacted %s: %zu -> %zu messages, %llu -> %llu tokens%s%s",
					    d->target, r.messages_before, r.messages_after,
					    (unsigned long long)r.tokens_before,
					    (unsigned long long)r.tokens_after, notes.len ? "; " : "",
					    notes.len ? notes.data : "");
			if (undo && r.archive_path)
				ui_undo_record(undo, UI_UNDO_COMPACT, d->target, r.archive_path,
					       r.messages_after, r.summarized, NULL, NULL);
		}
		ac_compact_result_free(&r);
		break;
	}
	case UI_DLG_ROLLBACK_OP: {
		ac_oplog_rollback_result r = {0};

		if (ac_oplog_rollback(&r, ws, d->target, false, &notes) != 0)
			ui_model_set_action(m, true, r.git.commit[0] ? "rollback incomplete: %s"
					    : "rollback failed: %s", ac_error_last());
		else {
			ui_model_set_action(m, false, "rolled back to before %s: %zu removed, %zu restored, "
					    "%zu changed; snapshot %.12s%s%s", d->target, r.git.removed,
					    r.git.restored, r.git.changed, r.git.snapshot,
					    notes.len ? "; " : "", notes.len ? notes.data : "");
			if (undo && r.op && r.op->id)
				ui_undo_record(undo, UI_UNDO_ROLLBACK_OP, NULL, NULL, 0, 0, r.op->id,
					       r.git.snapshot);
		}
		ac_oplog_rollback_result_free(&r);
		break;
	}
	case UI_DLG_ROLLBACK_CKPT:
		confirm_rollback_checkpoint(d, ws, m, undo);
		break;
	case UI_DLG_STATUS:
		if (set_status(ws, m, d->target, d->status) && undo) {
			if (!strcmp(d->status, "paused"))
				ui_undo_record(undo, UI_UNDO_PAUSE, d->target, NULL, 0, 0, NULL, NULL);
			else
				ui_undo_clear(undo); /* the undo of a pause, or a resume of its own */
		}
		break;
	case UI_DLG_UNDO:
		if (undo)
			ui_undo_run(undo, ws, m);
		break;
	case UI_DLG_NONE:
		break;
	}
	ac_buf_free(&notes);
	ui_dialog_close(d, m);
}
