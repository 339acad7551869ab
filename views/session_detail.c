/* The selected session's detail, beside the Sessions list on a terminal
 * wide enough for both (k9s's describe beside the list): its status, task,
 * tokens and ages, then its last messages, from the model's conversation
 * when that is the selected session's. */
#include "screen.h"
#include "ac_text.h"
#include "ui_text.h"
#include "view.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	ui_rect r;
	int y;
	ui_style style;
} detail_walk;

static void detail_emit(const char *text, size_t len, void *ctx)
{
	detail_walk *w = ctx;
	char *line;

	if (w->y >= w->r.y + w->r.h)
		return;
	if ((line = strndup(text, len)))
		screen_put(w->y, w->r.x + 2, w->r.w - 3, w->style, line);
	free(line);
	w->y++;
}

static void field(detail_walk *w, const char *label, const char *value)
{
	ac_buf b = AC_BUF_INIT;

	ac_buf_printf(&b, "%-9s %s", label, value);
	w->style = UI_ST_NORMAL;
	ui_text_wrap(b.data, b.len, w->r.w - 3 > 1 ? w->r.w - 3 : 1, detail_emit, w);
	ac_buf_free(&b);
}

static ui_style role_style(ui_role role)
{
	switch (role) {
	case UI_ROLE_USER: return UI_ST_ROLE_USER;
	case UI_ROLE_ASSISTANT: return UI_ST_ROLE_ASSISTANT;
	case UI_ROLE_SYSTEM: return UI_ST_ROLE_SYSTEM;
	default: return UI_ST_TOOL;
	}
}

/* The last conversation lines that fit in rows rows (one row each). */
static void last_messages(const ui_model *m, detail_walk *w)
{
	int rows = w->r.y + w->r.h - w->y;
	size_t first = m->n_conv > (size_t)(rows > 0 ? rows : 0) ? m->n_conv - (size_t)rows : 0;

	for (size_t i = first; i < m->n_conv && w->y < w->r.y + w->r.h; i++) {
		const ui_conv_line *l = &m->conv[i];
		ac_buf cut = AC_BUF_INIT;

		ui_text_fit(&cut, l->text, strlen(l->text), w->r.w - 3, UI_FIT_ELLIPSIS);
		screen_put(w->y++, w->r.x + 2, w->r.w - 3,
			   l->kind == UI_CONV_ROLE ? role_style(l->role)
			   : l->kind == UI_CONV_TEXT ? UI_ST_NORMAL : UI_ST_TOOL,
			   cut.data ? cut.data : "");
		ac_buf_free(&cut);
	}
}

/* The recorded usage: the totals, then the newest turns that leave room
 * for a few messages below. */
static void usage_lines(const ui_model *m, detail_walk *w)
{
	int room = (w->r.y + w->r.h - w->y) / 3;
	size_t n = m->n_conv_usage_rows, first;

	field(w, "usage", m->conv_usage_total);
	if (room <= 0 || !n)
		return;
	first = n > (size_t)room ? n - (size_t)room : 0;
	for (size_t i = first; i < n && w->y < w->r.y + w->r.h; i++)
		screen_put(w->y++, w->r.x + 4, w->r.w - 5, UI_ST_DIM, m->conv_usage_rows[i]);
}

/* Where it sits: a child names its parent, a parent counts its children. */
static void tree_fields(const ui_model *m, detail_walk *w, size_t i)
{
	const ui_session *s = &m->sessions[i];
	size_t parent = ui_model_tree_parent(m, i);
	ac_buf b = AC_BUF_INIT;

	if (s->parent) {
		if (parent != SIZE_MAX)
			ac_buf_printf(&b, "%s", m->sessions[parent].id);
		else /* not listed: its id, made safe here */
			ac_text_sanitize(&b, s->parent, strlen(s->parent));
		ac_buf_printf(&b, " (this is its %s)", s->relation ? s->relation : "child");
		field(w, "parent", b.data ? b.data : "");
	}
	if (s->last_action)
		field(w, "last", s->last_action);
	if (s->children) {
		ac_buf_clear(&b);
		ac_buf_printf(&b, "%zu sub-agent%s or fork%s (%s)", s->children,
			      s->children == 1 ? "" : "s", s->children == 1 ? "" : "s",
			      ui_model_tree_closed(m, s->raw_id) ? "folded: + shows them"
								 : "- folds them");
		field(w, "children", b.data ? b.data : "");
	}
	ac_buf_free(&b);
}

void ui_session_detail_draw(const ui_model *m, const ui_pane *sessions, ui_rect r)
{
	detail_walk w = {r, r.y + 1, UI_ST_NORMAL};
	const ui_session *s;
	char cell[64];
	size_t i;

	if (r.h < 3 || r.w < 10)
		return;
	ui_draw_title(r, "Session", NULL, NULL, false);
	if (!ui_list_selected(&ui_view_sessions, m, sessions, &i)) {
		screen_put(r.y + 2, r.x + 2, r.w - 2, UI_ST_DIM, "no session selected");
		return;
	}
	s = &m->sessions[i];
	field(&w, "id", s->id);
	snprintf(cell, sizeof(cell), "%s %s%s%s", ui_status_symbol(s->st), s->status,
		 s->pending ? ", " : "", s->pending ? s->pending : "");
	field(&w, "status", cell);
	/* The tool's own word on what it waits for: the operator's next step. */
	if (s->waiting_for)
		field(&w, "waits on", s->waiting_for);
	field(&w, "task", s->task);
	tree_fields(m, &w, i);
	if (*s->user || *s->agent) {
		ac_buf who = AC_BUF_INIT;

		ac_buf_printf(&who, "%s%s%s", s->user, *s->user && *s->agent ? "/" : "", s->agent);
		field(&w, "who", who.data ? who.data : "");
		ac_buf_free(&who);
	}
	ui_fmt_count(cell, sizeof(cell), s->tokens);
	snprintf(cell + strlen(cell), sizeof(cell) - strlen(cell), " tokens, %zu messages",
		 s->messages);
	field(&w, "size", cell);
	field(&w, "updated", *s->updated ? s->updated : s->created);
	if (m->conv_session && !strcmp(m->conv_session, s->raw_id) && m->conv_usage_total)
		usage_lines(m, &w);
	w.y++;
	if (w.y >= r.y + r.h)
		return;
	screen_put(w.y++, r.x + 1, r.w - 1, UI_ST_HEADER, "Last messages");
	if (!m->conv_session || strcmp(m->conv_session, s->raw_id))
		screen_put(w.y, r.x + 2, r.w - 3, UI_ST_DIM, "(reading...)");
	else if (m->conv_error)
		screen_put(w.y, r.x + 2, r.w - 3, UI_ST_ERROR, m->conv_error);
	else if (!m->n_conv)
		screen_put(w.y, r.x + 2, r.w - 3, UI_ST_DIM, "no messages yet");
	else
		last_messages(m, &w);
}
