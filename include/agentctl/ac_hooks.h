/* Commands the operator configured to run when a session changes state,
 * and the notification when one starts waiting.
 *
 * hooks.onStatusChange (an argv array) runs on every change of a
 * session's state, with AGENT_SESSION_ID, AGENT_OLD_STATE,
 * AGENT_NEW_STATE, AGENT_SOURCE and AGENT_WAITING_FOR in its
 * environment (the last is what a waiting agent's tool says it waits on,
 * "permission prompt", escaped as shown on screen; empty when nothing
 * says) and AGENT_HOST (the host that last wrote the session, as a
 * database store records it, else this machine's name); "{id}", "{old}",
 * "{new}", "{host}" and "{reason}" (AGENT_WAITING_FOR) are replaced, only
 * as whole arguments. notify.desktop (an
 * argv array, e.g. ["notify-send", "agentctl: a session waits", "{id}"])
 * runs, with the same environment, when a session enters "waiting" or,
 * until derived states exist for seed sessions, "paused"; notify.bell
 * asks the caller to ring the terminal's bell then (the dashboard does,
 * through curses).
 *
 * Both commands come from configuration and run only when the layer that
 * named them may run commands (ac_config_command(): a project file only
 * once trusted). They never block the caller: each starts detached (its
 * own session, no zombie left), under `timeout` (coreutils) with a time
 * limit of AC_HOOKS_TIMEOUT_S, its output appended to .agent/hooks.log.
 * Not this module's business: noticing the changes (the dashboard
 * compares what it lists) and deciding what a state name means. */
#ifndef AC_HOOKS_H
#define AC_HOOKS_H

#include "ac_workspace.h"

#include <stdbool.h>

/* The placeholders a hook command may use, each as a whole argument. Which
 * configuration keys are hook commands is the key table's (ac_config.c). */
#define AC_HOOKS_PLACEHOLDERS {"{id}", "{old}", "{new}", "{host}", "{reason}", NULL}
#define AC_HOOKS_TIMEOUT_S 30

typedef struct ac_hooks ac_hooks;

/* The hooks ws's configuration names. Never refuses an untrusted
 * command: it is left out and ac_hooks_refusal() says why. ws is
 * borrowed and must outlive *out. 0 or AC_ENOMEM. */
int ac_hooks_new(ac_hooks **out, const ac_workspace *ws);

void ac_hooks_free(ac_hooks *hooks);

/* Why a configured command will not run (the untrusted project file,
 * and how to trust it), or NULL. Borrowed. */
const char *ac_hooks_refusal(const ac_hooks *hooks);

/* True when a state change to new_state is one to notify of: "waiting",
 * or "paused" (a seed session's nearest to waiting). */
bool ac_hooks_notifies(const char *new_state);

/* notify.bell (default false). */
bool ac_hooks_bell(const ac_hooks *hooks);

/* True when onStatusChange is configured and may run: only then is the
 * lease worth taking (ac_hooks_lease.h), so that a dashboard with nothing
 * to run never keeps another's hooks from running. */
bool ac_hooks_on_change(const ac_hooks *hooks);

/* True when onStatusChange or notify.desktop may run: the hooks then write
 * .agent/hooks.log (and the lease .agent/hooks.lock). */
bool ac_hooks_any(const ac_hooks *hooks);

/* Session id (of source, e.g. "file"; last written by host, NULL or "":
 * this machine) went from old_state to new_state (any strings; the
 * caller reports only real changes), waiting on waiting_for (NULL:
 * nothing said; already made safe to show): starts
 * onStatusChange when on_change (false: another dashboard holds the
 * hooks lease and runs it) and, when ac_hooks_notifies(new_state),
 * notify.desktop (each operator's own, so always). 0 when everything
 * configured started (or nothing is), else the error of the last that
 * could not start. */
int ac_hooks_status_changed(ac_hooks *hooks, bool on_change, const char *id, const char *source,
			    const char *old_state, const char *new_state, const char *waiting_for,
			    const char *host);

/* The argv a template becomes for this change (ac_proc_expand_argv() with
 * AC_HOOKS_PLACEHOLDERS), wrapped in `timeout`: for tests and the runner.
 * Free with ac_proc_argv_free(). */
int ac_hooks_argv(char ***out, const char *const *template, const char *id,
		  const char *old_state, const char *new_state, const char *host, const char *reason);

#endif
