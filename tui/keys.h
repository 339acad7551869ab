/* The key table: every key of the dashboard, the panes where it applies,
 * what it does and what the dashboard does after it (htop's Action.c).
 * The dispatcher, the hint line and the help screen all read this one
 * table, so a key shown is a key handled, and a key not in the table, or
 * pressed in a pane where it does not apply, does nothing. No curses
 * here. */
#ifndef UI_KEYS_H
#define UI_KEYS_H

#include "dash.h"
#include "model.h"
#include "view.h"

#include "ac_buf.h"

#include <stdbool.h>
#include <stddef.h>

/* What the dashboard does once a key's handler changed something. */
enum {
	UI_REDRAW = 1 << 0,  /* draw the screen again */
	UI_REPAINT = 1 << 1, /* repaint the whole terminal, not only what changed */
	UI_RELOAD = 1 << 2,  /* files were written through the core: read the
			      * sessions again (their requests are not watched) */
	UI_QUIT = 1 << 3,    /* leave the dashboard */
};

/* Acts on key in d; true when something changed (the reaction applies). */
typedef bool (*ui_key_handler)(ui_dash *d, int key);

/* Whether a key applies to what is selected (the row's kind and state). */
typedef enum {
	UI_KEY_APPLIES, /* hinted, and the handler runs */
	UI_KEY_NO_ROW,  /* nothing selected: not hinted; the handler says what to select */
	UI_KEY_REFUSED, /* not for this row: not hinted; pressed anyway, refused with the
			 * reason on the status line, the handler not called */
} ui_key_fit;

/* Says whether the key applies to d's selection; on UI_KEY_REFUSED
 * appends why (one sentence, no key name) to why unless it is NULL. Reads
 * d only: the hint line asks on every draw. */
typedef ui_key_fit (*ui_key_applies)(const ui_dash *d, ac_buf *why);

typedef struct {
	int keys[4];            /* code points or UI_KEY_*; 0 ends the list */
	ui_key_doc doc;         /* label, help text, panes, writes */
	const char *hint;       /* the hint line's text ("/ filter"); NULL: help only */
	unsigned hint_panes;    /* where the hint is shown; 0: wherever it applies */
	bool hint_right;        /* kept at the line's right end at every width (help, quit) */
	bool hint_late;         /* a view option (status, sort, host...): hinted after the
				 * actions, so a narrow line cuts these first */
	ui_key_handler handler;
	ui_key_applies applies; /* NULL: wherever the pane is (doc.panes) */
	unsigned reaction;      /* UI_REDRAW | ... */
} ui_key;

/* The table (static storage). */
const ui_key *ui_keys(size_t *out_n);

/* The entry handling key in pane, or NULL. */
const ui_key *ui_key_find(int key, ui_pane_id pane);

/* True when k's hint is shown in pane (a key that writes is not shown in
 * read-only mode). */
bool ui_key_hinted(const ui_key *k, ui_pane_id pane, bool read_only);

/* Dispatches key in d's current pane: calls the handler (a key that writes
 * is refused in read-only mode, on the status line, and so is a key that
 * does not apply to the selected row, with its reason) and applies the
 * reaction. Returns the reaction applied, 0 when nothing changed. */
unsigned ui_keys_dispatch(ui_dash *d, int key);

/* The same in pane, whatever is shown: a line being typed takes its own
 * keys (Enter, Esc, Backspace) from the table; 0 when key is none of
 * pane's (a character to type). */
unsigned ui_keys_dispatch_in(ui_dash *d, ui_pane_id pane, int key);

/* Appends the hints of a line typed at the bottom (pane: its
 * UI_PANE_*_LINE), each after three spaces, to end the line with. */
void ui_keys_line_hints(ac_buf *out, ui_pane_id pane);

/* Appends the hint line of pane (the hinted keys, in table order). */
void ui_keys_hints(ac_buf *out, ui_pane_id pane, bool read_only);

/* The hint line split in two: out gets the pane's keys, right the ones
 * kept at the right end (hint_right: help and quit), so that a narrow
 * terminal cuts the first and never the second. */
void ui_keys_hints_split(ac_buf *out, ac_buf *right, ui_pane_id pane, bool read_only);

/* The hint line of d as drawn: its current pane's keys, less those that
 * do not apply to the selected row (a transcript is not paused, a
 * completed session neither, a paused one is resumed); right as in
 * ui_keys_hints_split. */
void ui_keys_hints_for(ac_buf *out, ac_buf *right, const ui_dash *d);

/* Points m->keys at the table's documentation, for the help screen. */
void ui_keys_describe(ui_model *m);

#endif
