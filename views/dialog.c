/* A confirmation dialog, centred: its title, what will change, and the
 * keys. Long plans are cut with a count of what is not shown. The text is
 * the model's (tui/actions.c puts it there). */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdio.h>
#include <string.h>

static void dialog_put(int y, int x, int w, ui_style st, const char *text)
{
	ac_buf cut = AC_BUF_INIT;

	screen_fill(y, x, w, st);
	ui_text_fits(&cut, text, w - 2, UI_FIT_ELLIPSIS);
	screen_put(y, x + 1, w - 2, st, cut.data ? cut.data : "");
	ac_buf_free(&cut);
}

void ui_dialog_draw(const ui_model *m, int rows, int cols)
{
	size_t n = m->n_dialog_lines;
	int w = cols - 4 < 76 ? cols - 4 : 76;
	int room = rows - 6, shown = (int)n < room ? (int)n : room;
	int h = shown + 4 + ((int)n > shown ? 1 : 0);
	int y = (rows - h) / 2, x = (cols - w) / 2, row;
	char more[64];

	if (!m->dialog_title)
		return;
	if (w < 20 || room < 1)
		w = cols, x = 0;
	dialog_put(y, x, w, UI_ST_DIALOG_TITLE, m->dialog_title);
	for (row = 0; row < shown; row++)
		dialog_put(y + 1 + row, x, w, UI_ST_DIALOG, m->dialog_lines[row]);
	if ((int)n > shown) {
		snprintf(more, sizeof(more), "... and %zu more", n - (size_t)shown);
		dialog_put(y + 1 + row++, x, w, UI_ST_DIALOG, more);
	}
	dialog_put(y + 1 + row++, x, w, UI_ST_DIALOG, "");
	dialog_put(y + 1 + row++, x, w, UI_ST_DIALOG_TITLE, "y: do it    n or Esc: cancel (nothing changes)");
	dialog_put(y + 1 + row, x, w, UI_ST_DIALOG, "");
}
