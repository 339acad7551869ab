/* The help pane: every key, from the binding table itself. */
#include "../tui/screen.h"
#include "../tui/ui_text.h"
#include "../tui/view.h"

#include <stdio.h>
#include <string.h>

/* Appends help line i (one per labelled binding); false past the end. */
bool ui_help_line(ac_buf *out, size_t i, int width)
{
	size_t n, seen = 0;
	const ui_binding *b = ui_bindings(&n);

	for (size_t k = 0; k < n; k++) {
		if (!b[k].label)
			continue;
		if (seen++ == i) {
			ac_buf row = AC_BUF_INIT;

			ui_col(&row, b[k].label, 8, 0, 2);
			ac_buf_append(&row, b[k].help, strlen(b[k].help));
			ui_text_fit(out, row.data, row.len, width, UI_FIT_ELLIPSIS);
			ac_buf_free(&row);
			return true;
		}
	}
	return false;
}

static void help_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		      int64_t now_ms)
{
	ac_buf line = AC_BUF_INIT;
	size_t total = 0;
	int row = 0;

	(void)now_ms;
	while (ui_help_line(&line, total, r.w))
		total++;
	if (r.h > 2 && p->top + (size_t)(r.h - 2) > total)
		p->top = total > (size_t)(r.h - 2) ? total - (size_t)(r.h - 2) : 0;
	p->list_rows = r.h - 2;
	ui_draw_title(r, v->name, NULL, "Esc or ?: back", active);
	for (size_t i = p->top; row < r.h - 2; i++, row++) {
		ac_buf_clear(&line);
		if (!ui_help_line(&line, i, r.w - 2))
			break;
		screen_put(r.y + 1 + row, r.x + 2, r.w - 2, UI_ST_NORMAL, line.data);
	}
	if (row < r.h - 1)
		screen_put(r.y + 1 + row + (row < r.h - 2 ? 1 : 0), r.x + 2, r.w - 2, UI_ST_DIM,
			   m->read_only ? "read-only: p r c R are disabled"
					: "statuses: \xe2\x96\xb6 running  \xe2\x80\x96 paused  "
					  "\xe2\x9c\x93 completed  \xe2\x9c\x97 failed");
	ac_buf_free(&line);
}

static bool help_key(const ui_view *v, const ui_model *m, ui_pane *p, ui_action a, int page)
{
	(void)v;
	(void)m;
	(void)page;
	if (a == UI_ACT_UP && p->top) {
		p->top--;
		return true;
	}
	if (a == UI_ACT_DOWN) {
		p->top++;
		return true;
	}
	return false;
}

const ui_view ui_view_help = {
	.name = "Help",
	.draw = help_draw,
	.key = help_key,
};
