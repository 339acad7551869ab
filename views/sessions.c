/* The Sessions pane: one row per session, newest first. */
#include "ui_text.h"
#include "view.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SES_STATUS_W = 14, SES_ID_W = 10, SES_WHO_W = 16, SES_HOST_W = 12, SES_MSGS_W = 5,
       SES_TOK_W = 6, SES_AGE_W = 5 };

static size_t sessions_count(const ui_model *m)
{
	return m->n_sessions;
}

/* The raw id: two ids may look the same once escaped. */
static const char *sessions_key(const ui_model *m, size_t i)
{
	return m->sessions[i].raw_id;
}

static bool sessions_match(const ui_model *m, size_t i, const ui_pane *p)
{
	const ui_session *s = &m->sessions[i];
	const char *fields[] = {s->id, s->task, s->status, s->user, s->agent, s->host, NULL};

	/* Under a folded parent, unless the filter looks for it. */
	if (!p->filter[0] && ui_model_tree_hidden(m, i))
		return false;
	if (p->status_filter >= 0 && (int)s->st != p->status_filter)
		return false;
	if (p->state_filter > 0 && (int)s->state + 1 != p->state_filter)
		return false;
	if (p->host[0] && strcmp(s->host, p->host))
		return false;
	/* The filter's text in the session's conversation keeps it too. */
	return ui_filter_fields(p, fields) || ui_model_csearch_hit(m, p->filter, s->raw_id);
}

/* Whether the user/agent column fits next to a useful task column. */
static bool sessions_wide(int width)
{
	return width >= 72;
}

/* The host column: a store that records hosts, and room for it. */
static bool sessions_hosts(const ui_model *m, int width)
{
	return m->hosts_known && width >= 84;
}

/* The columns, left to right; which show is ui_columns_fit's choice
 * (views/list.c). Host and user/agent are asked for only where they fit
 * beside a useful task, as before; the numbers go before the id does. */
enum { COL_STATUS, COL_ID, COL_TASK, COL_HOST, COL_WHO, COL_MSGS, COL_TOK, COL_AGE, COL_COUNT };

static const ui_column session_cols[COL_COUNT] = {
	[COL_STATUS] = {SES_STATUS_W - 1, 1, 10, false},
	[COL_ID] = {SES_ID_W - 1, 1, 9, false},
	[COL_TASK] = {4, 1, 8, true},
	[COL_HOST] = {SES_HOST_W, 1, 2, false},
	[COL_WHO] = {SES_WHO_W, 1, 3, false},
	[COL_MSGS] = {SES_MSGS_W, 1, 5, false},
	[COL_TOK] = {SES_TOK_W, 1, 6, false},
	[COL_AGE] = {SES_AGE_W, 0, 7, false},
};

static void sessions_columns(int widths[COL_COUNT], const ui_model *m, int width)
{
	ui_column cols[COL_COUNT];

	memcpy(cols, session_cols, sizeof(cols));
	if (!sessions_hosts(m, width))
		cols[COL_HOST].width = 0;
	if (!sessions_wide(width))
		cols[COL_WHO].width = 0;
	ui_columns_fit(widths, cols, COL_COUNT, width - 1);
}

static void sessions_header(ac_buf *out, const ui_model *m, int width)
{
	static const char *const titles[COL_COUNT] = {" STATUS", "ID", "TASK", "HOST", "USER/AGENT",
						      "MSGS", "TOKENS", "AGE"};
	int widths[COL_COUNT];
	size_t start = out->len;

	sessions_columns(widths, m, width);
	for (int c = 0; c < COL_COUNT; c++)
		if (widths[c])
			ui_col(out, titles[c], widths[c], c >= COL_MSGS ? UI_FIT_RIGHT : 0,
			       session_cols[c].gap);
	/* Never wider than the pane: cut what the columns overran. */
	{
		ac_buf cut = AC_BUF_INIT;

		ui_text_fit(&cut, out->data + start, out->len - start, width, UI_FIT_PAD);
		out->len = start;
		ac_buf_append(out, cut.data ? cut.data : "", cut.len);
		ac_buf_free(&cut);
	}
}

/* The tree before the task: a child "└ " (indented per level), a parent
 * "▾ " unfolded or "▸N " folded (N children). */
static void tree_mark(ac_buf *out, const ui_model *m, const ui_session *s)
{
	if (s->parent && s->parent_row != SIZE_MAX) {
		for (unsigned d = 1; d < s->depth; d++)
			ac_buf_printf(out, "  ");
		ac_buf_printf(out, "\xe2\x94\x94 ");
	}
	if (s->children && ui_model_tree_closed(m, s->raw_id))
		ac_buf_printf(out, "\xe2\x96\xb8%zu ", s->children);
	else if (s->children)
		ac_buf_printf(out, "\xe2\x96\xbe ");
}

/* Whether the status cell shows the pending request: trouble always; a
 * note that is none and too long for the cell ("resumed elsewhere") goes
 * before the task instead, beside the status it leaves. */
static bool pending_in_cell(const ui_session *s)
{
	return s->pending && (s->pending_alarm || strlen(s->pending) <= SES_STATUS_W - 4);
}

static ui_style sessions_row(ac_buf *out, const ui_model *m, size_t i, int width, int64_t now_ms,
			     int *accent_x, int *accent_w)
{
	const ui_session *s = &m->sessions[i];
	const ui_conv_hit *hit = ui_model_csearch_hit(m, m->conv_search.needle ?
						      m->conv_search.needle : "", s->raw_id);
	char cell[64], who[400];
	ac_buf row = AC_BUF_INIT, task = AC_BUF_INIT;
	int w[COL_COUNT];

	sessions_columns(w, m, width);

	/* A pending request says more than the file's status does. */
	if (pending_in_cell(s))
		snprintf(cell, sizeof(cell), " %s %s", s->pending_alarm ? "!" : "~", s->pending);
	else if (s->source) /* a transcript: its derived state */
		snprintf(cell, sizeof(cell), " %s %s", ui_state_symbol(s->state), s->status);
	else if (s->state == AC_STATE_IDLE) /* running, but its agent has gone quiet */
		snprintf(cell, sizeof(cell), " %s %s", ui_state_symbol(s->state),
			 ac_session_state_name(s->state));
	else
		snprintf(cell, sizeof(cell), " %s %s", ui_status_symbol(s->st), s->status);
	ui_col(&row, cell, w[COL_STATUS], UI_FIT_ELLIPSIS, 1);
	if (w[COL_ID])
		ui_col(&row, s->id, w[COL_ID], UI_FIT_ELLIPSIS, 1);
	tree_mark(&task, m, s);
	/* Under a filter found in the conversation: the matching message. */
	if (hit)
		ac_buf_printf(&task, "#%zu %s", hit->message + 1, hit->snippet);
	else {
		/* What a waiting session waits on, as `session list` says it:
		 * below 170 columns no detail pane shows it. Where the task
		 * column is narrow (80 columns) the task keeps it, and the
		 * conversation's title says the reason. */
		if (s->pending && !pending_in_cell(s))
			ac_buf_printf(&task, "[%s] ", s->pending);
		if (s->waiting_for && *s->waiting_for && w[COL_TASK] >= 40)
			ac_buf_printf(&task, "[%s] ", s->waiting_for);
		if (s->parent && s->last_action) /* a worker: what it did last */
			ac_buf_printf(&task, "%s \xc2\xb7 %s", s->task, s->last_action);
		else
			ac_buf_printf(&task, "%s", s->task);
	}
	if (w[COL_TASK])
		ui_col(&row, task.data ? task.data : s->task, w[COL_TASK], UI_FIT_ELLIPSIS, 1);
	ac_buf_free(&task);
	if (w[COL_HOST])
		ui_col(&row, *s->host ? s->host : "-", w[COL_HOST], UI_FIT_ELLIPSIS, 1);
	if (w[COL_WHO]) {
		snprintf(who, sizeof(who), "%s%s%s", s->user, *s->user && *s->agent ? "/" : "",
			 s->agent);
		ui_col(&row, who, w[COL_WHO], UI_FIT_ELLIPSIS, 1);
	}
	if (w[COL_MSGS])
		ui_col_count(&row, s->messages, true, w[COL_MSGS], 1);
	if (w[COL_TOK] && s->source && !s->tokens) /* a transcript whose tool says none */
		ui_col(&row, "-", w[COL_TOK], UI_FIT_RIGHT, 1);
	else if (w[COL_TOK])
		ui_col_count(&row, s->tokens, false, w[COL_TOK], 1);
	if (w[COL_AGE]) {
		ui_fmt_age(cell, sizeof(cell), *s->updated ? s->updated : s->created, now_ms);
		ui_col(&row, cell, w[COL_AGE], UI_FIT_RIGHT, 0);
	}
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD);
	ac_buf_free(&row);
	*accent_x = 1;
	*accent_w = SES_STATUS_W - 2;
	if (pending_in_cell(s))
		return ui_status_style(s->pending_alarm ? UI_STATUS_FAILED : UI_STATUS_PAUSED);
	if (s->source || s->state == AC_STATE_IDLE)
		return ui_state_style(s->state);
	return ui_status_style(s->st);
}

/* ---- order (o) ---------------------------------------------------------- */

const char *ui_session_sort_name(int sort)
{
	switch (sort) {
	case UI_SORT_UPDATED: return "last update";
	case UI_SORT_STATUS: return "status";
	case UI_SORT_TOKENS: return "tokens";
	case UI_SORT_STATE: return "state";
	default: return "file order";
	}
}

/* qsort has no context argument in C11: the list being sorted. The UI is
 * one thread. */
static const ui_model *sort_model;
static int sort_by;

static const char *last_update(const ui_session *s)
{
	return *s->updated ? s->updated : s->created;
}

/* Needs the operator first: running, paused, failed, completed, other. */
static int status_rank(ui_status st)
{
	static const int rank[UI_STATUS_COUNT] = {
		[UI_STATUS_RUNNING] = 0, [UI_STATUS_PAUSED] = 1, [UI_STATUS_FAILED] = 2,
		[UI_STATUS_COMPLETED] = 3, [UI_STATUS_OTHER] = 4,
	};

	return (unsigned)st < UI_STATUS_COUNT ? rank[st] : 4;
}

static int compare_sessions(const void *pa, const void *pb)
{
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const ui_session *a = &sort_model->sessions[ia], *b = &sort_model->sessions[ib];
	int c = 0;

	if (sort_by == UI_SORT_STATUS)
		c = status_rank(a->st) - status_rank(b->st);
	else if (sort_by == UI_SORT_STATE)
		c = ac_session_state_rank(a->state) - ac_session_state_rank(b->state);
	else if (sort_by == UI_SORT_TOKENS)
		c = a->tokens > b->tokens ? -1 : a->tokens < b->tokens ? 1 : 0;
	if (!c)
		c = -strcmp(last_update(a), last_update(b)); /* newest first */
	if (!c)
		c = ia < ib ? -1 : ia > ib; /* stable: the model's order */
	return c;
}

/* The order sorted last, kept so that a frame after one row changed moves
 * that row instead of sorting them all again (10,000 rows: about a
 * millisecond, several times a frame). Keyed by the rows' generation and
 * what picks and orders them. */
static struct {
	uint64_t gen, hits_gen;
	int sort, status_filter, state_filter;
	char filter[sizeof(((ui_pane *)0)->filter)];
	char host[sizeof(((ui_pane *)0)->host)];
	size_t *idx, n, cap;
} last;

static bool last_fits(const ui_model *m, const ui_pane *p)
{
	return last.sort == p->sort && last.status_filter == p->status_filter &&
	       last.state_filter == p->state_filter &&
	       last.hits_gen == m->conv_search.gen &&
	       !strcmp(last.filter, p->filter) && !strcmp(last.host, p->host);
}

static bool has_index(const size_t *idx, size_t n, size_t want)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx[mid] == want)
			return true;
		if (idx[mid] < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The last order, after the model's one move (m->sessions_move): the row
 * that went is dropped, the others keep their order under their new
 * numbers, and the row that came is put in its place. idx[0..n) are the
 * rows shown now, in model order. False when that does not give n rows. */
static bool last_moved(const ui_model *m, const size_t *idx, size_t n)
{
	size_t now = m->sessions_move.now_at;

	last.n = ui_model_renumber_rows(m, last.idx, last.n);
	if (now != AC_SESSION_INDEX_NONE && has_index(idx, n, now)) {
		size_t lo = 0, hi = last.n;

		if (last.n == last.cap)
			return false;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (compare_sessions(&last.idx[mid], &now) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		memmove(&last.idx[lo + 1], &last.idx[lo], (last.n - lo) * sizeof(*last.idx));
		last.idx[lo] = now;
		last.n++;
	}
	return last.n == n;
}

static void sort_rows(const ui_model *m, const ui_pane *p, size_t *idx, size_t n)
{
	bool reuse = false;

	if (p->sort <= UI_SORT_NONE || p->sort >= UI_SORT_COUNT || n < 2)
		return;
	sort_model = m;
	sort_by = p->sort;
	if (m->sessions_gen && last_fits(m, p)) {
		if (last.gen == m->sessions_gen)
			reuse = last.n == n;
		else if (last.gen && last.gen == m->sessions_prev_gen && n < last.cap)
			reuse = last_moved(m, idx, n);
	}
	if (reuse) {
		memcpy(idx, last.idx, n * sizeof(*idx));
		last.gen = m->sessions_gen;
	} else {
		qsort(idx, n, sizeof(*idx), compare_sessions);
		last.gen = 0;
		if (n + 1 > last.cap) {
			size_t *grown = realloc(last.idx, (n + 1) * 2 * sizeof(*grown));

			if (grown) {
				last.idx = grown;
				last.cap = (n + 1) * 2;
			}
		}
		if (n + 1 <= last.cap) {
			memcpy(last.idx, idx, n * sizeof(*idx));
			last.n = n;
			last.sort = p->sort;
			last.status_filter = p->status_filter;
			last.state_filter = p->state_filter;
			last.hits_gen = m->conv_search.gen;
			snprintf(last.filter, sizeof(last.filter), "%s", p->filter);
			snprintf(last.host, sizeof(last.host), "%s", p->host);
			last.gen = m->sessions_gen;
		}
	}
	sort_model = NULL;
}

/* Sorted (o), then each parent's children under it. */
static void sessions_order(const ui_model *m, const ui_pane *p, size_t *idx, size_t n)
{
	sort_rows(m, p, idx, n);
	ui_model_tree_order(m, idx, n);
}

/* The rows shown last, matched (model order) and in the pane's order:
 * a frame asks several times (drawing, the selection), and after one row
 * changed only that row is matched again, not every row (100,000 rows:
 * milliseconds each time). Keyed like the sort's (`last`); not kept while
 * parents are folded (folding changes no generation). */
static struct {
	const ui_model *m;
	uint64_t gen, hits_gen;
	int sort, status_filter, state_filter;
	char filter[sizeof(((ui_pane *)0)->filter)];
	char host[sizeof(((ui_pane *)0)->host)];
	size_t *matched, n_matched, *shown, n_shown, cap;
} vis;

static bool vis_fits(const ui_model *m, const ui_pane *p)
{
	return vis.gen && vis.m == m && !m->n_tree_closed && vis.hits_gen == m->conv_search.gen &&
	       vis.sort == p->sort && vis.status_filter == p->status_filter &&
	       vis.state_filter == p->state_filter && !strcmp(vis.filter, p->filter) &&
	       !strcmp(vis.host, p->host);
}

/* vis.matched after the model's one move (m->sessions_move), as
 * last_moved() does for the order. */
static void vis_moved(const ui_model *m, const ui_pane *p)
{
	size_t now = m->sessions_move.now_at;

	vis.n_matched = ui_model_renumber_rows(m, vis.matched, vis.n_matched);
	if (now != AC_SESSION_INDEX_NONE && sessions_match(m, now, p))
		vis.n_matched = ui_rows_insert(vis.matched, vis.n_matched, now);
}

static size_t sessions_visible(const ui_model *m, const ui_pane *p, size_t *idx)
{
	size_t n = m->n_sessions;
	bool fits = m->sessions_gen && vis_fits(m, p);

	if (fits && vis.gen == m->sessions_gen)
		goto done;
	if (n + 1 > vis.cap) {
		size_t cap = (n + 1) * 2, *a = malloc(cap * sizeof(*a)), *b = malloc(cap * sizeof(*b));

		if (!a || !b) {
			free(a);
			free(b);
			vis.gen = 0;
			goto uncached;
		}
		if (fits)
			memcpy(a, vis.matched, vis.n_matched * sizeof(*a));
		free(vis.matched);
		free(vis.shown);
		vis.matched = a;
		vis.shown = b;
		vis.cap = cap;
	}
	if (fits && m->sessions_prev_gen && vis.gen == m->sessions_prev_gen) {
		vis_moved(m, p);
	} else {
		vis.n_matched = 0;
		for (size_t i = 0; i < n; i++)
			if (sessions_match(m, i, p))
				vis.matched[vis.n_matched++] = i;
	}
	vis.n_shown = vis.n_matched;
	memcpy(vis.shown, vis.matched, vis.n_shown * sizeof(*vis.shown));
	sessions_order(m, p, vis.shown, vis.n_shown);
	vis.m = m;
	vis.gen = m->sessions_gen;
	vis.hits_gen = m->conv_search.gen;
	vis.sort = p->sort;
	vis.status_filter = p->status_filter;
	vis.state_filter = p->state_filter;
	snprintf(vis.filter, sizeof(vis.filter), "%s", p->filter);
	snprintf(vis.host, sizeof(vis.host), "%s", p->host);
	if (!m->sessions_gen || m->n_tree_closed)
		vis.gen = 0; /* nothing tells when these rows change */
done:
	if (idx)
		memcpy(idx, vis.shown, vis.n_shown * sizeof(*idx));
	return vis.n_shown;
uncached:
	{
		size_t shown = 0;

		for (size_t i = 0; i < n; i++)
			if (sessions_match(m, i, p)) {
				if (idx)
					idx[shown] = i;
				shown++;
			}
		if (idx)
			sessions_order(m, p, idx, shown);
		return shown;
	}
}

/* An empty list names where the sessions were looked for. */
static void sessions_empty(ac_buf *out, const ui_model *m)
{
	if (m->store_where)
		ac_buf_printf(out, "no sessions yet (the store %s holds none)", m->store_where);
	else
		ac_buf_printf(out, "no sessions yet (.agent/sessions/ is empty or absent)");
}

const ui_view ui_view_sessions = {
	.name = "1 Sessions",
	.draw = ui_list_draw,
	.key = ui_list_key,
	.count = sessions_count,
	.item_key = sessions_key,
	.match = sessions_match,
	.header = sessions_header,
	.row = sessions_row,
	.empty = "no sessions yet (.agent/sessions/ is empty or absent)",
	.empty_text = sessions_empty,
	.order = sessions_order,
	.visible = sessions_visible,
};
