/* What an operator does to a session, from the command line or the
 * dashboard: pause, resume (optionally starting the configured
 * resumeCommand), complete, fail, compact. Each changes the session file
 * through ac_session.h and records the action in the journal as an event of
 * agent "Human", so both front ends behave identically. */
#ifndef AC_OPERATOR_H
#define AC_OPERATOR_H

#include "ac_buf.h"
#include "ac_checkpoint.h"
#include "ac_compact.h"
#include "ac_workspace.h"

#include <sys/types.h>

/* Moves session id to status ("paused", "running", "completed", "failed")
 * and journals pause/resume. Resuming starts resumeCommand (with "{id}"
 * replaced) detached, output to <workspace>/.agent/logs/<id>.log, and
 * *out_pid (may be NULL) receives its pid (0 when none is configured).
 * Non-fatal trouble after the change (the journal could not be written)
 * is described in notes (may be NULL). */
int ac_operator_set_status(const ac_workspace *ws, const char *id, const char *status,
			   pid_t *out_pid, ac_buf *notes);

/* Compacts session id (force: even below the trigger) and journals it. */
int ac_operator_compact(const ac_workspace *ws, const char *id, bool force,
			ac_compact_result *out, ac_buf *notes);

/* Runs a checkpoint rollback planned with ac_checkpoint_plan_rollback()
 * (compensations newest first, then the history cut) and journals it as
 * ROLLBACK. *out_ran receives how many compensations ran. A journal that
 * cannot be written after the rollback is described in notes. */
int ac_operator_rollback_checkpoint(const ac_workspace *ws, const char *session_id,
				    ac_checkpoint_plan *plan, size_t *out_ran, ac_buf *notes);

/* Appends an operator event (agent Human, status SUCCESS) to the journal.
 * params is stolen. *out_id (may be NULL) receives the event's id. */
int ac_operator_journal(const ac_workspace *ws, const char *action_type,
			const char *session_id, json_t *params, const char *message);

#endif
