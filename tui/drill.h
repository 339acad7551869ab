/* Drilling down from the dashboard's lists (issue 13's operator tools):
 *   f   follow the selected session: Operations and the Journal (pane and
 *       strip) show only its rows; the panes' titles name it;
 *   o   order Sessions by last update, status, tokens;
 *   on a terminal of UI_DRILL_WIDE columns or more, the selected session's
 *       detail beside the Sessions list;
 *   S   search the whole journal (tui/jsearch.h), n/N through its matches;
 *   Enter on a checkpoint, a journal event or a match: the viewer
 *       (tui/preview.h).
 * The key table (keys.c) names these handlers; the loop (dashboard.c) calls
 * the rest. No curses here. */
#ifndef UI_DRILL_H
#define UI_DRILL_H

#include "dash.h"
#include "screen.h"

#include "ac_buf.h"

#include <stdbool.h>

#define UI_DRILL_WIDE 170   /* columns from which the detail goes beside the list */

/* Key handlers (ui_key_handler). */
bool ui_drill_follow(ui_dash *d, int key);
bool ui_drill_sort(ui_dash *d, int key);
bool ui_drill_search(ui_dash *d, int key);
bool ui_drill_next_match(ui_dash *d, int key);

/* Enter in pane on its item i (checkpoint, event, match): the viewer.
 * False when pane has nothing to open. */
bool ui_drill_open(ui_dash *d, ui_pane_id pane, size_t i);

/* Esc in the search's pane: stops a running search, else closes it. */
void ui_drill_search_back(ui_dash *d);

/* The search line being typed: a key of it (Enter runs the search, Esc
 * drops it), and its prompt for the bottom line, cols wide. */
void ui_drill_input(ui_dash *d, const ui_input *in);
void ui_drill_prompt(const ui_dash *d, ac_buf *out, int cols);

/* Before each draw: the narrowing follows the selection, and on a wide
 * Sessions pane the selected session's conversation is read for its
 * detail. */
void ui_drill_sync(ui_dash *d, int cols);

/* Takes the right part of *main for the selected session's detail, when
 * the Sessions pane is shown on a wide terminal, and draws it there. */
void ui_drill_draw_beside(ui_dash *d, ui_rect *main);

/* Between polls: a running search's next windows; true when the model
 * changed. */
bool ui_drill_step(ui_dash *d);

#endif
