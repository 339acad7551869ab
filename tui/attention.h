/* The key of the attention strip (views/attention.c): jumps to the
 * sessions waiting for the operator in turn (tui/attention.c). */
#ifndef UI_ATTENTION_H
#define UI_ATTENTION_H

#include "dash.h"

#include <stdbool.h>

/* !: selects in the Sessions pane the longest-waiting session, or, when
 * the one ! selected last is still selected, the next one (after the last: the first
 * again), switching to that pane and clearing a filter that hides it
 * (the status line says so). */
bool ui_attention_next(ui_dash *d, int key);

#endif
