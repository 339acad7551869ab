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

#include "ac_backend.h"
#include "ac_workspace.h"

#include <stdbool.h>

typedef struct ui_notify ui_notify;

/* A tracker for ws (borrowed) that runs its hooks unless run_hooks is
 * false (--read-only): then it only tells of the bell. onStatusChange
 * runs only while this dashboard holds the hooks lease (ac_hooks_lease.h)
 * of ws's files or, when store (borrowed, may be NULL) is a PostgreSQL
 * backend, of that database; notify.desktop and the bell are each
 * dashboard's own. A read-only dashboard, or one with no onStatusChange
 * to run, never takes the lease. */
int ui_notify_new(ui_notify **out, const ac_workspace *ws, bool run_hooks,
		  const ac_backend *store);

void ui_notify_free(ui_notify *n);

/* Why the configured hooks will not run (untrusted project file), or
 * NULL: for the dashboard to say once. Borrowed. */
const char *ui_notify_refusal(const ui_notify *n);

/* After an update of m's sessions (cheap when their generation did not
 * change; while another dashboard holds the lease, tries to take it over
 * at each transition and, on files, every few seconds, and says in m's action line,
 * once per change of hands, who runs onStatusChange): fires the hooks for
 * each transition (source names the store:
 * "file" or the database's name), logs a hook that could not start in m,
 * and returns a mask of UI_NOTIFY_*. */
enum {
	UI_NOTIFY_BELL = 1 << 0, /* notify.bell asks for the bell */
	UI_NOTIFY_SAID = 1 << 1, /* m's action line changed: draw again */
};
unsigned ui_notify_scan(ui_notify *n, ui_model *m, const char *source);

#endif
