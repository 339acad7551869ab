/* The key table and its handlers. Each handler changes the dashboard's
 * state (dash.h) or asks the operator's actions (actions.h) for a dialog,
 * and says whether anything changed; the table says where the key applies
 * and what follows (redraw, reload, quit). */
#include "keys.h"

#include "attention.h"
#include "drill.h"
#include "patch.h"
#include "screen.h"
#include "transcripts.h"
#include "tree.h"

#include "ac_session.h"
#include "ac_watch.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- handlers ---------------------------------------------------------- */

static bool act_quit(ui_dash *d, int key)
{
	(void)d;
	(void)key;
	return true;
}

static bool act_pane(ui_dash *d, int key)
{
	ui_pane_id want = (ui_pane_id)(UI_PANE_SESSIONS + (key - '1'));
	bool same = !ui_overlay_top(&d->open, d) && d->pane == want;

	ui_dash_switch_pane(d, want);
	return !same;
}

static bool act_cycle_pane(ui_dash *d, int key)
{
	ui_dash_switch_pane(d, (ui_pane_id)((d->pane + (key == UI_KEY_TAB ? 1 : 3)) % 4));
	return true;
}

static bool act_help(ui_dash *d, int key)
{
	(void)key;
	/* Over the log: the log closes, and help with it if it was under. */
	ui_overlay_remove(&d->open, &ui_overlay_log);
	if (ui_dash_is_open(d, &ui_overlay_help))
		ui_overlay_remove(&d->open, &ui_overlay_help);
	else
		ui_overlay_push(&d->open, &ui_overlay_help);
	d->panes[UI_PANE_HELP].top = 0;
	return true;
}

/* L: the message log, scrolled to its newest message. */
static bool act_log(ui_dash *d, int key)
{
	(void)key;
	if (ui_dash_is_open(d, &ui_overlay_log))
		ui_overlay_remove(&d->open, &ui_overlay_log);
	else
		ui_overlay_push(&d->open, &ui_overlay_log);
	d->panes[UI_PANE_LOG].top = SIZE_MAX / 2;
	return true;
}

static bool act_repaint(ui_dash *d, int key)
{
	(void)d;
	(void)key;
	return true;
}

static bool act_theme(ui_dash *d, int key)
{
	(void)key;
	ui_dash_next_theme(d);
	return true;
}

static bool act_tab(ui_dash *d, int key)
{
	int step = key == ']' || key == UI_KEY_RIGHT ? 1 : UI_TAB_COUNT - 1;

	ui_dash_open_tab(d, (ui_tab)((d->tab + step) % UI_TAB_COUNT));
	return true;
}

/* Esc: a running action is cancelled, else the top overlay steps back
 * (overlays.c), else the list pane's search, then its filters, then the
 * status line's message. */
static bool act_back(ui_dash *d, int key)
{
	ui_pane *p = &d->panes[ui_dash_shown(d)];

	(void)key;
	if (ui_dash_job_cancel(d))
		return true; /* the running line says "cancelling…" */
	if (ui_overlay_back(&d->open, d))
		return true;
	if (ui_dash_shown(d) == UI_PANE_JSEARCH && !p->filter[0])
		ui_drill_search_back(d);
	else if (p->filter[0] || p->status_filter >= 0 || p->state_filter > 0 || p->host[0]) {
		p->filter[0] = '\0';
		p->status_filter = -1;
		p->state_filter = 0;
		p->host[0] = '\0';
	} else if (d->follow_sel)
		d->follow_sel = false;
	else if (d->m.action[0])
		d->m.action[0] = '\0';
	else
		return false;
	return true;
}

static bool act_open(ui_dash *d, int key)
{
	ui_pane_id cur = ui_dash_shown(d);
	const ui_view *v = ui_pane_views[cur];
	size_t i;

	(void)key;
	if (!ui_list_selected(v, &d->m, &d->panes[cur], &i)) {
		/* A selected session whose file is gone for now: say so. */
		if (cur == UI_PANE_SESSIONS && d->panes[cur].sel[0])
			return ui_dash_target_session(d) == NULL;
		if (cur != UI_PANE_CKPTS && cur != UI_PANE_JOURNAL && cur != UI_PANE_JSEARCH)
			return false;
		ui_model_set_action(&d->m, true, "nothing selected to open");
		return true;
	}
	if (cur == UI_PANE_SESSIONS) {
		const ui_conv_hit *hit = ui_model_csearch_hit(&d->m, d->panes[cur].filter,
							      d->m.sessions[i].raw_id);
		size_t message = hit ? hit->message + 1 : 0;

		ui_dash_open_conversation(d, d->m.sessions[i].raw_id);
		/* Found by the filter in its conversation: at that message. */
		if (message) {
			d->panes[UI_PANE_CONV].goto_message = message;
			d->panes[UI_PANE_CONV].follow = false;
		}
	} else if (cur == UI_PANE_OPS) {
		char *id = strdup(d->m.ops[i].raw_id);

		if (id)
			ui_patch_open(&d->m, d->ws, id);
		free(id);
		ui_overlay_push(&d->open, &ui_overlay_patch);
		d->panes[UI_PANE_PATCH].top = 0;
		d->panes[UI_PANE_PATCH].follow = false;
	} else if (!ui_drill_open(d, cur, i)) {
		ui_source_open_item(d->src, &d->m, d->tab, i);
		ui_overlay_push(&d->open, &ui_overlay_doc);
		d->panes[UI_PANE_DOC].top = 0;
		d->panes[UI_PANE_DOC].follow = false;
	}
	return true;
}

static bool act_move(ui_dash *d, int key)
{
	ui_pane_id cur = ui_dash_shown(d);
	const ui_view *v = ui_pane_views[cur];
	ui_action a;

	switch (key) {
	case 'j': case UI_KEY_DOWN: a = UI_ACT_DOWN; break;
	case 'k': case UI_KEY_UP: a = UI_ACT_UP; break;
	case 'g': case UI_KEY_HOME: a = UI_ACT_TOP; break;
	case 'G': case UI_KEY_END: a = UI_ACT_BOTTOM; break;
	case UI_KEY_PGUP: a = UI_ACT_PGUP; break;
	case UI_KEY_PGDN: a = UI_ACT_PGDN; break;
	default: return false;
	}
	return v->key && v->key(v, &d->m, &d->panes[cur], a, ui_dash_page_rows(d));
}

static bool act_filter(ui_dash *d, int key)
{
	(void)key;
	ui_overlay_push(&d->open, &ui_overlay_filter);
	return true;
}

static bool act_status_filter(ui_dash *d, int key)
{
	ui_pane *p = &d->panes[UI_PANE_SESSIONS];

	(void)key;
	p->status_filter = p->status_filter + 1 >= UI_STATUS_OTHER ? -1 : p->status_filter + 1;
	p->cursor = p->top = 0;
	return true;
}

/* h: the next host (in name order) that last wrote a listed session, then
 * all again. The hosts are the rows' own (sanitised), so any one shown can
 * be picked. */
static bool act_host_filter(ui_dash *d, int key)
{
	ui_pane *p = &d->panes[UI_PANE_SESSIONS];
	const char *next = NULL;

	(void)key;
	for (size_t i = 0; i < d->m.n_sessions; i++) {
		const char *h = d->m.sessions[i].host;

		if (*h && strcmp(h, p->host) > 0 && (!next || strcmp(h, next) < 0))
			next = h;
	}
	if (!next && !d->m.hosts_known)
		ui_model_set_action(&d->m, false, "h: no host is recorded (the session files keep none)");
	snprintf(p->host, sizeof(p->host), "%s", next ? next : "");
	p->cursor = p->top = 0;
	return true;
}

/* p, r, c: a dialog about the session meant, or a status line saying why
 * there is none. Either way something is shown. */
static bool act_session(ui_dash *d, int key)
{
	const char *id = ui_dash_target_session(d);
	char *copy = id ? strdup(id) : NULL;

	if (copy && ui_transcripts_refuse_write(d, copy)) {
		free(copy);
		return true;
	}
	if (copy && key == 'c')
		ui_act_plan_compact(&d->dlg, d->ws, &d->m, copy);
	else if (copy)
		ui_act_plan_status(&d->dlg, d->ws, &d->m, copy, key == 'p' ? "paused" : "running");
	free(copy);
	return true;
}

static const ui_op *selected_op(const ui_dash *d);

/* v: a dialog about reverting the selected operation alone. */
static bool act_revert(ui_dash *d, int key)
{
	const ui_op *op = selected_op(d);
	char *id = op && op->reversible ? strdup(op->raw_id) : NULL;

	(void)key;
	if (!op)
		ui_model_set_action(&d->m, true, "v reverts the selected operation (2)");
	else if (!op->reversible)
		ui_model_set_action(&d->m, true, "operation %s has no commit: it cannot be "
				    "reverted on its own", op->id);
	else if (id)
		ui_act_plan_revert_op(&d->dlg, d->ws, &d->m, id);
	free(id);
	return true;
}

static bool act_rollback(ui_dash *d, int key)
{
	ui_pane_id cur = ui_dash_shown(d);
	const ui_op *op = selected_op(d);
	size_t i;

	(void)key;
	if (op && !op->reversible) {
		ui_model_set_action(&d->m, true, "operation %s has no commit: it cannot be "
				    "rolled back on its own", op->id);
	} else if (op) {
		char *id = strdup(op->raw_id);

		if (id)
			ui_act_plan_rollback_op(&d->dlg, d->ws, &d->m, id);
		free(id);
	} else if (cur == UI_PANE_CKPTS &&
		   ui_list_selected(&ui_view_checkpoints, &d->m, &d->panes[cur], &i) &&
		   d->m.ckpt_session) {
		ui_act_plan_rollback_checkpoint(&d->dlg, d->ws, &d->m, d->m.ckpt_session,
						d->m.ckpts[i].raw_id);
	} else {
		ui_model_set_action(&d->m, true, "R rolls back the selected operation (2) or "
				    "checkpoint (3)");
	}
	return true;
}

/* F and U: finish, or undo, the rollback stopped midway the Operations
 * pane's first row names. */
static bool act_intent(ui_dash *d, int key)
{
	ui_act_plan_intent(&d->dlg, d->ws, &d->m, key == 'F');
	return true;
}

static bool act_undo(ui_dash *d, int key)
{
	(void)key;
	ui_undo_plan(&d->dlg, &d->undo, d->ws, &d->m);
	return true;
}

static bool act_confirm(ui_dash *d, int key)
{
	(void)key;
	d->panes[UI_PANE_DIALOG].top = 0;
	ui_dash_confirm(d);
	return true;
}

/* C: review the project file's changes since it was last trusted, and
 * trust it. */
static bool act_trust(ui_dash *d, int key)
{
	(void)key;
	d->panes[UI_PANE_DIALOG].top = 0;
	ui_act_plan_trust(&d->dlg, d->ws, &d->m);
	return true;
}

/* P in the dialog of R or v: pause the running sessions, then plan again. */
static bool act_pause_first(ui_dash *d, int key)
{
	(void)key;
	d->panes[UI_PANE_DIALOG].top = 0;
	ui_act_pause_first(&d->dlg, &d->m);
	return true;
}

static bool act_stop(ui_dash *d, int key)
{
	d->panes[UI_PANE_DIALOG].top = 0;
	ui_act_plan_stop(&d->dlg, d->ws, &d->m, key == 'S' ? SIGSTOP : SIGTERM);
	return true;
}

static bool act_cancel(ui_dash *d, int key)
{
	(void)key;
	d->panes[UI_PANE_DIALOG].top = 0;
	ui_dialog_close(&d->dlg, &d->m);
	ui_model_set_action(&d->m, false, "cancelled; nothing was changed");
	return true;
}

/* A dialog taller than the screen scrolls; views/dialog.c clamps. */
static bool act_dialog_scroll(ui_dash *d, int key)
{
	ui_pane *p = &d->panes[UI_PANE_DIALOG];
	size_t page = p->list_rows > 1 ? (size_t)p->list_rows - 1 : 1;

	switch (key) {
	case 'j': case UI_KEY_DOWN: p->top++; break;
	case 'k': case UI_KEY_UP: p->top -= p->top > 0; break;
	case 'g': case UI_KEY_HOME: p->top = 0; break;
	case 'G': case UI_KEY_END: p->top = SIZE_MAX / 2; break;
	case UI_KEY_PGUP: p->top -= p->top > page ? page : p->top; break;
	case UI_KEY_PGDN: p->top += page; break;
	default: return false;
	}
	return true;
}

/* ---- where a key applies ----------------------------------------------- */

/* The row of session raw_id, or NULL. The hint line asks for the same
 * row for several keys on every draw: the last one found is tried first
 * (ids are unique, so a row whose id matches is the one). The UI is one
 * thread. */
static const ui_session *row_named(const ui_model *m, const char *raw_id)
{
	static size_t last;

	if (last < m->n_sessions && !strcmp(m->sessions[last].raw_id, raw_id))
		return &m->sessions[last];
	for (size_t i = 0; i < m->n_sessions; i++)
		if (!strcmp(m->sessions[i].raw_id, raw_id)) {
			last = i;
			return &m->sessions[i];
		}
	return NULL;
}

/* The session row p, r, c and a mean (as ui_dash_target_session, without
 * its messages), or NULL. The Sessions pane's selection is the id its
 * last draw settled on (p->sel): a lookup, not a sort of every row. */
static const ui_session *selected_row(const ui_dash *d)
{
	const ui_pane *p = &d->panes[UI_PANE_SESSIONS];
	size_t i;

	if (ui_dash_is_open(d, &ui_overlay_conversation) && d->m.conv_session)
		return row_named(&d->m, d->m.conv_session);
	if (d->pane == UI_PANE_CKPTS)
		return d->m.ckpt_session ? row_named(&d->m, d->m.ckpt_session) : NULL;
	if (d->pane != UI_PANE_SESSIONS)
		return NULL;
	if (p->sel[0])
		return row_named(&d->m, p->sel);
	return ui_list_selected(&ui_view_sessions, &d->m, p, &i) ? &d->m.sessions[i] : NULL;
}

/* The refusal every write to a transcript gets; its reason into why. */
static ui_key_fit transcript_refused(const ui_session *s, ac_buf *why)
{
	if (why)
		ac_buf_printf(why, "%s is a %s session, a read-only source: agentctl never "
			      "writes to it (a resumes it with its tool)", s->id, s->source);
	return UI_KEY_REFUSED;
}

/* A refusal's popup asks nothing: any key closes it (ui_keys_dispatch
 * hands it every key as UI_KEY_ANY), so the dialog's y and n/Esc are not
 * hinted under it. */
static ui_key_fit applies_question(const ui_dash *d, ac_buf *why)
{
	(void)why;
	return d->dlg.kind == UI_DLG_NOTICE ? UI_KEY_NO_ROW : UI_KEY_APPLIES;
}

/* Closes a refusal's notice: the one thing any key does under it. */
static bool act_close_notice(ui_dash *d, int key)
{
	(void)key;
	if (d->dlg.kind != UI_DLG_NOTICE)
		return false;
	ui_dialog_close(&d->dlg, &d->m);
	return true;
}

static ui_key_fit applies_pause(const ui_dash *d, ac_buf *why)
{
	const ui_session *s = selected_row(d);

	if (!s)
		return UI_KEY_NO_ROW;
	if (s->source)
		return transcript_refused(s, why);
	if (ac_session_status_change_allowed(s->status, "paused"))
		return UI_KEY_APPLIES;
	if (why)
		ac_buf_printf(why, "%s is %s; only a running session is paused", s->id,
			      *s->status ? s->status : "without a status");
	return UI_KEY_REFUSED;
}

/* r resumes a paused session, or takes back a pause a running one has
 * pending. */
static ui_key_fit applies_resume(const ui_dash *d, ac_buf *why)
{
	const ui_session *s = selected_row(d);

	if (!s)
		return UI_KEY_NO_ROW;
	if (s->source)
		return transcript_refused(s, why);
	if (ac_session_status_change_allowed(s->status, "running") ||
	    (s->st == UI_STATUS_RUNNING && s->pending))
		return UI_KEY_APPLIES;
	if (why)
		ac_buf_printf(why, "%s is %s; only a paused session is resumed", s->id,
			      *s->status ? s->status : "without a status");
	return UI_KEY_REFUSED;
}

static ui_key_fit applies_compact(const ui_dash *d, ac_buf *why)
{
	const ui_session *s = selected_row(d);

	if (!s)
		return UI_KEY_NO_ROW;
	return s->source ? transcript_refused(s, why) : UI_KEY_APPLIES;
}

static ui_key_fit applies_attach(const ui_dash *d, ac_buf *why)
{
	const ui_session *s = selected_row(d);

	if (!s)
		return UI_KEY_NO_ROW;
	if (!s->source) {
		if (why)
			ac_buf_printf(why, "%s is agentctl's own session, not a coding agent's "
				      "(r resumes it)", s->id);
		return UI_KEY_REFUSED;
	}
	if (s->relation && !strcmp(s->relation, "subagent")) {
		if (why)
			ac_buf_printf(why, "a sub-agent cannot be resumed on its own; resume its "
				      "session (select it: - on this row)");
		return UI_KEY_REFUSED;
	}
	return UI_KEY_APPLIES;
}

/* The operation R and v mean: the one selected in Operations, whose patch
 * may be open. NULL when there is none. */
static const ui_op *selected_op(const ui_dash *d)
{
	ui_pane_id cur = ui_dash_shown(d);
	size_t i;

	if ((cur == UI_PANE_OPS || cur == UI_PANE_PATCH) &&
	    ui_list_selected(&ui_view_operations, &d->m, &d->panes[UI_PANE_OPS], &i))
		return &d->m.ops[i];
	return NULL;
}

/* R and v in Operations: an operation with a commit. R in Checkpoints:
 * any checkpoint listed. */
static ui_key_fit applies_to_commit(const ui_op *op, ac_buf *why, const char *verb)
{
	if (!op)
		return UI_KEY_NO_ROW;
	if (op->reversible)
		return UI_KEY_APPLIES;
	if (why)
		ac_buf_printf(why, "operation %s has no commit: it cannot be %s on its own", op->id,
			      verb);
	return UI_KEY_REFUSED;
}

static ui_key_fit applies_rollback(const ui_dash *d, ac_buf *why)
{
	size_t i;

	if (ui_dash_shown(d) == UI_PANE_CKPTS)
		return d->m.ckpt_session &&
		       ui_list_selected(&ui_view_checkpoints, &d->m, &d->panes[UI_PANE_CKPTS], &i)
		       ? UI_KEY_APPLIES : UI_KEY_NO_ROW;
	return applies_to_commit(selected_op(d), why, "rolled back");
}

static ui_key_fit applies_revert(const ui_dash *d, ac_buf *why)
{
	return applies_to_commit(selected_op(d), why, "reverted");
}

/* ---- the table --------------------------------------------------------- */

#define IN_SESSION_PANES (UI_IN(UI_PANE_SESSIONS) | UI_IN(UI_PANE_CKPTS) | UI_IN_CONVERSATION)
#define IN_OPENING (UI_IN(UI_PANE_SESSIONS) | UI_IN(UI_PANE_OPS) | UI_IN(UI_PANE_MEMO) | \
		    UI_IN(UI_PANE_ARTIFACTS) | UI_IN(UI_PANE_CKPTS) | UI_IN(UI_PANE_JOURNAL) | \
		    UI_IN(UI_PANE_JSEARCH))
#define IN_SCROLLING (UI_IN_CONVERSATION | UI_IN(UI_PANE_PATCH) | UI_IN(UI_PANE_HELP) | \
		      UI_IN(UI_PANE_VIEWER) | UI_IN(UI_PANE_LOG))
#define IN_FOLLOWING (UI_IN(UI_PANE_SESSIONS) | UI_IN(UI_PANE_OPS) | UI_IN(UI_PANE_JOURNAL))
#define IN_SEARCH (UI_IN(UI_PANE_JOURNAL) | UI_IN(UI_PANE_JSEARCH))
#define IN_OPERATION (UI_IN(UI_PANE_OPS) | UI_IN(UI_PANE_PATCH))

/* In table order: the help screen's order within a group of panes, and
 * the hint line's. A key in two entries goes to the first that applies. */
static const ui_key table[] = {
	{.keys = {'1', '2', '3', '4'},
	 .doc = {.label = "1-4", .panes = UI_IN_PANES,
		 .help = "Sessions, Operations and Checkpoints (of the selected session), Journal "
			 "(live tail): on a tall terminal all on screen, this one larger"},
	 .hint = "1-4/Tab panes", .hint_panes = UI_IN_LISTS,
	 .handler = act_pane, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_TAB},
	 .doc = {.label = "Tab", .help = "next pane", .panes = UI_IN_PANES},
	 .handler = act_cycle_pane, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_BTAB},
	 .doc = {.label = "S-Tab", .help = "previous pane", .panes = UI_IN_PANES},
	 .handler = act_cycle_pane, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_ENTER},
	 .doc = {.label = "Enter", .panes = IN_OPENING,
		 .help = "open: a session's conversation, a memo or artifact in full, an "
			 "operation's patch, a checkpoint's preview (what R would do), a journal "
			 "event in full"},
	 .hint = "Enter open", .handler = act_open, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_ESC},
	 .doc = {.label = "Esc", .panes = UI_IN_PANES,
		 .help = "cancel a running action that can be cancelled; else back (help, a "
			 "document, its tab's filter, the conversation); clear the filters; clear "
			 "the status line"},
	 .hint = "Esc back", .hint_panes = IN_SCROLLING | UI_IN(UI_PANE_JSEARCH),
	 .handler = act_back, .reaction = UI_REDRAW},
	{.keys = {']', UI_KEY_RIGHT},
	 .doc = {.label = "] Right", .panes = UI_IN_CONVERSATION,
		 .help = "conversation: next tab (Messages, Memory, Artifacts, Trace)"},
	 .hint = "[ ] tab", .handler = act_tab, .reaction = UI_REDRAW},
	{.keys = {'[', UI_KEY_LEFT},
	 .doc = {.label = "[ Left", .help = "conversation: previous tab",
		 .panes = UI_IN_CONVERSATION},
	 .handler = act_tab, .reaction = UI_REDRAW},
	{.keys = {'j', UI_KEY_DOWN},
	 .doc = {.label = "j Down", .help = "move down", .panes = UI_IN_PANES},
	 .hint = "j/k scroll", .hint_panes = IN_SCROLLING,
	 .handler = act_move, .reaction = UI_REDRAW},
	{.keys = {'k', UI_KEY_UP},
	 .doc = {.label = "k Up", .help = "move up", .panes = UI_IN_PANES},
	 .handler = act_move, .reaction = UI_REDRAW},
	{.keys = {'g', UI_KEY_HOME},
	 .doc = {.label = "g Home", .help = "top (Operations, newest first, then follows what is added)",
		 .panes = UI_IN_PANES},
	 .handler = act_move, .reaction = UI_REDRAW},
	{.keys = {'G', UI_KEY_END},
	 .doc = {.label = "G End", .panes = UI_IN_PANES,
		 .help = "bottom (the journal and a conversation then follow what is added)"},
	 .handler = act_move, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_PGUP},
	 .doc = {.label = "PgUp", .help = "page up", .panes = UI_IN_PANES},
	 .handler = act_move, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_PGDN},
	 .doc = {.label = "PgDn", .help = "page down", .panes = UI_IN_PANES},
	 .handler = act_move, .reaction = UI_REDRAW},
	{.keys = {'/'},
	 .doc = {.label = "/", .panes = UI_IN_LISTS | UI_IN_CONVERSATION,
		 .help = "filter this pane (substring; case-sensitive only with capitals; in "
			 "Sessions also inside conversations, any case: the row shows the "
			 "message, Enter opens it there); Enter keeps it, Esc clears it"},
	 .hint = "/ filter", .handler = act_filter, .reaction = UI_REDRAW},
	{.keys = {'s'},
	 .doc = {.label = "s", .help = "show only running, paused, completed, failed, all",
		 .panes = UI_IN(UI_PANE_SESSIONS)},
	 .hint = "s status", .hint_late = true, .handler = act_status_filter, .reaction = UI_REDRAW},
	{.keys = {'w'},
	 .doc = {.label = "w", .help = "show only waiting, running, idle, ended sessions, all "
		 "(the state derived from each session's file)", .panes = UI_IN(UI_PANE_SESSIONS)},
	 .hint = "w state", .hint_late = true, .handler = ui_transcripts_state_filter, .reaction = UI_REDRAW},
	{.keys = {'h'},
	 .doc = {.label = "h", .panes = UI_IN(UI_PANE_SESSIONS),
		 .help = "show only the sessions last written by the next host, then all (a "
			 "database store records hosts)"},
	 .hint = "h host", .hint_late = true, .handler = act_host_filter, .reaction = UI_REDRAW},
	{.keys = {'-', UI_KEY_LEFT},
	 .doc = {.label = "- Left", .panes = UI_IN(UI_PANE_SESSIONS),
		 .help = "fold the selected session's sub-agents and forks (shown under it, marked "
			 "\xe2\x94\x94); on one of them: fold its parent"},
	 .handler = ui_tree_fold, .reaction = UI_REDRAW},
	{.keys = {'+', UI_KEY_RIGHT},
	 .doc = {.label = "+ Right", .help = "show the selected session's sub-agents and forks again",
		 .panes = UI_IN(UI_PANE_SESSIONS)},
	 .handler = ui_tree_fold, .reaction = UI_REDRAW},
	{.keys = {'f'},
	 .doc = {.label = "f", .panes = IN_FOLLOWING,
		 .help = "follow the selected session: the Journal too shows only its rows, and "
			 "Operations even after A (f again or Esc: all)"},
	 .hint = "f follow", .handler = ui_drill_follow, .reaction = UI_REDRAW},
	{.keys = {'A'},
	 .doc = {.label = "A", .panes = UI_IN(UI_PANE_SESSIONS) | UI_IN(UI_PANE_OPS),
		 .help = "Operations: every session's operations, or (again) only the selected "
			 "session's, as it starts"},
	 .hint = "A all", .hint_late = true, .hint_panes = UI_IN(UI_PANE_OPS),
	 .handler = ui_drill_ops_all, .reaction = UI_REDRAW},
	{.keys = {'o'},
	 .doc = {.label = "o", .help = "sort by last update, status, tokens, state",
		 .panes = UI_IN(UI_PANE_SESSIONS)},
	 .hint = "o sort", .hint_late = true, .handler = ui_drill_sort, .reaction = UI_REDRAW},
	{.keys = {'S'},
	 .doc = {.label = "S", .panes = IN_SEARCH,
		 .help = "search the whole journal, rotated files too (terms as journal query: "
			 "trace.correlation_id=ID text~word); Esc stops, again: the tail"},
	 .hint = "S search", .handler = ui_drill_search, .reaction = UI_REDRAW},
	{.keys = {'n', 'N'},
	 .doc = {.label = "n N", .panes = UI_IN(UI_PANE_JSEARCH),
		 .help = "next (older) / previous match; past the last, the search reads on"},
	 .hint = "n/N match", .handler = ui_drill_next_match, .reaction = UI_REDRAW},
	{.keys = {'p'},
	 .doc = {.label = "p", .help = "pause the selected session (asks first)",
		 .panes = IN_SESSION_PANES, .writes = true},
	 .hint = "p pause", .applies = applies_pause, .handler = act_session, .reaction = UI_REDRAW},
	{.keys = {'r'},
	 .doc = {.label = "r", .panes = IN_SESSION_PANES, .writes = true,
		 .help = "resume the selected session (asks first; says how: SIGCONT or resumeCommand)"},
	 .hint = "r resume", .applies = applies_resume, .handler = act_session, .reaction = UI_REDRAW},
	{.keys = {'a'},
	 .doc = {.label = "a", .panes = IN_SESSION_PANES, .writes = true,
		 .help = "resume a coding agent's session (Claude Code, Codex, Gemini) in its own "
			 "tool: runs sources.<tool>.resumeCommand on this terminal"},
	 .hint = "a attach", .applies = applies_attach, .handler = ui_transcripts_resume, .reaction = UI_REDRAW | UI_RELOAD},
	{.keys = {'c'},
	 .doc = {.label = "c", .help = "compact the selected session (asks first)",
		 .panes = IN_SESSION_PANES, .writes = true},
	 .hint = "c compact", .applies = applies_compact, .handler = act_session, .reaction = UI_REDRAW},
	{.keys = {'R'},
	 .doc = {.label = "R", .panes = IN_OPERATION | UI_IN(UI_PANE_CKPTS), .writes = true,
		 .help = "roll back to the selected operation or checkpoint: every later "
			 "operation is undone too (asks first, naming the sessions). Operations "
			 "marks: \xe2\x86\xba can be rolled back, RB already rolled back, RV "
			 "already reverted"},
	 .hint = "R rollback", .applies = applies_rollback, .handler = act_rollback, .reaction = UI_REDRAW},
	{.keys = {'v'},
	 .doc = {.label = "v", .panes = IN_OPERATION, .writes = true,
		 .help = "revert the selected operation alone, keeping later ones (asks first; "
			 "refused when later changes touch the same lines)"},
	 .hint = "v revert", .applies = applies_revert, .handler = act_revert, .reaction = UI_REDRAW},
	{.keys = {'F'},
	 .doc = {.label = "F", .panes = IN_OPERATION, .writes = true,
		 .help = "finish the rollback or revert that was interrupted midway (the pane's "
			 "first row): every file of its plan written (asks first, listing them)"},
	 .handler = act_intent, .reaction = UI_REDRAW},
	{.keys = {'U'},
	 .doc = {.label = "U", .panes = IN_OPERATION, .writes = true,
		 .help = "undo the interrupted rollback or revert instead: its snapshot (the state "
			 "before) put back (asks first, listing the files)"},
	 .handler = act_intent, .reaction = UI_REDRAW},
	{.keys = {'z'},
	 .doc = {.label = "z", .panes = UI_IN_PANES, .writes = true,
		 .help = "undo your last pause, compaction, rollback or revert here (asks first; refused "
			 "if the session changed since)"},
	 .hint = "z undo", .hint_panes = UI_IN_LISTS, .handler = act_undo, .reaction = UI_REDRAW},
	{.keys = {'C'},
	 .doc = {.label = "C", .panes = UI_IN_PANES, .writes = true,
		 .help = "review the project config: its changes since last trusted (a diff); y "
			 "trusts it"},
	 .handler = act_trust, .reaction = UI_REDRAW},
	{.keys = {'y'},
	 .doc = {.label = "y", .help = "confirm a dialog: do what it says",
		 .panes = UI_IN(UI_PANE_DIALOG)},
	 .hint = "y confirm", .handler = act_confirm, .applies = applies_question,
	 .reaction = UI_REDRAW | UI_RELOAD},
	{.keys = {'j', UI_KEY_DOWN, 'k', UI_KEY_UP},
	 .doc = {.label = "j k", .help = "scroll a dialog taller than the screen",
		 .panes = UI_IN(UI_PANE_DIALOG)},
	 .hint = "j/k scroll", .handler = act_dialog_scroll, .reaction = UI_REDRAW},
	{.keys = {'g', 'G', UI_KEY_HOME, UI_KEY_END},
	 .doc = {.label = "g G", .help = "a dialog's top or bottom",
		 .panes = UI_IN(UI_PANE_DIALOG)},
	 .handler = act_dialog_scroll, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_PGUP, UI_KEY_PGDN},
	 .doc = {.label = "PgUp/Dn", .help = "a dialog's previous or next page",
		 .panes = UI_IN(UI_PANE_DIALOG)},
	 .handler = act_dialog_scroll, .reaction = UI_REDRAW},
	{.keys = {'P'},
	 .doc = {.label = "P", .panes = UI_IN(UI_PANE_DIALOG), .writes = true,
		 .help = "in R's or v's dialog while sessions run: pause them first (asks), then "
			 "plan again"},
	 .handler = act_pause_first, .reaction = UI_REDRAW},
	{.keys = {'S', 'T'},
	 .doc = {.label = "S T", .panes = UI_IN(UI_PANE_DIALOG), .writes = true,
		 .help = "in the dialog of p on a session whose agent ignores the pause: stop "
			 "(SIGSTOP) or end (SIGTERM) the agent process agentctl knows (asks "
			 "first, naming its pid and command line)"},
	 .handler = act_stop, .reaction = UI_REDRAW},
	{.keys = {'n', UI_KEY_ESC, 'q'},
	 .doc = {.label = "n Esc q", .help = "cancel a dialog (nothing changes)",
		 .panes = UI_IN(UI_PANE_DIALOG)},
	 .hint = "n/Esc cancel", .handler = act_cancel, .applies = applies_question,
	 .reaction = UI_REDRAW},
	{.keys = {UI_KEY_ANY},
	 .doc = {.label = "any key", .panes = UI_IN(UI_PANE_DIALOG),
		 .help = "close a refusal's notice, the popup that shows why an action was not "
			 "done whole (L shows it again in the message log)"},
	 .handler = act_close_notice, .reaction = UI_REDRAW},
	{.keys = {'t'},
	 .doc = {.label = "t", .help = "next theme", .panes = UI_IN_PANES},
	 .hint = "t theme", .hint_late = true, .hint_panes = UI_IN_LISTS, .handler = act_theme, .reaction = UI_REDRAW},
	{.keys = {'!'},
	 .doc = {.label = "!", .panes = UI_IN_PANES,
		 .help = "the sessions waiting for you (the strip under the title), longest "
			 "waiting first: selects the next in Sessions, clearing a filter that "
			 "hides it"},
	 .handler = ui_attention_next, .reaction = UI_REDRAW},
	{.keys = {'L'},
	 .doc = {.label = "L", .panes = UI_IN_PANES,
		 .help = "the message log: every status message and file problem, whole, with "
			 "its time (again or Esc: back)"},
	 .hint = "L log", .hint_late = true, .hint_panes = UI_IN_LISTS, .handler = act_log, .reaction = UI_REDRAW},
	{.keys = {'?'},
	 .doc = {.label = "?", .help = "this help (again: back)", .panes = UI_IN_PANES},
	 .hint = "? help", .hint_right = true, .handler = act_help, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_CTRL_L},
	 .doc = {.label = "C-l", .help = "redraw the screen",
		 .panes = UI_IN_PANES | UI_IN(UI_PANE_DIALOG)},
	 .handler = act_repaint, .reaction = UI_REDRAW | UI_REPAINT},
	{.keys = {'q'},
	 .doc = {.label = "q", .help = "quit", .panes = UI_IN_PANES},
	 .hint = "q quit", .hint_right = true, .handler = act_quit, .reaction = UI_QUIT},
	/* The lines typed at the bottom: their hints end the line, after
	 * what is typed; any other character goes into the text. */
	{.keys = {UI_KEY_ENTER},
	 .doc = {.label = "Enter", .help = "keep the filter typed, and close the line",
		 .panes = UI_IN(UI_PANE_FILTER_LINE)},
	 .hint = "Enter: keep", .handler = ui_filter_line_key, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_ESC},
	 .doc = {.label = "Esc", .help = "clear the filter, and close the line",
		 .panes = UI_IN(UI_PANE_FILTER_LINE)},
	 .hint = "Esc: clear", .handler = ui_filter_line_key, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_ENTER},
	 .doc = {.label = "Enter", .help = "search the whole journal for the query typed",
		 .panes = UI_IN(UI_PANE_SEARCH_LINE)},
	 .hint = "Enter: search (any field: trace.correlation_id=ID, text~word)",
	 .handler = ui_drill_line_key, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_ESC},
	 .doc = {.label = "Esc", .help = "close the line, searching nothing",
		 .panes = UI_IN(UI_PANE_SEARCH_LINE)},
	 .hint = "Esc: cancel", .handler = ui_drill_line_key, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_BACKSPACE},
	 .doc = {.label = "Bksp", .help = "erase the filter's last character",
		 .panes = UI_IN(UI_PANE_FILTER_LINE)},
	 .handler = ui_filter_line_key, .reaction = UI_REDRAW},
	{.keys = {UI_KEY_BACKSPACE},
	 .doc = {.label = "Bksp", .help = "erase the query's last character",
		 .panes = UI_IN(UI_PANE_SEARCH_LINE)},
	 .handler = ui_drill_line_key, .reaction = UI_REDRAW},
};

#define N_KEYS (sizeof(table) / sizeof(table[0]))

const ui_key *ui_keys(size_t *out_n)
{
	*out_n = N_KEYS;
	return table;
}

const ui_key *ui_key_find(int key, ui_pane_id pane)
{
	for (size_t i = 0; i < N_KEYS; i++) {
		if (!(table[i].doc.panes & UI_IN(pane)))
			continue;
		for (size_t k = 0; k < sizeof(table[i].keys) / sizeof(table[i].keys[0]) &&
				   table[i].keys[k]; k++)
			if (table[i].keys[k] == key)
				return &table[i];
	}
	return NULL;
}

bool ui_key_hinted(const ui_key *k, ui_pane_id pane, bool read_only)
{
	unsigned where = k->hint_panes ? k->hint_panes & k->doc.panes : k->doc.panes;

	return k->hint && (where & UI_IN(pane)) && !(read_only && k->doc.writes);
}

/* True (the reason on the status line) when k does not apply to the
 * selected row. */
static bool refused(const ui_key *k, ui_dash *d)
{
	ac_buf why = AC_BUF_INIT;
	bool no = k->applies(d, &why) == UI_KEY_REFUSED;

	if (no)
		ui_model_set_action(&d->m, true, "%s: %s", k->hint ? k->hint : k->doc.label,
				    why.data ? why.data : "not for the selected row");
	ac_buf_free(&why);
	return no;
}

unsigned ui_keys_dispatch(ui_dash *d, int key)
{
	/* A refusal's popup: whatever the key, its table entry (any key). */
	if (d->dlg.kind == UI_DLG_NOTICE)
		key = UI_KEY_ANY;
	return ui_keys_dispatch_in(d, ui_dash_current(d), key);
}

unsigned ui_keys_dispatch_in(ui_dash *d, ui_pane_id pane, int key)
{
	const ui_key *k;
	unsigned reaction;
	int64_t shown_ms = d->m.action_ms;
	bool busy = false; /* read-only or one action at a time: said, no popup */

	if (!(k = ui_key_find(key, pane)))
		return 0;
	if (k->doc.writes && d->m.read_only) {
		ui_model_set_action(&d->m, true,
				    "read-only: actions are disabled (started with --read-only)");
		busy = true;
		reaction = UI_REDRAW;
	} else if (k->doc.writes && d->job) {
		/* One write at a time; looking around goes on meanwhile. */
		ui_model_set_action(&d->m, true, "%s is still running: wait for it%s",
				    ui_job_what(d->job), ui_job_cancellable(d->job)
				    ? " or press Esc to cancel it" : "");
		busy = true;
		reaction = UI_REDRAW;
	} else if (k->applies && refused(k, d)) {
		reaction = UI_REDRAW;
	} else if (k->handler(d, key)) {
		reaction = k->reaction;
	} else {
		return 0;
	}
	/* An action refused with a reason the status line would cut. */
	if (k->doc.writes && !busy && d->m.action_ms != shown_ms) {
		int rows, cols;

		screen_size(&rows, &cols);
		ui_act_notice(&d->dlg, &d->m, cols);
	}
	if (reaction & UI_REPAINT)
		screen_invalidate();
	if (reaction & UI_RELOAD)
		ui_source_update(d->src, &d->m, AC_WATCH_SESSIONS);
	if (reaction & UI_QUIT)
		d->quit = true;
	if (reaction & (UI_REDRAW | UI_REPAINT | UI_RELOAD))
		d->dirty = true;
	return reaction;
}


static void hints(ac_buf *out, ac_buf *right, ui_pane_id pane, bool read_only,
		  const ui_dash *d)
{
	/* Navigation and actions first, view options after them. */
	for (int late = 0; late < 2; late++)
		for (size_t i = 0; i < N_KEYS; i++)
			if (table[i].hint_late == late && ui_key_hinted(&table[i], pane, read_only) &&
			    (!d || !table[i].applies || table[i].applies(d, NULL) == UI_KEY_APPLIES))
				ac_buf_printf(right && table[i].hint_right ? right : out, " %s ",
					      table[i].hint);
	if (read_only)
		ac_buf_printf(out, "  read-only: actions disabled");
}

void ui_keys_hints_for(ac_buf *out, ac_buf *right, const ui_dash *d)
{
	hints(out, right, ui_dash_current(d), d->m.read_only, d);
}

void ui_keys_line_hints(ac_buf *out, ui_pane_id pane)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (ui_key_hinted(&table[i], pane, false))
			ac_buf_printf(out, "   %s", table[i].hint);
}

void ui_keys_hints_split(ac_buf *out, ac_buf *right, ui_pane_id pane, bool read_only)
{
	hints(out, right, pane, read_only, NULL);
}

void ui_keys_hints(ac_buf *out, ui_pane_id pane, bool read_only)
{
	ui_keys_hints_split(out, NULL, pane, read_only);
}

void ui_keys_describe(ui_model *m)
{
	static ui_key_doc docs[N_KEYS];

	for (size_t i = 0; i < N_KEYS; i++)
		docs[i] = table[i].doc;
	m->keys = docs;
	m->n_keys = N_KEYS;
}
