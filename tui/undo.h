/* z: undoing the operator's last action of this dashboard session
 * (lazygit's z). Confirming a pause, a compaction or a rollback records
 * what undoes it here; z plans that as a dialog that says exactly what
 * will change, and y carries it out through the core, like every action:
 *   pause              -> resume the session (the resume dialog)
 *   compaction         -> put the archived messages back in place of the
 *                         summary (ac_restore_archive())
 *   checkpoint rollback-> put the archived messages back after the ones
 *                         kept (ac_restore_archive())
 *   operations rollback-> roll back the rollback's own operation, which
 *                         puts back the snapshot it committed first
 * A restore is refused when the session changed since. `ops revert` is not
 * undone here yet. No curses here. */
#ifndef UI_UNDO_H
#define UI_UNDO_H

#include "actions.h"

#include "ac_workspace.h"
#include "model.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
	UI_UNDO_NONE,
	UI_UNDO_PAUSE,
	UI_UNDO_COMPACT,
	UI_UNDO_ROLLBACK_CKPT,
	UI_UNDO_ROLLBACK_OP,
} ui_undo_kind;

typedef struct ui_undo {
	ui_undo_kind kind;
	int64_t at_ms;      /* when the action was done */
	char *session;      /* the session acted on (raw id) */
	char *archive;      /* COMPACT, ROLLBACK_CKPT: the archive written */
	size_t expected;    /* ... and the messages the session was left with */
	size_t restored;    /* ... and how many the archive holds */
	char *op;           /* ROLLBACK_OP: the rollback's own operation */
	char snapshot[41];  /* ROLLBACK_OP: the commit holding the state before it */
} ui_undo;

/* Forgets the recorded action. */
void ui_undo_clear(ui_undo *u);

/* Records an action just done (strings copied; NULL where unused). */
void ui_undo_record(ui_undo *u, ui_undo_kind kind, const char *session, const char *archive,
		    size_t expected, size_t restored, const char *op, const char *snapshot);

/* z: opens the dialog of undoing u's action in d and m, or says on the
 * status line that there is nothing to undo. */
void ui_undo_plan(ui_dialog *d, const ui_undo *u, const ac_workspace *ws, ui_model *m);

/* y on an undo dialog (UI_DLG_UNDO): restores the archive; the result
 * goes on the status line. u is cleared when it worked. */
void ui_undo_run(ui_undo *u, const ac_workspace *ws, ui_model *m);

#endif
