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

/* The columns; at a narrow pane the node, then the message count, then
 * the time go (views/list.c ui_columns_fit), never cut into. */
enum { CC_VER, CC_NODE, CC_TIME, CC_MSGS, CC_ID, CC_COUNT };

static const ui_column ckpt_cols[CC_COUNT] = {
	[CC_VER] = {CKP_VER_W, 1, 9, false},
	[CC_NODE] = {CKP_NODE_W, 1, 5, false},
	[CC_TIME] = {CKP_TIME_W, 1, 6, false},
	[CC_MSGS] = {CKP_MSGS_W, 1, 7, false},
	[CC_ID] = {8, 0, 8, true},
};

static void ckpt_header(ac_buf *out, const ui_model *m, int width)
{
	static const char *const titles[CC_COUNT] = {"  VER", "NODE", "TIME", "MSGS", "CHECKPOINT"};
	ac_buf row = AC_BUF_INIT;
	int w[CC_COUNT];

	(void)m;
	ui_columns_fit(w, ckpt_cols, CC_COUNT, width);
	for (int c = 0; c < CC_COUNT; c++)
		if (w[c])
			ui_col(&row, titles[c], w[c], c == CC_MSGS ? UI_FIT_RIGHT : 0, ckpt_cols[c].gap);
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD);
	ac_buf_free(&row);
}

static ui_style ckpt_row(ac_buf *out, const ui_model *m, size_t i, int width, int64_t now_ms,
			 int *accent_x, int *accent_w)
{
	const ui_checkpoint *c = &m->ckpts[i];
	char cell[64];
	ac_buf row = AC_BUF_INIT;
	int w[CC_COUNT];

	(void)now_ms;
	ui_columns_fit(w, ckpt_cols, CC_COUNT, width);
	/* The version is a number: marked when too long, never cut. */
	snprintf(cell, sizeof(cell), "%s%lld", c->tombstone ? "\xe2\x80\xa0" : " ", (long long)c->version);
	if (ui_text_width(cell, strlen(cell)) > w[CC_VER])
		snprintf(cell, sizeof(cell), "%s\xe2\x80\xa6", c->tombstone ? "\xe2\x80\xa0" : " ");
	ui_col(&row, cell, w[CC_VER], UI_FIT_RIGHT, 1);
	if (w[CC_NODE])
		ui_col(&row, c->node, w[CC_NODE], UI_FIT_ELLIPSIS, 1);
	if (w[CC_TIME]) {
		ui_fmt_clock(cell, c->created);
		ui_col(&row, cell, w[CC_TIME], 0, 1);
	}
	if (w[CC_MSGS])
		ui_col_count(&row, c->messages, true, w[CC_MSGS], 1);
	ac_buf_append(&row, c->id, strlen(c->id));
	ui_text_fit(out, row.data, row.len, width, UI_FIT_PAD | UI_FIT_ELLIPSIS);
	ac_buf_free(&row);
	*accent_x = 0;
	*accent_w = w[CC_VER];
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
