/* The frame trace, for benchmarks: with AGENTCTL_TRACE_FRAMES=FILE, each
 * frame drawn appends to FILE one line per thing changed since the frame
 * before, "<CLOCK_MONOTONIC ns> <what>", stamped after the frame went to
 * the terminal. <what> is a session row's id, "journal:<event id>" for an
 * event read, "checkpoint:<id>" for each row of a checkpoint list read,
 * "conversation:<session>:<messages>" for a database conversation read.
 * bench/compare.d/30-watch.sh times a session file's rename to its row on
 * screen with it, 85-store-latency.sh each kind of database change.
 * Without the variable it costs nothing. No curses here. */
#ifndef UI_FRAME_TRACE_H
#define UI_FRAME_TRACE_H

#include "model.h"

#include <stdio.h>

/* Opens the file AGENTCTL_TRACE_FRAMES names (appending) and makes m note
 * its changed rows; NULL when the variable is unset or the file cannot be
 * opened (then nothing is traced). */
FILE *ui_frame_trace_open(ui_model *m);

/* After a frame: writes and forgets m's changed rows. trace may be NULL. */
void ui_frame_trace_drawn(FILE *trace, ui_model *m);

void ui_frame_trace_close(FILE *trace);

#endif
