/* The Checkpoints pane: the selected session's checkpoints by version; R
 * rolls the session back to the selected one. */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdio.h>
#include <string.h>

enum { CKP_VER_W = 6, CKP_NODE_W = 14, CKP_TIME_W = 8, CKP_MSGS_W = 6 };

static size_t ckpt_count(const ui_model *m)
{
	return m->n_ckpts;
}

static const char *ckpt_key(const ui_model *m, size_t i)
{
	return m->ckpts[i].raw_id;
}

static bool ckpt_match(const ui_model *m, size_t i, const ui_pane *p)
{
	const ui_checkpoint *c = &m->ckpts[i];
	const char *fields[] = {c->id, c->node, c->created, NULL};

	return ui_filter_fields(p, fields);
}

static void ckpt_header(ac_buf *out, const ui_model *m, int width)
{
	(void)m;
	ac_buf row = AC_BUF_INIT;

	ui_col(&row, "  VER", CKP_VER_W, 0, 1);
	ui_col(&row, "NODE", CKP_NODE_W, 0, 1);
	ui_col(&row, "TIME", CKP_TIME_W, 0, 1);
	ui_col(&row, "MSGS", CKP_MSGS_W, UI_FIT_RIGHT, 1);
	ac_buf_append(&row, "CHECKPOINT", 10);
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD);
	ac_buf_free(&row);
}

static ui_style ckpt_row(ac_buf *out, const ui_model *m, size_t i, int width, int64_t now_ms,
			 int *accent_x, int *accent_w)
{
	const ui_checkpoint *c = &m->ckpts[i];
	char cell[64];
	ac_buf row = AC_BUF_INIT;

	(void)now_ms;
	snprintf(cell, sizeof(cell), "%s%lld", c->tombstone ? "\xe2\x80\xa0" : " ", (long long)c->version);
	ui_col(&row, cell, CKP_VER_W, UI_FIT_RIGHT, 1);
	ui_col(&row, c->node, CKP_NODE_W, UI_FIT_ELLIPSIS, 1);
	ui_fmt_clock(cell, c->created);
	ui_col(&row, cell, CKP_TIME_W, 0, 1);
	snprintf(cell, sizeof(cell), "%zu", c->messages);
	ui_col(&row, cell, CKP_MSGS_W, UI_FIT_RIGHT, 1);
	ac_buf_append(&row, c->id, strlen(c->id));
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD | UI_FIT_ELLIPSIS);
	ac_buf_free(&row);
	*accent_x = 0;
	*accent_w = CKP_VER_W;
	return c->tombstone ? UI_ST_DIM : UI_ST_COMPLETED;
}

static void ckpt_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		      int64_t now_ms)
{
	ui_view named = *v;
	char extra[96];

	if (!m->ckpt_session) {
		ui_list_draw_note(v, p, r, active, NULL, "no session selected (pick one in 1 Sessions)");
		return;
	}
	if (!m->ckpts_present) {
		snprintf(extra, sizeof(extra), "of %.60s", m->ckpt_session_shown);
		ui_list_draw_note(v, p, r, active, extra, "no checkpoints for this session yet");
		return;
	}
	/* The rows do not name their session: the title does, as it does
	 * when there are none. */
	snprintf(extra, sizeof(extra), "%s  of %.60s", v->name, m->ckpt_session_shown);
	named.name = extra;
	ui_list_draw(&named, m, p, r, active, now_ms);
}

const ui_view ui_view_checkpoints = {
	.name = "3 Checkpoints",
	.draw = ckpt_draw,
	.key = ui_list_key,
	.count = ckpt_count,
	.item_key = ckpt_key,
	.match = ckpt_match,
	.header = ckpt_header,
	.row = ckpt_row,
	.empty = "no checkpoints for this session",
};
