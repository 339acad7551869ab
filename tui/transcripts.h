/* The keys of the coding agents' sessions in the Sessions pane: the state
 * filter (w), resuming a transcript with its own tool (a), and the
 * refusal of writes to one (tui/transcripts.c). */
#ifndef UI_TRANSCRIPTS_H
#define UI_TRANSCRIPTS_H

#include "dash.h"

#include <stdbool.h>

/* w: show only waiting, running, idle, ended, then all again. */
bool ui_transcripts_state_filter(ui_dash *d, int key);

/* a: runs the selected transcript's resume command (sources.<tool>.
 * resumeCommand, from trusted config only) on the terminal, curses
 * suspended, and says how it ended. */
bool ui_transcripts_resume(ui_dash *d, int key);

/* True (with a status line saying why) when session id is a transcript,
 * which the operator's writes (p, r, c) may not change. */
bool ui_transcripts_refuse_write(ui_dash *d, const char *id);

#endif
