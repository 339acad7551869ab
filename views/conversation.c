/* The conversation of one session: a title line, a tab bar (Messages,
 * Memory, Artifacts, Trace; `[` and `]` switch) and the tab. Messages show
 * each message's role, its text wrapped to the pane, tool calls (→) and
 * results (←) as such; while the view is at the end it follows new
 * messages; a memo document or artifact opened from its tab is
 * shown here in full the same way. Both scroll by wrapped rows; Esc goes
 * back (from a document to its list, from the conversation to Sessions).
 * The other tabs are list panes (views/store.c). */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CONV_INDENT = 2 };

static const char *const tab_names[UI_TAB_COUNT] = {
	[UI_TAB_MESSAGES] = "Messages",
	[UI_TAB_MEMORY] = "Memory",
	[UI_TAB_ARTIFACTS] = "Artifacts",
	[UI_TAB_TRACE] = "Trace",
};

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

/* The tab's label: its name, and how many items once they were read. */
static void tab_label(ac_buf *out, const ui_model *m, ui_tab tab)
{
	ac_buf_printf(out, "%s", tab_names[tab]);
	if (tab == UI_TAB_MEMORY && m->memos.loaded && !m->memos.error)
		ac_buf_printf(out, " %zu", m->memos.n);
	else if (tab == UI_TAB_ARTIFACTS && m->artifacts.loaded && !m->artifacts.error)
		ac_buf_printf(out, " %zu", m->artifacts.n);
	else if (tab == UI_TAB_TRACE && m->trace_loaded)
		ac_buf_printf(out, " %zu", m->n_trace);
}

ui_rect ui_conv_frame(const ui_model *m, ui_tab tab, ui_rect r, bool active, const char *extra)
{
	ac_buf t = AC_BUF_INIT, bar = AC_BUF_INIT, cut = AC_BUF_INIT;
	int mark_x = 0, mark_w = 0;

	ac_buf_printf(&t, "Conversation %s", m->conv_title ? m->conv_title : "");
	ui_draw_title(r, t.data, NULL, extra, active);
	if (r.h < 2)
		goto done;
	ac_buf_append(&bar, " ", 1);
	for (int i = 0; i < UI_TAB_COUNT; i++) {
		int x = ui_text_width(bar.data, bar.len);

		ac_buf_append(&bar, i == (int)tab ? "[" : " ", 1);
		tab_label(&bar, m, (ui_tab)i);
		ac_buf_append(&bar, i == (int)tab ? "]" : " ", 1);
		if (i == (int)tab) {
			mark_x = x;
			mark_w = ui_text_width(bar.data, bar.len) - x;
		}
		ac_buf_append(&bar, " ", 1);
	}
	ac_buf_printf(&bar, "  [ ]: tab   ");
	if (m->conv_tenant && !m->store_note)
		ac_buf_printf(&bar, "tenant %s", m->conv_tenant);
	else
		ac_buf_printf(&bar, "%s", m->conv_tenant ? "tenant unusable" : "no tenant");
	ui_text_fit(&cut, bar.data, bar.len, r.w, UI_FIT_PAD | UI_FIT_ELLIPSIS);
	screen_fill(r.y + 1, r.x, r.w, UI_ST_HEADER);
	screen_put(r.y + 1, r.x, r.w, UI_ST_HEADER, cut.data ? cut.data : "");
	if (mark_w > 0 && mark_x + mark_w <= r.w) {
		size_t skip = ui_text_prefix(cut.data, cut.len, mark_x, NULL);
		size_t take = ui_text_prefix(cut.data + skip, cut.len - skip, mark_w, NULL);
		char *cell = strndup(cut.data + skip, take);

		if (cell)
			screen_put(r.y + 1, r.x + mark_x, mark_w, UI_ST_TAB_ACTIVE, cell);
		free(cell);
	}
done:
	ac_buf_free(&t);
	ac_buf_free(&bar);
	ac_buf_free(&cut);
	return r.h < 2 ? (ui_rect){r.y + r.h, r.x, 0, r.w} : (ui_rect){r.y + 2, r.x, r.h - 2, r.w};
}

/* ---- wrapped text, scrolled by rows -------------------------------------- */

typedef struct {
	ui_rect r;
	size_t row;       /* wrapped rows seen so far */
	size_t stop_at;   /* message (0-based) whose first row is wanted; SIZE_MAX: none */
	size_t top;       /* first row drawn */
	ui_style style;
	int indent;
	bool draw;
	const ui_pane *filter; /* only messages (document lines) it matches; may be NULL */
	size_t from;      /* the conversation line to start at (a message's first) */
	bool any;         /* a message was shown before from */
	ui_pane *marks;   /* records where messages start (no filter), rows offset by base */
	size_t base;
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

/* True when the pane's filter is empty or matches one of lines[0..n). */
static bool lines_match(const ui_pane *p, const ui_conv_line *lines, size_t n)
{
	if (!p || !p->filter[0])
		return true;
	for (size_t i = 0; i < n; i++) {
		const char *fields[] = {lines[i].text, NULL};

		if (ui_filter_fields(p, fields))
			return true;
	}
	return false;
}

/* Walks every wrapped row of the conversation for width; draws those in
 * [top, top + r.h) when w->draw, stopping below them. With a filter, only
 * the messages that match it (any of their lines). Returns the total
 * (when not drawing). */
static size_t conv_walk_rows(const ui_model *m, conv_walk *w)
{
	bool shown = false, any = w->any;
	size_t message = 0;

	for (size_t i = w->from; i < m->n_conv; i++) {
		const ui_conv_line *l = &m->conv[i];
		int indent = l->kind == UI_CONV_ROLE ? 0 : CONV_INDENT;

		/* Drawing: nothing below the pane is seen (only a count walks on). */
		if (w->draw && w->row >= w->top + (size_t)w->r.h)
			break;

		/* A message starts with its role line (tui/model/model.c). */
		if (l->kind == UI_CONV_ROLE && message++ == w->stop_at)
			return w->row + (any ? 1 : 0);
		if (l->kind == UI_CONV_ROLE || i == 0) {
			size_t end = i + 1;

			if (w->marks) {
				size_t k = w->marks->conv_count.n_marks++ % UI_CONV_MARKS;

				w->marks->conv_count.marks[k].line = i;
				w->marks->conv_count.marks[k].row = w->base + w->row;
			}

			while (end < m->n_conv && m->conv[end].kind != UI_CONV_ROLE)
				end++;
			shown = lines_match(w->filter, &m->conv[i], end - i);
			if (shown && any)
				conv_emit("", 0, w); /* a blank row between messages */
			any = any || shown;
		}
		if (!shown)
			continue;
		w->indent = indent;
		w->style = l->kind == UI_CONV_ROLE ? role_style(l->role)
			   : l->kind == UI_CONV_TEXT ? UI_ST_NORMAL
						     : UI_ST_TOOL;
		ui_text_wrap(l->text, strlen(l->text), w->r.w - indent, conv_emit, w);
	}
	return w->row;
}

static size_t doc_walk_rows(const ui_model *m, conv_walk *w)
{
	for (size_t i = 0; i < m->n_doc_lines; i++) {
		const char *fields[] = {m->doc_lines[i], NULL};

		if (!w->filter || !w->filter->filter[0] || ui_filter_fields(w->filter, fields))
			ui_text_wrap(m->doc_lines[i], strlen(m->doc_lines[i]), w->r.w, conv_emit, w);
	}
	return w->row;
}

size_t ui_conversation_rows(const ui_model *m, const ui_pane *filter, int width)
{
	conv_walk w = {{0, 0, 1, width}, 0, SIZE_MAX, 0, UI_ST_NORMAL, 0, false, filter, 0, false, NULL, 0};

	return conv_walk_rows(m, &w);
}

/* ui_conversation_rows for p's view, wrapping only the lines added since
 * p last counted when it has no filter: appends add lines at the end,
 * anything else is a new generation of lines (counted whole). */
static size_t conv_total(const ui_model *m, ui_pane *p, int width)
{
	conv_walk w = {{0, 0, 1, width}, 0, SIZE_MAX, 0, UI_ST_NORMAL, 0, false, NULL, 0, false, NULL, 0};

	if (p->filter[0])
		return ui_conversation_rows(m, p, width);
	if (p->conv_count.gen != m->conv_gen || p->conv_count.width != width ||
	    p->conv_count.lines > m->n_conv) {
		p->conv_count.gen = m->conv_gen;
		p->conv_count.width = width;
		p->conv_count.lines = p->conv_count.rows = p->conv_count.n_marks = 0;
	}
	if (p->conv_count.lines < m->n_conv) {
		w.from = p->conv_count.lines;
		w.any = w.from > 0;
		w.marks = p;
		w.base = p->conv_count.rows;
		p->conv_count.rows += conv_walk_rows(m, &w);
		p->conv_count.lines = m->n_conv;
	}
	return p->conv_count.rows;
}

/* The row message (0-based) starts at, under p's filter, for width. */
static size_t message_row(const ui_model *m, const ui_pane *p, int width, size_t message)
{
	conv_walk w = {{0, 0, 1, width}, 0, message, 0, UI_ST_NORMAL, 0, false, p, 0, false, NULL, 0};

	return conv_walk_rows(m, &w);
}

size_t ui_document_rows(const ui_model *m, const ui_pane *filter, int width)
{
	conv_walk w = {{0, 0, 1, width}, 0, SIZE_MAX, 0, UI_ST_NORMAL, 0, false, filter, 0, false, NULL, 0};

	return doc_walk_rows(m, &w);
}

/* Keeps p->top within total rows shown rows at a time (follow: the end)
 * and writes the "rows a-b of n" note, with the filter kept (as the lists'
 * titles show theirs: rows hidden by it are not a surprise). */
static void scroll_settle(ui_pane *p, size_t total, int rows, char *note, size_t size)
{
	size_t h = rows > 0 ? (size_t)rows : 0;

	p->list_rows = rows;
	if (p->follow || (total > h && p->top > total - h))
		p->top = total > h ? total - h : 0;
	if (total <= h)
		p->top = 0;
	snprintf(note, size, "rows %zu-%zu of %zu%s%s  Esc: back", total ? p->top + 1 : 0,
		 p->top + h < total ? p->top + h : total, total, p->filter[0] ? "  /" : "",
		 p->filter);
}

static void conv_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		      int64_t now_ms)
{
	ui_rect body = {r.y + 2, r.x, r.h - 2, r.w};
	conv_walk w = {body, 0, SIZE_MAX, 0, UI_ST_NORMAL, 0, true, NULL, 0, false, NULL, 0};
	char extra[80 + sizeof(p->filter)];
	size_t total;

	(void)now_ms;
	(void)v;
	if (r.h < 3)
		return;
	if (m->conv_stale && body.h > 1) {
		ac_buf note = AC_BUF_INIT, cut = AC_BUF_INIT;

		/* Drawn below the frame, which is drawn after the scroll note. */
		ac_buf_printf(&note, " file unreadable now, showing the last good read: %s",
			      m->conv_stale);
		ui_text_fit(&cut, note.data, note.len, r.w, UI_FIT_ELLIPSIS);
		screen_fill(body.y, r.x, r.w, UI_ST_WARNING);
		screen_put(body.y, r.x, r.w, UI_ST_WARNING, cut.data ? cut.data : "");
		ac_buf_free(&note);
		ac_buf_free(&cut);
		body.y++;
		body.h--;
		w.r = body;
	}
	total = conv_total(m, p, r.w);
	/* Opened at a message (a search found it there): it starts the view. */
	if (p->goto_message && m->n_conv) {
		p->top = message_row(m, p, r.w, p->goto_message - 1);
		p->follow = false;
		p->goto_message = 0;
	}
	scroll_settle(p, total, body.h, extra, sizeof(extra));
	/* At the end, the view follows what the agent appends (as the
	 * journal's G does); moving up (ui_scroll_key) stops it. */
	if (total && body.h > 0 && p->top + (size_t)body.h >= total)
		p->follow = true;
	ui_conv_frame(m, UI_TAB_MESSAGES, r, active, extra);
	if (m->conv_error) {
		screen_put(body.y + 1, 2, r.w - 2, UI_ST_ERROR, m->conv_error);
		return;
	}
	if (!m->n_conv) {
		screen_put(body.y + 1, 2, r.w - 2, UI_ST_DIM, "no messages in this session yet");
		return;
	}
	w.top = p->top;
	w.filter = p;
	/* Counted for this width (conv_total): start at the latest message
	 * that starts at or above the top, not at the first. */
	if (!p->filter[0] && p->conv_count.gen == m->conv_gen && p->conv_count.width == r.w &&
	    p->conv_count.lines == m->n_conv) {
		size_t n = p->conv_count.n_marks < UI_CONV_MARKS ? p->conv_count.n_marks : UI_CONV_MARKS;

		for (size_t j = 1; j <= n; j++) {
			size_t k = (p->conv_count.n_marks - j) % UI_CONV_MARKS;

			if (p->conv_count.marks[k].row <= p->top) {
				w.from = p->conv_count.marks[k].line;
				w.row = p->conv_count.marks[k].row;
				w.any = w.from > 0;
				break;
			}
		}
	}
	if (!total) { /* counted under the same filter */
		screen_put(body.y + 1, 2, r.w - 2, UI_ST_DIM, "no message matches the filter");
		return;
	}
	conv_walk_rows(m, &w);
}

/* A memo document or an artifact, in full: its name and size, then its
 * lines wrapped. */
static void doc_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		     int64_t now_ms)
{
	ui_rect body = {r.y + 3, r.x, r.h - 3, r.w};
	conv_walk w = {body, 0, SIZE_MAX, 0, UI_ST_NORMAL, 0, true, NULL, 0, false, NULL, 0};
	ac_buf head = AC_BUF_INIT, cut = AC_BUF_INIT;
	char extra[80 + sizeof(p->filter)];

	(void)now_ms;
	(void)v;
	if (r.h < 4)
		return;
	scroll_settle(p, ui_document_rows(m, p, r.w), body.h, extra, sizeof(extra));
	ui_conv_frame(m, m->doc_tab, r, active, extra);
	ac_buf_printf(&head, " %s  %zu bytes", m->doc_title ? m->doc_title : "", m->doc_bytes);
	ui_text_fit(&cut, head.data, head.len, r.w, UI_FIT_ELLIPSIS);
	screen_put(r.y + 2, r.x, r.w, UI_ST_DIM, cut.data ? cut.data : "");
	if (m->doc_error)
		screen_put(body.y + 1, 2, r.w - 2, UI_ST_ERROR, m->doc_error);
	else if (!m->doc_bytes)
		screen_put(body.y + 1, 2, r.w - 2, UI_ST_DIM, "(empty)");
	else {
		w.top = p->top;
		w.filter = p;
		doc_walk_rows(m, &w);
	}
	ac_buf_free(&head);
	ac_buf_free(&cut);
}

const ui_view ui_view_conversation = {
	.name = "Conversation",
	.draw = conv_draw,
	.key = ui_scroll_key,
};

const ui_view ui_view_document = {
	.name = "Document",
	.draw = doc_draw,
	.key = ui_scroll_key,
};
