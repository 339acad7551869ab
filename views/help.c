/* The help pane: every key of the key table (the model keeps its rows),
 * grouped by the panes where it applies. */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdio.h>
#include <string.h>

/* Where the keys of a group apply, as a heading: the panes by name, whole
 * groups of them by what they are. */
static void heading(ac_buf *out, unsigned panes)
{
	const char *sep = "";
	unsigned named = panes;

	if ((panes & UI_IN_PANES) == UI_IN_PANES) {
		ac_buf_printf(out, "Everywhere%s:", panes & UI_IN(UI_PANE_DIALOG) ? ", a dialog too" : "");
		return;
	}
	if ((panes & UI_IN_LISTS) == UI_IN_LISTS)
		named &= ~(unsigned)UI_IN_LISTS;
	if ((panes & UI_IN_CONVERSATION) == UI_IN_CONVERSATION)
		named &= ~(unsigned)UI_IN_CONVERSATION;
	for (int p = 0; p < UI_PANE_COUNT; p++)
		if (named & UI_IN(p)) {
			ac_buf_printf(out, "%s%s", sep, ui_pane_name((ui_pane_id)p));
			sep = ", ";
		}
	if ((panes & UI_IN_LISTS) == UI_IN_LISTS) {
		ac_buf_printf(out, "%severy list (1-4)", sep);
		sep = ", ";
	}
	if ((panes & UI_IN_CONVERSATION) == UI_IN_CONVERSATION)
		ac_buf_printf(out, "%sa conversation (every tab, a document)", sep);
	if (out->len && out->data[0] >= 'a' && out->data[0] <= 'z')
		out->data[0] = (char)(out->data[0] - 'a' + 'A');
	ac_buf_putc(out, ':');
}

/* True when key k is the first of the table with its panes: it opens the
 * group of all the keys that apply exactly there. */
static bool opens_group(const ui_model *m, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (m->keys[j].panes == m->keys[k].panes)
			return false;
	return true;
}

static bool everywhere(unsigned panes)
{
	return (panes & UI_IN_PANES) == UI_IN_PANES;
}

/* The groups in table order, but the keys of every pane last: a pane's
 * own keys are what help is opened for. */
ui_help_kind ui_help_line(ac_buf *out, const ui_model *m, size_t i, int width)
{
	size_t seen = 0;

	for (size_t at = 0; at < 2 * m->n_keys; at++) {
		size_t g = at % m->n_keys;

		if (everywhere(m->keys[g].panes) != (at >= m->n_keys) || !opens_group(m, g))
			continue;
		if (seen++ == i) {
			ac_buf row = AC_BUF_INIT;

			heading(&row, m->keys[g].panes);
			ui_text_fit(out, row.data, row.len, width, UI_FIT_ELLIPSIS);
			ac_buf_free(&row);
			return UI_HELP_HEADING;
		}
		for (size_t k = g; k < m->n_keys; k++) {
			if (m->keys[k].panes != m->keys[g].panes || seen++ != i)
				continue;
			ac_buf row = AC_BUF_INIT;

			ac_buf_printf(&row, "  ");
			ui_col(&row, m->keys[k].label, 8, 0, 2);
			ac_buf_append(&row, m->keys[k].help, strlen(m->keys[k].help));
			ui_text_fit(out, row.data, row.len, width, UI_FIT_ELLIPSIS);
			ac_buf_free(&row);
			return UI_HELP_KEY;
		}
	}
	return UI_HELP_END;
}

static void help_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		      int64_t now_ms)
{
	ac_buf line = AC_BUF_INIT;
	size_t total = 0;
	int row = 0;

	(void)now_ms;
	while (ui_help_line(&line, m, total, r.w))
		total++;
	if (r.h > 2 && p->top + (size_t)(r.h - 2) > total)
		p->top = total > (size_t)(r.h - 2) ? total - (size_t)(r.h - 2) : 0;
	p->list_rows = r.h - 2;
	ui_draw_title(r, v->name, NULL, "Esc or ?: back", active);
	for (size_t i = p->top; row < r.h - 2; i++, row++) {
		ac_buf_clear(&line);
		ui_help_kind kind = ui_help_line(&line, m, i, r.w - 2);

		if (kind == UI_HELP_END)
			break;
		screen_put(r.y + 1 + row, r.x + 2, r.w - 2,
			   kind == UI_HELP_HEADING ? UI_ST_HEADER : UI_ST_NORMAL, line.data);
	}
	if (row < r.h - 1)
		screen_put(r.y + 1 + row + (row < r.h - 2 ? 1 : 0), r.x + 2, r.w - 2, UI_ST_DIM,
			   m->read_only ? "read-only: p r c R are disabled"
					: "statuses: \xe2\x96\xb6 running  \xe2\x80\x96 paused  "
					  "\xe2\x9c\x93 completed  \xe2\x9c\x97 failed");
	ac_buf_free(&line);
}

const ui_view ui_view_help = {
	.name = "Help",
	.draw = help_draw,
	.key = ui_scroll_key_clamped,
};
