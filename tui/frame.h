/* One frame of the dashboard: drawn from its state once per turn of the
 * loop (dashboard.c), only when something changed; and where the panes
 * went in it, for the mouse. Not the loop, not the keys. */
#ifndef UI_FRAME_H
#define UI_FRAME_H

#include "dash.h"
#include "screen.h"

/* How often a workspace that cannot be watched is polled (the status
 * line says so). */
#define UI_WATCH_POLL_MS 500

/* Draws d: settles what a frame decides (the drill's layout, when an age
 * on screen ticks next: d->redraw_at) and reads the git stats of the
 * Operations rows it showed. */
void ui_frame_draw(ui_dash *d);

/* The list pane drawn under a click in the last frame, when tiled; -1
 * for none. */
int ui_frame_pane_at(const ui_input *in);

#endif
