/* Following the selection, sorting, the side-by-side detail, the journal
 * search and the viewer: the dashboard state they change. */
#include "drill.h"

#include "jsearch.h"
#include "keys.h"
#include "preview.h"
#include "ui_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEARCH_STEP_MS 30   /* one loop's share of a running search */

/* ---- follow the selected session (f) and sort (o) ------------------------ */

bool ui_drill_follow(ui_dash *d, int key)
{
	(void)key;
	d->follow_sel = !d->follow_sel;
	ui_drill_sync(d, NULL);
	if (d->follow_sel && !d->panes[UI_PANE_OPS].session[0])
		ui_model_set_action(&d->m, true, "f: no session selected to follow (1 Sessions)");
	else
		ui_model_set_action(&d->m, false, d->follow_sel ?
				    "following the selected session: Operations and Journal show "
				    "only its rows (f or Esc: all)" : d->ops_all ?
				    "showing every session's rows" : "the Journal shows every session's "
				    "rows; Operations the selected session's (A: all)");
	return true;
}

bool ui_drill_ops_all(ui_dash *d, int key)
{
	(void)key;
	d->ops_all = !d->ops_all;
	if (d->ops_all && d->follow_sel)
		d->follow_sel = false; /* f would narrow it again */
	ui_drill_sync(d, NULL);
	ui_model_set_action(&d->m, false, d->ops_all ? "Operations: every session's (A: the "
			    "selected session's only)" : "Operations: the selected session's only "
			    "(A: every session's)");
	return true;
}

bool ui_drill_sort(ui_dash *d, int key)
{
	ui_pane *p = &d->panes[UI_PANE_SESSIONS];

	(void)key;
	p->sort = p->sort + 1 >= UI_SORT_COUNT ? UI_SORT_UPDATED : p->sort + 1;
	p->cursor = p->top = 0;
	p->sel[0] = '\0';
	return true;
}

static void narrow(ui_pane *p, const char *id)
{
	if (!strcmp(p->session, id ? id : ""))
		return;
	snprintf(p->session, sizeof(p->session), "%s", id ? id : "");
	p->cursor = p->top = 0;
	p->sel[0] = '\0';
}

/* The checkpoints shown are session id's (read again only when the
 * selection moved to another session). */
static void follow_checkpoints(ui_dash *d, const char *id)
{
	char *copy;

	if ((d->m.ckpt_session && !strcmp(d->m.ckpt_session, id)) || !(copy = strdup(id)))
		return;
	ui_source_load_checkpoints(d->src, &d->m, copy);
	free(copy);
	d->panes[UI_PANE_CKPTS].cursor = d->panes[UI_PANE_CKPTS].top = 0;
	d->panes[UI_PANE_CKPTS].sel[0] = '\0';
}

void ui_drill_sync(ui_dash *d, const ui_layout *lay)
{
	size_t i;
	bool any = ui_list_selected(&ui_view_sessions, &d->m, &d->panes[UI_PANE_SESSIONS], &i);
	/* The operations' and events' session names are kept sanitised:
	 * narrowing compares display forms (it only hides rows). */
	const char *shown = any ? d->m.sessions[i].id : NULL;
	const char *raw = any ? d->m.sessions[i].raw_id : NULL;
	const char *id = d->follow_sel ? shown : NULL;

	narrow(&d->panes[UI_PANE_OPS], d->follow_sel || !d->ops_all ? shown : NULL);
	narrow(&d->panes[UI_PANE_JOURNAL], id);
	narrow(&d->strip, id);
	if (d->panes[UI_PANE_JOURNAL].session[0])
		d->panes[UI_PANE_JOURNAL].follow = d->strip.follow = true;
	if (raw && lay && (lay->tiled || ui_dash_shown(d) == UI_PANE_CKPTS))
		follow_checkpoints(d, raw);
	/* The detail beside the list reads the selected session's messages. */
	if (raw && lay && lay->detail.h && !ui_dash_is_open(d, &ui_overlay_conversation) &&
	    (!d->m.conv_session || strcmp(d->m.conv_session, raw))) {
		char *copy = strdup(raw);

		if (copy)
			ui_source_open_conversation(d->src, &d->m, copy);
		free(copy);
	}
}

/* ---- the whole-journal search (S, n, N) ---------------------------------- */

bool ui_drill_search(ui_dash *d, int key)
{
	(void)key;
	ui_overlay_push(&d->open, &ui_overlay_search);
	d->search_text[0] = '\0';
	return true;
}

void ui_drill_prompt(const ui_dash *d, ac_buf *out, int cols)
{
	ac_buf keys = AC_BUF_INIT;

	ui_keys_line_hints(&keys, UI_PANE_SEARCH_LINE);
	ui_text_input(out, " search the journal: ", d->search_text, keys.data ? keys.data : "",
		      cols);
	ac_buf_free(&keys);
}

static void run_search(ui_dash *d)
{
	ui_pane *p = &d->panes[UI_PANE_JSEARCH];

	ui_jsearch_start(&d->js, &d->m, d->ws, d->search_text);
	p->cursor = p->top = 0;
	p->filter[0] = p->sel[0] = '\0';
	p->follow = false;
	ui_dash_switch_pane(d, UI_PANE_JOURNAL);
}

bool ui_drill_line_key(ui_dash *d, int key)
{
	size_t len = strlen(d->search_text);

	if (key == UI_KEY_ENTER || key == UI_KEY_ESC)
		ui_overlay_remove(&d->open, &ui_overlay_search);
	if (key == UI_KEY_ENTER) {
		run_search(d);
	} else if (key == UI_KEY_BACKSPACE) {
		while (len > 0 && ((unsigned char)d->search_text[len - 1] & 0xC0) == 0x80)
			len--;
		d->search_text[len > 0 ? len - 1 : 0] = '\0';
	}
	return true;
}

void ui_drill_input(ui_dash *d, const ui_input *in)
{
	size_t len = strlen(d->search_text);
	char enc[5];
	size_t n;

	if (ui_keys_dispatch_in(d, UI_PANE_SEARCH_LINE, in->key))
		return;
	if (in->key < 0x20 || in->key >= 0x110000 || in->key == 0x7F) {
		d->dirty = false;
		return;
	}
	d->dirty = true;
	n = ui_utf8_encode(enc, (unsigned)in->key);
	if (len + n < sizeof(d->search_text)) {
		memcpy(d->search_text + len, enc, n);
		d->search_text[len + n] = '\0';
	}
}

bool ui_drill_next_match(ui_dash *d, int key)
{
	ui_pane *p = &d->panes[UI_PANE_JSEARCH];
	size_t shown = ui_list_visible(&ui_view_jsearch, &d->m, p, NULL);

	if (key == 'N')
		return ui_list_key(&ui_view_jsearch, &d->m, p, UI_ACT_UP, 1);
	/* Past the last match found: the search reads on for more. */
	if (p->cursor + 1 >= shown && !d->m.search.complete) {
		ui_jsearch_want(d->js, &d->m, d->m.search.n + UI_JSEARCH_BATCH);
		ui_model_set_action(&d->m, false, "reading on for older matches...");
		return true;
	}
	if (p->cursor + 1 >= shown) {
		ui_model_set_action(&d->m, false, "no older match: every file was read");
		return true;
	}
	return ui_list_key(&ui_view_jsearch, &d->m, p, UI_ACT_DOWN, 1);
}

void ui_drill_search_back(ui_dash *d)
{
	if (d->m.search.running) {
		ui_jsearch_stop(d->js, &d->m);
		ui_model_set_action(&d->m, false, "search stopped (Esc again: back to the live tail)");
	} else {
		ui_jsearch_close(&d->js, &d->m);
	}
}

bool ui_drill_step(ui_dash *d)
{
	return ui_jsearch_step(d->js, &d->m, SEARCH_STEP_MS);
}

/* ---- Enter: the viewer ---------------------------------------------------- */

bool ui_drill_open(ui_dash *d, ui_pane_id pane, size_t i)
{
	ui_model *m = &d->m;

	if (pane == UI_PANE_CKPTS && m->ckpt_session) {
		char *session = strdup(m->ckpt_session), *id = strdup(m->ckpts[i].raw_id);

		if (session && id)
			ui_preview_checkpoint(m, d->ws, session, id);
		free(session);
		free(id);
	} else if (pane == UI_PANE_JOURNAL) {
		char *id = strdup(ui_model_event(m, i)->id);

		if (id)
			ui_preview_event_id(m, d->ws, id);
		free(id);
	} else if (pane == UI_PANE_JSEARCH && m->search.database) {
		char *id = strdup(m->search.matches[i].ev.id);

		if (id) /* no file to read at an offset: the event by its id */
			ui_preview_event_id(m, d->ws, id);
		free(id);
	} else if (pane == UI_PANE_JSEARCH) {
		const ui_jmatch *j = &m->search.matches[i];

		ui_preview_event_at(m, m->search.files[j->file], m->search.file_names[j->file],
				    j->offset, j->ev.id);
	} else {
		return false;
	}
	ui_overlay_push(&d->open, &ui_overlay_viewer);
	d->panes[UI_PANE_VIEWER].top = 0;
	d->panes[UI_PANE_VIEWER].follow = false;
	return true;
}
