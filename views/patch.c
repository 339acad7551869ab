/* An operation's patch, opened with Enter in Operations (lazygit's commit
 * patch): the commit's unified diff, one screen row per line, cut at the
 * pane's width, coloured by what each line is (theme styles: additions as
 * completed, removals as failed, hunks as running, file headers as column
 * titles). The lines are the model's, sanitised there. */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdio.h>
#include <string.h>

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

ui_style ui_patch_style(const char *line)
{
	if (starts(line, "diff --git ") || starts(line, "--- ") || starts(line, "+++ ") ||
	    starts(line, "index ") || starts(line, "new file mode") ||
	    starts(line, "deleted file mode") || starts(line, "old mode") ||
	    starts(line, "new mode"))
		return UI_ST_HEADER;
	if (starts(line, "@@"))
		return UI_ST_RUNNING;
	if (line[0] == '+')
		return UI_ST_COMPLETED;
	if (line[0] == '-')
		return UI_ST_FAILED;
	if (starts(line, "Binary files ") || line[0] == '\\')
		return UI_ST_WARNING;
	return UI_ST_NORMAL;
}

static void patch_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		       int64_t now_ms)
{
	ui_rect body = {r.y + 2, r.x, r.h - 2, r.w};
	size_t total = m->n_patch_lines, h = body.h > 0 ? (size_t)body.h : 0;
	ac_buf cut = AC_BUF_INIT;
	char extra[96];

	(void)v;
	(void)now_ms;
	if (r.h < 3)
		return;
	p->list_rows = body.h;
	if (p->follow || (total > h && p->top > total - h))
		p->top = total > h ? total - h : 0;
	if (total <= h)
		p->top = 0;
	snprintf(extra, sizeof(extra), "lines %zu-%zu of %zu  Esc: back", total ? p->top + 1 : 0,
		 p->top + h < total ? p->top + h : total, total);
	ui_draw_title(r, "Patch", NULL, extra, active);
	ui_text_fit(&cut, m->patch_title ? m->patch_title : "", m->patch_title ?
		    strlen(m->patch_title) : 0, r.w - 1, UI_FIT_ELLIPSIS);
	screen_put(r.y + 1, r.x + 1, r.w - 1, UI_ST_DIM, cut.data ? cut.data : "");
	if (m->patch_error) {
		screen_put(body.y + 1, 2, r.w - 2, UI_ST_ERROR, m->patch_error);
	} else if (!total) {
		screen_put(body.y + 1, 2, r.w - 2, UI_ST_DIM,
			   "(no file changed outside agent state)");
	} else {
		for (size_t row = 0; row < h && p->top + row < total; row++) {
			const char *line = m->patch_lines[p->top + row];

			ac_buf_clear(&cut);
			ui_text_fit(&cut, line, strlen(line), r.w, UI_FIT_ELLIPSIS);
			screen_put(body.y + (int)row, r.x, r.w, ui_patch_style(line),
				   cut.data ? cut.data : "");
		}
	}
	ac_buf_free(&cut);
}

const ui_view ui_view_patch = {
	.name = "Patch",
	.draw = patch_draw,
	.key = ui_scroll_key,
};
