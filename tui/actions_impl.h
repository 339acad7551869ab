/* What tui/actions.c shares with the files split from it (private to
 * tui/; not part of the dashboard's interface). */
#ifndef UI_ACTIONS_IMPL_H
#define UI_ACTIONS_IMPL_H

#include "actions.h"

#include <stdbool.h>

/* Sets out's status-line message (raw; sanitised when shown). */
void ui_act_say(ui_act_outcome *out, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Whether the operator asked to cancel (cancel_fd readable). */
bool ui_act_cancel_asked(int cancel_fd);

/* UI_DLG_COMPACT's action. */
void ui_act_run_compact(const ui_dialog *d, const ac_workspace *ws, int cancel_fd,
			ui_act_outcome *o);

/* *local: the workspace's store keeps session files local agents write
 * (its optional local_sessions); 0, or the store's error (ac_error_last()). */
int ui_act_store_local(bool *local, const ac_workspace *ws);

/* The dialog of p on a session whose agent ignores a pending pause: the
 * line offering S/T when agentctl knows its process (sets d->stop_pid). */
void ui_act_offer_stop(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *id);

/* UI_DLG_STOP's action: the signal, to the process still recorded. */
void ui_act_run_stop(const ui_dialog *d, const ac_workspace *ws, ui_act_outcome *o);

/* Adds text[0..len) to the dialog, over several lines when it is longer
 * than one dialog line keeps (sanitised there). */
void ui_act_dialog_text(ui_model *m, const char *text, size_t len);

/* UI_DLG_TRUST's action (tui/actions_trust.c). */
void ui_act_run_trust(const ui_dialog *d, const ac_workspace *ws, ui_act_outcome *o);

/* The dialog of R or v (tui/actions_live.c): the sessions running now
 * (rows of m whose file says running still) into d->running, and a line
 * and keys line offering P to pause them first. */
void ui_act_offer_pause(ui_dialog *d, const ac_workspace *ws, ui_model *m);

/* ... and the operator's own uncommitted edits (ac_oplog_operator_edits()),
 * each marked by whether plan g rewinds it. */
void ui_act_operator_edits(const ac_workspace *ws, ui_model *m, const ac_git_rollback_result *g);

/* P's pauses, on the worker: each session of d->running still running is
 * asked to pause, then paused as p does; *report (owned, '\n' between
 * lines) says which acknowledged and which did not. */
void ui_act_pause_running(const ui_dialog *d, const ac_workspace *ws, char **report);

#endif
