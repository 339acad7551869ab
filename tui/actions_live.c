/* Rolling back under live agents: the dialog of R or v names the sessions
 * still running, whose agents may change files between the plan and y,
 * and offers P to pause them first (as p does) and plan again; and it
 * names the operator's own uncommitted edits, which no operation made. */
#include "actions_impl.h"

#include "ac_control.h"
#include "ac_error.h"
#include "ac_operator.h"
#include "ac_session.h"
#include "ac_time.h"

#include <stdlib.h>
#include <string.h>

enum { NAMED = 8 }; /* paths or sessions named before "and N more" */

static bool still_running(const ac_workspace *ws, const char *id)
{
	ac_session *s = NULL;
	bool running = ac_session_load(&s, ws->sessions_dir, id) == 0 &&
		       !strcmp(ac_session_status(s), "running");

	ac_session_free(s);
	return running;
}

static bool paused_now(const ac_workspace *ws, const char *id)
{
	ac_session *s = NULL;
	bool paused = ac_session_load(&s, ws->sessions_dir, id) == 0 &&
		      !strcmp(ac_session_status(s), "paused");

	ac_session_free(s);
	ac_error_clear();
	return paused;
}

void ui_act_offer_pause(ui_dialog *d, const ac_workspace *ws, ui_model *m)
{
	bool local = false;
	ac_buf names = AC_BUF_INIT;
	char **ids;

	/* In a store hosts share the agents may be elsewhere: p's compare-
	 * and-set is all there is, one session at a time. */
	if (ui_act_store_local(&local, ws) != 0 || !local || !m->n_sessions) {
		ac_error_clear();
		return;
	}
	if (!(ids = calloc(m->n_sessions, sizeof(*ids))))
		return;
	d->running = ids;
	for (size_t i = 0; i < m->n_sessions; i++) {
		const ui_session *s = &m->sessions[i];

		/* Coding agents' transcripts are read only: not paused here. */
		if (s->source || s->st != UI_STATUS_RUNNING || !s->raw_id ||
		    !still_running(ws, s->raw_id))
			continue;
		if ((ids[d->n_running] = strdup(s->raw_id)))
			d->n_running++;
	}
	if (!d->n_running)
		return;
	for (size_t i = 0; i < d->n_running && i < NAMED; i++)
		ac_buf_printf(&names, "%s%s", i ? ", " : "", d->running[i]);
	if (d->n_running > NAMED)
		ac_buf_printf(&names, " and %zu more", d->n_running - NAMED);
	ui_model_dialog_line(m, "%zu session%s still running (%s): %s agent%s may change files "
			     "before y; P pauses %s first (as p does) and shows the plan again",
			     d->n_running, d->n_running == 1 ? " is" : "s are", names.data,
			     d->n_running == 1 ? "its" : "their", d->n_running == 1 ? "" : "s",
			     d->n_running == 1 ? "it" : "them");
	ac_buf_free(&names);
	ui_model_dialog_keys(m, "y: do it   P: pause the %zu running session%s first   n or Esc: "
			     "cancel", d->n_running, d->n_running == 1 ? "" : "s");
}

/* Whether plan g writes path (relative to the workspace; g's are to the
 * repository, which may hold the workspace in a folder). */
static bool in_plan(const ac_git_rollback_result *g, const char *path)
{
	size_t len = strlen(path);

	for (size_t i = 0; i < g->n; i++) {
		const char *p = g->items[i].path;
		size_t plen = strlen(p);

		if (!strcmp(p, path) || (plen > len && p[plen - len - 1] == '/' &&
					 !strcmp(p + plen - len, path)))
			return true;
	}
	return false;
}

void ui_act_operator_edits(const ac_workspace *ws, ui_model *m, const ac_git_rollback_result *g)
{
	char **edits = NULL;
	size_t n = 0;

	if (ac_oplog_operator_edits(&edits, &n, ws) != 0) {
		ui_model_dialog_line(m, "(uncommitted edits could not be listed: %s)", ac_error_last());
		return;
	}
	if (n) {
		ui_model_dialog_line(m, "%zu file%s with uncommitted edits no operation made (your own "
				     "work?): the snapshot keeps %s", n, n == 1 ? "" : "s",
				     n == 1 ? "it" : "them");
		for (size_t i = 0; i < n && i < NAMED; i++)
			ui_model_dialog_line(m, "  %-7s %s", in_plan(g, edits[i]) ? "undone" : "kept",
					     edits[i]);
		if (n > NAMED)
			ui_model_dialog_line(m, "  and %zu more", n - NAMED);
	}
	ac_git_paths_free(edits, n);
}

bool ui_act_pause_first(ui_dialog *d, ui_model *m)
{
	if ((d->kind != UI_DLG_ROLLBACK_OP && d->kind != UI_DLG_REVERT_OP) || !d->n_running) {
		ui_model_set_action(m, true, "P pauses the running sessions from the dialog of R or v "
				    "that names them");
		return false;
	}
	d->pause_first = true;
	ui_model_dialog_title(m, "Pause the %zu running session%s first?", d->n_running,
			      d->n_running == 1 ? "" : "s");
	for (size_t i = 0; i < d->n_running; i++)
		ui_model_dialog_line(m, "  pause %s", d->running[i]);
	ui_model_dialog_line(m, "each agent is asked to pause, as p does; its file says paused once "
			     "it is quiet (waiting at most session.waitMs each)");
	ui_model_dialog_line(m, "then the plan of the %s is made again and shown, saying which "
			     "agents did not acknowledge; nothing is rolled back until you confirm it",
			     d->kind == UI_DLG_REVERT_OP ? "revert" : "rollback");
	ui_model_dialog_keys(m, "y: pause them, then plan again   n or Esc: cancel (nothing changes)");
	return true;
}

void ui_act_pause_running(const ui_dialog *d, const ac_workspace *ws, char **report)
{
	ac_buf text = AC_BUF_INIT, refused = AC_BUF_INIT;
	ac_request req = {.kind = AC_REQUEST_PAUSE, .state = AC_REQUEST_PENDING};
	size_t acked = 0, asked = 0;
	bool *ask = calloc(d->n_running ? d->n_running : 1, sizeof(*ask));

	*report = NULL;
	if (!ask)
		return;
	/* Every agent is asked before any is waited for: each honours its
	 * request at its next turn, all at once. */
	for (size_t i = 0; i < d->n_running; i++) {
		if (!(ask[i] = still_running(ws, d->running[i])))
			continue;
		req.requested_ms = ac_time_now_ms();
		if (ac_request_write(ws->sessions_dir, d->running[i], &req) != 0)
			ac_error_clear();
		asked++;
	}
	for (size_t i = 0; i < d->n_running; i++) {
		ac_buf notes = AC_BUF_INIT;
		ac_operator_outcome out;

		if (!ask[i])
			continue;
		/* An agent that paused itself since it was asked has acknowledged. */
		if (ac_operator_set_status(ws, d->running[i], "running", "paused", false, &out,
					   &notes) == 0 || paused_now(ws, d->running[i]))
			acked++;
		else
			ac_buf_printf(&refused, "  not paused: %s (%s)\n", d->running[i],
				      ac_error_last());
		ac_buf_free(&notes);
	}
	ac_buf_printf(&text, "paused first: %zu of %zu running session%s acknowledged the pause%s\n",
		      acked, asked, asked == 1 ? "" : "s",
		      acked < asked ? " (the others' requests wait for their agents; p shows them)" : "");
	if (refused.len)
		ac_buf_append(&text, refused.data, refused.len);
	*report = ac_buf_detach(&text);
	ac_buf_free(&refused);
	free(ask);
}
