/* The Journal pane: the live tail of JOURNAL.jsonl, oldest at the top; it
 * follows new events while the cursor is on the last row. */
#include "ui_text.h"
#include "view.h"

#include <string.h>

enum { JNL_TIME_W = 8, JNL_AGENT_W = 8, JNL_ACTION_W = 15 };

static size_t journal_count(const ui_model *m)
{
	return m->n_events;
}

static const char *journal_key(const ui_model *m, size_t i)
{
	return ui_model_event(m, i)->id;
}

static bool journal_match(const ui_model *m, size_t i, const ui_pane *p)
{
	const ui_event *e = ui_model_event(m, i);
	const char *fields[] = {e->agent, e->status, e->action, e->message, e->id, NULL};

	return ui_filter_fields(p, fields);
}

static void journal_header(ac_buf *out, int width)
{
	ac_buf row = AC_BUF_INIT;

	ui_col(&row, "TIME", JNL_TIME_W, 0, 1);
	ui_col(&row, "S", 1, 0, 1);
	ui_col(&row, "AGENT", JNL_AGENT_W, 0, 1);
	ui_col(&row, "ACTION", JNL_ACTION_W, 0, 1);
	ac_buf_append(&row, "MESSAGE", 7);
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD);
	ac_buf_free(&row);
}

static ui_style journal_row(ac_buf *out, const ui_model *m, size_t i, int width, int64_t now_ms,
			    int *accent_x, int *accent_w)
{
	const ui_event *e = ui_model_event(m, i);
	char clock[9];
	ac_buf row = AC_BUF_INIT;

	(void)now_ms;
	ui_fmt_clock(clock, e->timestamp);
	ui_col(&row, clock, JNL_TIME_W, 0, 1);
	ui_col(&row, ui_status_symbol(e->st), 1, 0, 1);
	ui_col(&row, e->agent, JNL_AGENT_W, UI_FIT_ELLIPSIS, 1);
	ui_col(&row, e->action, JNL_ACTION_W, UI_FIT_ELLIPSIS, 1);
	ac_buf_append(&row, e->message, strlen(e->message));
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD | UI_FIT_ELLIPSIS);
	ac_buf_free(&row);
	*accent_x = JNL_TIME_W + 1;
	*accent_w = 1;
	return ui_status_style(e->st);
}

/* A journal that cannot be read (a folder in its place) says why instead
 * of looking empty. */
static void journal_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
			 int64_t now_ms)
{
	if (m->journal_error && !m->n_events)
		ui_list_draw_note(v, p, r, active, NULL, m->journal_error);
	else
		ui_list_draw(v, m, p, r, active, now_ms);
}

const ui_view ui_view_journal = {
	.name = "4 Journal",
	.draw = journal_draw,
	.key = ui_list_key,
	.count = journal_count,
	.item_key = journal_key,
	.match = journal_match,
	.header = journal_header,
	.row = journal_row,
	.empty = "no events yet in this journal",
};
