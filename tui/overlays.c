/* The dashboard's overlays (dash.h, overlay.h): for each, the pane it
 * shows, whether it is still open, the keys it takes and what Esc does.
 * What opens one pushes it on d->open; nothing else needs to know it. */
#include "dash.h"
#include "drill.h"
#include "keys.h"

#include "ui_text.h"

#include <string.h>

/* ---- panes -------------------------------------------------------------- */

static ui_pane_id conversation_pane(const ui_dash *d)
{
	return ui_dash_tab_pane(d->tab);
}

/* Esc: a filter of the tab goes first, then the conversation. */
static bool conversation_back(ui_dash *d)
{
	ui_pane *p = &d->panes[ui_dash_shown(d)];

	if (p->filter[0]) {
		p->filter[0] = '\0';
		return false;
	}
	ui_dash_close_conversation(d);
	return true;
}

const ui_overlay ui_overlay_conversation = {
	.name = "conversation", .pane = conversation_pane, .back = conversation_back,
};

static ui_pane_id doc_pane(const ui_dash *d)
{
	(void)d;
	return UI_PANE_DOC;
}

/* A document is its conversation's: it goes with it, or with another tab. */
static bool doc_live(const ui_dash *d)
{
	return d->m.doc_title && ui_dash_is_open(d, &ui_overlay_conversation);
}

static bool doc_back(ui_dash *d)
{
	ui_model_close_document(&d->m);
	return true;
}

const ui_overlay ui_overlay_doc = {
	.name = "document", .pane = doc_pane, .live = doc_live, .back = doc_back,
};

static ui_pane_id patch_pane(const ui_dash *d)
{
	(void)d;
	return UI_PANE_PATCH;
}

static bool patch_live(const ui_dash *d)
{
	return d->m.patch_title != NULL;
}

static bool patch_back(ui_dash *d)
{
	ui_model_close_patch(&d->m);
	return true;
}

const ui_overlay ui_overlay_patch = {
	.name = "patch", .pane = patch_pane, .live = patch_live, .back = patch_back,
};

static ui_pane_id viewer_pane(const ui_dash *d)
{
	(void)d;
	return UI_PANE_VIEWER;
}

static bool viewer_live(const ui_dash *d)
{
	return d->m.viewer.title != NULL;
}

static bool viewer_back(ui_dash *d)
{
	ui_model_viewer_close(&d->m);
	return true;
}

const ui_overlay ui_overlay_viewer = {
	.name = "viewer", .pane = viewer_pane, .live = viewer_live, .back = viewer_back,
};

static ui_pane_id help_pane(const ui_dash *d)
{
	(void)d;
	return UI_PANE_HELP;
}

const ui_overlay ui_overlay_help = {.name = "help", .pane = help_pane};

static ui_pane_id log_pane(const ui_dash *d)
{
	(void)d;
	return UI_PANE_LOG;
}

const ui_overlay ui_overlay_log = {.name = "log", .pane = log_pane};

/* ---- lines being typed ---------------------------------------------------- */

/* A pane that followed its end (the journal) goes on following it, now
 * the newest match: filtering must not stop the tail. */
static void filter_changed(ui_pane *p)
{
	p->cursor = p->top = 0;
	p->sel[0] = '\0';
}

bool ui_filter_line_key(ui_dash *d, int key)
{
	ui_pane *p = &d->panes[ui_dash_shown(d)];
	size_t len = strlen(p->filter);

	if (key == UI_KEY_ESC)
		p->filter[0] = '\0';
	if (key == UI_KEY_ENTER || key == UI_KEY_ESC)
		ui_overlay_remove(&d->open, &ui_overlay_filter);
	if (key == UI_KEY_BACKSPACE) {
		while (len > 0 && ((unsigned char)p->filter[len - 1] & 0xC0) == 0x80)
			len--;
		if (len > 0)
			len--;
		p->filter[len] = '\0';
	}
	filter_changed(p);
	return true;
}

/* Typing a filter: its own keys are the table's (ui_filter_line_key),
 * printable characters go into it, and nothing else is a command. */
static void filter_key(ui_dash *d, const ui_input *in)
{
	ui_pane *p = &d->panes[ui_dash_shown(d)];
	size_t len = strlen(p->filter);
	char enc[5] = {0};

	if (ui_keys_dispatch_in(d, UI_PANE_FILTER_LINE, in->key))
		return;
	if (in->key < 0x20 || in->key >= 0x110000 || in->key == 0x7F) {
		d->dirty = false;
		return;
	}
	d->dirty = true;
	ui_utf8_encode(enc, (unsigned)in->key);
	if (len + strlen(enc) < sizeof(p->filter))
		strcat(p->filter, enc);
	filter_changed(p);
}

/* The last column is left empty: a terminal cannot always show its
 * bottom-right cell after wide characters, and the cursor "_" ends there
 * when the text is long. */
static void filter_line(const ui_dash *d, ac_buf *out, int cols)
{
	ac_buf keys = AC_BUF_INIT;

	ui_keys_line_hints(&keys, UI_PANE_FILTER_LINE);
	ui_text_input(out, " filter: ", d->panes[ui_dash_shown(d)].filter,
		      keys.data ? keys.data : "", cols - 1);
	ac_buf_free(&keys);
}

const ui_overlay ui_overlay_filter = {
	.name = "filter", .key = filter_key, .line = filter_line,
};

static void search_line(const ui_dash *d, ac_buf *out, int cols)
{
	ui_drill_prompt(d, out, cols - 1);
}

const ui_overlay ui_overlay_search = {
	.name = "search", .key = ui_drill_input, .line = search_line,
};
