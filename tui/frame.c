/* One frame of the dashboard (htop's ScreenManager draw): the title, who
 * waits, the panes as laid out, the status and key lines, a dialog over
 * them, through the terminal layer (screen.h). */
#include "frame.h"

#include "drill.h"
#include "keys.h"
#include "layout.h"
#include "screen.h"
#include "ui_text.h"
#include "usage_meter.h"
#include "view.h"

#include "ac_store_watch.h"
#include "ac_time.h"

#include <stdio.h>
#include <string.h>

/* Below this the panes cannot be drawn: the screen says so and the size. */
#define UI_MIN_ROWS 6
#define UI_MIN_COLS 24

static void draw_title(ui_dash *d, int cols)
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

static void warnings(const ui_dash *d, ac_buf *out)
{
	const ui_model *m = &d->m;

	if (m->polling)
		ac_buf_printf(out, "watching by polling every %d ms (%s)  ", UI_WATCH_POLL_MS, m->polling);
	if (d->store_watch && !ac_store_watch_live(d->store_watch))
		ac_buf_printf(out, "%s  ", ac_store_watch_state(d->store_watch));
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

static void draw_status(ui_dash *d, int y, int cols)
{
	ac_buf w = AC_BUF_INIT, line = AC_BUF_INIT;
	int x = 0;

	screen_fill(y, 0, cols, UI_ST_STATUSBAR);
	if (d->job) {
		/* What runs off the loop, ticking, ahead of the last message. */
		ac_buf run = AC_BUF_INIT, cut = AC_BUF_INIT;
		char *safe;

		ac_buf_printf(&run, " ");
		ui_job_describe(d->job, &run, ac_time_now_ms());
		ac_buf_printf(&run, " ");
		safe = ui_safe_str(run.data);
		x = ui_text_fits(&cut, safe, cols, UI_FIT_ELLIPSIS);
		screen_put(y, 0, cols, UI_ST_WARNING, cut.data ? cut.data : "");
		ui_sfree(safe);
		ac_buf_free(&run);
		ac_buf_free(&cut);
	}
	if (d->m.action[0] && x < cols - 10) {
		ac_buf cut = AC_BUF_INIT;
		int at = x, room = cols - at;

		ac_buf_printf(&line, " %s ", d->m.action);
		/* A message cut to the line says where it is whole. */
		if (d->m.action_cut || ui_text_width(line.data, line.len) > room) {
			ui_text_fit(&cut, line.data, line.len, room > 10 ? room - 8 : room,
				    UI_FIT_ELLIPSIS);
			ac_buf_clear(&line);
			ac_buf_printf(&line, "%s L log ", cut.data ? cut.data : "");
			ac_buf_clear(&cut);
		}
		x += ui_text_fit(&cut, line.data, line.len, room, UI_FIT_ELLIPSIS);
		screen_put(y, at, room, d->m.action_error ? UI_ST_ERROR : UI_ST_OK, cut.data);
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
	} else if (!d->m.action[0] && !d->job) {
		ac_buf cut = AC_BUF_INIT;

		ac_buf_clear(&line);
		bool over = false;

		ac_buf_clear(&line);
		ac_buf_printf(&line, " %zu sessions  %zu operations  %llu events seen", d->m.n_sessions,
			      d->m.n_ops, (unsigned long long)d->m.events_seen);
		ui_usage_meter_line(d->meter, &line, &over);
		ui_text_fit(&cut, line.data, line.len, cols, UI_FIT_ELLIPSIS);
		screen_put(y, 0, cols, over ? UI_ST_WARNING : UI_ST_STATUSBAR, cut.data);
		ac_buf_free(&cut);
	}
	ac_buf_free(&w);
	ac_buf_free(&line);
}

/* The bottom line: the filter being typed, or the keys of the pane in
 * use, from the key table. */
static void draw_keys(ui_dash *d, int y, int cols)
{
	ac_buf line = AC_BUF_INIT, cut = AC_BUF_INIT;

	const ui_overlay *top = ui_overlay_top(&d->open, d);

	if (top && top->line) {
		top->line(d, &cut, cols);
		screen_fill(y, 0, cols, UI_ST_FILTER);
		screen_put(y, 0, cols, UI_ST_FILTER, cut.data);
	} else {
		ac_buf right = AC_BUF_INIT;
		int right_w;

		ui_keys_hints_for(&line, &right, d);
		right_w = right.len ? ui_text_width(right.data, right.len) : 0;
		if (right_w > cols)
			right_w = 0; /* a terminal narrower than "? help q quit" */
		ui_text_fit(&cut, line.data, line.len, cols - right_w, UI_FIT_ELLIPSIS);
		screen_fill(y, 0, cols, UI_ST_KEYS);
		screen_put(y, 0, cols - right_w, UI_ST_KEYS, cut.data ? cut.data : "");
		if (right_w)
			screen_put(y, cols - right_w, right_w, UI_ST_KEYS, right.data);
		ac_buf_free(&right);
	}
	ac_buf_free(&line);
	ac_buf_free(&cut);
}

/* Where the panes went in the last frame: a click goes to the pane under it. */
static ui_layout drawn;

/* The list panes, all on screen: each in its own place, the one in use
 * (the journal's search while it is open) active. */
static void draw_tiled(ui_dash *d, const ui_layout *lay, ui_pane_id cur, int64_t now)
{
	for (int i = 0; i < UI_LAYOUT_PANES; i++) {
		ui_pane_id id = i == UI_PANE_JOURNAL && cur == UI_PANE_JSEARCH ? cur : (ui_pane_id)i;

		ui_pane_views[id]->draw(ui_pane_views[id], &d->m, &d->panes[id], lay->pane[i],
					ui_layout_slot(cur) == i, now);
	}
}

void ui_frame_draw(ui_dash *d)
{
	int rows, cols;
	ui_pane_id cur = ui_dash_shown(d);
	int64_t now = ac_time_now_ms();
	ui_layout lay;
	int attention, sessions_rows;

	screen_size(&rows, &cols);
	screen_begin();
	ui_age_refresh_take();
	memset(&drawn, 0, sizeof(drawn));
	if (rows < UI_MIN_ROWS || cols < UI_MIN_COLS) {
		char say[80];

		/* The short form fits the narrowest terminal that can hold it. */
		snprintf(say, sizeof(say), cols >= 48 ? "terminal too small: %dx%d, needs at least %dx%d"
			 : "need %3$dx%4$d, is %1$dx%2$d", cols, rows, UI_MIN_COLS, UI_MIN_ROWS);
		screen_put(0, 0, cols, UI_ST_NORMAL, say);
		screen_end();
		return;
	}
	draw_title(d, cols);
	/* Who waits for the operator, under the title: read first (unless
	 * the panes would be left too few rows; ! still jumps). */
	attention = rows >= 8 ? ui_attention_draw(&d->m, 1, cols, now) : 0;
	/* Sessions tiled: its title, header and every row, no more. */
	sessions_rows = d->m.n_sessions < (size_t)rows ? (int)d->m.n_sessions + 2 : rows;
	ui_layout_compute_fit(&lay, (ui_rect){1 + attention, 0, rows - 3 - attention, cols}, cur,
			      sessions_rows);
	ui_drill_sync(d, &lay);
	if (lay.tiled) {
		draw_tiled(d, &lay, cur, now);
	} else {
		if (lay.strip.h) {
			d->strip.follow = true;
			ui_view_journal.draw(&ui_view_journal, &d->m, &d->strip, lay.strip, false, now);
		}
		ui_pane_views[cur]->draw(ui_pane_views[cur], &d->m, &d->panes[cur], lay.shown, true,
					 now);
	}
	if (lay.detail.h)
		ui_session_detail_draw(&d->m, &d->panes[UI_PANE_SESSIONS], lay.detail);
	drawn = lay;
	draw_status(d, rows - 2, cols);
	draw_keys(d, rows - 1, cols);
	ui_dialog_draw(&d->m, &d->panes[UI_PANE_DIALOG], rows, cols);
	screen_end();
	d->redraw_at = ui_age_refresh_take();
	if ((cur == UI_PANE_OPS || lay.tiled) && ui_dash_fill_ops(d))
		d->redraw_at = 1; /* now: the rows' git stats */
}

int ui_frame_pane_at(const ui_input *in)
{
	for (int i = 0; drawn.tiled && i < UI_LAYOUT_PANES; i++) {
		ui_rect r = drawn.pane[i];

		if (in->y >= r.y && in->y < r.y + r.h && in->x >= r.x && in->x < r.x + r.w)
			return i;
	}
	return -1;
}
