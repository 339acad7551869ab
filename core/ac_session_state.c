/* Deriving a session's state from what its file says (ac_session_state.h). */
#include "ac_session_state.h"

#include "ac_error.h"

#include <string.h>

static const char *const names[AC_STATE_COUNT] = {
	[AC_STATE_RUNNING] = "running",
	[AC_STATE_WAITING] = "waiting",
	[AC_STATE_IDLE] = "idle",
	[AC_STATE_ENDED] = "ended",
	[AC_STATE_PAUSED] = "paused",
	[AC_STATE_COMPLETED] = "completed",
	[AC_STATE_FAILED] = "failed",
};

/* Attention first: what needs the operator, then what works, then what
 * is done with. */
static const int ranks[AC_STATE_COUNT] = {
	[AC_STATE_WAITING] = 0, [AC_STATE_RUNNING] = 1, [AC_STATE_IDLE] = 2,
	[AC_STATE_PAUSED] = 3,  [AC_STATE_FAILED] = 4,  [AC_STATE_COMPLETED] = 5,
	[AC_STATE_ENDED] = 6,
};

static ac_session_state from_seed(const char *status, int64_t quiet_ms,
				  const ac_state_thresholds *limits)
{
	if (!strcmp(status, "paused"))
		return AC_STATE_PAUSED;
	if (!strcmp(status, "completed"))
		return AC_STATE_COMPLETED;
	if (!strcmp(status, "failed"))
		return AC_STATE_FAILED;
	/* A running session is the operator's to end (complete or fail): it
	 * only goes idle, however long its agent is silent. */
	return quiet_ms >= limits->idle_ms ? AC_STATE_IDLE : AC_STATE_RUNNING;
}

static ac_session_state from_transcript(const ac_state_inputs *in, int64_t quiet,
					const ac_state_thresholds *limits)
{
	if (quiet >= limits->ended_ms)
		return in->agent == AC_AGENT_LIVE ? AC_STATE_IDLE : AC_STATE_ENDED;
	/* No transcript records a permission prompt (Claude Code and Codex
	 * keep it on screen only): a call without a result that has been
	 * quiet for a few seconds is the sign of one. A slow tool looks the
	 * same; the threshold is the operator's to tune. */
	if (in->awaiting_approval ||
	    (in->pending_tools > 0 && quiet >= limits->permission_ms))
		return AC_STATE_WAITING;
	if (in->pending_tools > 0)
		return AC_STATE_RUNNING;
	if (quiet >= limits->idle_ms)
		return AC_STATE_IDLE;
	return in->turn == AC_TURN_AGENT ? AC_STATE_RUNNING : AC_STATE_WAITING;
}

ac_session_state ac_session_state_derive(const ac_state_inputs *in,
					 const ac_state_thresholds *limits)
{
	static const ac_state_thresholds defaults = AC_STATE_THRESHOLDS_DEFAULT;
	int64_t quiet = in->quiet_ms < 0 ? 0 : in->quiet_ms;
	ac_session_state state;

	if (!limits)
		limits = &defaults;
	if (in->seed_status)
		return from_seed(in->seed_status, quiet, limits);
	/* The tool's own word on its live process beats any reading of the
	 * transcript: a permission prompt and a slow tool look the same there. */
	switch (in->agent) {
	case AC_AGENT_BUSY: return AC_STATE_RUNNING;
	case AC_AGENT_WAITING: return AC_STATE_WAITING;
	case AC_AGENT_IDLE: return AC_STATE_IDLE;
	case AC_AGENT_GONE: return AC_STATE_ENDED;
	default: break;
	}
	state = from_transcript(in, quiet, limits);
	/* No process works on it (it exited cleanly mid-turn): nothing runs,
	 * and no permission prompt is open, whatever its last turn says. */
	if (in->agent == AC_AGENT_NONE &&
	    (state == AC_STATE_RUNNING || (state == AC_STATE_WAITING && in->pending_tools > 0)))
		return AC_STATE_IDLE;
	return state;
}

const char *ac_session_state_name(ac_session_state state)
{
	return (unsigned)state < AC_STATE_COUNT ? names[state] : "?";
}

int ac_session_state_parse(ac_session_state *out, const char *name)
{
	for (int i = 0; i < AC_STATE_COUNT; i++)
		if (!strcmp(names[i], name)) {
			*out = (ac_session_state)i;
			return 0;
		}
	return ac_error_set(AC_EINVAL, "'%s' is not a state (running, waiting, idle, ended, "
			    "paused, completed, failed)", name);
}

int ac_session_state_rank(ac_session_state state)
{
	return (unsigned)state < AC_STATE_COUNT ? ranks[state] : AC_STATE_COUNT;
}
