/* The Journal pane: the live tail of JOURNAL.jsonl, oldest at the top; it
 * follows new events while the cursor is on the last row. With f it shows
 * only the selected session's events. While a whole-journal search is open
 * the pane lists its matches instead, newest first (ui_view_jsearch). */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdio.h>
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

/* Whether e belongs to session id: it names it, or its parent is one of
 * the session's operations. */
static bool event_of_session(const ui_model *m, const ui_event *e, const char *id)
{
	if (e->session && !strcmp(e->session, id))
		return true;
	if (e->parent) /* newest first: an event's parent is usually recent */
		for (size_t i = m->n_ops; i-- > 0;)
			if (!strcmp(m->ops[i].id, e->parent))
				return !strcmp(m->ops[i].session, id);
	return false;
}

static bool journal_match(const ui_model *m, size_t i, const ui_pane *p)
{
	const ui_event *e = ui_model_event(m, i);
	const char *fields[] = {e->agent, e->status, e->action, e->message, e->id,
				e->invalid ? e->invalid : "", NULL};

	if (p->session[0] && !event_of_session(m, e, p->session))
		return false;
	return ui_filter_fields(p, fields);
}

static void journal_header(ac_buf *out, const ui_model *m, int width)
{
	(void)m;
	ac_buf row = AC_BUF_INIT;

	ui_col(&row, "TIME", JNL_TIME_W, 0, 1);
	ui_col(&row, "S", 1, 0, 1);
	ui_col(&row, "AGENT", JNL_AGENT_W, 0, 1);
	ui_col(&row, "ACTION", JNL_ACTION_W, 0, 1);
	ac_buf_append(&row, "MESSAGE", 7);
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD);
	ac_buf_free(&row);
}

static ui_style event_row(ac_buf *out, const ui_event *e, int width, int *accent_x,
			  int *accent_w)
{
	char clock[9];
	ac_buf row = AC_BUF_INIT;

	ui_fmt_clock(clock, e->timestamp);
	ui_col(&row, clock, JNL_TIME_W, 0, 1);
	/* A record outside the schema is shown, never hidden: '!', its own
	 * style, and why with the record in place of the message. */
	ui_col(&row, e->invalid ? "!" : ui_status_symbol(e->st), 1, 0, 1);
	ui_col(&row, e->agent, JNL_AGENT_W, UI_FIT_ELLIPSIS, 1);
	ui_col(&row, e->action, JNL_ACTION_W, UI_FIT_ELLIPSIS, 1);
	if (e->invalid)
		ac_buf_printf(&row, "invalid: %s", e->invalid);
	else
		ac_buf_append(&row, e->message, strlen(e->message));
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD | UI_FIT_ELLIPSIS);
	ac_buf_free(&row);
	*accent_x = JNL_TIME_W + 1;
	*accent_w = 1;
	return e->invalid ? UI_ST_INVALID : ui_status_style(e->st);
}

static ui_style journal_row(ac_buf *out, const ui_model *m, size_t i, int width, int64_t now_ms,
			    int *accent_x, int *accent_w)
{
	(void)now_ms;
	return event_row(out, ui_model_event(m, i), width, accent_x, accent_w);
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

/* ---- the whole-journal search's matches ---------------------------------- */

static size_t jsearch_count(const ui_model *m)
{
	return m->search.n;
}

static const char *jsearch_key(const ui_model *m, size_t i)
{
	return m->search.matches[i].ev.id;
}

static bool jsearch_match(const ui_model *m, size_t i, const ui_pane *p)
{
	const ui_event *e = &m->search.matches[i].ev;
	const char *fields[] = {e->agent, e->status, e->action, e->message, e->id,
				e->invalid ? e->invalid : "", NULL};

	return ui_filter_fields(p, fields);
}

static ui_style jsearch_row(ac_buf *out, const ui_model *m, size_t i, int width, int64_t now_ms,
			    int *accent_x, int *accent_w)
{
	(void)now_ms;
	return event_row(out, &m->search.matches[i].ev, width, accent_x, accent_w);
}

/* "2 matches in 2 files", or how far a search that goes on has come. */
static void jsearch_progress(char *out, size_t size, const ui_jsearch *s)
{
	unsigned pct = s->bytes_total ? (unsigned)(s->bytes_done * 100 / s->bytes_total) : 100;

	if (s->complete && s->database)
		snprintf(out, size, "%zu match%s in the database", s->n, s->n == 1 ? "" : "es");
	else if (s->complete)
		snprintf(out, size, "%zu match%s in %zu file%s", s->n, s->n == 1 ? "" : "es",
			 s->n_files, s->n_files == 1 ? "" : "s");
	else if (s->running)
		snprintf(out, size, "%zu match%s so far, %u%% searched (Esc stops)", s->n,
			 s->n == 1 ? "" : "es", pct);
	else
		snprintf(out, size, "%zu match%s so far, %u%% searched (n past the last: more)",
			 s->n, s->n == 1 ? "" : "es", pct);
}

static void jsearch_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
			 int64_t now_ms)
{
	const ui_jsearch *s = &m->search;
	ac_buf line = AC_BUF_INIT, cut = AC_BUF_INIT;
	char progress[160];

	if (r.h < 3)
		return;
	jsearch_progress(progress, sizeof(progress), s);
	ac_buf_printf(&line, " search: %s   %s", s->query ? s->query : "", progress);
	ui_text_fit(&cut, line.data, line.len, r.w, UI_FIT_ELLIPSIS);
	screen_fill(r.y, r.x, r.w, UI_ST_FILTER);
	screen_put(r.y, r.x, r.w, UI_ST_FILTER, cut.data ? cut.data : "");
	r.y++;
	r.h--;
	if (s->error)
		ui_list_draw_note(v, p, r, active, NULL, s->error);
	else
		ui_list_draw(v, m, p, r, active, now_ms);
	ac_buf_free(&line);
	ac_buf_free(&cut);
}

const ui_view ui_view_jsearch = {
	.name = "4 Journal search",
	.draw = jsearch_draw,
	.key = ui_list_key,
	.count = jsearch_count,
	.item_key = jsearch_key,
	.match = jsearch_match,
	.header = journal_header,
	.row = jsearch_row,
	.empty = "no match (yet)",
};
