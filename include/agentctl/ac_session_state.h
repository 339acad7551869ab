/* What a session is doing now, in one word: derived, never stored.
 *
 * A transcript written by a coding agent (Claude Code, Codex, Gemini CLI)
 * says whose turn it is (its last entry), whether a tool call is still
 * without a result (the agent waits for a permission, or the tool runs),
 * and, by its modification time, how long the agent has been quiet. A
 * seed session file has its own status. This module turns those inputs
 * into a state; it reads nothing and keeps nothing (a pure function), so
 * the CLI, the dashboard and hooks agree. It is not a reader of any
 * format: the adapters (ac_source.h) fill the inputs. */
#ifndef AC_SESSION_STATE_H
#define AC_SESSION_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	AC_STATE_RUNNING = 0, /* the agent is working (its turn, recent writes) */
	AC_STATE_WAITING,     /* for the operator: input, or a tool permission */
	AC_STATE_IDLE,        /* quiet for a while, not ended */
	AC_STATE_ENDED,       /* quiet for long: the agent is gone */
	AC_STATE_PAUSED,      /* a seed session paused by the operator */
	AC_STATE_COMPLETED,   /* a seed session marked completed */
	AC_STATE_FAILED,      /* a seed session marked failed */
	AC_STATE_COUNT
} ac_session_state;

/* Whose turn the last entry that matters leaves it to. */
typedef enum {
	AC_TURN_NONE = 0, /* nothing said yet: the agent waits for a prompt */
	AC_TURN_AGENT,    /* a prompt or a tool result came in: the agent works */
	AC_TURN_USER,     /* the agent answered (or was interrupted): the user's turn */
} ac_turn;

/* What the tool itself says of its live process, from a status file
 * (Claude Code's ~/.claude/sessions/<pid>.json, ac_source_status.h). */
typedef enum {
	AC_AGENT_UNKNOWN = 0, /* no status file names the session: the transcript decides */
	AC_AGENT_BUSY,        /* the process works */
	AC_AGENT_WAITING,     /* it waits on the operator (a permission prompt, a question) */
	AC_AGENT_IDLE,        /* it sits at its prompt */
	AC_AGENT_GONE,        /* the file names a process that is dead (a crash left it) */
	AC_AGENT_LIVE,        /* its process lives but says nothing of what it does */
	AC_AGENT_NONE         /* no file, and no process of the tool runs in its folder */
} ac_agent_status;

typedef struct {
	const char *seed_status; /* a seed session's status; NULL for a transcript */
	ac_turn turn;
	size_t pending_tools;    /* tool calls without a result yet */
	bool awaiting_approval;  /* the transcript itself says a call waits for approval */
	int64_t quiet_ms;        /* since the file was last written */
	ac_agent_status agent;   /* a status file's word, above all the transcript says */
} ac_state_inputs;

/* Thresholds, all in milliseconds (config sources.state.*). */
typedef struct {
	int64_t permission_ms; /* a pending call quiet this long waits for a permission (5000) */
	int64_t idle_ms;       /* quiet this long is idle (300000) */
	int64_t ended_ms;      /* a transcript quiet this long has ended (3600000) */
} ac_state_thresholds;

#define AC_STATE_THRESHOLDS_DEFAULT {5000, 300000, 3600000}

/* The state of in under limits (NULL: the defaults). A seed session
 * follows its status (running becomes idle when quiet past idle_ms). A
 * status file decides for a transcript: busy is running, waiting waiting,
 * idle idle, a dead process ended, however recent the transcript (a live
 * one that says nothing leaves it to the transcript, but it is never
 * ended; with no process at all, never running: idle). Otherwise a
 * transcript: ended past ended_ms; waiting when a call awaits approval or
 * a pending call is quiet past permission_ms, or when it is the user's
 * turn; running when it is the agent's turn; idle past idle_ms. */
ac_session_state ac_session_state_derive(const ac_state_inputs *in,
					 const ac_state_thresholds *limits);

/* "running", "waiting", "idle", "ended", "paused", "completed", "failed".
 * Static; "?" for a value out of range. */
const char *ac_session_state_name(ac_session_state state);

/* The state named name (as ac_session_state_name() writes it): 0, or
 * AC_EINVAL listing the names. */
int ac_session_state_parse(ac_session_state *out, const char *name);

/* The order states sort in, the ones that want attention first: waiting,
 * running, idle, paused, failed, completed, ended. */
int ac_session_state_rank(ac_session_state state);

#endif
