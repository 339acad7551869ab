/* A checkpoint rollback from the dashboard, wherever the session lives:
 * its file, or a database store (storage.url), where the session is read
 * through ac_backend and the cut is one transaction of the store's
 * (ac_backend_pg_cut_history). The dialog (tui/actions.c) and the preview
 * (tui/preview.c) plan with it; the worker runs it. No curses here. */
#ifndef UI_CKPT_ROLLBACK_H
#define UI_CKPT_ROLLBACK_H

#include "ac_checkpoint.h"
#include "ac_workspace.h"

/* Plans rolling session back to checkpoint (NULL: the latest) with the
 * checkpoint store store (borrowed) into *out (free it with
 * ac_checkpoint_plan_free(), also after a failure). 0 or AC_E*. */
int ui_ckpt_plan(ac_checkpoint_plan *out, ac_checkpoint_store *store, const ac_workspace *ws,
		 const char *session, const char *checkpoint);

/* Carries out plan as ac_operator_rollback_checkpoint() does (on a
 * database store through ac_operator_rollback_checkpoint_in()). */
int ui_ckpt_rollback(const ac_workspace *ws, const char *session, ac_checkpoint_plan *plan,
		     ac_checkpoint_rollback_result *out, ac_buf *notes);

#endif
