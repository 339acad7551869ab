/* The dashboard: the live, interactive view of one workspace.
 *
 * It owns the terminal while it runs and gives it back as it found it.
 * It writes nothing itself: every key that changes a file goes through the
 * same core call as the command line. */
#ifndef DASHBOARD_H
#define DASHBOARD_H

#include "ac_config.h"
#include "ac_workspace.h"

#include <stdbool.h>

typedef struct {
	bool read_only; /* no key writes anything (--read-only) */
	/* ws is a folder with no workspace in it, opened for the database its
	 * storage.url names: what needs a workspace (the operations log, git)
	 * says so in its pane. */
	bool no_workspace;
} dashboard_options;

/* Runs until the operator quits. The theme is the configuration's "theme"
 * key. Returns 0, or a negative AC_E* code with ac_error_last() set (no
 * terminal, the watcher could not start). */
int dashboard_run(const ac_workspace *ws, const ac_config *config,
		  const dashboard_options *options);

#endif
