/* The dashboard: scan -> update -> draw (htop's ScreenManager). One
 * poll(2) waits on the terminal and the workspace watcher together; what
 * the watcher reports is read (only that), keys are turned into actions
 * through the key table, and the screen is drawn once per loop, only when
 * something changed, so an idle dashboard sleeps. */
#include "dashboard.h"

#include "actions.h"
#include "model.h"
#include "screen.h"
#include "theme.h"
#include "ui_text.h"
#include "view.h"

#include "ac_backend.h"
#include "ac_error.h"
#include "ac_time.h"
#include "ac_watch.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* P_CONV..P_TRACE are the conversation's tabs, P_DOC a document opened
 * from one: each has its own cursor and scroll. */
enum { P_SESSIONS, P_OPS, P_CKPTS, P_JOURNAL, P_CONV, P_MEMO, P_ARTIFACTS, P_TRACE, P_DOC,
       P_HELP, P_COUNT };

static const ui_view *const pane_views[P_COUNT] = {
	[P_SESSIONS] = &ui_view_sessions, [P_OPS] = &ui_view_operations,
	[P_CKPTS] = &ui_view_checkpoints, [P_JOURNAL] = &ui_view_journal,
	[P_CONV] = &ui_view_conversation, [P_MEMO] = &ui_view_memos,
	[P_ARTIFACTS] = &ui_view_artifacts, [P_TRACE] = &ui_view_trace,
	[P_DOC] = &ui_view_document, [P_HELP] = &ui_view_help,
};

static const int tab_panes[UI_TAB_COUNT] = {
	[UI_TAB_MESSAGES] = P_CONV, [UI_TAB_MEMORY] = P_MEMO,
	[UI_TAB_ARTIFACTS] = P_ARTIFACTS, [UI_TAB_TRACE] = P_TRACE,
};

#define MAX_THEMES 32
#define WATCH_POLL_MS 500

typedef struct {
	const ac_workspace *ws;
	ui_model m;
	ui_source *src;
	ac_watch *watch;
	ui_theme theme;
	char *themes[MAX_THEMES];
	size_t n_themes;
	char user_dir[PATH_MAX];  /* theme folders: find_theme_dirs() */
	char share_dir[PATH_MAX];
	char build_dir[PATH_MAX];
	const char *dirs[5];
	ui_pane panes[P_COUNT];
	ui_pane strip;           /* the journal strip under the other panes */
	int pane;                /* P_SESSIONS..P_JOURNAL */
	bool conv_open, help_open, filtering;
	ui_tab tab;              /* the conversation's tab */
	char traced[2 * AC_BACKEND_ID_MAX + 2]; /* "tenant/session" the watcher follows, or "" */
	ui_dialog dlg;
	bool dirty, quit;
	int64_t redraw_at;       /* when an age on screen changes (0: never) */
} dash;

static int current(const dash *d)
{
	if (d->help_open)
		return P_HELP;
	if (d->conv_open)
		return d->m.doc_title ? P_DOC : tab_panes[d->tab];
	return d->pane;
}

/* ---- drawing ----------------------------------------------------------- */

static void draw_title(dash *d, int cols)
{
	ac_buf t = AC_BUF_INIT, cut = AC_BUF_INIT;
	const ui_model *m = &d->m;

	screen_fill(0, 0, cols, UI_ST_TITLE);
	ac_buf_printf(&t, " agentctl  %s  ", m->workspace ? m->workspace : "");
	for (int s = 0; s < UI_STATUS_OTHER; s++)
		ac_buf_printf(&t, "%s %zu  ", ui_status_symbol((ui_status)s), m->by_status[s]);
	if (m->by_status[UI_STATUS_OTHER])
		ac_buf_printf(&t, "? %zu  ", m->by_status[UI_STATUS_OTHER]);
	if (m->read_only)
		ac_buf_printf(&t, "[READ-ONLY]");
	ui_text_fit(&cut, t.data, t.len, cols, UI_FIT_ELLIPSIS);
	screen_put(0, 0, cols, UI_ST_TITLE, cut.data ? cut.data : "");
	ac_buf_free(&t);
	ac_buf_free(&cut);
}

static void warnings(const dash *d, ac_buf *out)
{
	const ui_model *m = &d->m;

	if (m->polling)
		ac_buf_printf(out, "watching by polling every %d ms (%s)  ", WATCH_POLL_MS, m->polling);
	if (m->journal_skipped)
		ac_buf_printf(out, "journal: %llu bad lines skipped  ",
			      (unsigned long long)m->journal_skipped);
	if (m->session_problems)
		ac_buf_printf(out, "sessions: %zu unreadable  ", m->session_problems);
	if (m->ops_skipped)
		ac_buf_printf(out, "operations: %llu bad lines skipped  ",
			      (unsigned long long)m->ops_skipped);
	if (m->ckpt_problems)
		ac_buf_printf(out, "checkpoints: %zu unreadable  ", m->ckpt_problems);
	/* A file that cannot be read at all (a FIFO in the journal's place)
	 * counts no bad lines, and must still not look like an empty one. */
	if (m->last_problem)
		ac_buf_printf(out, out->len ? "(last: %s)" : "%s", m->last_problem);
}

static void draw_status(dash *d, int y, int cols)
{
	ac_buf w = AC_BUF_INIT, line = AC_BUF_INIT;
	int x = 0;

	screen_fill(y, 0, cols, UI_ST_STATUSBAR);
	if (d->m.action[0]) {
		ac_buf_printf(&line, " %s ", d->m.action);
		x = ui_text_fit(&line, "", 0, 0, 0);
		ac_buf cut = AC_BUF_INIT;

		x = ui_text_fit(&cut, line.data, line.len, cols, UI_FIT_ELLIPSIS);
		screen_put(y, 0, cols, d->m.action_error ? UI_ST_ERROR : UI_ST_OK, cut.data);
		ac_buf_free(&cut);
	}
	warnings(d, &w);
	if (w.len && x < cols - 10) {
		ac_buf cut = AC_BUF_INIT;

		ac_buf_clear(&line);
		ac_buf_printf(&line, " \xe2\x9a\xa0 %s", w.data);
		ui_text_fit(&cut, line.data, line.len, cols - x, UI_FIT_ELLIPSIS);
		screen_put(y, x, cols - x, UI_ST_WARNING, cut.data);
		ac_buf_free(&cut);
	} else if (!d->m.action[0]) {
		ac_buf cut = AC_BUF_INIT;

		ac_buf_clear(&line);
		ac_buf_printf(&line, " %zu sessions  %zu operations  %llu events seen", d->m.n_sessions,
			      d->m.n_ops, (unsigned long long)d->m.events_seen);
		ui_text_fit(&cut, line.data, line.len, cols, UI_FIT_ELLIPSIS);
		screen_put(y, 0, cols, UI_ST_STATUSBAR, cut.data);
		ac_buf_free(&cut);
	}
	ac_buf_free(&w);
	ac_buf_free(&line);
}

static void draw_keys(dash *d, int y, int cols)
{
	ac_buf line = AC_BUF_INIT, cut = AC_BUF_INIT;
	ui_pane *p = &d->panes[current(d)];

	if (d->filtering) {
		ac_buf_printf(&line, " filter: %s_   Enter: keep   Esc: clear", p->filter);
		ui_text_fit(&cut, line.data, line.len, cols, UI_FIT_ELLIPSIS);
		screen_fill(y, 0, cols, UI_ST_FILTER);
		screen_put(y, 0, cols, UI_ST_FILTER, cut.data);
	} else {
		if (d->dlg.kind != UI_DLG_NONE)
			ac_buf_printf(&line, " y: confirm   n/Esc: cancel");
		else if (d->conv_open && !d->help_open)
			ac_buf_printf(&line, " [ ] tab  Enter open  Esc back  j/k scroll  / filter  %s"
				      "? help  q quit", d->m.read_only ? "" : "p pause  r resume  c compact  ");
		else if (d->m.read_only)
			ac_buf_printf(&line, " 1-4/Tab panes  Enter open  / filter  s status  t theme  "
				      "? help  q quit   read-only: actions disabled");
		else
			ac_buf_printf(&line, " 1-4/Tab panes  Enter open  / filter  p pause  r resume  "
				      "c compact  R rollback  t theme  ? help  q quit");
		ui_text_fit(&cut, line.data, line.len, cols, UI_FIT_ELLIPSIS);
		screen_put(y, 0, cols, UI_ST_KEYS, cut.data);
	}
	ac_buf_free(&line);
	ac_buf_free(&cut);
}

static void draw(dash *d)
{
	int rows, cols, cur = current(d);
	int64_t now = ac_time_now_ms();
	ui_rect main;

	screen_size(&rows, &cols);
	screen_begin();
	ui_age_refresh_take();
	if (rows < 6 || cols < 24) {
		screen_put(0, 0, cols, UI_ST_NORMAL, "terminal too small");
		screen_end();
		return;
	}
	draw_title(d, cols);
	main = (ui_rect){1, 0, rows - 3, cols};
	if (cur != P_JOURNAL && cur != P_HELP && main.h >= 18) {
		/* The journal keeps moving below the pane in use. */
		ui_rect strip;

		strip.h = main.h / 3;
		main.h -= strip.h;
		strip = (ui_rect){main.y + main.h, 0, strip.h, cols};
		d->strip.follow = true;
		ui_view_journal.draw(&ui_view_journal, &d->m, &d->strip, strip, false, now);
	}
	pane_views[cur]->draw(pane_views[cur], &d->m, &d->panes[cur], main, true, now);
	draw_status(d, rows - 2, cols);
	draw_keys(d, rows - 1, cols);
	if (d->dlg.kind != UI_DLG_NONE)
		ui_dialog_draw(&d->dlg, rows, cols);
	screen_end();
	d->redraw_at = ui_age_refresh_take();
}

/* How long poll() may sleep: until the watcher wants to look again, or an
 * age on screen ticks (a session updated a minute ago must not still say
 * "0s"), or a pending resume may have become late. -1: no limit. */
static int wait_ms(const dash *d, int64_t now)
{
	int watch = ac_watch_timeout_ms(d->watch), tick = -1;

	if (d->redraw_at) {
		int64_t left = d->redraw_at - now;

		tick = left < 0 ? 0 : left > 3600000 ? 3600000 : (int)left;
	}
	for (size_t i = 0; i < d->m.n_sessions && tick != 0; i++)
		if (d->m.sessions[i].pending && !d->m.sessions[i].pending_alarm)
			tick = tick < 0 || tick > 1000 ? 1000 : tick;
	if (watch < 0)
		return tick;
	return tick < 0 || watch < tick ? watch : tick;
}

/* ---- actions ----------------------------------------------------------- */

static int page_rows(const dash *d)
{
	int p = d->panes[current(d)].list_rows;

	return p > 1 ? p - 1 : 1;
}

/* The session the operator means: the conversation's, the checkpoints',
 * or the one selected in Sessions. NULL (and a status line) when none. */
static const char *target_session(dash *d)
{
	size_t i;

	if (d->conv_open && d->m.conv_session)
		return d->m.conv_session;
	if (d->pane == P_CKPTS && d->m.ckpt_session)
		return d->m.ckpt_session;
	if (d->pane == P_SESSIONS &&
	    ui_list_selected(&ui_view_sessions, &d->m, &d->panes[P_SESSIONS], &i))
		return d->m.sessions[i].id;
	ui_model_set_action(&d->m, true, "select a session first (1 Sessions)");
	return NULL;
}

/* Points the watcher at the open conversation's trace (none when closed or
 * without a tenant); only when that changed, so no event is missed. */
static void follow_trace(dash *d)
{
	const char *tenant = d->conv_open ? ui_source_tenant(d->src) : NULL;
	char want[sizeof(d->traced)] = "";

	if (tenant && d->m.conv_session)
		snprintf(want, sizeof(want), "%s/%s", tenant, d->m.conv_session);
	if (!strcmp(want, d->traced))
		return;
	if (ac_watch_trace(d->watch, want[0] ? tenant : NULL, d->m.conv_session) == 0)
		snprintf(d->traced, sizeof(d->traced), "%s", want);
	else
		d->traced[0] = '\0';
}

static void close_conversation(dash *d)
{
	d->conv_open = false;
	ui_model_close_conversation(&d->m);
	follow_trace(d);
}

/* Shows tab of the open conversation, reading what it lists (a document
 * open in another tab is closed). */
static void open_tab(dash *d, ui_tab tab)
{
	ui_model_close_document(&d->m);
	d->tab = tab;
	ui_source_load_tab(d->src, &d->m, tab); /* errors are shown in the tab */
}

static void open_conversation(dash *d, const char *id)
{
	char *copy = strdup(id);

	if (!copy)
		return;
	ui_source_open_conversation(d->src, &d->m, copy);
	free(copy);
	d->conv_open = true;
	d->tab = UI_TAB_MESSAGES;
	for (int t = 0; t < UI_TAB_COUNT; t++) {
		ui_pane *p = &d->panes[tab_panes[t]];

		p->top = p->cursor = 0;
		p->filter[0] = p->sel[0] = '\0';
		p->follow = t == UI_TAB_TRACE; /* new records keep showing */
	}
	follow_trace(d);
}

/* The session file changed and was read again: when its tenant changed,
 * the store tabs were emptied; the tab in view is read again. */
static void conversation_reloaded(dash *d)
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

static bool refuse_read_only(dash *d)
{
	if (!d->m.read_only)
		return false;
	ui_model_set_action(&d->m, true, "read-only: actions are disabled (started with --read-only)");
	return true;
}

static void switch_pane(dash *d, int pane)
{
	size_t i;

	d->help_open = false;
	close_conversation(d);
	d->pane = pane;
	if (pane == P_CKPTS) {
		const char *id = NULL;

		if (ui_list_selected(&ui_view_sessions, &d->m, &d->panes[P_SESSIONS], &i))
			id = d->m.sessions[i].id;
		if (!id || !d->m.ckpt_session || strcmp(id, d->m.ckpt_session)) {
			char *copy = id ? strdup(id) : NULL;

			ui_source_load_checkpoints(d->src, &d->m, copy);
			free(copy);
			d->panes[P_CKPTS].cursor = d->panes[P_CKPTS].top = 0;
			d->panes[P_CKPTS].sel[0] = '\0';
		}
	}
}

static void next_theme(dash *d)
{
	char err[600];
	size_t at = 0;

	if (!d->n_themes) {
		ac_buf where = AC_BUF_INIT;

		for (size_t i = 0; d->dirs[i]; i++)
			ac_buf_printf(&where, "%s%s", i ? ", " : "", d->dirs[i]);
		ui_model_set_action(&d->m, true, "no theme files found in %s",
				    where.data ? where.data : "");
		ac_buf_free(&where);
		return;
	}
	for (size_t i = 0; i < d->n_themes; i++)
		if (!strcmp(d->themes[i], d->theme.name))
			at = i + 1;
	at %= d->n_themes;
	if (ui_theme_load(&d->theme, d->themes[at], d->dirs, err, sizeof(err)) != 0) {
		ui_model_set_action(&d->m, true, "theme: %s (using the default)", err);
		snprintf(d->theme.name, sizeof(d->theme.name), "%s", d->themes[at]);
	} else {
		ui_model_set_action(&d->m, false, "theme: %s%s", d->theme.name,
				    screen_has_color() ? "" : " (no colour: NO_COLOR or terminal)");
	}
	screen_set_theme(&d->theme);
}

static void act(dash *d, ui_action a)
{
	int cur = current(d);
	const ui_view *v = pane_views[cur];
	ui_pane *p = &d->panes[cur];
	const char *id;
	size_t i;

	if (d->dlg.kind != UI_DLG_NONE) {
		if (a == UI_ACT_YES) {
			ui_model_set_action(&d->m, false, "working...");
			ui_dialog_confirm(&d->dlg, d->ws, &d->m);
			/* Requests beside the sessions change with no watch to
			 * see them. */
			ui_source_update(d->src, &d->m, AC_WATCH_SESSIONS);
		} else if (a == UI_ACT_NO || a == UI_ACT_BACK || a == UI_ACT_QUIT) {
			ui_dialog_free(&d->dlg);
			ui_model_set_action(&d->m, false, "cancelled; nothing was changed");
		}
		d->dirty = true;
		return;
	}
	d->dirty = true;
	switch (a) {
	case UI_ACT_QUIT:
		d->quit = true;
		return;
	case UI_ACT_PANE_SESSIONS: switch_pane(d, P_SESSIONS); return;
	case UI_ACT_PANE_OPS: switch_pane(d, P_OPS); return;
	case UI_ACT_PANE_CKPTS: switch_pane(d, P_CKPTS); return;
	case UI_ACT_PANE_JOURNAL: switch_pane(d, P_JOURNAL); return;
	case UI_ACT_NEXT_PANE: switch_pane(d, (d->pane + 1) % 4); return;
	case UI_ACT_PREV_PANE: switch_pane(d, (d->pane + 3) % 4); return;
	case UI_ACT_HELP:
		d->help_open = !d->help_open;
		d->panes[P_HELP].top = 0;
		return;
	case UI_ACT_REDRAW:
		screen_invalidate();
		return;
	case UI_ACT_THEME:
		next_theme(d);
		return;
	case UI_ACT_NEXT_TAB:
	case UI_ACT_PREV_TAB:
		if (!d->conv_open || d->help_open) {
			d->dirty = false;
			return;
		}
		open_tab(d, (ui_tab)((d->tab + (a == UI_ACT_NEXT_TAB ? 1 : UI_TAB_COUNT - 1)) %
				     UI_TAB_COUNT));
		return;
	case UI_ACT_BACK:
		if (d->help_open)
			d->help_open = false;
		else if (d->conv_open && d->m.doc_title)
			ui_model_close_document(&d->m);
		else if (d->conv_open && p->filter[0])
			p->filter[0] = '\0';
		else if (d->conv_open)
			close_conversation(d);
		else if (p->filter[0] || p->status_filter >= 0) {
			p->filter[0] = '\0';
			p->status_filter = -1;
		} else if (d->m.action[0]) {
			d->m.action[0] = '\0';
		}
		return;
	case UI_ACT_OPEN:
		if (cur == P_SESSIONS && ui_list_selected(v, &d->m, p, &i)) {
			open_conversation(d, d->m.sessions[i].id);
		} else if ((cur == P_MEMO || cur == P_ARTIFACTS) && ui_list_selected(v, &d->m, p, &i)) {
			ui_source_open_item(d->src, &d->m, d->tab, i);
			d->panes[P_DOC].top = 0;
			d->panes[P_DOC].follow = false;
		} else {
			d->dirty = false;
		}
		return;
	case UI_ACT_FILTER:
		if (cur != P_HELP)
			d->filtering = true;
		return;
	case UI_ACT_STATUS_FILTER:
		if (cur == P_SESSIONS) {
			p->status_filter = p->status_filter + 1 >= UI_STATUS_OTHER ? -1 : p->status_filter + 1;
			p->cursor = p->top = 0;
		}
		return;
	case UI_ACT_PAUSE:
	case UI_ACT_RESUME:
		if (refuse_read_only(d) || !(id = target_session(d)))
			return;
		{
			char *copy = strdup(id);

			if (copy)
				ui_act_plan_status(&d->dlg, d->ws, &d->m, copy,
						   a == UI_ACT_PAUSE ? "paused" : "running");
			free(copy);
		}
		return;
	case UI_ACT_COMPACT:
		if (refuse_read_only(d) || !(id = target_session(d)))
			return;
		{
			char *copy = strdup(id);

			if (copy)
				ui_act_plan_compact(&d->dlg, d->ws, &d->m, copy);
			free(copy);
		}
		return;
	case UI_ACT_ROLLBACK:
		if (refuse_read_only(d))
			return;
		if (cur == P_OPS && ui_list_selected(v, &d->m, p, &i)) {
			if (!d->m.ops[i].reversible)
				ui_model_set_action(&d->m, true, "operation %s has no commit: it cannot be "
						    "rolled back on its own", d->m.ops[i].id);
			else
				ui_act_plan_rollback_op(&d->dlg, d->ws, &d->m, d->m.ops[i].id);
		} else if (cur == P_CKPTS && ui_list_selected(v, &d->m, p, &i) && d->m.ckpt_session) {
			ui_act_plan_rollback_checkpoint(&d->dlg, d->ws, &d->m, d->m.ckpt_session,
							d->m.ckpts[i].id);
		} else {
			ui_model_set_action(&d->m, true, "R rolls back the selected operation (2) or "
					    "checkpoint (3)");
		}
		return;
	case UI_ACT_YES:
	case UI_ACT_NO:
	case UI_ACT_NONE:
		d->dirty = false;
		return;
	default:
		break;
	}
	if (v->key && !v->key(v, &d->m, p, a, page_rows(d)))
		d->dirty = false;
}

/* Typing a filter: printable characters go into it. */
static void filter_input(dash *d, const ui_input *in)
{
	ui_pane *p = &d->panes[current(d)];
	size_t len = strlen(p->filter);

	d->dirty = true;
	if (in->key == UI_KEY_ENTER) {
		d->filtering = false;
	} else if (in->key == UI_KEY_ESC) {
		p->filter[0] = '\0';
		d->filtering = false;
	} else if (in->key == UI_KEY_BACKSPACE) {
		while (len > 0 && ((unsigned char)p->filter[len - 1] & 0xC0) == 0x80)
			len--;
		if (len > 0)
			len--;
		p->filter[len] = '\0';
	} else if (in->key >= 0x20 && in->key < 0x110000 && in->key != 0x7F) {
		char enc[5] = {0};
		unsigned c = (unsigned)in->key;

		if (c < 0x80)
			enc[0] = (char)c;
		else if (c < 0x800)
			enc[0] = (char)(0xC0 | c >> 6), enc[1] = (char)(0x80 | (c & 0x3F));
		else if (c < 0x10000)
			enc[0] = (char)(0xE0 | c >> 12), enc[1] = (char)(0x80 | ((c >> 6) & 0x3F)),
			enc[2] = (char)(0x80 | (c & 0x3F));
		else
			enc[0] = (char)(0xF0 | c >> 18), enc[1] = (char)(0x80 | ((c >> 12) & 0x3F)),
			enc[2] = (char)(0x80 | ((c >> 6) & 0x3F)), enc[3] = (char)(0x80 | (c & 0x3F));
		if (len + strlen(enc) < sizeof(p->filter))
			strcat(p->filter, enc);
	} else {
		d->dirty = false;
		return;
	}
	p->cursor = p->top = 0;
	p->follow = false;
	p->sel[0] = '\0';
}

static void mouse(dash *d, const ui_input *in)
{
	int cur = current(d);
	const ui_view *v = pane_views[cur];

	if (d->dlg.kind != UI_DLG_NONE)
		return;
	if (in->mouse == UI_MOUSE_WHEEL_UP || in->mouse == UI_MOUSE_WHEEL_DOWN) {
		for (int i = 0; i < 3; i++)
			act(d, in->mouse == UI_MOUSE_WHEEL_UP ? UI_ACT_UP : UI_ACT_DOWN);
		d->dirty = true;
	} else if (in->mouse == UI_MOUSE_CLICK && v->count) {
		d->dirty = ui_list_click(v, &d->m, &d->panes[cur], in->y);
	}
}

static void input(dash *d)
{
	ui_input in;

	while (!d->quit && screen_read(&in)) {
		if (in.key == UI_KEY_RESIZE) {
			d->dirty = true;
		} else if (in.key == UI_KEY_MOUSE) {
			mouse(d, &in);
		} else if (d->filtering) {
			filter_input(d, &in);
		} else if (in.key) {
			act(d, ui_action_for_key(in.key));
		}
	}
}

/* ---- setup ------------------------------------------------------------- */

/* Theme folders, first match wins: the user's own
 * ($XDG_CONFIG_HOME/agentctl/themes, default ~/.config/agentctl/themes);
 * the install tree the binary sits in (<bindir>/AC_THEME_RELDIR, so a moved
 * tree still works); a build tree's copy beside the binary; the configured
 * install prefix's datadir. Never the source tree. */
static void find_theme_dirs(dash *d)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	size_t k = 0;

	if (xdg && xdg[0] == '/')
		snprintf(d->user_dir, sizeof(d->user_dir), "%s/agentctl/themes", xdg);
	else if (home && home[0] == '/')
		snprintf(d->user_dir, sizeof(d->user_dir), "%s/.config/agentctl/themes", home);
	if (d->user_dir[0])
		d->dirs[k++] = d->user_dir;
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		if ((slash = strrchr(exe, '/'))) {
			*slash = '\0';
			snprintf(d->share_dir, sizeof(d->share_dir), "%.*s/%s",
				 (int)(sizeof(d->share_dir) - sizeof(AC_THEME_RELDIR) - 2), exe,
				 AC_THEME_RELDIR);
			d->dirs[k++] = d->share_dir;
			snprintf(d->build_dir, sizeof(d->build_dir), "%.*s/themes",
				 (int)(sizeof(d->build_dir) - 8), exe);
			d->dirs[k++] = d->build_dir;
		}
	}
	d->dirs[k++] = AC_THEME_PREFIX_DIR;
	d->dirs[k] = NULL;
	d->n_themes = ui_theme_list(d->themes, MAX_THEMES, d->dirs);
}

static void cleanup(dash *d)
{
	ui_dialog_free(&d->dlg);
	ui_source_free(d->src);
	ac_watch_free(d->watch);
	ui_model_free(&d->m);
	for (size_t i = 0; i < d->n_themes; i++)
		free(d->themes[i]);
}

int dashboard_run(const ac_workspace *ws, const ac_config *config,
		  const dashboard_options *options)
{
	static dash d; /* large (the journal ring): not on the stack */
	const char *reason = NULL, *no_color = getenv("NO_COLOR");
	const char *theme_name = ac_config_string(config, "theme", "dark");
	char theme_err[600] = "";
	int status = 0;

	memset(&d, 0, sizeof(d));
	d.ws = ws;
	d.m.read_only = options && options->read_only;
	for (int i = 0; i < P_COUNT; i++)
		d.panes[i].status_filter = -1;
	d.strip.status_filter = -1;
	d.panes[P_JOURNAL].follow = true;
	ui_text_locale();
	find_theme_dirs(&d);
	if (ui_theme_load(&d.theme, theme_name, d.dirs, theme_err, sizeof(theme_err)) != 0)
		snprintf(d.theme.name, sizeof(d.theme.name), "dark");
	if (ac_watch_new(&d.watch, d.ws, WATCH_POLL_MS) != 0 ||
	    ui_source_new(&d.src, &d.m, d.ws) != 0) {
		status = AC_EIO;
		goto done;
	}
	if (ac_watch_polling(d.watch, &reason))
		d.m.polling = strdup(reason ? reason : "inotify unavailable");
	if (theme_err[0])
		ui_model_set_action(&d.m, true, "theme: %s (using the default)", theme_err);
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) ||
	    screen_init(&d.theme, !(no_color && *no_color)) != 0) {
		status = ac_error_set(AC_EINVAL, "the dashboard needs a terminal (is TERM set?)");
		goto done;
	}
	d.dirty = true;
	while (!d.quit && !screen_stop_requested()) {
		struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {ac_watch_fd(d.watch), POLLIN, 0}};
		int nfds = fds[1].fd >= 0 ? 2 : 1;
		unsigned changed;

		if (d.dirty) {
			draw(&d);
			d.dirty = false;
		}
		if (poll(fds, (nfds_t)nfds, wait_ms(&d, ac_time_now_ms())) < 0 && errno != EINTR)
			break;
		if (d.redraw_at && ac_time_now_ms() >= d.redraw_at)
			d.dirty = true;
		for (size_t i = 0; i < d.m.n_sessions; i++)
			if (d.m.sessions[i].pending && !d.m.sessions[i].pending_alarm) {
				/* "resuming" turns "stalled" with time alone. */
				if (ui_source_update(d.src, &d.m, AC_WATCH_SESSIONS))
					d.dirty = true;
				break;
			}
		/* Keys first (they may change what is shown), then files. Input is
		 * also read after EINTR: SIGWINCH arrives as KEY_RESIZE. */
		input(&d);
		changed = ac_watch_read(d.watch);
		if (changed && (changed = ui_source_update(d.src, &d.m, changed))) {
			d.dirty = true;
			if ((changed & UI_CHANGED_CONVERSATION) && d.conv_open)
				conversation_reloaded(&d);
		}
		if (fds[0].revents & (POLLHUP | POLLERR))
			break;
	}
	screen_fini();
done:
	cleanup(&d);
	return status;
}
