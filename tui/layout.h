/* Where the dashboard's panes go: one pure function from the area
 * between the title and the status line, and the pane shown, to
 * rectangles (lazygit's box layout, weights by focus). No curses here.
 *
 * Tall enough (UI_LAYOUT_TILE_ROWS) and the list panes are all on screen,
 * stacked: Sessions, Operations, Checkpoints, Journal, each as wide as the
 * terminal; the focused one weighs 2, the others 1 (never under
 * UI_LAYOUT_MIN_ROWS: a title, a header and three rows). From
 * UI_LAYOUT_WIDE columns the selected session's detail stands to the right
 * of the first three, the journal keeping the whole width below.
 *
 * Shorter, or a pane that is not a list (a conversation, a patch, help),
 * one pane at a time: it takes the area, with the journal's live strip
 * under it (its bottom third) from UI_LAYOUT_STRIP_ROWS rows, and on a
 * wide terminal Sessions has its detail beside it. */
#ifndef UI_LAYOUT_H
#define UI_LAYOUT_H

#include "view.h"

#include <stdbool.h>

#define UI_LAYOUT_MIN_ROWS 5     /* an unfocused pane: title, header, 3 rows */
#define UI_LAYOUT_FOCUS_ROWS 10  /* the focused pane at least */
#define UI_LAYOUT_TILE_ROWS (4 * UI_LAYOUT_MIN_ROWS + UI_LAYOUT_FOCUS_ROWS)
#define UI_LAYOUT_TILE_COLS 60   /* narrower: one pane at a time */
#define UI_LAYOUT_STRIP_ROWS 18  /* one pane: the journal strip under it */
#define UI_LAYOUT_WIDE 170       /* the selected session's detail */

/* The list panes in screen order, as layout slots. */
enum { UI_LAYOUT_PANES = 4 };

typedef struct {
	bool tiled;                    /* every list pane on screen */
	/* Tiled: each list pane's place (UI_PANE_SESSIONS..UI_PANE_JOURNAL);
	 * else all empty (h 0). */
	ui_rect pane[UI_LAYOUT_PANES];
	ui_rect shown;                 /* the pane keys go to */
	ui_rect strip;                 /* one pane: the journal strip; h 0: none */
	ui_rect detail;                /* the selected session's detail; h 0: none */
} ui_layout;

/* Lays area out for shown (the pane ui_dash_shown() names). Nothing
 * overlaps, everything is inside area; rectangles of zero height are not
 * drawn. */
void ui_layout_compute(ui_layout *out, ui_rect area, ui_pane_id shown);

/* The same, Sessions tiled no taller than sessions_rows (its title, header
 * and every row before any filter, so typing a filter moves nothing; 0: no
 * cap); the rows it leaves go to the focused pane, else the Journal. */
void ui_layout_compute_fit(ui_layout *out, ui_rect area, ui_pane_id shown, int sessions_rows);

/* The slot (UI_PANE_SESSIONS..UI_PANE_JOURNAL) a tiled pane shown takes:
 * the journal's for its search, -1 for a pane that is not a list. */
int ui_layout_slot(ui_pane_id shown);

#endif
