/* z: undoing the operator's last action of this dashboard session
 * (lazygit's z). Confirming a pause, a compaction or a rollback records
 * what undoes it here; z plans that as a dialog that says exactly what
 * will change, and y carries it out through the core, like every action:
 *   pause              -> resume the session (the resume dialog)
 *   compaction         -> put the archived messages back in place of the
 *                         summary (ac_restore_archive())
 *   checkpoint rollback-> put the archived messages back after the ones
 *                         kept (ac_restore_archive())
 *   rollback or revert -> roll back the rollback's (revert's) own operation, which
 *                         puts back the snapshot it committed first
 * A revert is undone the way a rollback is (its own operation, back to
 * its snapshot). A restore is refused when the session changed since. No
 * curses here. */
#ifndef UI_UNDO_H
#define UI_UNDO_H

#include "actions.h"

#include "ac_workspace.h"
#include "model.h"

#include <stddef.h>
#include <stdint.h>

/* ui_undo and ui_undo_kind are in actions.h: an action's outcome carries one. */

/* Forgets the recorded action. */
void ui_undo_clear(ui_undo *u);

/* Records an action just done (strings copied; NULL where unused). */
void ui_undo_record(ui_undo *u, ui_undo_kind kind, const char *session, const char *archive,
		    size_t expected, size_t restored, const char *op, const char *snapshot);

/* z: opens the dialog of undoing u's action in d and m, or says on the
 * status line that there is nothing to undo. */
void ui_undo_plan(ui_dialog *d, const ui_undo *u, const ac_workspace *ws, ui_model *m);

#endif
