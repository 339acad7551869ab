/* What the operator's keys do: each action goes through the same core
 * calls as the command line (ac_operator.h, ac_oplog.h, ac_checkpoint.h),
 * never writes a file itself, and reports its result or error on the
 * model's status line. Destructive ones first plan a dialog that says
 * exactly what will change; only ui_dialog_confirm() then acts. The
 * dialog's text goes into the model (views/dialog.c draws it from there);
 * what confirming needs (ids, the plan) stays in ui_dialog. No curses
 * here. */
#ifndef UI_ACTIONS_H
#define UI_ACTIONS_H

#include "ac_checkpoint.h"
#include "ac_workspace.h"
#include "model.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	UI_DLG_NONE,
	UI_DLG_COMPACT,
	UI_DLG_ROLLBACK_OP,
	UI_DLG_ROLLBACK_CKPT,
	UI_DLG_STATUS,      /* pause or resume */
	UI_DLG_UNDO,        /* restore what a compaction or rollback archived (undo.h) */
} ui_dialog_kind;

struct ui_undo;

typedef struct {
	ui_dialog_kind kind;
	char *target;       /* the session or operation id (raw, for the core) */
	char *checkpoint;   /* the checkpoint id (rollback to a checkpoint) */
	const char *status; /* UI_DLG_STATUS: "paused" or "running" (static) */
	ac_checkpoint_plan plan;
	bool has_plan;
} ui_dialog;

/* p / r: asks before moving session id to status ("paused" or
 * "running"), saying what will happen to its agent; a change the status
 * does not allow is refused on the status line instead. */
void ui_act_plan_status(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *id,
			const char *status);

/* c: plans compacting session id into d and m's dialog (kind stays NONE and the status
 * line says why when there is nothing to do). */
void ui_act_plan_compact(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *id);

/* R in Operations: a dry run of rolling back to before operation op_id. */
void ui_act_plan_rollback_op(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *op_id);

/* R in Checkpoints: the plan of rolling session back to checkpoint. */
void ui_act_plan_rollback_checkpoint(ui_dialog *d, const ac_workspace *ws, ui_model *m,
				     const char *session, const char *checkpoint);

/* y: carries out the dialog's action, then closes it. What undoes an
 * action that worked is recorded in undo (may be NULL; undo.h), which an
 * undo dialog also carries out. */
void ui_dialog_confirm(ui_dialog *d, const ac_workspace *ws, ui_model *m, struct ui_undo *undo);

/* n / Esc: closes the dialog (its text in m too); nothing changes. */
void ui_dialog_close(ui_dialog *d, ui_model *m);

#endif
