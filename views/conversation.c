/* The conversation of one session: each message's role, its text wrapped
 * to the pane, tool calls (→) and results (←) shown as such. Scrolls by
 * wrapped rows; Esc goes back to the Sessions pane. */
#include "../tui/screen.h"
#include "../tui/ui_text.h"
#include "../tui/view.h"

#include <stdlib.h>
#include <string.h>

enum { CONV_INDENT = 2 };

static ui_style role_style(ui_role role)
{
	switch (role) {
	case UI_ROLE_USER: return UI_ST_ROLE_USER;
	case UI_ROLE_ASSISTANT: return UI_ST_ROLE_ASSISTANT;
	case UI_ROLE_SYSTEM: return UI_ST_ROLE_SYSTEM;
	case UI_ROLE_TOOL: return UI_ST_TOOL;
	default: return UI_ST_DIM;
	}
}

typedef struct {
	ui_rect r;
	size_t row;       /* wrapped rows seen so far */
	size_t top;       /* first row drawn */
	ui_style style;
	int indent;
	bool draw;
} conv_walk;

static void conv_emit(const char *text, size_t len, void *ctx)
{
	conv_walk *w = ctx;

	if (w->draw && w->row >= w->top && w->row < w->top + (size_t)w->r.h) {
		char *line = strndup(text, len);

		if (line)
			screen_put(w->r.y + (int)(w->row - w->top), w->r.x + w->indent,
				   w->r.w - w->indent, w->style, line);
		free(line);
	}
	w->row++;
}

/* Walks every wrapped row of the conversation for width; draws those in
 * [top, top + r.h) when w->draw. Returns the total. */
static size_t conv_walk_rows(const ui_model *m, conv_walk *w)
{
	for (size_t i = 0; i < m->n_conv; i++) {
		const ui_conv_line *l = &m->conv[i];
		int indent = l->kind == UI_CONV_ROLE ? 0 : CONV_INDENT;

		if (l->kind == UI_CONV_ROLE && i > 0)
			conv_emit("", 0, w); /* a blank row between messages */
		w->indent = indent;
		w->style = l->kind == UI_CONV_ROLE ? role_style(l->role)
			   : l->kind == UI_CONV_TEXT ? UI_ST_NORMAL
						     : UI_ST_TOOL;
		ui_text_wrap(l->text, strlen(l->text), w->r.w - indent, conv_emit, w);
	}
	return w->row;
}

size_t ui_conversation_rows(const ui_model *m, int width)
{
	conv_walk w = {{0, 0, 1, width}, 0, 0, UI_ST_NORMAL, 0, false};

	return conv_walk_rows(m, &w);
}

static void conv_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		      int64_t now_ms)
{
	ui_rect body = {r.y + 1, r.x, r.h - 1, r.w};
	size_t total;
	conv_walk w = {body, 0, 0, UI_ST_NORMAL, 0, true};
	char extra[64];

	(void)now_ms;
	(void)v;
	if (r.h < 2)
		return;
	total = ui_conversation_rows(m, r.w);
	p->list_rows = body.h;
	if (p->follow || (total > (size_t)body.h && p->top > total - (size_t)body.h))
		p->top = total > (size_t)body.h ? total - (size_t)body.h : 0;
	if (total <= (size_t)body.h)
		p->top = 0;
	snprintf(extra, sizeof(extra), "rows %zu-%zu of %zu  Esc: back", total ? p->top + 1 : 0,
		 p->top + (size_t)body.h < total ? p->top + (size_t)body.h : total, total);
	{
		ac_buf title = AC_BUF_INIT;

		ac_buf_printf(&title, "Conversation %s", m->conv_title ? m->conv_title : "");
		ui_draw_title(r, title.data, NULL, extra, active);
		ac_buf_free(&title);
	}
	if (m->conv_error) {
		screen_put(body.y + 1, 2, r.w - 2, UI_ST_ERROR, m->conv_error);
		return;
	}
	if (!m->n_conv) {
		screen_put(body.y + 1, 2, r.w - 2, UI_ST_DIM, "no messages in this session yet");
		return;
	}
	w.top = p->top;
	conv_walk_rows(m, &w);
}

static bool conv_key(const ui_view *v, const ui_model *m, ui_pane *p, ui_action a, int page)
{
	size_t before = p->top;

	(void)v;
	(void)m;
	if (page < 1)
		page = 1;
	p->follow = false;
	switch (a) {
	case UI_ACT_UP: if (p->top) p->top--; break;
	case UI_ACT_DOWN: p->top++; break; /* clamped when drawn */
	case UI_ACT_TOP: p->top = 0; break;
	case UI_ACT_BOTTOM: p->follow = true; break;
	case UI_ACT_PGUP: p->top = p->top > (size_t)page ? p->top - (size_t)page : 0; break;
	case UI_ACT_PGDN: p->top += (size_t)page; break;
	default: return false;
	}
	return before != p->top || p->follow;
}

const ui_view ui_view_conversation = {
	.name = "Conversation",
	.draw = conv_draw,
	.key = conv_key,
};
