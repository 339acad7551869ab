/* Operator requests that wait beside a session for its agent, and the
 * agent processes agentctl started.
 *
 * A session file belongs to the agent writing it: a writer that never
 * reads before it saves undoes any change made underneath it. So a pause
 * or resume is first written as a request,
 *   <sessionDir>/.requests/<id>.json
 *   {"sessionId", "request": "pause"|"resume", "state", "requestedAt",
 *    "requestedBy": "Human", "appliedAt"?, "reason"?}
 * which a cooperating agent reads before each save (the protocol is in the
 * README), and is applied to the session file only once that file is
 * quiet. The request stays until the session leaves the state it asked for
 * through a resume, so a paused session written back as "running" without
 * one is seen for what it is: a pause the agent overrode.
 *
 * An agent that agentctl started (resumeCommand) is recorded in the
 * operator's state folder, $XDG_STATE_HOME/agent/processes/<digest>.json
 * (else ~/.local/state/...; digest: of the sessions folder's real path and
 * the id), {"sessionId", "pid", "host", "startTicks", "startedAt"}, so that
 * pauseSignal can stop and continue that very process (the start time in
 * /proc tells a reused pid apart). Not in the workspace, which agents
 * write: a planted record must not point pauseSignal at any process. Nothing here is the session file
 * itself; ac_operator.h combines them. */
#ifndef AC_CONTROL_H
#define AC_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ac_buf.h"
#include "ac_types.h"

typedef enum {
	AC_REQUEST_PAUSE,
	AC_REQUEST_RESUME,
} ac_request_kind;

typedef enum {
	AC_REQUEST_PENDING,    /* pause: not yet in the session file */
	AC_REQUEST_APPLIED,    /* pause: written into the session file */
	AC_REQUEST_OVERRIDDEN, /* pause: the agent saved "running" over it */
	AC_REQUEST_RESUMING,   /* resume: command started, waiting for the agent */
	AC_REQUEST_FAILED,     /* resume: the command could not start or died */
	AC_REQUEST_RESUMED,    /* pause: held, then the session was resumed elsewhere */
} ac_request_state;

/* How many session.quietMs a paused file stays unwritten before a later
 * "running" is a resume elsewhere (seed resumeOrCreate, `claude --resume`)
 * rather than an agent saving over the pause in its loop. */
#define AC_QUIET_TURNS 10

typedef struct {
	ac_request_kind kind;
	ac_request_state state;
	int64_t requested_ms;
	int64_t applied_ms;    /* 0 when not applied */
	char reason[256];      /* why it failed; "" otherwise */
	ac_file_id file;       /* set by ac_request_read(): the file it came from */
} ac_request;

/* Reads session id's request. 0, AC_ENOTFOUND when there is none, or
 * AC_ECORRUPT naming the file. */
int ac_request_read(ac_request *out, const char *sessions_dir, const char *id);

/* Writes (replaces) session id's request atomically. */
int ac_request_write(const char *sessions_dir, const char *id, const ac_request *request);

/* Rewrites the request ac_request_read() returned, only if its file is
 * still the one read (AC_ECONFLICT otherwise: someone replaced it). */
int ac_request_update(const char *sessions_dir, const char *id, const ac_request *request);

/* Removes session id's request; none is not an error. */
int ac_request_clear(const char *sessions_dir, const char *id);

/* The ids of the sessions that have a request, in an allocated array of
 * allocated strings (free each, then the array). Reads one small folder. */
int ac_request_list(char ***out, size_t *out_n, const char *sessions_dir);

/* What an observer shows for a session beside its status. */
typedef enum {
	AC_PENDING_NONE,
	AC_PENDING_PAUSING,        /* pause requested, the agent still writes */
	AC_PENDING_OVERRIDDEN,     /* paused, then saved "running" by its agent */
	AC_PENDING_RESUMING,       /* resumeCommand started, not taken over yet */
	AC_PENDING_RESUME_LATE,    /* ...for longer than the resume timeout */
	AC_PENDING_RESUME_FAILED,  /* resumeCommand could not start or died */
	AC_PENDING_RESUMED_ELSEWHERE, /* paused, then resumed by another program */
} ac_pending;

/* Judges a request (NULL: none) against the session's current status. */
ac_pending ac_request_judge(const ac_request *request, const char *status, int64_t now_ms,
			    int resume_timeout_ms);

/* A few words for people: "pausing", "pause overridden by the agent",
 * "resumed elsewhere",
 * "resuming", "resume: no takeover", "resume failed"; "" for none. */
const char *ac_pending_text(ac_pending pending);

/* An agent process agentctl started. */
typedef struct {
	pid_t pid;
	char host[256];
	uint64_t start_ticks; /* /proc/<pid>/stat field 22 */
} ac_agent_process;

/* Records pid (started just now on this host) for session id. */
int ac_process_record(const char *sessions_dir, const char *id, pid_t pid);

/* 0 and *out when session id's recorded process is still that process,
 * alive on this host; AC_ENOTFOUND otherwise (none, another host, gone, or
 * the pid now belongs to another program). */
int ac_process_find(ac_agent_process *out, const char *sessions_dir, const char *id);

/* Sends sig to the process's group (it leads one: started detached). */
int ac_process_signal(const ac_agent_process *process, int sig);

/* The process's command line (/proc/<pid>/cmdline, its arguments joined
 * by spaces, at most max bytes read) into out: what the operator checks
 * before a signal is sent. AC_ENOTFOUND when it is gone. */
int ac_process_cmdline(ac_buf *out, const ac_agent_process *process, size_t max);

/* The signal a pauseSignal value names ("SIGSTOP", "STOP", "SIGTSTP",
 * "TSTP", "SIGINT"...), or 0 with AC_EINVAL's message set. */
int ac_signal_from_name(const char *name);

#endif
