/* Noticing that sessions changed state, for the hooks (ac_hooks.h): the
 * dashboard hands it the model after each update; it compares each
 * session's state with the one it saw last and reports each real
 * transition once. The first look only records (loading the dashboard is
 * no transition), and a session that appears or goes is none either.
 * States are strings, so the derived states of other sources (waiting,
 * idle, ended) plug in as they come. No curses here: the caller rings the
 * bell. */
#ifndef UI_NOTIFY_H
#define UI_NOTIFY_H

#include "model.h"

#include "ac_workspace.h"

#include <stdbool.h>

typedef struct ui_notify ui_notify;

/* A tracker for ws (borrowed) that runs its hooks unless run_hooks is
 * false (--read-only): then it only tells of the bell. */
int ui_notify_new(ui_notify **out, const ac_workspace *ws, bool run_hooks);

void ui_notify_free(ui_notify *n);

/* Why the configured hooks will not run (untrusted project file), or
 * NULL: for the dashboard to say once. Borrowed. */
const char *ui_notify_refusal(const ui_notify *n);

/* After an update of m's sessions (cheap when their generation did not
 * change): fires the hooks for each transition (source names the store:
 * "file" or the database's name), logs a hook that could not start in m,
 * and returns true when notify.bell asks for the bell. */
bool ui_notify_scan(ui_notify *n, ui_model *m, const char *source);

#endif
