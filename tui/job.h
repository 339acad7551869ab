/* An operator action running off the dashboard's loop. A confirmed
 * dialog's action (a compaction with an external summariser, a rollback,
 * compensations, a pause waiting for a quiet file) may take minutes; it
 * runs on one worker thread that calls the core with its own copy of the
 * dialog and ws (read only), and hands its outcome back through a pipe
 * that the dashboard's poll() watches, so the screen keeps drawing and
 * navigation keeps working. The core's last error is thread-local
 * (ac_error.c), so the worker's messages are its own. Cancelling writes to
 * a second pipe, which the core watches while a summariser or compensation
 * runs (ac_operator_set_cancel_fd()). No curses here. */
#ifndef UI_JOB_H
#define UI_JOB_H

#include "actions.h"

#include "ac_buf.h"
#include "ac_workspace.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ui_job ui_job;

/* Starts d's action on a worker thread: d's contents move into the job
 * (d is left empty; the model's dialog text is the caller's to close); ws
 * is borrowed and must outlive the job. now is the start time (ms). 0, or
 * AC_EIO/AC_ENOMEM with d unchanged. */
int ui_job_start(ui_job **out, ui_dialog *d, const ac_workspace *ws, int64_t now);

/* The fd that turns readable when the action has finished. */
int ui_job_fd(const ui_job *j);

/* True once the action has finished (does not wait). */
bool ui_job_done(const ui_job *j);

/* Asks the action to stop: true when it can be (a summariser or
 * compensation is killed with its process group), false when it cannot
 * (a rollback of files, a pause) or was already asked. */
bool ui_job_cancel(ui_job *j);

/* What runs ("compacting s1"; raw ids), borrowed from j. */
const char *ui_job_what(const ui_job *j);

/* True when ui_job_cancel() can stop it. */
bool ui_job_cancellable(const ui_job *j);

/* True once the operator asked it to stop (ui_job_cancel() took). */
bool ui_job_cancelled(const ui_job *j);

/* The running line: "compacting s1… 12s  Esc: cancel" (raw ids). */
void ui_job_describe(const ui_job *j, ac_buf *out, int64_t now);

/* Milliseconds until the running line's seconds change. */
int ui_job_tick_ms(const ui_job *j, int64_t now);

/* Waits for the action (at once when ui_job_done()), then hands back its
 * dialog into d (empty before) and its outcome into out, and frees j. */
void ui_job_finish(ui_job *j, ui_dialog *d, ui_act_outcome *out);

#endif
