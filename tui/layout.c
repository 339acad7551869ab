/* The dashboard's layout (layout.h): rectangles only. */
#include "layout.h"

#include <string.h>

int ui_layout_slot(ui_pane_id shown)
{
	switch (shown) {
	case UI_PANE_SESSIONS:
	case UI_PANE_OPS:
	case UI_PANE_CKPTS:
	case UI_PANE_JOURNAL:
		return (int)shown;
	case UI_PANE_JSEARCH:
		return UI_PANE_JOURNAL;
	default:
		return -1;
	}
}

/* Stacks the four panes in area: the focused one weighs 2, the others 1;
 * what the division leaves over goes to the focused one. Sessions takes no
 * more than sessions_rows (its title, header and rows, 0: no cap): the
 * rows it would leave empty go to the focused pane, or to the Journal when
 * Sessions is the focused one (at 120x40 three sessions used to sit above
 * eleven empty rows). */
static void tile(ui_layout *out, ui_rect area, int focus, int sessions_rows)
{
	int unit = area.h / (UI_LAYOUT_PANES + 1), y = area.y, left = area.w;
	int h[UI_LAYOUT_PANES];

	if (area.w >= UI_LAYOUT_WIDE)
		left = area.w * 3 / 5;
	for (int i = 0; i < UI_LAYOUT_PANES; i++)
		h[i] = i == focus ? area.h - unit * (UI_LAYOUT_PANES - 1) : unit;
	if (sessions_rows > 0) {
		int cap = sessions_rows < UI_LAYOUT_MIN_ROWS ? UI_LAYOUT_MIN_ROWS : sessions_rows;
		int to = focus == UI_PANE_SESSIONS ? UI_PANE_JOURNAL : focus;

		if (h[UI_PANE_SESSIONS] > cap) {
			h[to] += h[UI_PANE_SESSIONS] - cap;
			h[UI_PANE_SESSIONS] = cap;
		}
	}
	for (int i = 0; i < UI_LAYOUT_PANES; i++) {
		out->pane[i] = (ui_rect){y, area.x, h[i], i == UI_PANE_JOURNAL ? area.w : left};
		y += h[i];
	}
	if (left < area.w) {
		int dh = out->pane[UI_PANE_JOURNAL].y - area.y;

		out->detail = (ui_rect){area.y, area.x + left + 1, dh, area.w - left - 1};
	}
	out->shown = out->pane[focus];
}

void ui_layout_compute(ui_layout *out, ui_rect area, ui_pane_id shown)
{
	ui_layout_compute_fit(out, area, shown, 0);
}

void ui_layout_compute_fit(ui_layout *out, ui_rect area, ui_pane_id shown, int sessions_rows)
{
	int slot = ui_layout_slot(shown);

	memset(out, 0, sizeof(*out));
	if (area.h < 0)
		area.h = 0;
	if (area.w < 0)
		area.w = 0;
	if (slot >= 0 && area.h >= UI_LAYOUT_TILE_ROWS && area.w >= UI_LAYOUT_TILE_COLS) {
		out->tiled = true;
		tile(out, area, slot, sessions_rows);
		return;
	}
	out->shown = area;
	/* The journal keeps moving below the pane in use. */
	if (shown != UI_PANE_JOURNAL && shown != UI_PANE_HELP && shown != UI_PANE_LOG &&
	    area.h >= UI_LAYOUT_STRIP_ROWS) {
		int h = area.h / 3;

		out->shown.h -= h;
		out->strip = (ui_rect){area.y + out->shown.h, area.x, h, area.w};
	}
	if (shown == UI_PANE_SESSIONS && area.w >= UI_LAYOUT_WIDE) {
		ui_rect *main = &out->shown;

		out->detail = *main;
		main->w = main->w * 3 / 5;
		out->detail.x = main->x + main->w + 1;
		out->detail.w -= main->w + 1;
	}
}
