/* Session state transitions for the hooks, found by comparing listings. */
#include "notify.h"

#include "ac_error.h"
#include "ac_hooks.h"
#include "ac_hooks_lease.h"
#include "ac_oplog.h"
#include "ac_time.h"
#include "ac_session_state.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	char *id, *state;
	const char *source; /* a transcript's tool (static), or NULL */
	const char *waiting_for; /* borrowed from the row, valid during the scan only */
	const char *host;        /* the same */
} seen;

/* While another dashboard runs the hooks, how often to try to take over
 * between changes (a change tries at once): so the notice is right soon
 * after the holder quits, at one flock every few seconds. Not on a
 * database: a statement there may have to connect first, which can block
 * while the server is away; a change (read from the store just before)
 * tries instead. */
#define LEASE_RETRY_MS 3000

struct ui_notify {
	ac_hooks *hooks;
	bool run_hooks;
	ac_hooks_lease *lease;  /* NULL: no onStatusChange to run here */
	bool retry;             /* try the lease between changes (files) */
	ac_hooks_lease_state said; /* the lease state last told (at first
				      HELD: holding it goes unsaid) */
	int64_t retry_at;
	bool looked;         /* the first listing was recorded */
	uint64_t gen;        /* the sessions' generation last compared */
	seen *last;          /* sorted by id */
	size_t n;
};

int ui_notify_new(ui_notify **out, const ac_workspace *ws, bool run_hooks,
		  const ac_backend *store)
{
	ui_notify *n = calloc(1, sizeof(*n));
	int rc;

	*out = NULL;
	if (!n)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_hooks_new(&n->hooks, ws))) {
		free(n);
		return rc;
	}
	n->run_hooks = run_hooks;
	/* Hooks write agent state (.agent/hooks.log, the lease's hooks.lock)
	 * with no action of the operator's: kept out of `git add -A` first, as
	 * an action is (ui_act_run); a failure leaves git to say so. */
	if (run_hooks && ac_hooks_any(n->hooks) && ac_oplog_exclude_agent_state(ws) != 0)
		ac_error_clear();
	if (run_hooks && ac_hooks_on_change(n->hooks) &&
	    (rc = ac_hooks_lease_new(&n->lease, ws->root, store))) {
		ui_notify_free(n);
		return rc;
	}
	n->retry = !store;
	*out = n;
	return 0;
}

static void seen_free(seen *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(list[i].id);
		free(list[i].state);
	}
	free(list);
}

void ui_notify_free(ui_notify *n)
{
	if (!n)
		return;
	ac_hooks_free(n->hooks);
	ac_hooks_lease_free(n->lease);
	seen_free(n->last, n->n);
	free(n);
}

const char *ui_notify_refusal(const ui_notify *n)
{
	return n->run_hooks ? ac_hooks_refusal(n->hooks) : NULL;
}

/* Tries the lease and tells the operator, once per state, why this
 * dashboard's onStatusChange is silent (or runs again; *said then): true
 * when it runs it. */
static bool lease_check(ui_notify *n, ui_model *m, unsigned *said)
{
	ac_hooks_lease_state state = ac_hooks_lease_take(n->lease);
	const char *text = ac_hooks_lease_text(n->lease);

	n->retry_at = ac_time_now_ms() + LEASE_RETRY_MS;
	/* Holding it from the start is the usual case, and goes unsaid. */
	if (state == n->said)
		return state != AC_HOOKS_LEASE_ELSEWHERE;
	if (state == AC_HOOKS_LEASE_ELSEWHERE)
		ui_model_set_action(m, false, "hooks: another dashboard runs hooks.onStatusChange%s%s%s; "
				    "this one will if that one quits", *text ? " (" : "", text,
				    *text ? ")" : "");
	else if (state == AC_HOOKS_LEASE_NONE)
		ui_model_set_action(m, true, "hooks: %s; running hooks.onStatusChange here, so "
				    "another dashboard may run it too", text);
	else
		ui_model_set_action(m, false, "hooks: this dashboard runs hooks.onStatusChange now");
	n->said = state;
	*said |= UI_NOTIFY_SAID;
	return state != AC_HOOKS_LEASE_ELSEWHERE;
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const seen *)a)->id, ((const seen *)b)->id);
}

static const seen *find(const ui_notify *n, const char *id)
{
	seen key = {.id = (char *)id};

	return n->n ? bsearch(&key, n->last, n->n, sizeof(*n->last), by_id) : NULL;
}

unsigned ui_notify_scan(ui_notify *n, ui_model *m, const char *source)
{
	seen *now;
	unsigned told = 0;
	bool on_change = false, checked = false;

	if (n->lease && (!n->looked || (n->retry && n->said != AC_HOOKS_LEASE_HELD &&
					ac_time_now_ms() >= n->retry_at)))
		lease_check(n, m, &told);
	if (n->looked && m->sessions_gen == n->gen)
		return told;
	if (!(now = calloc(m->n_sessions ? m->n_sessions : 1, sizeof(*now))))
		return told; /* the next update compares again */
	for (size_t i = 0; i < m->n_sessions; i++) {
		now[i].id = strdup(m->sessions[i].raw_id);
		/* The derived state (running, waiting, idle, ended; a seed
		 * session's paused, completed, failed), the same words for every
		 * source. */
		now[i].state = strdup(ac_session_state_name(m->sessions[i].state));
		now[i].source = m->sessions[i].source;
		now[i].waiting_for = m->sessions[i].waiting_for;
		now[i].host = m->sessions[i].host;
		if (!now[i].id || !now[i].state) {
			seen_free(now, i + 1);
			return told;
		}
	}
	qsort(now, m->n_sessions, sizeof(*now), by_id);
	for (size_t i = 0; n->looked && i < m->n_sessions; i++) {
		const seen *before = find(n, now[i].id);

		if (!before || !strcmp(before->state, now[i].state))
			continue;
		if (ac_hooks_bell(n->hooks) && ac_hooks_notifies(now[i].state))
			told |= UI_NOTIFY_BELL;
		/* Asked at the change itself: a holder that just quit has let
		 * go, and a reconnected database session has lost it. */
		if (n->lease && !checked) {
			on_change = lease_check(n, m, &told);
			checked = true;
		}
		if (n->run_hooks &&
		    ac_hooks_status_changed(n->hooks, on_change, now[i].id,
					    now[i].source ? now[i].source : source,
					    before->state, now[i].state, now[i].waiting_for,
					    now[i].host) != 0)
			ui_model_log(m, true, ac_error_last());
	}
	seen_free(n->last, n->n);
	n->last = now;
	n->n = m->n_sessions;
	n->gen = m->sessions_gen;
	n->looked = true;
	return told;
}
