/* The Operations pane: the operation log, oldest first; R rolls the
 * workspace back to before the selected operation. */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <string.h>

enum { OPS_TIME_W = 8, OPS_SESSION_W = 10, OPS_TYPE_W = 11, OPS_REV_W = 3 };

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
	const char *fields[] = {o->id, o->session, o->type, o->what, o->commit, NULL};

	if (p->session[0] && strcmp(o->session, p->session))
		return false;
	return ui_filter_fields(p, fields);
}

static void ops_header(ac_buf *out, const ui_model *m, int width)
{
	(void)m;
	ac_buf row = AC_BUF_INIT;

	ui_col(&row, "TIME", OPS_TIME_W, 0, 1);
	ui_col(&row, "SESSION", OPS_SESSION_W - 1, 0, 1);
	ui_col(&row, "TYPE", OPS_TYPE_W, 0, 1);
	ui_col(&row, "REV", OPS_REV_W, 0, 1);
	ac_buf_append(&row, "WHAT", 4);
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD);
	ac_buf_free(&row);
}

static ui_style ops_row(ac_buf *out, const ui_model *m, size_t i, int width, int64_t now_ms,
			int *accent_x, int *accent_w)
{
	const ui_op *o = &m->ops[i];
	char clock[9];
	ac_buf row = AC_BUF_INIT;

	(void)now_ms;
	ui_fmt_clock(clock, o->timestamp);
	ui_col(&row, clock, OPS_TIME_W, 0, 1);
	ui_col(&row, o->session, OPS_SESSION_W - 1, UI_FIT_ELLIPSIS, 1);
	ui_col(&row, o->type, OPS_TYPE_W, UI_FIT_ELLIPSIS, 1);
	/* ↺: can be rolled back (has a commit); -: cannot on its own. */
	ui_col(&row, o->reversible ? " \xe2\x86\xba" : " -", OPS_REV_W, 0, 1);
	ac_buf_append(&row, o->what, strlen(o->what));
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD | UI_FIT_ELLIPSIS);
	ac_buf_free(&row);
	*accent_x = OPS_TIME_W + 1 + OPS_SESSION_W + OPS_TYPE_W + 1;
	*accent_w = OPS_REV_W;
	return o->reversible ? UI_ST_COMPLETED : UI_ST_DIM;
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
	.empty = "the operation log is empty",
};
