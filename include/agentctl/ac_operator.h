/* What an operator does to a session, from the command line or the
 * dashboard: pause, resume (optionally starting the configured
 * resumeCommand), complete, fail, compact, roll back to a checkpoint.
 * Each is one function that works on the workspace's store whichever it
 * is (ac_workspace_store()): a session file that a local agent writes is
 * changed through ac_session.h only once the agent has stopped writing it,
 * with requests for the agent through ac_control.h; a store hosts share
 * is changed in its own transactions. Every action is recorded in the
 * journal as an event of agent "Human", so both front ends behave
 * identically. */
#ifndef AC_OPERATOR_H
#define AC_OPERATOR_H

#include "ac_backend.h"
#include "ac_buf.h"
#include "ac_checkpoint.h"
#include "ac_compact.h"
#include "ac_control.h"
#include "ac_workspace.h"

#include <sys/types.h>

/* What a status change did, for the caller to report. */
typedef struct {
	bool applied;         /* the session file now says the new status */
	bool signalled;       /* the agent agentctl started was stopped/continued */
	pid_t pid;            /* resume: resumeCommand's pid, 0 when none ran */
	ac_pending pending;   /* what is left waiting (e.g. AC_PENDING_RESUMING) */
	bool withdrawn;       /* resume of a running session: its pause request,
				 waiting or overridden by the agent, taken back */
} ac_operator_outcome;

/* Moves session id to status ("paused", "running", "completed", "failed").
 * from is the status the operator saw (NULL: the status now): when the
 * session is not that any more, AC_ECONFLICT and nothing is written.
 *
 * In a store hosts share (no b->optional.local_sessions) it is the
 * store's compare-and-set, after the same rules (AC_EINVAL when the
 * change is not allowed); no pause request and no signal: the agent may
 * run on another host and reads its status from the store; pause and
 * resume are journaled. On the workspace's session files, it never writes
 * under an agent that is saving its turns:
 *
 * - pause: leaves a pause request for the agent (ac_control.h), stops the
 *   agent agentctl started with pauseSignal (when configured), then writes
 *   "paused" once the file is quiet (session.quietMs; AC_EBUSY after
 *   session.waitMs, the request left waiting). With wait, and when the
 *   file was written in the last 3 x session.quietMs (an agent may be in a
 *   save loop), it then watches the file for session.quietMs: an agent that
 *   saves "running" over the pause is reported (AC_ECONFLICT, "pause
 *   overridden by the agent"); later overrides, ac_operator_notice().
 * - resume: continues a stopped agent; else, with a resumeCommand, leaves
 *   the session paused for the agent's resumeOrCreate, starts the command
 *   detached (output in <workspace>/.agent/logs/<id>.log, the id also in
 *   AGENT_SESSION_ID) and, with wait, waits up to resume.timeoutMs for the
 *   file to say "running" (AC_EBUSY when it does not; AC_EIO when the
 *   command cannot start or exits first); without wait it returns once the
 *   command has run for a moment, out->pending AC_PENDING_RESUMING. With
 *   neither, it writes "running" itself.
 *   Resume of a session that is still running with a pause request left
 *   (waiting for a busy agent, or overridden by one that saved over it)
 *   withdraws the request (an agent agentctl stopped is continued):
 *   out->withdrawn.
 * - complete, fail: written once the file is quiet.
 *
 * Every outcome is journaled (agent Human; SUCCESS, FAILED, or
 * IN_PROGRESS while waiting). out may be NULL. Non-fatal trouble (the
 * journal could not be written) is described in notes (may be NULL). */
int ac_operator_set_status(const ac_workspace *ws, const char *id, const char *from,
			   const char *status, bool wait, ac_operator_outcome *out, ac_buf *notes);

/* For observers (the dashboard, session list): when session id, whose file
 * says status, overrode an applied pause, records that once (request state
 * and a FAILED journal event) and returns AC_PENDING_OVERRIDDEN; otherwise
 * what the session's request leaves pending. */
ac_pending ac_operator_notice(const ac_workspace *ws, const char *id, const char *status);

/* What a compaction did: done as the store reports it, and archive, the
 * file that keeps the summarised messages (owned; NULL when nothing was
 * summarised or the store keeps them itself, a database's compactions). */
typedef struct {
	ac_backend_compact_result done;
	char *archive;
} ac_operator_compaction;

/* Compacts session id (force: even below the trigger) with the
 * workspace's compaction settings and journals it: a session file in
 * place, or the store's compact_if_needed (tool results over the artifact
 * threshold to artifacts first), the session named by id alone. Then the
 * follow-ups (sandbox mirrors, USER.md). Free out with
 * ac_operator_compaction_free(), also after a failure. */
int ac_operator_compact(const ac_workspace *ws, const char *id, bool force,
			ac_operator_compaction *out, ac_buf *notes);

void ac_operator_compaction_free(ac_operator_compaction *c);

/* Checkpoint actions on the workspace's store (a shared store's session
 * named by id alone, its tenant the store's). The command line and the
 * dashboard both call them. */

/* Plans rolling session back to checkpoint (NULL: the latest) with the
 * checkpoint store store (borrowed) and the workspace's rollbackTools:
 * ac_checkpoint_plan_rollback() on a session file, else
 * ac_checkpoint_plan_rollback_history() on the history session.get reads.
 * Free *out with ac_checkpoint_plan_free(), also after a failure. */
int ac_operator_plan_rollback(ac_checkpoint_plan *out, ac_checkpoint_store *store,
			      const ac_workspace *ws, const char *session, const char *checkpoint);

/* ac_checkpoint_create_with() on a session file, else
 * ac_checkpoint_create_from() on the document session.get reads (nothing
 * is read or written in the workspace's session folder). */
int ac_operator_create_checkpoint(json_t **out, ac_checkpoint_store *store,
				  const ac_workspace *ws, const char *session,
				  const ac_checkpoint_create_options *opts);

/* Automatic persistence on or off (metadata.persistence.automatic): the
 * session file through ac_checkpoint_set_automatic(), else the stored
 * document through the store's optional update_document (one transaction
 * under the session's row lock). */
int ac_operator_set_checkpoint_auto(const ac_workspace *ws, const char *session, bool on);

/* Runs a checkpoint rollback planned with ac_operator_plan_rollback()
 * (compensations newest first, each attempt journaled as CMD_RUN with
 * SUCCESS or FAILED, then the removed messages archived and the history
 * cut once the file is quiet, metadata.rollbacks recording it) and
 * journals it as ROLLBACK. In a shared store the plan was made from the
 * history session.get gave, and the store's optional cut_history cuts and
 * archives in one transaction (AC_ECONFLICT, nothing cut, when another
 * host changed the messages since the plan), under the session's operator
 * lock, recording the rollback in the document's metadata.rollbacks (no
 * archive file: out->archive_path stays NULL). out is as
 * ac_checkpoint_rollback() fills it (free it with
 * ac_checkpoint_rollback_result_free(), also after a failure). A journal
 * that cannot be written is described in notes. */
int ac_operator_rollback_checkpoint(const ac_workspace *ws, const char *session_id,
				    ac_checkpoint_plan *plan, ac_checkpoint_rollback_result *out,
				    ac_buf *notes);

/* Makes what the operator's actions run on this thread cancellable: the
 * commands from configuration they wait on (a compaction's summariser, a
 * rollback's compensations). Once fd (a pipe's read end or an eventfd,
 * owned by the caller) is readable, the running command's process group
 * is killed and the action fails as cancelled; one started while fd is
 * readable is killed at once. -1 (the default) turns it off. Only the
 * calling thread is affected: for a worker thread that runs actions the
 * operator may cancel (the dashboard's). */
void ac_operator_set_cancel_fd(int fd);

#endif
