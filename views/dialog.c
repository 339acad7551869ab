/* A confirmation dialog, centred, as wide as the terminal allows: its
 * title, what will change, and the keys. Every line is wrapped, never cut;
 * a plan taller than the screen scrolls (j/k, PgUp/PgDn, g/G) with a line
 * saying which rows are shown, while the title and the keys stay. The text
 * is the model's (tui/actions.c puts it there). */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEYS_LINE "y: do it    n or Esc: cancel (nothing changes)"

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

static void dialog_put(int y, int x, int w, ui_style st, const char *text, size_t len)
{
	ac_buf cut = AC_BUF_INIT;

	screen_fill(y, x, w, st);
	ui_text_fit(&cut, text, len, w - 2, 0);
	screen_put(y, x + 1, w - 2, st, cut.data ? cut.data : "");
	ac_buf_free(&cut);
}

void ui_dialog_draw(const ui_model *m, ui_pane *p, int rows_on_screen, int cols)
{
	rows title = {0}, body = {0};
	int w = cols - 4, x = 2, room, shown, h, y, r = 0;
	bool scrolls;
	char where[128];

	if (!m->dialog_title)
		return;
	if (w < 20)
		w = cols, x = 0;
	ui_text_wrap(m->dialog_title, strlen(m->dialog_title), w - 2, add_row, &title);
	for (size_t i = 0; i < m->n_dialog_lines; i++)
		ui_text_wrap(m->dialog_lines[i], strlen(m->dialog_lines[i]), w - 2, add_row, &body);
	/* A margin above and below, the title, the body, a blank line, the keys
	 * and a blank line. */
	room = rows_on_screen - 2 - (int)title.n - 3;
	scrolls = (int)body.n > room;
	if (scrolls)
		room--; /* the line saying which rows are shown */
	if (room < 1)
		room = 1;
	shown = (int)body.n < room ? (int)body.n : room;
	if (p->top + (size_t)shown > body.n)
		p->top = body.n - (size_t)shown;
	p->list_rows = shown;
	h = (int)title.n + shown + (scrolls ? 1 : 0) + 3;
	y = (rows_on_screen - h) / 2;
	if (y < 0)
		y = 0;
	for (size_t i = 0; i < title.n; i++)
		dialog_put(y + r++, x, w, UI_ST_DIALOG_TITLE, title.rows[i].s, title.rows[i].len);
	for (int i = 0; i < shown; i++)
		dialog_put(y + r++, x, w, UI_ST_DIALOG, body.rows[p->top + (size_t)i].s,
			   body.rows[p->top + (size_t)i].len);
	if (scrolls) {
		snprintf(where, sizeof(where), "-- rows %zu-%zu of %zu; j/k PgUp/PgDn g/G: scroll --",
			 p->top + 1, p->top + (size_t)shown, body.n);
		dialog_put(y + r++, x, w, UI_ST_DIALOG, where, strlen(where));
	}
	dialog_put(y + r++, x, w, UI_ST_DIALOG, "", 0);
	dialog_put(y + r++, x, w, UI_ST_DIALOG_TITLE, KEYS_LINE, strlen(KEYS_LINE));
	dialog_put(y + r, x, w, UI_ST_DIALOG, "", 0);
	free(title.rows);
	free(body.rows);
}
