/* What is open over the dashboard's list panes, as a stack (tmux's pane
 * modes: open, step, close): a conversation, a document in it, a patch,
 * the viewer, help, the message log, the filter and search lines. Each
 * overlay is a struct of callbacks; opening one is a push, Esc asks the
 * top one to step back (it may close, and is then popped). The overlays
 * themselves are the dashboard's (overlays.c); this is only the stack,
 * with no curses and no knowledge of any one overlay. */
#ifndef UI_OVERLAY_H
#define UI_OVERLAY_H

#include "screen.h"
#include "view.h"

#include "ac_buf.h"

#include <stdbool.h>
#include <stddef.h>

struct ui_dash;

typedef struct ui_overlay {
	const char *name;
	/* The pane it shows; NULL for a line that shows no pane of its own
	 * (the filter being typed): the one under it is shown. */
	ui_pane_id (*pane)(const struct ui_dash *d);
	/* Whether it is still open; NULL: until popped. An overlay whose
	 * content the model holds (a patch, a document) is gone once the
	 * model dropped it, and is skipped. */
	bool (*live)(const struct ui_dash *d);
	/* Takes every key while on top (a line being typed); NULL: keys go
	 * to the key table. */
	void (*key)(struct ui_dash *d, const ui_input *in);
	/* With key: the bottom line while it is typed, cut to cols. */
	void (*line)(const struct ui_dash *d, ac_buf *out, int cols);
	/* Esc on top: steps back, true when that closed it (it is popped). */
	bool (*back)(struct ui_dash *d);
} ui_overlay;

#define UI_OVERLAY_MAX 8

typedef struct {
	const ui_overlay *at[UI_OVERLAY_MAX]; /* at[n - 1] on top */
	size_t n;
} ui_overlays;

/* Puts o on top; one already open moves there. A full stack drops its
 * bottom one (there are fewer overlays than places). */
void ui_overlay_push(ui_overlays *s, const ui_overlay *o);

/* Takes o out wherever it is, without calling it (its opener closed it). */
void ui_overlay_remove(ui_overlays *s, const ui_overlay *o);

/* Whether o is open (in the stack and live). */
bool ui_overlay_is_open(const ui_overlays *s, const ui_overlay *o, const struct ui_dash *d);

/* The top overlay still live, or NULL. */
const ui_overlay *ui_overlay_top(const ui_overlays *s, const struct ui_dash *d);

/* The pane of the topmost live overlay that shows one, else base. */
ui_pane_id ui_overlay_pane(const ui_overlays *s, const struct ui_dash *d, ui_pane_id base);

/* Esc: the top live overlay steps back, and is popped when that closed
 * it (the ones no longer live above it go too). False when none is open. */
bool ui_overlay_back(ui_overlays *s, struct ui_dash *d);

#endif
