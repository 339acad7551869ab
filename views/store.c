/* The conversation's store tabs, as list panes: the session's memory
 * documents (its own, its user's and its agent's), its tool-result
 * artifacts, and its trace (time, kind, summary per record; it follows new
 * records while the cursor is on the last row). Each is drawn under the
 * conversation's title and tab bar (ui_conv_frame); a session without a
 * tenant says so instead of showing an empty list. Enter on a document or
 * an artifact opens it in full (ui_view_document). */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdio.h>
#include <string.h>

enum { MEMO_SCOPE_W = 7, TRACE_SEQ_W = 6, TRACE_TIME_W = 8, TRACE_KIND_W = 16 };

/* What a store tab shows instead of rows, or NULL: no tenant, an error. */
static const char *store_problem(const ui_model *m, const ui_view *v)
{
	if (m->store_note)
		return m->store_note;
	if (v == &ui_view_memos)
		return m->memos.error;
	if (v == &ui_view_artifacts)
		return m->artifacts.error;
	return m->trace_error;
}

static void store_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		       int64_t now_ms)
{
	ui_tab tab = v == &ui_view_memos ? UI_TAB_MEMORY
		     : v == &ui_view_artifacts ? UI_TAB_ARTIFACTS
					       : UI_TAB_TRACE;
	const char *problem = store_problem(m, v);
	ui_rect body = ui_conv_frame(m, tab, r, active,
				     tab == UI_TAB_TRACE ? "Esc: back" : "Enter: open  Esc: back");

	if (body.h < 3)
		return;
	if (problem) {
		ui_list_draw_note(v, p, body, active, NULL, "");
		screen_put(body.y + 2, body.x + 2, body.w - 2,
			   m->store_note ? UI_ST_DIM : UI_ST_ERROR, problem);
		return;
	}
	ui_list_draw(v, m, p, body, active, now_ms);
	if (tab == UI_TAB_TRACE && m->trace_skipped && body.h > 3) {
		char note[96];

		snprintf(note, sizeof(note), "%zu torn or corrupt record%s skipped", m->trace_skipped,
			 m->trace_skipped == 1 ? "" : "s");
		screen_put(body.y + body.h - 1, body.x + 2, body.w - 2, UI_ST_WARNING, note);
	}
}

/* ---- memory documents ---------------------------------------------------- */

static size_t memo_count(const ui_model *m)
{
	return m->memos.n;
}

/* Keys are used at once by the caller (views/list.c), on the UI thread:
 * one static buffer is enough. */
static char item_key_buf[192];

static const char *memo_key(const ui_model *m, size_t i)
{
	const ui_store_item *it = &m->memos.items[i];

	snprintf(item_key_buf, sizeof(item_key_buf), "%s/%.80s/%.90s", it->scope, it->raw_owner,
		 it->raw_name);
	return item_key_buf;
}

static bool memo_match(const ui_model *m, size_t i, const ui_pane *p)
{
	const ui_store_item *it = &m->memos.items[i];
	const char *fields[] = {it->name, it->owner, it->scope, NULL};

	return ui_filter_fields(p, fields);
}

static int owner_width(int width)
{
	int w = (width - MEMO_SCOPE_W - 2) / 3;

	return w < 8 ? 8 : w > 30 ? 30 : w;
}

static void memo_header(ac_buf *out, const ui_model *m, int width)
{
	(void)m;
	ac_buf row = AC_BUF_INIT;

	ui_col(&row, "SCOPE", MEMO_SCOPE_W, 0, 1);
	ui_col(&row, "OWNER", owner_width(width), 0, 1);
	ac_buf_append(&row, "DOCUMENT", 8);
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD);
	ac_buf_free(&row);
}

static ui_style memo_row(ac_buf *out, const ui_model *m, size_t i, int width, int64_t now_ms,
			 int *accent_x, int *accent_w)
{
	const ui_store_item *it = &m->memos.items[i];
	ac_buf row = AC_BUF_INIT;

	(void)now_ms;
	ui_col(&row, it->scope, MEMO_SCOPE_W, 0, 1);
	ui_col(&row, it->owner, owner_width(width), UI_FIT_ELLIPSIS, 1);
	ac_buf_append(&row, it->name, strlen(it->name));
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD | UI_FIT_ELLIPSIS);
	ac_buf_free(&row);
	*accent_x = 0;
	*accent_w = 0;
	return UI_ST_NORMAL;
}

const ui_view ui_view_memos = {
	.name = "Memory documents",
	.draw = store_draw,
	.key = ui_list_key,
	.count = memo_count,
	.item_key = memo_key,
	.match = memo_match,
	.header = memo_header,
	.row = memo_row,
	.empty = "no memory documents for this session, its user or its agent",
};

/* ---- artifacts ----------------------------------------------------------- */

static size_t artifact_count(const ui_model *m)
{
	return m->artifacts.n;
}

static const char *artifact_key(const ui_model *m, size_t i)
{
	return m->artifacts.items[i].raw_name;
}

static bool artifact_match(const ui_model *m, size_t i, const ui_pane *p)
{
	const char *fields[] = {m->artifacts.items[i].name, NULL};

	return ui_filter_fields(p, fields);
}

static void artifact_header(ac_buf *out, const ui_model *m, int width)
{
	(void)m;
	ui_text_fits(out, "TOOL CALL ID", width, UI_FIT_PAD);
}

static ui_style artifact_row(ac_buf *out, const ui_model *m, size_t i, int width, int64_t now_ms,
			     int *accent_x, int *accent_w)
{
	(void)now_ms;
	ui_text_fits(out, m->artifacts.items[i].name, width, UI_FIT_PAD | UI_FIT_ELLIPSIS);
	*accent_x = 0;
	*accent_w = 0;
	return UI_ST_NORMAL;
}

const ui_view ui_view_artifacts = {
	.name = "Artifacts",
	.draw = store_draw,
	.key = ui_list_key,
	.count = artifact_count,
	.item_key = artifact_key,
	.match = artifact_match,
	.header = artifact_header,
	.row = artifact_row,
	.empty = "no artifacts for this session",
};

/* ---- trace --------------------------------------------------------------- */

static size_t trace_count(const ui_model *m)
{
	return m->n_trace;
}

static const char *trace_key(const ui_model *m, size_t i)
{
	snprintf(item_key_buf, sizeof(item_key_buf), "%llu", (unsigned long long)m->trace[i].seq);
	return item_key_buf;
}

static bool trace_match(const ui_model *m, size_t i, const ui_pane *p)
{
	const char *fields[] = {m->trace[i].kind, m->trace[i].summary, NULL};

	return ui_filter_fields(p, fields);
}

static void trace_header(ac_buf *out, const ui_model *m, int width)
{
	(void)m;
	ac_buf row = AC_BUF_INIT;

	ui_col(&row, "SEQ", TRACE_SEQ_W, UI_FIT_RIGHT, 1);
	ui_col(&row, "TIME", TRACE_TIME_W, 0, 1);
	ui_col(&row, "KIND", TRACE_KIND_W, 0, 1);
	ac_buf_append(&row, "SUMMARY", 7);
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD);
	ac_buf_free(&row);
}

static ui_style trace_row(ac_buf *out, const ui_model *m, size_t i, int width, int64_t now_ms,
			  int *accent_x, int *accent_w)
{
	const ui_trace_entry *e = &m->trace[i];
	ac_buf row = AC_BUF_INIT;
	char seq[24], clock[9];

	(void)now_ms;
	snprintf(seq, sizeof(seq), "%llu", (unsigned long long)e->seq);
	ui_fmt_clock(clock, e->at);
	ui_col(&row, seq, TRACE_SEQ_W, UI_FIT_RIGHT, 1);
	ui_col(&row, clock, TRACE_TIME_W, 0, 1);
	ui_col(&row, e->kind, TRACE_KIND_W, UI_FIT_ELLIPSIS, 1);
	ac_buf_append(&row, e->summary, strlen(e->summary));
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD | UI_FIT_ELLIPSIS);
	ac_buf_free(&row);
	*accent_x = TRACE_SEQ_W + 1 + TRACE_TIME_W + 1;
	*accent_w = TRACE_KIND_W;
	return UI_ST_TOOL;
}

const ui_view ui_view_trace = {
	.name = "Trace",
	.draw = store_draw,
	.key = ui_list_key,
	.count = trace_count,
	.item_key = trace_key,
	.match = trace_match,
	.header = trace_header,
	.row = trace_row,
	.empty = "no trace records for this session yet",
};
