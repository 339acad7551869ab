/* What the operator's keys do: each action goes through the same core
 * calls as the command line (ac_operator.h, ac_oplog.h, ac_checkpoint.h),
 * never writes a file itself, and reports its result or error on the
 * model's status line. Destructive ones first plan a dialog that says
 * exactly what will change; only ui_act_run() then acts, on a worker
 * thread (tui/job.h), and ui_act_report() shows what it did. The dialog's
 * text goes into the model (views/dialog.c draws it from there); what
 * confirming needs (ids, the plan) stays in ui_dialog. No curses here. */
#ifndef UI_ACTIONS_H
#define UI_ACTIONS_H

#include "ac_buf.h"
#include "ac_checkpoint.h"
#include "ac_config.h"
#include "ac_oplog.h"
#include "ac_workspace.h"
#include "model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum {
	UI_DLG_NONE,
	UI_DLG_COMPACT,
	UI_DLG_ROLLBACK_OP,
	UI_DLG_REVERT_OP,
	UI_DLG_ROLLBACK_CKPT,
	UI_DLG_STATUS,      /* pause or resume */
	UI_DLG_UNDO,        /* restore what a compaction or rollback archived (undo.h) */
	UI_DLG_FINISH_INTENT, /* finish a rollback or revert stopped midway */
	UI_DLG_UNDO_INTENT,   /* put its snapshot back instead */
	UI_DLG_STOP,          /* signal the agent process agentctl knows (actions_stop.c) */
	UI_DLG_NOTICE,        /* a refusal's whole reason; any key closes it */
	UI_DLG_TRUST,         /* trust the project file (actions_trust.c) */
} ui_dialog_kind;

/* What undoes the last action confirmed in this dashboard (z; undo.h). */
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

typedef struct {
	ui_dialog_kind kind;
	char *target;       /* the session or operation id (raw, for the core) */
	char *checkpoint;   /* the checkpoint id (rollback to a checkpoint) */
	const char *status; /* UI_DLG_STATUS: "paused" or "running" (static) */
	bool shared;        /* UI_DLG_STATUS, _COMPACT in a store hosts share (a
			       database): nothing for z to undo there */
	char from[16];      /* UI_DLG_STATUS: the status the operator saw ("": any) */
	ac_checkpoint_plan plan;
	bool has_plan;
	char *shown;        /* UI_DLG_ROLLBACK_OP, _REVERT_OP: the plan shown, to compare at y */
	ui_undo undo;       /* UI_DLG_UNDO: the action to undo (a copy) */
	pid_t stop_pid;     /* UI_DLG_STATUS: the agent S/T may stop (0: none);
			     * UI_DLG_STOP: the one to signal */
	int stop_signal;    /* UI_DLG_STOP: SIGSTOP or SIGTERM */
	char **running;     /* UI_DLG_ROLLBACK_OP, _REVERT_OP: the sessions running
			       when it was shown (raw ids, owned), which P pauses */
	size_t n_running;
	bool pause_first;   /* P: pause them, then plan again (nothing rolled back) */
} ui_dialog;

/* What ui_act_run() did, for ui_act_report() on the dashboard's thread:
 * the status line's text, or (a rollback) a plan that changed since it was
 * shown, nothing done. */
typedef struct {
	bool error;
	char message[512];                /* raw: sanitised when shown */
	bool replanned;                   /* nothing done: the new plan is below */
	ac_oplog_rollback_result replan;  /* UI_DLG_ROLLBACK_OP's */
	char *replan_notes;               /* its dry run's notes, or NULL */
	char *paused;                     /* P: what the pauses did, lines split by
					     '\n' (raw; owned), or NULL */
	ac_checkpoint_plan ckpt_replan;   /* UI_DLG_ROLLBACK_CKPT's */
	ui_undo undo;                     /* what undoes the action done, when set */
	bool undo_set;
	bool undo_forget;                 /* what z undid before is no more to undo */
} ui_act_outcome;

/* p / r: asks before moving session id to status ("paused" or
 * "running"), saying what will happen to its agent; a change the status
 * does not allow is refused on the status line instead. y runs
 * ac_operator_set_status(), whichever the workspace's store: in a store
 * hosts share, one compare-and-set from the status the row showed (a
 * change another host made first refuses it, nothing written); no pause
 * request and no signal there: the agent may be on another host. */
void ui_act_plan_status(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *id,
			const char *status);

/* c: plans compacting session id (its history as the store holds it) into
 * d and m's dialog (kind stays NONE and the status line says why when
 * there is nothing to do); y runs ac_operator_compact(). */
void ui_act_plan_compact(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *id);

/* R in Operations: a dry run of rolling back to before operation op_id,
 * naming the sessions whose operations it undoes. */
void ui_act_plan_rollback_op(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *op_id);

/* v in Operations: a dry run of reverting operation op_id alone, naming
 * its session; a collision with later changes is refused on the status
 * line, naming the paths (no dialog). */
void ui_act_plan_revert_op(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *op_id);

/* C: what trusting the workspace's project file would change (a diff of
 * the file since it was last trusted here, ac_config_trust_review()); y
 * trusts the content shown (ac_config_trust_reviewed() with its hash: a
 * file changed meanwhile is refused). A status line when there is nothing
 * to trust. */
void ui_act_plan_trust(ui_dialog *d, const ac_workspace *ws, ui_model *m);

/* P in the dialog of R or v while sessions run: pauses them as p does
 * (each a pause request, the file written paused once quiet), on the
 * worker, then plans again and shows the new plan with which of them
 * acknowledged the pause; nothing is rolled back. P asks first: the
 * dialog becomes that question, and y (ui_act_run()) does it. False, and
 * a status line saying why, in another dialog. */
bool ui_act_pause_first(ui_dialog *d, ui_model *m);

/* F (finish) or U (undo, finish false) in Operations: the dialog of the
 * rollback or revert stopped midway that the intent names, from a dry run
 * of the same core call (ac_oplog_finish_interrupted(),
 * ac_oplog_undo_interrupted()): every file and what happens to it. */
void ui_act_plan_intent(ui_dialog *d, const ac_workspace *ws, ui_model *m, bool finish);

/* R in Checkpoints: the plan of rolling session back to checkpoint. */
void ui_act_plan_rollback_checkpoint(ui_dialog *d, const ac_workspace *ws, ui_model *m,
				     const char *session, const char *checkpoint);

/* y, on a worker thread: carries out d's action through the core and
 * fills out. Touches no model, only d (the worker's own) and ws (read
 * only). cancel_fd (-1: none), once readable, kills a running summariser
 * or compensation (ac_operator_set_cancel_fd()); the outcome then says the
 * action was cancelled. A rollback first plans again and, when the plan
 * differs from the one shown, does nothing (out->replanned). */
/* S / T in the dialog of p that offered them (ui_dialog.stop_pid): asks,
 * naming the pid and its command line, before sending sig (SIGSTOP or
 * SIGTERM) to that agent; a status line saying why not otherwise. */
void ui_act_plan_stop(ui_dialog *d, const ac_workspace *ws, ui_model *m, int sig);

void ui_act_run(const ui_dialog *d, const ac_workspace *ws, int cancel_fd, ui_act_outcome *out);

/* Shows out on m's status line; a changed plan reopens d's dialog with the
 * new plan, to be confirmed again (else d is closed). What undoes the
 * action goes into undo (z). Frees out's contents. */
void ui_act_report(ui_dialog *d, const ac_workspace *ws, ui_model *m, ui_undo *undo,
		   ui_act_outcome *out);

/* What d's action is doing while it runs, for the running line
 * ("compacting s1"; raw ids). */
void ui_act_running(ac_buf *out, const ui_dialog *d);

/* True when Esc may cancel d's action while it runs: a compaction with an
 * external summariser, a checkpoint rollback with compensations to run.
 * Not a rollback of files (git), not a pause or resume. */
bool ui_act_cancellable(const ui_dialog *d, const ac_workspace *ws);

/* When the status line's newest message is an error wider than the
 * status line (cols columns), which cuts it, and no dialog is open: opens
 * it whole in a popup (UI_DLG_NOTICE), wrapped, that any key closes.
 * Called after a write key's handler and after an action's report. */
void ui_act_notice(ui_dialog *d, ui_model *m, int cols);

/* n / Esc: closes the dialog (its text in m too); nothing changes. */
void ui_dialog_close(ui_dialog *d, ui_model *m);

#endif
