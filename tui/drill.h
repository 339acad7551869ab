/* Drilling down from the dashboard's lists (issue 13's operator tools):
 *   f   follow the selected session: the Journal (pane and strip) too
 *       shows only its rows (Operations do unless A); the titles name it;
 *   o   order Sessions by last update, status, tokens;
 *   A   Operations: every session's operations, or (again) the selected
 *       session's only, as the pane starts;
 *   on a terminal of UI_LAYOUT_WIDE columns or more, the selected session's
 *       detail beside the list panes (layout.h);
 *   S   search the whole journal (tui/jsearch.h), n/N through its matches;
 *   Enter on a checkpoint, a journal event or a match: the viewer
 *       (tui/preview.h).
 * The key table (keys.c) names these handlers; the loop (dashboard.c) calls
 * the rest. No curses here. */
#ifndef UI_DRILL_H
#define UI_DRILL_H

#include "dash.h"
#include "layout.h"
#include "screen.h"

#include "ac_buf.h"

#include <stdbool.h>

/* Key handlers (ui_key_handler). */
bool ui_drill_follow(ui_dash *d, int key);
bool ui_drill_sort(ui_dash *d, int key);
bool ui_drill_ops_all(ui_dash *d, int key);
bool ui_drill_search(ui_dash *d, int key);
bool ui_drill_next_match(ui_dash *d, int key);

/* Enter in pane on its item i (checkpoint, event, match): the viewer.
 * False when pane has nothing to open. */
bool ui_drill_open(ui_dash *d, ui_pane_id pane, size_t i);

/* Esc in the search's pane: stops a running search, else closes it. */
void ui_drill_search_back(ui_dash *d);

/* The search line being typed: its own keys are the table's
 * (ui_drill_line_key: Enter runs the search, Esc drops it, Backspace
 * erases), other characters go into it; and its prompt for the bottom
 * line, cols wide, ending with those keys' hints. */
bool ui_drill_line_key(ui_dash *d, int key);
void ui_drill_input(ui_dash *d, const ui_input *in);
void ui_drill_prompt(const ui_dash *d, ac_buf *out, int cols);

/* Before each draw, laid out as lay (NULL: not drawing): Operations
 * shows the selected session's rows (unless A), with f the Journal too;
 * the checkpoints are the selected session's when their pane is on
 * screen; the conversation of the selected session is read for its
 * detail when lay has one. */
void ui_drill_sync(ui_dash *d, const ui_layout *lay);

/* Between polls: a running search's next windows; true when the model
 * changed. */
bool ui_drill_step(ui_dash *d);

#endif
