/* The dashboard's state and the changes several keys share. */
#include "dash.h"

#include "jsearch.h"
#include "prefs.h"
#include "screen.h"

#include "ac_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ui_pane_id tab_panes[UI_TAB_COUNT] = {
	[UI_TAB_MESSAGES] = UI_PANE_CONV, [UI_TAB_MEMORY] = UI_PANE_MEMO,
	[UI_TAB_ARTIFACTS] = UI_PANE_ARTIFACTS, [UI_TAB_TRACE] = UI_PANE_TRACE,
};

void ui_dash_init(ui_dash *d, const ac_workspace *ws, bool read_only)
{
	memset(d, 0, sizeof(*d));
	d->ws = ws;
	d->m.read_only = read_only;
	for (int i = 0; i < UI_PANE_COUNT; i++)
		d->panes[i].status_filter = -1;
	d->strip.status_filter = -1;
	d->panes[UI_PANE_JOURNAL].follow = true;
	d->panes[UI_PANE_OPS].follow = true; /* on the newest operation */
	d->panes[UI_PANE_SESSIONS].sort = UI_SORT_UPDATED;
	d->pane = UI_PANE_SESSIONS;
}

ui_pane_id ui_dash_current(const ui_dash *d)
{
	return d->dlg.kind != UI_DLG_NONE ? UI_PANE_DIALOG : ui_dash_shown(d);
}

ui_pane_id ui_dash_shown(const ui_dash *d)
{
	return ui_overlay_pane(&d->open, d, d->pane == UI_PANE_JOURNAL && d->m.search.query
					    ? UI_PANE_JSEARCH : d->pane);
}

bool ui_dash_is_open(const ui_dash *d, const ui_overlay *o)
{
	return ui_overlay_is_open(&d->open, o, d);
}

ui_pane_id ui_dash_tab_pane(ui_tab tab)
{
	return tab_panes[tab];
}

int ui_dash_page_rows(const ui_dash *d)
{
	int p = d->panes[ui_dash_shown(d)].list_rows;

	return p > 1 ? p - 1 : 1;
}

/* Points the watcher at the open conversation's trace (none when closed or
 * without a tenant); only when that changed, so no event is missed. */
static void follow_trace(ui_dash *d)
{
	const char *tenant = ui_dash_is_open(d, &ui_overlay_conversation) ? ui_source_tenant(d->src) : NULL;
	char want[sizeof(d->traced)] = "";

	if (!d->watch)
		return;
	if (tenant && d->m.conv_session)
		snprintf(want, sizeof(want), "%s/%s", tenant, d->m.conv_session);
	if (!strcmp(want, d->traced))
		return;
	if (ac_watch_trace(d->watch, want[0] ? tenant : NULL, d->m.conv_session) == 0)
		snprintf(d->traced, sizeof(d->traced), "%s", want);
	else
		d->traced[0] = '\0';
}

void ui_dash_close_conversation(ui_dash *d)
{
	ui_overlay_remove(&d->open, &ui_overlay_conversation);
	ui_model_close_conversation(&d->m);
	follow_trace(d);
}

void ui_dash_open_tab(ui_dash *d, ui_tab tab)
{
	ui_model_close_document(&d->m);
	d->tab = tab;
	ui_source_load_tab(d->src, &d->m, tab); /* errors are shown in the tab */
}

/* Whether session id is listed as running: its conversation then opens at
 * its end, following what its agent appends. */
static bool listed_running(const ui_model *m, const char *id)
{
	for (size_t i = 0; i < m->n_sessions; i++)
		if (!strcmp(m->sessions[i].raw_id, id))
			return m->sessions[i].st == UI_STATUS_RUNNING;
	return false;
}

void ui_dash_open_conversation(ui_dash *d, const char *id)
{
	char *copy = strdup(id);
	bool running = copy && listed_running(&d->m, copy);

	if (!copy)
		return;
	ui_source_open_conversation(d->src, &d->m, copy);
	free(copy);
	ui_overlay_push(&d->open, &ui_overlay_conversation);
	d->tab = UI_TAB_MESSAGES;
	for (int t = 0; t < UI_TAB_COUNT; t++) {
		ui_pane *p = &d->panes[tab_panes[t]];

		p->top = p->cursor = 0;
		p->filter[0] = p->sel[0] = '\0';
		/* New records keep showing; a running session's messages too. */
		p->follow = t == UI_TAB_TRACE || (t == UI_TAB_MESSAGES && running);
	}
	follow_trace(d);
}

/* When its tenant changed, the store tabs were emptied: the tab in view is
 * read again. */
void ui_dash_conversation_reloaded(ui_dash *d)
{
	const ui_model *m = &d->m;
	bool listed = d->tab == UI_TAB_MEMORY ? m->memos.loaded
		      : d->tab == UI_TAB_ARTIFACTS ? m->artifacts.loaded
		      : d->tab == UI_TAB_TRACE ? m->trace_loaded
					       : true;

	follow_trace(d);
	if (!listed)
		ui_source_load_tab(d->src, &d->m, d->tab);
}

const char *ui_dash_target_session(ui_dash *d)
{
	size_t i;

	if (ui_dash_is_open(d, &ui_overlay_conversation) && d->m.conv_session)
		return d->m.conv_session;
	if (d->pane == UI_PANE_CKPTS && d->m.ckpt_session)
		return d->m.ckpt_session;
	if (d->pane == UI_PANE_SESSIONS &&
	    ui_list_selected(&ui_view_sessions, &d->m, &d->panes[UI_PANE_SESSIONS], &i))
		return d->m.sessions[i].raw_id;
	/* The selection follows the id: when its file is gone for now,
	 * refuse, never act on the neighbour. */
	if (d->pane == UI_PANE_SESSIONS && d->panes[UI_PANE_SESSIONS].sel[0])
		ui_model_set_action(&d->m, true, "session %s is not listed now (its file is missing); "
				    "nothing was done", d->panes[UI_PANE_SESSIONS].sel);
	else
		ui_model_set_action(&d->m, true, "select a session first (1 Sessions)");
	return NULL;
}

void ui_dash_switch_pane(ui_dash *d, ui_pane_id pane)
{
	size_t i;

	/* What shows a pane closes; a line being typed stays (a click moves
	 * panes under it). */
	ui_overlay_remove(&d->open, &ui_overlay_help);
	ui_overlay_remove(&d->open, &ui_overlay_log);
	ui_model_viewer_close(&d->m);
	ui_model_close_patch(&d->m);
	ui_dash_close_conversation(d);
	d->pane = pane;
	if (pane == UI_PANE_CKPTS) {
		const char *id = NULL;

		if (ui_list_selected(&ui_view_sessions, &d->m, &d->panes[UI_PANE_SESSIONS], &i))
			id = d->m.sessions[i].raw_id;
		if (!id || !d->m.ckpt_session || strcmp(id, d->m.ckpt_session)) {
			char *copy = id ? strdup(id) : NULL;

			ui_source_load_checkpoints(d->src, &d->m, copy);
			free(copy);
			d->panes[UI_PANE_CKPTS].cursor = d->panes[UI_PANE_CKPTS].top = 0;
			d->panes[UI_PANE_CKPTS].sel[0] = '\0';
		}
	}
}

void ui_dash_next_theme(ui_dash *d)
{
	char err[600];
	size_t at = 0;

	if (!d->n_themes) {
		ac_buf where = AC_BUF_INIT;

		for (size_t i = 0; d->dirs[i]; i++)
			ac_buf_printf(&where, "%s%s", i ? ", " : "", d->dirs[i]);
		ui_model_set_action(&d->m, true, "no theme files found in %s",
				    where.data ? where.data : "(no folder)");
		ac_buf_free(&where);
		return;
	}
	for (size_t i = 0; i < d->n_themes; i++)
		if (!strcmp(d->themes[i], d->theme.name))
			at = i + 1;
	at %= d->n_themes;
	if (ui_theme_load(&d->theme, d->themes[at], d->dirs, false, err, sizeof(err)) != 0) {
		ui_model_set_action(&d->m, true, "theme: %s (using the default)", err);
		snprintf(d->theme.name, sizeof(d->theme.name), "%s", d->themes[at]);
	} else if (ui_prefs_write("theme", d->theme.name) != 0) {
		ui_model_set_action(&d->m, true, "theme: %s, not remembered: %s", d->theme.name,
				    ac_error_last());
	} else {
		/* Remembered for the next start (settings.h). */
		ui_model_set_action(&d->m, false, "theme: %s%s", d->theme.name,
				    screen_has_color() ? "" : " (no colour: NO_COLOR or terminal)");
	}
	screen_set_theme(&d->theme);
}

void ui_dash_free(ui_dash *d)
{
	ui_dash_job_wait(d);
	ui_dialog_close(&d->dlg, &d->m);
	ui_jsearch_close(&d->js, &d->m);
	ui_undo_clear(&d->undo);
	ui_source_free(d->src);
	d->src = NULL;
	ac_watch_free(d->watch);
	d->watch = NULL;
	ui_model_free(&d->m);
	for (size_t i = 0; i < d->n_themes; i++)
		free(d->themes[i]);
	d->n_themes = 0;
}

bool ui_dash_fill_ops(ui_dash *d)
{
	const ui_pane *p = &d->panes[UI_PANE_OPS];
	size_t n = d->m.n_ops, *idx, shown, to;
	bool changed = false;

	if (!n || p->list_rows <= 0 || !(idx = malloc(n * sizeof(*idx))))
		return false;
	shown = ui_list_visible(&ui_view_operations, &d->m, p, idx);
	to = p->top + (size_t)p->list_rows;
	if (to > shown)
		to = shown;
	if (p->top < to)
		changed = ui_ops_fill(&d->m, d->ws, idx + p->top, to - p->top);
	free(idx);
	return changed;
}
