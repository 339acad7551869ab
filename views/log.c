/* The message log pane: every status message and file problem of this
 * dashboard, oldest first, each with its time (UTC) and its whole text
 * wrapped to the pane, errors in the error colour. The status line shows
 * only the newest, cut; this is where the rest is read. */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define CLOCK_W 10 /* "HH:MM:SS  " */

typedef struct {
	size_t row, first;  /* the row being counted; the first one to draw */
	int y, last_y, x, w;
	bool error, cont;   /* the entry's colour; a continuation row */
	const char *clock;
	bool draw;
} wrap_ctx;

static void put_row(const char *row, size_t len, void *arg)
{
	wrap_ctx *c = arg;

	if (c->draw && c->row >= c->first && c->y <= c->last_y) {
		char text[1024];
		ac_buf cut = AC_BUF_INIT;

		snprintf(text, sizeof(text), "%-*s%.*s", CLOCK_W, c->cont ? "" : c->clock,
			 (int)(len < 1000 ? len : 1000), row);
		ui_text_fit(&cut, text, strlen(text), c->w, 0);
		screen_put(c->y++, c->x, c->w, c->error ? UI_ST_ERROR : UI_ST_NORMAL,
			   cut.data ? cut.data : "");
		ac_buf_free(&cut);
	}
	c->cont = true;
	c->row++;
}

/* Walks the log's rows wrapped to width: counts them, and draws those
 * from c->first while c->draw. */
static void walk(const ui_model *m, int width, wrap_ctx *c)
{
	for (size_t i = 0; i < m->n_log; i++) {
		const ui_log_entry *e = ui_model_log_entry(m, i);
		time_t t = (time_t)(e->at_ms / 1000);
		struct tm tm;
		char clock[16] = "--:--:--";

		if (gmtime_r(&t, &tm))
			strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
		c->clock = clock;
		c->error = e->error;
		c->cont = false;
		ui_text_wrap(e->text, strlen(e->text), width > CLOCK_W + 8 ? width - CLOCK_W : 8,
			     put_row, c);
	}
}

static void log_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		     int64_t now_ms)
{
	wrap_ctx c = {0};
	char extra[64];
	size_t rows = r.h > 2 ? (size_t)(r.h - 2) : 1;

	(void)now_ms;
	walk(m, r.w - 2, &c);
	if (p->top + rows > c.row)
		p->top = c.row > rows ? c.row - rows : 0;
	p->list_rows = (int)rows;
	snprintf(extra, sizeof(extra), "%zu message%s, times UTC   Esc or L: back", m->n_log,
		 m->n_log == 1 ? "" : "s");
	ui_draw_title(r, v->name, NULL, extra, active);
	if (!m->n_log) {
		screen_put(r.y + 2, r.x + 2, r.w - 2, UI_ST_DIM, "no messages yet");
		return;
	}
	c = (wrap_ctx){.first = p->top, .y = r.y + 1, .last_y = r.y + r.h - 1, .x = r.x + 2,
		       .w = r.w - 2, .draw = true};
	walk(m, r.w - 2, &c);
}

const ui_view ui_view_log = {
	.name = "Messages log",
	.draw = log_draw,
	.key = ui_scroll_key_clamped,
};
