/* A text in full, in front of the panes: a journal event as pretty JSON or
 * a checkpoint's preview (model.viewer). Its title, then its lines wrapped
 * to the pane, scrolled by wrapped rows; Esc goes back. */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	ui_rect r;
	size_t row, top;
	bool draw;
} viewer_walk;

static void viewer_emit(const char *text, size_t len, void *ctx)
{
	viewer_walk *w = ctx;

	if (w->draw && w->row >= w->top && w->row < w->top + (size_t)w->r.h) {
		char *line = strndup(text, len);

		if (line)
			screen_put(w->r.y + (int)(w->row - w->top), w->r.x + 1, w->r.w - 1,
				   UI_ST_NORMAL, line);
		free(line);
	}
	w->row++;
}

/* Walks every wrapped row (drawing those in view when w->draw). */
static size_t viewer_walk_rows(const ui_model *m, viewer_walk *w)
{
	int width = w->r.w > 2 ? w->r.w - 1 : 1;

	for (size_t i = 0; i < m->viewer.n; i++) {
		const char *line = m->viewer.lines[i];

		ui_text_wrap(line, strlen(line), width, viewer_emit, w);
	}
	return w->row;
}

static void viewer_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
			int64_t now_ms)
{
	ui_rect body = {r.y + 1, r.x, r.h - 1, r.w};
	viewer_walk w = {body, 0, 0, false};
	size_t total, h = body.h > 0 ? (size_t)body.h : 0;
	char extra[96];

	(void)v;
	(void)now_ms;
	if (r.h < 2)
		return;
	total = viewer_walk_rows(m, &w);
	if (p->follow || (total > h && p->top > total - h))
		p->top = total > h ? total - h : 0;
	if (total <= h)
		p->top = 0;
	p->follow = false;
	snprintf(extra, sizeof(extra), "rows %zu-%zu of %zu  Esc: back", total ? p->top + 1 : 0,
		 p->top + h < total ? p->top + h : total, total);
	ui_draw_title(r, m->viewer.title ? m->viewer.title : "", NULL, extra, active);
	p->list_rows = body.h;
	w = (viewer_walk){body, 0, p->top, true};
	viewer_walk_rows(m, &w);
}

const ui_view ui_view_viewer = {
	.name = "View",
	.draw = viewer_draw,
	.key = ui_scroll_key,
};
