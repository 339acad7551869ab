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
	size_t n, cap;
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

/* One session's transition, if its state is not the one seen before. */
static void compare(ui_notify *n, ui_model *m, const char *source, const seen *before,
		    const seen *now, unsigned *told, bool *checked, bool *on_change)
{
	if (!before || !strcmp(before->state, now->state))
		return;
	if (ac_hooks_bell(n->hooks) && ac_hooks_notifies(now->state))
		*told |= UI_NOTIFY_BELL;
	/* Asked at the change itself: a holder that just quit has let go,
	 * and a reconnected database session has lost it. */
	if (n->lease && !*checked) {
		*on_change = lease_check(n, m, told);
		*checked = true;
	}
	if (n->run_hooks &&
	    ac_hooks_status_changed(n->hooks, *on_change, now->id, now->source ? now->source : source,
				    before->state, now->state, now->waiting_for, now->host) != 0)
		ui_model_log(m, true, ac_error_last());
}

/* Row i as seen now (strings borrowed from the row, state static). */
static seen seen_of(const ui_model *m, size_t i)
{
	const ui_session *row = &m->sessions[i];

	/* The derived state (running, waiting, idle, ended; a seed session's
	 * paused, completed, failed), the same words for every source. */
	return (seen){(char *)row->raw_id, (char *)ac_session_state_name(row->state), row->source,
		      row->waiting_for, row->host};
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Compares only the rows the model says changed since the last look
 * (ids: their raw ids, may repeat), in id order as a full look does, and
 * keeps n->last sorted. False when out of memory: then compare all. */
static bool scan_changed(ui_notify *n, ui_model *m, const char *source, char *const *ids,
			 size_t n_ids, unsigned *told)
{
	const char **order = malloc((n_ids ? n_ids : 1) * sizeof(*order));
	bool checked = false, on_change = false;

	if (!order)
		return false;
	memcpy(order, ids, n_ids * sizeof(*order));
	qsort(order, n_ids, sizeof(*order), by_name);
	for (size_t k = 0; k < n_ids; k++) {
		size_t row, lo = 0, hi = n->n;
		seen now;

		if (k && !strcmp(order[k], order[k - 1]))
			continue;
		while (lo < hi) { /* its place in n->last */
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(n->last[mid].id, order[k]) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		row = ui_model_find_session(m, order[k]);
		if (row == AC_SESSION_INDEX_NONE) {
			if (lo < n->n && !strcmp(n->last[lo].id, order[k])) { /* gone */
				free(n->last[lo].id);
				free(n->last[lo].state);
				memmove(&n->last[lo], &n->last[lo + 1], (n->n - lo - 1) * sizeof(*n->last));
				n->n--;
			}
			continue;
		}
		now = seen_of(m, row);
		if (lo < n->n && !strcmp(n->last[lo].id, order[k])) {
			char *state;

			compare(n, m, source, &n->last[lo], &now, told, &checked, &on_change);
			if (strcmp(n->last[lo].state, now.state)) {
				if (!(state = strdup(now.state)))
					goto fail;
				free(n->last[lo].state);
				n->last[lo].state = state;
			}
			continue;
		}
		/* Came: noted, no transition. */
		if (n->n == n->cap) {
			size_t cap = n->cap ? 2 * n->cap : 64;
			seen *grown = realloc(n->last, cap * sizeof(*grown));

			if (!grown)
				goto fail;
			n->last = grown;
			n->cap = cap;
		}
		if (!(now.id = strdup(now.id)) || !(now.state = strdup(now.state))) {
			free(now.id);
			goto fail;
		}
		memmove(&n->last[lo + 1], &n->last[lo], (n->n - lo) * sizeof(*n->last));
		n->last[lo] = now;
		n->n++;
	}
	free(order);
	return true;
fail:
	/* Out of memory: the rows compared so far have their new state
	 * noted, so comparing again tells no transition twice. */
	free(order);
	return false;
}

unsigned ui_notify_scan(ui_notify *n, ui_model *m, const char *source)
{
	seen *now;
	unsigned told = 0;
	bool on_change = false, checked = false;
	char *const *changed;
	size_t n_changed;

	if (n->lease && (!n->looked || (n->retry && n->said != AC_HOOKS_LEASE_HELD &&
					ac_time_now_ms() >= n->retry_at)))
		lease_check(n, m, &told);
	if (n->looked && m->sessions_gen == n->gen)
		return told;
	if (n->looked && (changed = ui_model_changed_since(m, n->gen, &n_changed)) &&
	    scan_changed(n, m, source, changed, n_changed, &told)) {
		n->gen = m->sessions_gen;
		ui_model_changed_forget(m);
		return told;
	}
	if (!(now = calloc(m->n_sessions ? m->n_sessions : 1, sizeof(*now))))
		return told; /* the next update compares again */
	for (size_t i = 0; i < m->n_sessions; i++) {
		now[i] = seen_of(m, i);
		now[i].id = strdup(now[i].id);
		now[i].state = strdup(now[i].state);
		if (!now[i].id || !now[i].state) {
			seen_free(now, i + 1);
			return told;
		}
	}
	qsort(now, m->n_sessions, sizeof(*now), by_id);
	for (size_t i = 0; n->looked && i < m->n_sessions; i++)
		compare(n, m, source, find(n, now[i].id), &now[i], &told, &checked, &on_change);
	seen_free(n->last, n->n);
	n->last = now;
	n->n = n->cap = m->n_sessions;
	n->gen = m->sessions_gen;
	n->looked = true;
	ui_model_changed_forget(m);
	return told;
}
