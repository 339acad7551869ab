/* Operator actions shared by the command line and the dashboard. */
#include "ac_operator.h"

#include "ac_backend_sys.h"
#include "ac_error.h"
#include "ac_journal_store.h"
#include "ac_proc.h"
#include "ac_session.h"
#include "ac_session_writes.h"
#include "ac_time.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Journals one step of a status change; a journal that cannot be written
 * is only a note: the session has changed (or not) either way. */
static void journal_step(const ac_workspace *ws, ac_buf *notes, const char *action,
			 const char *status, const char *id, const char *to, const char *message)
{
	const char *from = !strcmp(to, "paused") ? "running" : "paused";

	if (ac_journal_operator_event(ws, action, status, id,
				      json_pack("{s:s, s:s, s:s}", "sessionId", id, "from", from,
						"to", to),
				      message) != 0 && notes)
		ac_buf_printf(notes, "%sthe journal was not written: %s", notes->len ? "; " : "",
			      ac_error_last());
}

/* The session's status now, copied to out ("" when it cannot be read). */
/* shared: the store hosts share (no session file to read); NULL: the file. */
static void status_now(char out[32], const ac_workspace *ws, const ac_backend *shared,
		       const char *id)
{
	ac_session *s = NULL;

	out[0] = '\0';
	if (shared) {
		ac_backend_session_info info = {0};

		if (shared->inspector.find(shared->impl, &info, id) == 0)
			snprintf(out, 32, "%s", info.status ? info.status : "");
		ac_backend_session_info_clear(&info);
		return;
	}
	if (ac_session_load(&s, ws->sessions_dir, id) == 0)
		snprintf(out, 32, "%s", ac_session_status(s));
	ac_session_free(s);
}

/* Refuses, before anything is written, a change the status does not allow. */
static int check_allowed(const char *id, const char *from, const char *to)
{
	if (!strcmp(from, to))
		return ac_error_set(AC_EINVAL, "session '%s': the session is %s already", id, to);
	if (!ac_session_status_change_allowed(from, to))
		return ac_error_set(AC_EINVAL, "session '%s': a %s session cannot become %s%s", id,
				    *from ? from : "status-less", to,
				    !strcmp(from, "completed") || !strcmp(from, "failed")
					? " (it has ended)" : "");
	return 0;
}

static void sleep_ms(int ms)
{
	usleep((useconds_t)ms * 1000);
}

/* Records that the agent saved "running" over an applied pause. */
static int record_override(const ac_workspace *ws, const char *id, ac_request *req,
			   ac_buf *notes)
{
	req->state = AC_REQUEST_OVERRIDDEN;
	ac_request_write(ws->sessions_dir, id, req);
	journal_step(ws, notes, "SESSION_PAUSE", "FAILED", id, "paused",
		     "Pause overridden by the agent: the session was saved as running again");
	return AC_PENDING_OVERRIDDEN;
}

static int pause_session(const ac_workspace *ws, const char *id, bool wait,
			 ac_operator_outcome *out, ac_buf *notes)
{
	ac_request req = {.kind = AC_REQUEST_PAUSE, .state = AC_REQUEST_PENDING,
			   .requested_ms = ac_time_now_ms()};
	ac_agent_process agent;
	char status[32];
	int64_t idle = 0;
	bool active;
	int rc;

	if ((rc = ac_request_write(ws->sessions_dir, id, &req)))
		return rc;
	/* An agent that wrote lately may be in a save loop that undoes the
	 * pause at once: only then is the file watched afterwards. Writes
	 * agentctl made (ac_session_writes.h) are no such loop. */
	active = ac_session_foreign_idle_ms(&idle, ws->sessions_dir, id) == 0 &&
		 idle < 3 * (int64_t)ws->session_write.quiet_ms;
	if (ws->pause_signal && ac_process_find(&agent, ws->sessions_dir, id) == 0 &&
	    ac_process_signal(&agent, ws->pause_signal) == 0)
		out->signalled = true;
	rc = ac_session_set_status_with(NULL, ws->sessions_dir, id, "paused", &ws->session_write);
	if (rc == AC_EBUSY) {
		char *why = strdup(ac_error_last());

		out->pending = AC_PENDING_PAUSING;
		journal_step(ws, notes, "SESSION_PAUSE", "IN_PROGRESS", id, "paused",
			     "Pause requested; the agent is still writing the session");
		ac_error_set(AC_EBUSY, "%s: not paused; the pause request waits in "
			     "%s/.requests/%s.json for the agent to honour", why ? why : "",
			     ws->sessions_dir, id);
		free(why);
		return rc;
	}
	if (rc == AC_EINVAL) {
		status_now(status, ws, NULL, id);
		if (!strcmp(status, "paused")) {
			/* A cooperating agent read the request and paused itself. */
			req.state = AC_REQUEST_APPLIED;
			req.applied_ms = ac_time_now_ms();
			ac_request_write(ws->sessions_dir, id, &req);
			out->applied = true;
			journal_step(ws, notes, "SESSION_PAUSE", "SUCCESS", id, "paused",
				     "Paused: the agent honoured the pause request");
			return 0;
		}
	}
	if (rc) {
		char *why = strdup(ac_error_last());

		ac_request_clear(ws->sessions_dir, id);
		ac_error_set(rc, "%s", why ? why : "");
		free(why);
		return rc;
	}
	req.state = AC_REQUEST_APPLIED;
	req.applied_ms = ac_time_now_ms();
	ac_request_write(ws->sessions_dir, id, &req);
	out->applied = true;
	journal_step(ws, notes, "SESSION_PAUSE", "SUCCESS", id, "paused", "Paused the session");
	/* An agent that never reads before it saves undoes the pause with its
	 * next turn; say so now rather than let "paused" stand. */
	for (int64_t end = ac_time_now_ms() + ws->session_write.quiet_ms;
	     wait && active && !out->signalled && ac_time_now_ms() < end;) {
		sleep_ms(20);
		status_now(status, ws, NULL, id);
		if (!strcmp(status, "running")) {
			out->applied = false;
			out->pending = (ac_pending)record_override(ws, id, &req, notes);
			return ac_error_set(AC_ECONFLICT, "session '%s': paused, then its agent saved it "
					    "as running again (pause overridden by the agent); it "
					    "does not read the pause request in %s/.requests/%s.json",
					    id, ws->sessions_dir, id);
		}
	}
	return 0;
}

/* The resume command with an argument that is exactly "{id}" replaced by
 * the session id (never spliced into a larger argument; see
 * ac_proc_expand_argv()). NULL when out of memory or refused (an id that
 * reads as an option); ac_error_last() says which. */
static char **expand_resume(const char *const *argv, const char *id)
{
	static const char *const names[] = AC_PROC_PLACEHOLDERS;
	const char *const values[] = {id, NULL};
	char **out = NULL;

	return ac_proc_expand_argv(&out, argv, names, values) == 0 ? out : NULL;
}

/* Starts resumeCommand for a paused session and watches for the agent to
 * take it over (the file, or the store hosts share, says "running"), for
 * timeout_ms. shared: that store, where no request file is written (its
 * agents read their status from it) and the command's pid tells whether it
 * still runs; NULL: the session file. */
static int launch_resume(const ac_workspace *ws, const ac_backend *shared,
			 const char *const *command, const char *id, int timeout_ms,
			 ac_operator_outcome *out, ac_buf *notes)
{
	ac_request req = {.kind = AC_REQUEST_RESUME, .state = AC_REQUEST_RESUMING,
			   .requested_ms = ac_time_now_ms()};
	char **argv = expand_resume(command, id), status[32];
	const char *const env[] = {"AGENT_SESSION_ID", id, NULL};
	ac_buf log = AC_BUF_INIT, message = AC_BUF_INIT;
	ac_agent_process agent;
	int rc;

	if (!argv) {
		rc = AC_EINVAL; /* ac_proc_expand_argv() said why */
		goto done;
	}
	if (ac_buf_printf(&log, "%s/.agent/logs/%s.log", ws->root, id)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	/* Replaces the pause request, which a cooperating agent would obey. */
	if (!shared && (rc = ac_request_write(ws->sessions_dir, id, &req)))
		goto done;
	if ((rc = ac_proc_spawn_detached_env(&out->pid, (const char *const *)argv, env, ws->root,
					     log.data))) {
		snprintf(req.reason, sizeof(req.reason), "%s", ac_error_last());
		goto failed;
	}
	if (!shared)
		ac_process_record(ws->sessions_dir, id, out->pid);
	ac_buf_printf(&message, "Resuming: started resumeCommand (pid %ld); waiting for the agent "
		      "to take the session over", (long)out->pid);
	journal_step(ws, notes, "SESSION_RESUME", "IN_PROGRESS", id, "running", message.data);
	for (int64_t start = ac_time_now_ms();; sleep_ms(25)) {
		bool gone = shared ? kill(out->pid, 0) != 0 && errno == ESRCH
				   : ac_process_find(&agent, ws->sessions_dir, id) != 0;

		status_now(status, ws, shared, id);
		if (!strcmp(status, "running")) {
			if (!shared)
				ac_request_clear(ws->sessions_dir, id);
			out->applied = true;
			ac_buf_clear(&message);
			ac_buf_printf(&message, "Resumed: the agent took the session over (pid %ld)",
				      (long)out->pid);
			journal_step(ws, notes, "SESSION_RESUME", "SUCCESS", id, "running", message.data);
			goto done;
		}
		if (strcmp(status, "paused") != 0) {
			if (!shared)
				ac_request_clear(ws->sessions_dir, id);
			rc = ac_error_set(AC_ECONFLICT, "session '%s' became %s while resuming", id,
					  *status ? status : "unreadable");
			goto done;
		}
		if (gone) {
			snprintf(req.reason, sizeof(req.reason), "resumeCommand (pid %ld) exited before "
				 "the agent took the session over; its output is in %s",
				 (long)out->pid, log.data);
			goto failed;
		}
		if (ac_time_now_ms() - start >= timeout_ms)
			break;
	}
	out->pending = AC_PENDING_RESUMING;
	if (timeout_ms >= ws->resume_timeout_ms) {
		ac_buf_clear(&message);
		ac_buf_printf(&message, "No takeover: the agent did not take the session over within "
			      "%d ms", timeout_ms);
		journal_step(ws, notes, "SESSION_RESUME", "FAILED", id, "running", message.data);
		out->pending = AC_PENDING_RESUME_LATE;
		rc = ac_error_set(AC_EBUSY, "session '%s': resumeCommand (pid %ld) runs, but the agent "
				  "did not take the session over within %d ms (it is still paused); "
				  "its output is in %s", id, (long)out->pid, timeout_ms, log.data);
	}
	goto done;
failed:
	req.state = AC_REQUEST_FAILED;
	if (!shared)
		ac_request_write(ws->sessions_dir, id, &req);
	out->pending = AC_PENDING_RESUME_FAILED;
	ac_buf_clear(&message);
	ac_buf_printf(&message, "Resume failed: %s", req.reason);
	journal_step(ws, notes, "SESSION_RESUME", "FAILED", id, "running", message.data);
	rc = ac_error_set(AC_EIO, "session '%s': not resumed: %s", id, req.reason);
done:
	ac_proc_argv_free(argv);
	ac_buf_free(&log);
	ac_buf_free(&message);
	return rc;
}

static int resume_session(const ac_workspace *ws, const char *id, bool wait,
			  ac_operator_outcome *out, ac_buf *notes)
{
	ac_agent_process agent;
	bool stopped = ws->pause_signal && ac_process_find(&agent, ws->sessions_dir, id) == 0;
	const char *const *command = NULL;
	int rc;

	/* An untrusted resumeCommand refuses the resume before anything
	 * changes (a stopped agent is continued without it). */
	if (!stopped && (rc = ac_workspace_command(&command, ws, "resumeCommand")))
		return rc;
	/* The agent that was paused is still there (stopped), or there is no
	 * command to start one: the session is resumed here. */
	if (stopped || !command) {
		/* First: an observer that saw the pause request beside a
		 * "running" file would call it overridden. */
		ac_request_clear(ws->sessions_dir, id);
		rc = ac_session_set_status_with(NULL, ws->sessions_dir, id, "running",
						&ws->session_write);
		if (rc)
			return rc;
		if (stopped && ac_process_signal(&agent, SIGCONT) == 0)
			out->signalled = true;
		out->applied = true;
		journal_step(ws, notes, "SESSION_RESUME", "SUCCESS", id, "running",
			     "Resumed the session");
		return 0;
	}
	/* A dashboard only looks for a command that fails at once. */
	return launch_resume(ws, NULL, command, id, wait ? ws->resume_timeout_ms : 300, out, notes);
}

/* The operator takes back a pause that did not happen (the agent kept
 * writing, or saved "running" over it): the request goes, so the session
 * is no longer shown pausing or overridden; an agent agentctl stopped
 * for it runs on. Without such a request, resuming a running session is
 * the usual refusal. */
static int withdraw_pause(const ac_workspace *ws, const char *id, ac_operator_outcome *out,
			  ac_buf *notes)
{
	ac_agent_process agent;
	ac_request req;
	int rc;

	if (ac_request_read(&req, ws->sessions_dir, id) != 0 || req.kind != AC_REQUEST_PAUSE)
		return check_allowed(id, "running", "running");
	if ((rc = ac_request_clear(ws->sessions_dir, id)))
		return rc;
	if (ws->pause_signal && ac_process_find(&agent, ws->sessions_dir, id) == 0 &&
	    ac_process_signal(&agent, SIGCONT) == 0)
		out->signalled = true;
	out->withdrawn = true;
	journal_step(ws, notes, "SESSION_RESUME", "SUCCESS", id, "running",
		     "Pause request withdrawn: the session was still running");
	return 0;
}

/* The status change in a store hosts share: one compare-and-set from the
 * status the operator saw (from; NULL: the store's now). No pause request
 * and no signal: the agent may run on another host and reads its status
 * from the store. */
static int set_status_shared(const ac_workspace *ws, const ac_backend *b, const char *id,
			     const char *from, const char *status, bool wait,
			     ac_operator_outcome *out, ac_buf *notes)
{
	const char *const *command = NULL;
	ac_backend_session_info info = {0};
	const char *action = !strcmp(status, "paused")	  ? "SESSION_PAUSE"
			     : !strcmp(status, "running") ? "SESSION_RESUME"
							  : NULL;
	int rc;

	/* The operator names a session by id: its tenant is the store's. */
	if ((rc = b->inspector.find(b->impl, &info, id)))
		return rc;
	if (!from)
		from = info.status;
	/* The rules are judged on the status the operator saw; the store
	 * refuses if it is not that any more. */
	if ((rc = check_allowed(id, from, status)))
		goto done;
	/* A resume starts resumeCommand as on files: refused before anything
	 * changes when it is not trusted; started, it is the agent that sets
	 * "running" in the store, which the wait watches for. */
	if (!strcmp(status, "running") &&
	    ((rc = ac_workspace_command(&command, ws, "resumeCommand")) || command)) {
		if (!rc)
			rc = launch_resume(ws, b, command, id,
					   wait ? ws->resume_timeout_ms : 300, out, notes);
		goto done;
	}
	if (!(rc = b->session.set_status(b->impl, info.tenant, id, from, status))) {
		out->applied = true;
		if (action)
			journal_step(ws, notes, action, "SUCCESS", id, status,
				     !strcmp(status, "paused") ? "Paused the session"
							       : "Resumed the session");
	}
done:
	ac_backend_session_info_clear(&info);
	return rc;
}

/* The status change of a session file a local agent writes. */
static int set_status_local(const ac_workspace *ws, const char *id, const char *seen,
			    const char *status, bool wait, ac_operator_outcome *out, ac_buf *notes)
{
	char from[32];
	int rc;

	{
		ac_session *before = NULL;

		if ((rc = ac_session_load(&before, ws->sessions_dir, id)))
			return rc;
		snprintf(from, sizeof(from), "%s", ac_session_status(before));
		ac_session_free(before);
	}
	if (seen && strcmp(seen, from))
		return ac_error_set(AC_ECONFLICT, "session '%s' is %s now, not %s: nothing changed",
				    id, *from ? from : "without a status", seen);
	if (!strcmp(status, "running") && !strcmp(from, "running"))
		return withdraw_pause(ws, id, out, notes);
	if ((rc = check_allowed(id, from, status)))
		return rc;
	if (!strcmp(status, "paused"))
		return pause_session(ws, id, wait, out, notes);
	if (!strcmp(status, "running"))
		return resume_session(ws, id, wait, out, notes);
	rc = ac_session_set_status_with(NULL, ws->sessions_dir, id, status, &ws->session_write);
	if (rc == 0) {
		ac_request_clear(ws->sessions_dir, id);
		out->applied = true;
	}
	return rc;
}

int ac_operator_set_status(const ac_workspace *ws, const char *id, const char *from,
			   const char *status, bool wait, ac_operator_outcome *out, ac_buf *notes)
{
	ac_operator_outcome ignored;
	ac_backend *b = NULL;
	int rc;

	if (!out)
		out = &ignored;
	memset(out, 0, sizeof(*out));
	if ((rc = ac_session_id_check(id)) || (rc = ac_workspace_store(&b, ws)))
		return rc;
	if (b->optional.local_sessions)
		rc = set_status_local(ws, id, from, status, wait, out, notes);
	else
		rc = set_status_shared(ws, b, id, from, status, wait, out, notes);
	ac_workspace_store_release(ws, b);
	return rc;
}

/* Whether the "running" now in session id's file came after its applied
 * pause had held for session.quietMs x AC_QUIET_TURNS: a program resumed
 * it (seed resumeOrCreate, `claude --resume`), not an agent saving over
 * the pause in its loop. Judged by the file's last write, so an agent that
 * overrode the pause and kept writing long before anyone looked is called
 * resumed too. */
static bool resumed_elsewhere(const ac_workspace *ws, const char *id, const ac_request *req)
{
	int64_t idle = 0, written;

	if (!req->applied_ms || ac_session_idle_ms(&idle, ws->sessions_dir, id) != 0)
		return false;
	written = ac_time_now_ms() - idle;
	return written - req->applied_ms >= (int64_t)ws->session_write.quiet_ms * AC_QUIET_TURNS;
}

ac_pending ac_operator_notice(const ac_workspace *ws, const char *id, const char *status)
{
	ac_request req;
	ac_pending pending;

	if (ac_request_read(&req, ws->sessions_dir, id) != 0)
		return AC_PENDING_NONE;
	pending = ac_request_judge(&req, status, ac_time_now_ms(), ws->resume_timeout_ms);
	if (pending == AC_PENDING_OVERRIDDEN && req.state == AC_REQUEST_APPLIED) {
		bool elsewhere = resumed_elsewhere(ws, id, &req);

		/* Only if no operator replaced the request meanwhile (a resume
		 * clears it just before it writes "running"). */
		req.state = elsewhere ? AC_REQUEST_RESUMED : AC_REQUEST_OVERRIDDEN;
		if (ac_request_update(ws->sessions_dir, id, &req) != 0)
			return AC_PENDING_NONE;
		if (elsewhere) {
			journal_step(ws, NULL, "SESSION_RESUME", "SUCCESS", id, "running",
				     "Resumed elsewhere: the session was saved as running after its "
				     "pause had held");
			return AC_PENDING_RESUMED_ELSEWHERE;
		}
		journal_step(ws, NULL, "SESSION_PAUSE", "FAILED", id, "paused",
			     "Pause overridden by the agent: the session was saved as running again");
	} else if (req.kind == AC_REQUEST_RESUME && !strcmp(status, "running")) {
		ac_request_clear(ws->sessions_dir, id); /* the agent took it over */
	}
	return pending;
}

void ac_operator_set_cancel_fd(int fd)
{
	ac_proc_set_cancel_fd(fd);
}
