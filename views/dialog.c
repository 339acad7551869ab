/* A confirmation dialog, centred, as wide as the terminal allows: its
 * title, what will change, and the keys. Every line is wrapped, never cut;
 * a plan taller than the screen scrolls (j/k, PgUp/PgDn, g/G) with a line
 * saying which rows are shown, while the title and the keys stay. It is
 * boxed, and the rows it covers are cleared from edge to edge: nothing of
 * the pane under it shows beside it. The text is the model's
 * (tui/actions.c puts it there). */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEYS_LINE "y: do it    n or Esc: cancel (nothing changes)"
#define V_LINE "\xe2\x94\x82"

typedef struct {
	const char *s;
	size_t len;
} row;

typedef struct {
	row *rows;
	size_t n, cap;
	bool failed;
} rows;

static void add_row(const char *s, size_t len, void *ctx)
{
	rows *r = ctx;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		row *grown = realloc(r->rows, cap * sizeof(*grown));

		if (!grown) {
			r->failed = true;
			return;
		}
		r->rows = grown;
		r->cap = cap;
	}
	r->rows[r->n++] = (row){s, len};
}

/* One row of the box: the borders, then text inside them, one blank
 * column either side of it; the columns beside the box are cleared too,
 * so nothing of the pane under it shows on its rows. */
static void box_row(int y, int cols, int x, int w, ui_style st, const char *text, size_t len)
{
	ac_buf cut = AC_BUF_INIT;

	screen_fill(y, 0, cols, UI_ST_NORMAL);
	screen_fill(y, x, w, st);
	if (w >= 2) {
		screen_put(y, x, 1, UI_ST_DIALOG_TITLE, V_LINE);
		screen_put(y, x + w - 1, 1, UI_ST_DIALOG_TITLE, V_LINE);
	}
	ui_text_fit(&cut, text, len, w - 4, 0);
	screen_put(y, x + 2, w - 4, st, cut.data ? cut.data : "");
	ac_buf_free(&cut);
}

/* The top or bottom border. */
static void box_edge(int y, int cols, int x, int w, bool top)
{
	ac_buf line = AC_BUF_INIT;

	screen_fill(y, 0, cols, UI_ST_NORMAL);
	ac_buf_append(&line, top ? "\xe2\x94\x8c" : "\xe2\x94\x94", 3);
	for (int i = 2; i < w; i++)
		ac_buf_append(&line, "\xe2\x94\x80", 3);
	ac_buf_append(&line, top ? "\xe2\x94\x90" : "\xe2\x94\x98", 3);
	screen_put(y, x, w, UI_ST_DIALOG_TITLE, line.data ? line.data : "");
	ac_buf_free(&line);
}

void ui_dialog_draw(const ui_model *m, ui_pane *p, int rows_on_screen, int cols)
{
	rows title = {0}, body = {0};
	int w = cols - 2, x = 1, room, shown, h, y, r = 0;
	bool scrolls;
	char where[128];
	const char *keys = m->dialog_keys ? m->dialog_keys : KEYS_LINE;

	if (!m->dialog_title)
		return;
	if (w < 24)
		w = cols, x = 0;
	ui_text_wrap(m->dialog_title, strlen(m->dialog_title), w - 4, add_row, &title);
	for (size_t i = 0; i < m->n_dialog_lines; i++)
		ui_text_wrap(m->dialog_lines[i], strlen(m->dialog_lines[i]), w - 4, add_row, &body);
	/* A margin above and below, the borders, the title, the body, a blank
	 * line and the keys. */
	room = rows_on_screen - 2 - (int)title.n - 4;
	scrolls = (int)body.n > room;
	if (scrolls)
		room--; /* the line saying which rows are shown */
	if (room < 1)
		room = 1;
	shown = (int)body.n < room ? (int)body.n : room;
	if (p->top + (size_t)shown > body.n)
		p->top = body.n - (size_t)shown;
	p->list_rows = shown;
	h = (int)title.n + shown + (scrolls ? 1 : 0) + 4;
	y = (rows_on_screen - h) / 2;
	if (y < 0)
		y = 0;
	box_edge(y + r++, cols, x, w, true);
	for (size_t i = 0; i < title.n; i++)
		box_row(y + r++, cols, x, w, UI_ST_DIALOG_TITLE, title.rows[i].s, title.rows[i].len);
	for (int i = 0; i < shown; i++)
		box_row(y + r++, cols, x, w, UI_ST_DIALOG, body.rows[p->top + (size_t)i].s,
			body.rows[p->top + (size_t)i].len);
	if (scrolls) {
		snprintf(where, sizeof(where), "-- rows %zu-%zu of %zu; j/k PgUp/PgDn g/G: scroll --",
			 p->top + 1, p->top + (size_t)shown, body.n);
		box_row(y + r++, cols, x, w, UI_ST_DIALOG, where, strlen(where));
	}
	box_row(y + r++, cols, x, w, UI_ST_DIALOG, "", 0);
	box_row(y + r++, cols, x, w, UI_ST_DIALOG_TITLE, keys, strlen(keys));
	box_edge(y + r, cols, x, w, false);
	free(title.rows);
	free(body.rows);
}
