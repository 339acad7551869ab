/* The Operations pane: the operation log, newest first (following new
 * ones while the cursor is on the top row), each with who did it, what
 * for, the size of its commit, and whether a later rollback or revert
 * already undid it; R rolls the workspace back to before the selected
 * operation. */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdio.h>
#include <string.h>

enum { OPS_TIME_W = 8, OPS_AGENT_W = 10, OPS_TYPE_W = 10, OPS_MARK_W = 2, OPS_FILES_W = 13 };

static size_t ops_count(const ui_model *m)
{
	return m->n_ops;
}

static const char *ops_key(const ui_model *m, size_t i)
{
	return m->ops[i].raw_id;
}

static bool ops_match(const ui_model *m, size_t i, const ui_pane *p)
{
	const ui_op *o = &m->ops[i];
	const char *fields[] = {o->id, o->session, o->type, o->what, o->commit,
				o->agent ? o->agent : "", o->note ? o->note : "", NULL};

	if (p->session[0] && strcmp(o->session, p->session))
		return false;
	return ui_filter_fields(p, fields);
}

/* Newest first: the log's order reversed. */
static void ops_order(const ui_model *m, const ui_pane *p, size_t *idx, size_t n)
{
	(void)m;
	(void)p;
	for (size_t i = 0; i < n / 2; i++) {
		size_t t = idx[i];

		idx[i] = idx[n - 1 - i];
		idx[n - 1 - i] = t;
	}
}

/* The columns; at a narrow pane the type, then the agent, then the files
 * go (views/list.c ui_columns_fit), never cut into. */
enum { OC_TIME, OC_AGENT, OC_TYPE, OC_MARK, OC_FILES, OC_WHAT, OC_COUNT };

static const ui_column ops_cols[OC_COUNT] = {
	[OC_TIME] = {OPS_TIME_W, 1, 9, false},
	[OC_AGENT] = {OPS_AGENT_W, 1, 5, false},
	[OC_TYPE] = {OPS_TYPE_W, 1, 4, false},
	[OC_MARK] = {OPS_MARK_W, 1, 8, false},
	[OC_FILES] = {OPS_FILES_W, 1, 6, false},
	[OC_WHAT] = {4, 0, 7, true},
};

static void ops_header(ac_buf *out, const ui_model *m, int width)
{
	static const char *const titles[OC_COUNT] = {"TIME", "AGENT", "TYPE", "", "FILES +/-", "WHAT"};
	ac_buf row = AC_BUF_INIT;
	int w[OC_COUNT];

	(void)m;
	ui_columns_fit(w, ops_cols, OC_COUNT, width);
	for (int c = 0; c < OC_COUNT; c++)
		if (w[c])
			ui_col(&row, titles[c], w[c], 0, ops_cols[c].gap);
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD);
	ac_buf_free(&row);
}

/* "3 +120 -4": files and lines of the commit; "..." until read, "?" when
 * git cannot show it, "" without a commit. */
static void ops_files(char *out, size_t size, const ui_op *o)
{
	char adds[16], dels[16];

	if (!o->reversible)
		snprintf(out, size, "%s", "");
	else if (!o->stats_read)
		snprintf(out, size, "%s", "\xe2\x80\xa6");
	else if (o->stats_failed)
		snprintf(out, size, "%s", "?");
	else {
		ui_fmt_count(adds, sizeof(adds), o->adds);
		ui_fmt_count(dels, sizeof(dels), o->dels);
		snprintf(out, size, "%zu +%s -%s", o->files, adds, dels);
	}
}

static ui_style ops_row(ac_buf *out, const ui_model *m, size_t i, int width, int64_t now_ms,
			int *accent_x, int *accent_w)
{
	const ui_op *o = &m->ops[i];
	char clock[9], files[48], agent[16];
	ac_buf row = AC_BUF_INIT;
	int w[OC_COUNT];
	/* RB/RV: a later rollback/revert undid it; then whether R can. */
	const char *mark = o->undone == 'R' ? "RB" : o->undone == 'V' ? "RV"
			 : o->reversible ? "\xe2\x86\xba" : "-";

	(void)now_ms;
	ui_fmt_clock(clock, o->timestamp);
	ops_files(files, sizeof(files), o);
	/* Without a known agent, the session's start tells sessions apart. */
	snprintf(agent, sizeof(agent), "%.8s", o->session[0] ? o->session : "-");
	ui_columns_fit(w, ops_cols, OC_COUNT, width);
	if (w[OC_TIME])
		ui_col(&row, clock, w[OC_TIME], 0, 1);
	if (w[OC_AGENT])
		ui_col(&row, o->agent ? o->agent : agent, w[OC_AGENT], UI_FIT_ELLIPSIS, 1);
	if (w[OC_TYPE])
		ui_col(&row, o->type, w[OC_TYPE], UI_FIT_ELLIPSIS, 1);
	*accent_x = row.len ? ui_text_width(row.data, row.len) : 0;
	*accent_w = w[OC_MARK];
	if (w[OC_MARK])
		ui_col(&row, mark, w[OC_MARK], 0, 1);
	if (w[OC_FILES])
		ui_col(&row, files, w[OC_FILES], UI_FIT_ELLIPSIS, 1);
	ac_buf_append(&row, o->what, strlen(o->what));
	if (o->note && strcmp(o->note, o->what))
		ac_buf_printf(&row, " \xc2\xb7 %s", o->note);
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD | UI_FIT_ELLIPSIS);
	ac_buf_free(&row);
	return o->undone ? UI_ST_DIM : o->reversible ? UI_ST_COMPLETED : UI_ST_DIM;
}

static void ops_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		     int64_t now_ms)
{
	/* A rollback stopped midway: the pane's first row says so, above
	 * the list, whatever is selected. */
	if (m->intent_line && r.h > 3) {
		ac_buf line = AC_BUF_INIT;

		ac_buf_printf(&line, "%s%s", m->intent_running ? "" : "F finish  U undo | ",
			      m->intent_line);
		screen_fill(r.y, r.x, r.w, UI_ST_WARNING);
		{
			ac_buf cut = AC_BUF_INIT;

			ui_text_fit(&cut, line.data ? line.data : "", line.len, r.w,
				    UI_FIT_ELLIPSIS);
			screen_put(r.y, r.x, r.w, UI_ST_WARNING, cut.data ? cut.data : "");
			ac_buf_free(&cut);
		}
		ac_buf_free(&line);
		r.y++;
		r.h--;
	}
	if (m->no_workspace && !m->n_ops) {
		ui_list_draw_note(v, p, r, active, NULL, "no workspace here: the operations log and "
				  "git need one (-w DIR)");
		return;
	}
	if (!m->ops_present && !m->n_ops) {
		ui_list_draw_note(v, p, r, active, NULL,
				  "no operation log yet (.agent/operations.jsonl does not exist)");
		return;
	}
	ui_list_draw(v, m, p, r, active, now_ms);
}

const ui_view ui_view_operations = {
	.name = "2 Operations",
	.draw = ops_draw,
	.key = ui_list_key,
	.count = ops_count,
	.item_key = ops_key,
	.match = ops_match,
	.header = ops_header,
	.row = ops_row,
	.order = ops_order,
	.newest_first = true,
	.empty = "the operation log is empty",
};
