/* The operator's actions, through the core, with their dialogs' text. */
#include "actions.h"

#include "ac_oplog_intent.h"
#include "actions_impl.h"

#include "ui_text.h"
#include "undo.h"

#include "ac_checkpoint_runtime.h"
#include "ac_compact.h"
#include "ac_error.h"
#include "ac_operator.h"
#include "ac_oplog.h"
#include "ac_restore.h"
#include "ac_session.h"
#include "ac_text.h"
#include "ac_time.h"

#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ui_dialog_close(ui_dialog *d, ui_model *m)
{
	free(d->target);
	free(d->checkpoint);
	free(d->shown);
	ac_git_paths_free(d->running, d->n_running);
	ui_undo_clear(&d->undo);
	if (d->has_plan)
		ac_checkpoint_plan_free(&d->plan);
	memset(d, 0, sizeof(*d));
	ui_model_close_dialog(m);
}

/* The longest piece of text given to one dialog line (which keeps 1023
 * bytes); cut at a character's start. */
enum { PIECE = 900 };

void ui_act_dialog_text(ui_model *m, const char *text, size_t len)
{
	do {
		size_t n = len > PIECE ? PIECE : len;

		while (n < len && n > 1 && ((unsigned char)text[n] & 0xC0) == 0x80)
			n--;
		ui_model_dialog_line(m, "%.*s", (int)n, text);
		text += n;
		len -= n;
	} while (len);
}

void ui_act_notice(ui_dialog *d, ui_model *m, int cols)
{
	const ui_log_entry *e;
	const char *t;

	/* What the status line shows whole stays there: no key is taken. */
	if (d->kind != UI_DLG_NONE || !m->action_error || !m->action[0] || !m->n_log ||
	    (!m->action_cut && ui_text_width(m->action, strlen(m->action)) + 2 <= cols))
		return;
	e = ui_model_log_entry(m, m->n_log - 1);
	if (!e->error || !e->text)
		return;
	d->kind = UI_DLG_NOTICE;
	ui_model_dialog_title(m, "Not done");
	/* One line per clause: a reason reads as the list it is. */
	for (t = e->text; *t;) {
		const char *semi = strstr(t, "; ");
		size_t len = semi ? (size_t)(semi - t) + 1 : strlen(t);

		ui_act_dialog_text(m, t, len);
		t += len;
		while (*t == ' ')
			t++;
	}
	ui_model_dialog_keys(m, "any key: close (L shows it again in the message log)");
}

void ui_act_say(ui_act_outcome *out, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->message, sizeof(out->message), fmt, ap);
	va_end(ap);
	out->error = error;
}

bool ui_act_cancel_asked(int cancel_fd)
{
	struct pollfd p = {.fd = cancel_fd, .events = POLLIN};

	return cancel_fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

int ui_act_store_local(bool *local, const ac_workspace *ws)
{
	ac_backend *b = NULL;
	int rc;

	*local = false;
	if ((rc = ac_workspace_store(&b, ws)) == 0)
		*local = ac_backend_has_local_sessions(b);
	ac_workspace_store_release(ws, b);
	return rc;
}

static bool set_status(const ui_dialog *d, const ac_workspace *ws, ui_act_outcome *o)
{
	const char *id = d->target, *status = d->status;
	bool ok = false;
	ac_buf notes = AC_BUF_INIT;
	ac_operator_outcome out;
	const char *verb = !strcmp(status, "paused") ? "pause" : "resume";

	/* The dashboard does not wait for a takeover: the sessions pane shows
	 * "resuming" until the file says running. A shared store compares
	 * and sets from the status shown. */
	if (ac_operator_set_status(ws, id, *d->from ? d->from : NULL, status, false, &out,
				   &notes) != 0) {
		ui_act_say(o, true, "%s %s %s: %s", verb, id, d->shared ? "refused" : "failed",
			   ac_error_last());
	} else if ((ok = true) && out.withdrawn) {
		ui_act_say(o, false, "withdrew the pause request for %s%s%s%s", id,
		    out.signalled ? " (agent process continued)" : "",
		    notes.len ? "; " : "", notes.len ? notes.data : "");
	} else if (out.pending == AC_PENDING_RESUMING) {
		ui_act_say(o, false, "resuming %s: resumeCommand started (pid %d), waiting for "
		    "the agent to take over%s%s", id, (int)out.pid,
		    notes.len ? "; " : "", notes.len ? notes.data : "");
	} else {
		ui_act_say(o, false, "%s %s%s%s%s", !strcmp(status, "paused") ? "paused" : "resumed",
		    id, out.signalled ? " (agent process signalled)" : "",
		    notes.len ? "; " : "", notes.len ? notes.data : "");
	}
	ac_buf_free(&notes);
	return ok;
}

/* p again on a session still "pausing" whose file has been quiet for
 * session.quietMs x AC_QUIET_TURNS: its agent ignores the request or is
 * gone, so y writes the pause now (pause_session() finds the file quiet),
 * as the operator's. False (nothing shown) otherwise. */
static bool apply_now_dialog(const ac_workspace *ws, ui_model *m, const char *id)
{
	int64_t idle = 0, quiet = (int64_t)ws->session_write.quiet_ms * AC_QUIET_TURNS;
	ac_request req;

	if (ac_request_read(&req, ws->sessions_dir, id) != 0 || req.kind != AC_REQUEST_PAUSE ||
	    req.state != AC_REQUEST_PENDING || ac_session_idle_ms(&idle, ws->sessions_dir, id) != 0 ||
	    idle < quiet)
		return false;
	ui_model_dialog_title(m, "Apply the pause of %s now?", id);
	ui_model_dialog_line(m, "its agent has not honoured the pause request of %lld s ago,",
			     (long long)((ac_time_now_ms() - req.requested_ms) / 1000));
	ui_model_dialog_line(m, "and the file has been quiet for %lld s (over %lld ms): the "
			     "agent ignores it or is gone", (long long)(idle / 1000), (long long)quiet);
	ui_model_dialog_line(m, "y writes paused into the session file now, as yours "
			     "(journaled as Human)");
	ui_model_dialog_line(m, "(an agent that comes back and saves over it shows overridden; "
			     "no message is changed)");
	return true;
}

/* What y on a resume does, in the order resume_session() decides it: an
 * agent agentctl stopped is continued, else resumeCommand runs if it may,
 * else the file is written; an untrusted resumeCommand refuses. */
static void resume_dialog_lines(const ac_workspace *ws, ui_model *m, const char *id)
{
	const char *const *command = NULL;
	ac_agent_process agent;

	if (ws->pause_signal && ac_process_find(&agent, ws->sessions_dir, id) == 0) {
		ui_model_dialog_line(m, "sends SIGCONT to pid %ld, the agent agentctl stopped for the "
				     "pause", (long)agent.pid);
		ui_model_dialog_line(m, "the file says running once it has been quiet for %d ms",
				     ws->session_write.quiet_ms);
		ui_model_dialog_line(m, "(resumeCommand is not started; no message is changed)");
	} else if (ac_workspace_command(&command, ws, "resumeCommand") != 0) {
		const char *origin = ws->config ? ac_config_origin(ws->config, "resumeCommand") : NULL;

		ui_model_dialog_line(m, "resumeCommand is configured but not trusted: y is refused");
		ui_model_dialog_line(m, "in %s", origin ? origin : "a project file");
		ui_model_dialog_line(m, "review it (agentctl config show --origin), then run");
		ui_model_dialog_line(m, "agentctl config trust");
	} else if (command) {
		ui_model_dialog_line(m, "starts resumeCommand: %s ...", command[0]);
		ui_model_dialog_line(m, "the session stays paused until its agent takes it over");
		ui_model_dialog_line(m, "(shown as resuming meanwhile; no message is changed)");
	} else {
		ui_model_dialog_line(m, "the file says running once it has been quiet for %d ms",
				     ws->session_write.quiet_ms);
		ui_model_dialog_line(m, "(no resumeCommand is configured; no message is changed)");
	}
}

static void plan_shared_status(ui_dialog *d, ui_model *m, const char *id, const char *status);

void ui_act_plan_status(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *id,
			const char *status)
{
	bool pause = !strcmp(status, "paused"), withdraw, local;
	ac_session *s = NULL;
	ac_request req;
	const char *from;

	ui_dialog_close(d, m);
	if (ui_act_store_local(&local, ws) != 0) {
		ui_model_set_action(m, true, "%s %s: %s", pause ? "pause" : "resume", id, ac_error_last());
		return;
	}
	if (!local) {
		plan_shared_status(d, m, id, status);
		return;
	}
	if (ac_session_load(&s, ws->sessions_dir, id) != 0) {
		ui_model_set_action(m, true, "%s %s: %s", pause ? "pause" : "resume", id, ac_error_last());
		return;
	}
	from = ac_session_status(s);
	/* r on a running session whose pause did not happen takes it back. */
	withdraw = !pause && !strcmp(from, "running") &&
		   ac_request_read(&req, ws->sessions_dir, id) == 0 && req.kind == AC_REQUEST_PAUSE;
	if (withdraw) {
		ac_session_free(s);
		d->kind = UI_DLG_STATUS;
		d->status = "running";
		d->target = strdup(id);
		ui_model_dialog_title(m, "Withdraw the pause request for %s?", id);
		ui_model_dialog_line(m, "the session is still running: its agent %s the pause",
				     req.state == AC_REQUEST_PENDING ? "has not honoured"
								     : "saved over");
		ui_model_dialog_line(m, "the request in %s/.requests/ is removed", ws->sessions_dir);
		ui_model_dialog_line(m, "(no message is changed)");
		return;
	}
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
	if (pause && apply_now_dialog(ws, m, id)) {
		ui_act_offer_stop(d, ws, m, id);
		return;
	}
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
		ui_act_offer_stop(d, ws, m, id);
	} else {
		resume_dialog_lines(ws, m, id);
	}
}

/* p / r in a store hosts share: from the status the row shows, as one
 * compare-and-set. */
static void plan_shared_status(ui_dialog *d, ui_model *m, const char *id, const char *status)
{
	bool pause = !strcmp(status, "paused");
	const char *from = NULL;

	for (size_t i = 0; i < m->n_sessions && !from; i++)
		if (!strcmp(m->sessions[i].raw_id, id))
			from = m->sessions[i].status;
	if (!from) {
		ui_model_set_action(m, true, "%s %s: the session is not listed", pause ? "pause" : "resume",
				    id);
		return;
	}
	if (!ac_session_status_change_allowed(from, status)) {
		ui_model_set_action(m, true, "%s %s: the session is %s", pause ? "pause" : "resume", id,
				    *from ? from : "without a status");
		return;
	}
	d->kind = UI_DLG_STATUS;
	d->status = pause ? "paused" : "running";
	d->shared = true;
	snprintf(d->from, sizeof(d->from), "%s", from);
	d->target = strdup(id);
	ui_model_dialog_title(m, "%s session %s?", pause ? "Pause" : "Resume", id);
	ui_model_dialog_line(m, "its status becomes %s in the database, only if it is still %s",
			     d->status, d->from);
	ui_model_dialog_line(m, "(a change another host made first refuses it: nothing is written)");
	ui_model_dialog_line(m, "its agent, on whichever host, reads the status from the store; "
			     "no message is changed");
}

/* The plan as text, to compare the one shown with the one about to run:
 * the target state, each path and what happens to it, the files kept. */
static char *plan_text(const ac_git_rollback_result *g)
{
	ac_buf t = AC_BUF_INIT;

	ac_buf_printf(&t, "%s\n%zu\n", g->target, g->kept);
	for (size_t i = 0; i < g->n; i++)
		ac_buf_printf(&t, "%s %s\n", ac_git_action_name(g->items[i].action), g->items[i].path);
	return ac_buf_detach(&t);
}

/* One dialog line per session of r, the first few; then how many more. */
static void dialog_sessions(ui_model *m, const ac_oplog_rollback_result *r)
{
	enum { SHOWN = 6 };

	if (!r->n_sessions)
		ui_model_dialog_line(m, "  (no operation names a session)");
	for (size_t i = 0; i < r->n_sessions && i < SHOWN; i++)
		ui_model_dialog_line(m, "  session %s", r->sessions[i]);
	if (r->n_sessions > SHOWN)
		ui_model_dialog_line(m, "  and %zu more", r->n_sessions - SHOWN);
}

/* Opens the dialog of R (rolling back to before op_id) or v (reverting
 * op_id alone) with plan r, a dry run through the same core call as `ops
 * rollback|revert --dry-run`: the files it touches and the sessions whose
 * work it undoes. */
static void show_undo_op(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *op_id,
			 bool revert, const ac_oplog_rollback_result *r, const char *notes,
			 bool changed, const char *paused)
{
	const ac_git_rollback_result *g = &r->git;

	d->kind = revert ? UI_DLG_REVERT_OP : UI_DLG_ROLLBACK_OP;
	d->target = strdup(op_id);
	d->shown = plan_text(g);
	if (revert)
		ui_model_dialog_title(m, "Revert operation %s alone?", op_id);
	else
		ui_model_dialog_title(m, "Roll the workspace back to before operation %s?", op_id);
	for (const char *t = paused; t && *t;) {
		const char *nl = strchr(t, '\n');
		int len = nl ? (int)(nl - t) : (int)strlen(t);

		ui_model_dialog_line(m, "%.*s", len, t);
		t += len + (nl != NULL);
	}
	if (paused)
		ui_model_dialog_line(m, "nothing was rolled back yet. The plan now:");
	else if (changed)
		ui_model_dialog_line(m, "the plan changed since it was shown (the files changed "
				     "meanwhile); nothing was done. The new plan:");
	ui_act_offer_pause(d, ws, m);
	if (revert) {
		ui_model_dialog_line(m, "undoes this operation's change alone; later ones stay");
		ui_model_dialog_line(m, "undoes the work of %zu session%s (this operation only):",
				     r->n_sessions, r->n_sessions == 1 ? "" : "s");
	} else {
		ui_model_dialog_line(m, "target state: %s", g->target[0] ? g->target : "(empty tree)");
		ui_model_dialog_line(m, "undoes the work of %zu session%s (this operation and every "
				     "later one):", r->n_sessions, r->n_sessions == 1 ? "" : "s");
	}
	dialog_sessions(m, r);
	ui_model_dialog_line(m, "%zu to remove, %zu to restore, %zu to change; the current state is "
		       "committed first (nothing is lost)", g->removed, g->restored, g->changed);
	ui_act_operator_edits(ws, m, g);
	if (g->n == 0)
		ui_model_dialog_line(m, "no file differs: only a snapshot and a %s commit are made",
				     revert ? "revert" : "rollback");
	if (g->kept)
		ui_model_dialog_line(m, "%zu ignored file%s will be overwritten; the snapshot keeps a copy",
			       g->kept, g->kept == 1 ? "" : "s");
	for (size_t i = 0; i < g->n; i++)
		ui_model_dialog_line(m, "  %-7s %s", ac_git_action_name(g->items[i].action), g->items[i].path);
	if (notes && *notes)
		ui_model_dialog_line(m, "note: %s", notes);
}

/* ac_oplog_rollback() or ac_oplog_revert(). */
static int undo_op(ac_oplog_rollback_result *out, const ac_workspace *ws, const char *op_id,
		   bool revert, bool dry_run, ac_buf *notes)
{
	return (revert ? ac_oplog_revert : ac_oplog_rollback)(out, ws, op_id, dry_run, notes);
}

static void plan_undo_op(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *op_id,
			 bool revert)
{
	ac_oplog_rollback_result r = {0};
	ac_buf notes = AC_BUF_INIT;

	ui_dialog_close(d, m);
	if (undo_op(&r, ws, op_id, revert, true, &notes) != 0)
		ui_model_set_action(m, true, "%s %s: %s", revert ? "revert" : "rollback", op_id,
				    ac_error_last());
	else
		show_undo_op(d, ws, m, op_id, revert, &r, notes.data, false, NULL);
	ac_oplog_rollback_result_free(&r);
	ac_buf_free(&notes);
}

void ui_act_plan_rollback_op(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *op_id)
{
	plan_undo_op(d, ws, m, op_id, false);
}

void ui_act_plan_revert_op(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *op_id)
{
	plan_undo_op(d, ws, m, op_id, true);
}

/* The core call of F or U. */
static int intent_op(ac_oplog_rollback_result *out, const ac_workspace *ws, bool finish,
		     bool dry_run, ac_buf *notes)
{
	return finish ? ac_oplog_finish_interrupted(out, ws, dry_run, notes)
		      : ac_oplog_undo_interrupted(out, ws, dry_run);
}

void ui_act_plan_intent(ui_dialog *d, const ac_workspace *ws, ui_model *m, bool finish)
{
	ac_oplog_rollback_result r = {0};
	const ac_git_rollback_result *g = &r.git;
	const char *what = m->intent_revert ? "revert of" : "rollback to before";
	char *op = m->intent_op ? strdup(m->intent_op) : NULL;

	ui_dialog_close(d, m);
	if (!op) {
		ui_model_set_action(m, false, "%s: no rollback or revert was interrupted here",
				    finish ? "F" : "U");
		return;
	}
	if (intent_op(&r, ws, finish, true, NULL) != 0) {
		ui_model_set_action(m, true, "%s the interrupted %s %s: %s", finish ? "finish" : "undo",
				    what, op, ac_error_last());
		goto done;
	}
	d->kind = finish ? UI_DLG_FINISH_INTENT : UI_DLG_UNDO_INTENT;
	d->target = op;
	d->shown = plan_text(g);
	op = NULL;
	if (finish) {
		ui_model_dialog_title(m, "Finish the interrupted %s operation %s?", what, d->target);
		ui_model_dialog_line(m, "writes every file of its plan as the %s leaves it, the ones the "
				     "stopped run wrote too; the snapshot %.12s keeps the state before",
				     m->intent_revert ? "revert" : "rollback", g->snapshot);
		ui_model_dialog_line(m, "%zu to remove, %zu to restore, %zu to change; then the %s "
				     "commit, log line and journal event", g->removed, g->restored,
				     g->changed, m->intent_revert ? "revert" : "rollback");
	} else {
		ui_model_dialog_title(m, "Undo the interrupted %s operation %s?", what, d->target);
		ui_model_dialog_line(m, "puts back the snapshot %.12s, the state before it started: "
				     "every file of its plan as the snapshot holds it", g->snapshot);
		ui_model_dialog_line(m, "%zu to remove, %zu to restore, %zu to change", g->removed,
				     g->restored, g->changed);
	}
	ui_model_dialog_line(m, "the stopped run's temp files beside them are removed");
	for (size_t i = 0; i < g->n; i++)
		ui_model_dialog_line(m, "  %-7s %s", ac_git_action_name(g->items[i].action),
				     g->items[i].path);
done:
	free(op);
	ac_oplog_rollback_result_free(&r);
}

/* y on F's or U's dialog: refused when the intent changed since it was
 * shown (another process finished or undid it). */
static void run_intent(const ui_dialog *d, const ac_workspace *ws, bool finish, ui_act_outcome *o)
{
	ac_oplog_rollback_result r = {0};
	ac_buf notes = AC_BUF_INIT;
	char *now = NULL;

	if (intent_op(&r, ws, finish, true, NULL) != 0 || !(now = plan_text(&r.git)) ||
	    !d->shown || strcmp(now, d->shown)) {
		ui_act_say(o, true, "%s %s: the interrupted rollback changed since it was shown "
			   "(finished or undone elsewhere?); nothing was done", finish ? "finish" : "undo",
			   d->target);
		goto done;
	}
	ac_oplog_rollback_result_free(&r);
	if (intent_op(&r, ws, finish, false, &notes) != 0)
		ui_act_say(o, true, "%s %s failed: %s", finish ? "finish" : "undo", d->target,
			   ac_error_last());
	else if (finish)
		ui_act_say(o, false, "finished the interrupted rollback of %s: %zu removed, %zu "
			   "restored, %zu changed; commit %.12s", d->target, r.git.removed,
			   r.git.restored, r.git.changed, r.git.commit);
	else
		ui_act_say(o, false, "undid the interrupted rollback of %s: %zu files put back as the "
			   "snapshot %.12s holds them", d->target, r.git.n, r.git.snapshot);
done:
	free(now);
	ac_oplog_rollback_result_free(&r);
	ac_buf_free(&notes);
}

/* Plans rolling session back to checkpoint into *out (to free whatever
 * the return). */
static int plan_checkpoint(ac_checkpoint_plan *out, const ac_workspace *ws, const char *session,
			   const char *checkpoint)
{
	ac_checkpoint_store *store = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_checkpoint_store_open(&store, ws)))
		return rc;
	rc = ac_operator_plan_rollback(out, store, ws, session, checkpoint);
	ac_checkpoint_store_free(store);
	return rc;
}

/* Opens the dialog of d's plan (set, has_plan): rolling session back to
 * checkpoint; or says there is nothing to roll back and closes d. */
static void show_rollback_checkpoint(ui_dialog *d, const ac_workspace *ws, ui_model *m,
				     const char *session, const char *checkpoint, bool changed)
{
	bool local = true;

	if (d->plan.remove == 0 && d->plan.n_calls == 0 && !d->plan.unfolded) {
		ui_model_set_action(m, false, "rollback %s to %s: nothing to roll back", session, checkpoint);
		ui_dialog_close(d, m);
		return;
	}
	d->kind = UI_DLG_ROLLBACK_CKPT;
	d->target = strdup(session);
	d->checkpoint = strdup(checkpoint);
	ui_model_dialog_title(m, "Roll session %s back to checkpoint %s (version %lld)?", session, checkpoint,
		  (long long)ac_checkpoint_version(d->plan.checkpoint));
	if (changed)
		ui_model_dialog_line(m, "the plan changed since it was shown (the session changed "
				     "meanwhile); nothing was done. The new plan:");
	ui_model_dialog_line(m, "messages: keep %zu, remove %zu", d->plan.keep, d->plan.remove);
	if (d->plan.unfolded)
		ui_model_dialog_line(m, "older than the last compaction: rebuilt from %zu compaction "
				     "archive(s); %zu tool calls before it are not compensated",
				     d->plan.compactions, d->plan.n_before_compaction);
	/* Where z (or a person) finds them again. */
	if (d->plan.remove && ui_act_store_local(&local, ws) == 0 && !local)
		ui_model_dialog_line(m, "the removed messages are archived in the database "
				     "(compactions, kind rollback)");
	else if (d->plan.remove)
		ui_model_dialog_line(m, "the removed messages are archived under %s/.rollbacks/%s/",
				     ws->sessions_dir, session);
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

void ui_act_plan_rollback_checkpoint(ui_dialog *d, const ac_workspace *ws, ui_model *m,
				     const char *session, const char *checkpoint)
{
	ui_dialog_close(d, m);
	d->has_plan = true;
	if (plan_checkpoint(&d->plan, ws, session, checkpoint) != 0) {
		ui_model_set_action(m, true, "rollback %s to %s: %s", session, checkpoint, ac_error_last());
		ui_dialog_close(d, m);
		return;
	}
	show_rollback_checkpoint(d, ws, m, session, checkpoint, false);
}

static void run_rollback_checkpoint(const ui_dialog *d, const ac_workspace *ws, int cancel_fd,
				    ui_act_outcome *o)
{
	ac_checkpoint_rollback_result result = {0};
	ac_checkpoint_plan plan = d->plan; /* a shallow copy: the core only reads it */
	ac_checkpoint_plan now;
	ac_buf notes = AC_BUF_INIT;

	/* The session may have changed since the dialog was drawn: what runs
	 * (compensations, the messages removed) must be what was read. */
	if (plan_checkpoint(&now, ws, d->target, d->checkpoint) != 0) {
		ui_act_say(o, true, "rollback %s to %s: %s", d->target, d->checkpoint, ac_error_last());
		ac_checkpoint_plan_free(&now);
		return;
	}
	if (now.keep != plan.keep || now.n_calls != plan.n_calls ||
	    !json_equal(now.history, plan.history)) {
		o->replanned = true;
		o->ckpt_replan = now;
		ui_act_say(o, true, "the plan changed since it was shown: nothing was done; read the new "
		    "plan and confirm again");
		return;
	}
	ac_checkpoint_plan_free(&now);
	/* The message says what ran before a failure: compensations are not
	 * undone, and a retry skips them. */
	if (ac_operator_rollback_checkpoint(ws, d->target, &plan, &result, &notes) != 0)
		ui_act_say(o, true, ui_act_cancel_asked(cancel_fd) ? "rollback of %s cancelled: %s" : "rollback%.0s: %s",
		    d->target, ac_error_last());
	else {
		ui_act_say(o, notes.len > 0, "rolled back session %s to checkpoint %s: "
		    "%zu message%s removed and archived, %zu compensation%s ran%s%s",
		    d->target, d->checkpoint, d->plan.remove, d->plan.remove == 1 ? "" : "s",
		    result.ran, result.ran == 1 ? "" : "s",
		    notes.len ? "; " : "", notes.len ? notes.data : "");
		if (result.archive_path) {
			ui_undo_record(&o->undo, UI_UNDO_ROLLBACK_CKPT, d->target, result.archive_path,
				       d->plan.keep, d->plan.remove, NULL, NULL);
			o->undo_set = true;
		}
	}
	ac_checkpoint_rollback_result_free(&result);
	ac_buf_free(&notes);
}

/* Plans again first: files may have changed since the dialog was drawn,
 * and what runs must be what the operator read. */
static void run_undo_op(const ui_dialog *d, const ac_workspace *ws, bool revert,
			ui_act_outcome *o)
{
	const char *verb = revert ? "revert" : "rollback";
	ac_oplog_rollback_result r = {0};
	ac_buf notes = AC_BUF_INIT;
	char *now = NULL;

	if (d->pause_first)
		ui_act_pause_running(d, ws, &o->paused);
	if (undo_op(&r, ws, d->target, revert, true, &notes) != 0) {
		ui_act_say(o, true, "%s %s: %s", verb, d->target, ac_error_last());
		goto done;
	}
	if (d->pause_first) {
		o->replanned = true;
		o->replan = r;
		memset(&r, 0, sizeof(r));
		o->replan_notes = notes.len ? ac_buf_detach(&notes) : NULL;
		ui_act_say(o, false, "%.*s; nothing was rolled back: read the plan and confirm",
			   o->paused ? (int)strcspn(o->paused, "\n") : 12,
			   o->paused ? o->paused : "paused first");
		goto done;
	}
	if (!(now = plan_text(&r.git)) || !d->shown || strcmp(now, d->shown)) {
		o->replanned = true;
		o->replan = r;
		memset(&r, 0, sizeof(r));
		o->replan_notes = notes.len ? ac_buf_detach(&notes) : NULL;
		ui_act_say(o, true, "the plan changed since it was shown: nothing was done; read the new "
		    "plan and confirm again");
		goto done;
	}
	ac_oplog_rollback_result_free(&r);
	ac_buf_clear(&notes);
	if (undo_op(&r, ws, d->target, revert, false, &notes) != 0)
		ui_act_say(o, true, r.git.commit[0] ? "%s incomplete: %s" : "%s failed: %s", verb,
		    ac_error_last());
	else {
		if (revert)
			ui_act_say(o, false, "reverted %s: %zu removed, %zu restored, %zu changed; later "
			    "operations kept; snapshot %.12s%s%s", d->target, r.git.removed,
			    r.git.restored, r.git.changed, r.git.snapshot, notes.len ? "; " : "",
			    notes.len ? notes.data : "");
		else
			ui_act_say(o, false, "rolled back to before %s: %zu removed, %zu restored, "
			    "%zu changed; snapshot %.12s%s%s", d->target, r.git.removed,
			    r.git.restored, r.git.changed, r.git.snapshot,
			    notes.len ? "; " : "", notes.len ? notes.data : "");
		/* Rolling back the rollback's (or revert's) own operation puts the
		 * snapshot it took first back. */
		if (r.op && r.op->id) {
			ui_undo_record(&o->undo, UI_UNDO_ROLLBACK_OP, NULL, NULL, 0, 0, r.op->id,
				       r.git.snapshot);
			o->undo_set = true;
		}
	}
done:
	free(now);
	ac_oplog_rollback_result_free(&r);
	ac_buf_free(&notes);
}

/* z's restore: puts back the messages a compaction or a checkpoint rollback
 * archived, refused when the session changed since. */
static void run_undo(const ui_dialog *d, const ac_workspace *ws, ui_act_outcome *o)
{
	const ui_undo *u = &d->undo;
	bool compaction = u->kind == UI_UNDO_COMPACT;
	size_t restored = 0;

	if (u->kind != UI_UNDO_COMPACT && u->kind != UI_UNDO_ROLLBACK_CKPT)
		return;
	if (ac_restore_archive(&restored, ws->sessions_dir, u->session, u->archive,
			       compaction ? AC_RESTORE_COMPACTION : AC_RESTORE_ROLLBACK, u->expected,
			       &ws->session_write) != 0) {
		ui_act_say(o, true, "undo failed: %s", ac_error_last());
		return;
	}
	ui_act_say(o, false, "undone: the %s of %s; %zu message%s put back from %s",
	    compaction ? "compaction" : "checkpoint rollback", u->session, restored,
	    restored == 1 ? "" : "s", u->archive);
	o->undo_forget = true;
}

void ui_act_run(const ui_dialog *d, const ac_workspace *ws, int cancel_fd, ui_act_outcome *out)
{
	memset(out, 0, sizeof(*out));
	/* Each action writes agent state: kept out of `git add -A` first (once
	 * per process; a failure here leaves the action to say what git did). */
	if (d->kind != UI_DLG_NONE && ac_oplog_exclude_agent_state(ws) != 0)
		ac_error_clear();
	ac_operator_set_cancel_fd(cancel_fd);
	switch (d->kind) {
	case UI_DLG_COMPACT:
		ui_act_run_compact(d, ws, cancel_fd, out);
		break;
	case UI_DLG_ROLLBACK_OP:
	case UI_DLG_REVERT_OP:
		run_undo_op(d, ws, d->kind == UI_DLG_REVERT_OP, out);
		break;
	case UI_DLG_ROLLBACK_CKPT:
		run_rollback_checkpoint(d, ws, cancel_fd, out);
		break;
	case UI_DLG_STATUS:
		if (!set_status(d, ws, out))
			break;
		/* A pause is undone by a resume, in either store (in a shared
		 * one, the same compare-and-set from paused). */
		if (!strcmp(d->status, "paused")) {
			ui_undo_record(&out->undo, UI_UNDO_PAUSE, d->target, NULL, 0, 0, NULL, NULL);
			out->undo_set = true;
		} else {
			out->undo_forget = true; /* the undo of a pause, or a resume of its own */
		}
		break;
	case UI_DLG_UNDO:
		run_undo(d, ws, out);
		break;
	case UI_DLG_FINISH_INTENT:
	case UI_DLG_UNDO_INTENT:
		run_intent(d, ws, d->kind == UI_DLG_FINISH_INTENT, out);
		break;
	case UI_DLG_STOP:
		ui_act_run_stop(d, ws, out);
		break;
	case UI_DLG_TRUST:
		ui_act_run_trust(d, ws, out);
		break;
	case UI_DLG_NOTICE:
	case UI_DLG_NONE:
		break;
	}
	ac_operator_set_cancel_fd(-1);
}

void ui_act_report(ui_dialog *d, const ac_workspace *ws, ui_model *m, ui_undo *undo,
		   ui_act_outcome *out)
{
	ui_dialog_kind kind = d->kind;
	char *target = out->replanned && d->target ? strdup(d->target) : NULL;
	char *checkpoint = out->replanned && d->checkpoint ? strdup(d->checkpoint) : NULL;

	ui_dialog_close(d, m);
	ui_model_set_action(m, out->error, "%s", out->message);
	if (target && (kind == UI_DLG_ROLLBACK_OP || kind == UI_DLG_REVERT_OP)) {
		show_undo_op(d, ws, m, target, kind == UI_DLG_REVERT_OP, &out->replan,
			     out->replan_notes, true, out->paused);
	} else if (target && checkpoint && kind == UI_DLG_ROLLBACK_CKPT) {
		d->plan = out->ckpt_replan;
		d->has_plan = true;
		memset(&out->ckpt_replan, 0, sizeof(out->ckpt_replan));
		show_rollback_checkpoint(d, ws, m, target, checkpoint, true);
	}
	free(target);
	free(checkpoint);
	if (undo && (out->undo_set || out->undo_forget))
		ui_undo_clear(undo);
	if (undo && out->undo_set) {
		*undo = out->undo;
		memset(&out->undo, 0, sizeof(out->undo));
	}
	ui_undo_clear(&out->undo);
	free(out->replan_notes);
	free(out->paused);
	ac_oplog_rollback_result_free(&out->replan);
	ac_checkpoint_plan_free(&out->ckpt_replan);
	memset(out, 0, sizeof(*out));
}

void ui_act_running(ac_buf *out, const ui_dialog *d)
{
	switch (d->kind) {
	case UI_DLG_COMPACT:
		ac_buf_printf(out, "compacting %s", d->target);
		break;
	case UI_DLG_ROLLBACK_OP:
	case UI_DLG_REVERT_OP:
		if (d->pause_first)
			ac_buf_printf(out, "pausing %zu running session%s, then planning again",
				      d->n_running, d->n_running == 1 ? "" : "s");
		else if (d->kind == UI_DLG_ROLLBACK_OP)
			ac_buf_printf(out, "rolling the workspace back to before %s", d->target);
		else
			ac_buf_printf(out, "reverting operation %s", d->target);
		break;
	case UI_DLG_ROLLBACK_CKPT:
		ac_buf_printf(out, "rolling %s back to checkpoint %s", d->target, d->checkpoint);
		break;
	case UI_DLG_STATUS:
		ac_buf_printf(out, "%s %s", !strcmp(d->status, "paused") ? "pausing" : "resuming",
			      d->target);
		break;
	case UI_DLG_UNDO:
		ac_buf_printf(out, "undoing the %s of %s",
			      d->undo.kind == UI_UNDO_COMPACT ? "compaction" : "checkpoint rollback",
			      d->target);
		break;
	case UI_DLG_FINISH_INTENT:
		ac_buf_printf(out, "finishing the interrupted rollback of %s", d->target);
		break;
	case UI_DLG_UNDO_INTENT:
		ac_buf_printf(out, "putting the snapshot back (undoing the rollback of %s)", d->target);
		break;
	case UI_DLG_STOP:
		ac_buf_printf(out, "signalling pid %ld", (long)d->stop_pid);
		break;
	case UI_DLG_TRUST:
		ac_buf_printf(out, "trusting the project file");
		break;
	case UI_DLG_NOTICE:
	case UI_DLG_NONE:
		break;
	}
}

bool ui_act_cancellable(const ui_dialog *d, const ac_workspace *ws)
{
	const char *const *summarizer = NULL;

	if (d->kind == UI_DLG_COMPACT)
		return ac_workspace_command(&summarizer, ws, "summarizer.command") == 0 && summarizer;
	if (d->kind == UI_DLG_ROLLBACK_CKPT)
		return d->has_plan && d->plan.n_calls > d->plan.n_unconfigured;
	return false;
}
