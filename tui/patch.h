/* An operation's patch in the dashboard: Enter on an operation reads its
 * commit's unified diff through the core (ac_git_commit_patch(), agent
 * state left out, never a shell) into the model, line by line and
 * sanitised, for views/patch.c to draw. A commit never changes, so the
 * open patch never goes stale. No curses here. */
#ifndef UI_PATCH_H
#define UI_PATCH_H

#include "model.h"

#include "ac_workspace.h"

#include <stddef.h>

/* Opens operation op_id's patch in m (closing the one open): its title
 * names the operation, its session, its commit and the size of the change.
 * An operation without a commit, or one git cannot show, opens with
 * patch_error saying why. */
void ui_patch_open(ui_model *m, const ac_workspace *ws, const char *op_id);

#endif
