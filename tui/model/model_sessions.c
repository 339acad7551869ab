/* The model's session rows: replaced whole after a listing of the folder,
 * or one row at a time after one file changed (the watcher named it), in
 * the order of the session index's listing, which they mirror. */
#include "model.h"

#include "ac_error.h"
#include "ac_time.h"

#include <stdlib.h>
#include <string.h>

/* Generations of the rows, shared by every model of the process, so that
 * a view's cache never mistakes one model's rows for another's. */
static uint64_t last_generation;

uint64_t ui_model_next_generation(void)
{
	return ++last_generation;
}

/* Enough for any burst between two frames; the trace is for benchmarks. */
#define TOUCHED_MAX 4096
/* Past this many changes between two looks, comparing every row is as
 * cheap. */
#define CHANGED_MAX 4096

void ui_session_free_row(ui_session *s)
{
	ui_sfree(s->id);
	ui_sfree(s->raw_id);
	ui_sfree(s->task);
	ui_sfree(s->status);
	ui_sfree(s->user);
	ui_sfree(s->agent);
	ui_sfree(s->created);
	ui_sfree(s->updated);
	ui_sfree(s->host);
	ui_sfree(s->waiting_for);
	s->waiting_for = NULL;
	free(s->path);
	s->path = NULL;
	ui_sfree(s->parent);
	ui_sfree(s->last_action);
	s->parent = s->last_action = NULL;
}

/* Counts the rows whose pending label waits on time (not trouble). */
static void count_pending(ui_model *m, const ui_session *row, int sign)
{
	if (row->pending && !row->pending_alarm)
		m->n_pending_quiet += (size_t)sign;
}

static void sessions_free(ui_session *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ui_session_free_row(&list[i]);
	free(list);
}

/* A session file's state, as `session list --state` derives it: its
 * status, and how long its agent has been quiet. Notes in
 * m->states_change_at when a running row turns idle with time alone. */
static ac_session_state seed_state(ui_model *m, const char *status, int64_t written_ms,
				   int64_t now_ms)
{
	static const ac_state_thresholds defaults = AC_STATE_THRESHOLDS_DEFAULT;
	const ac_state_thresholds *limits = m->state_limits ? m->state_limits : &defaults;
	ac_state_inputs in = {status, AC_TURN_NONE, 0, false, written_ms ? now_ms - written_ms : 0,
			      AC_AGENT_UNKNOWN};
	ac_session_state state = ac_session_state_derive(&in, limits);

	if (state == AC_STATE_RUNNING && written_ms) {
		int64_t at = written_ms + limits->idle_ms;

		if (!m->states_change_at || at < m->states_change_at)
			m->states_change_at = at;
	}
	return state;
}

bool ui_model_derive_states(ui_model *m, int64_t now_ms)
{
	bool changed = false;

	if (!m->states_change_at || now_ms < m->states_change_at)
		return false;
	m->states_change_at = 0;
	for (size_t i = 0; i < m->n_sessions; i++) {
		ui_session *c = &m->sessions[i];
		ac_session_state state;

		if (c->source)
			continue;
		state = seed_state(m, c->status, c->written_ms, now_ms);
		if (state != c->state) {
			c->state = state;
			changed = true;
			ui_model_touch_session(m, c->id);
		}
	}
	if (changed) {
		m->sessions_gen = ++last_generation;
		m->sessions_prev_gen = 0;
	}
	return changed;
}

static void session_copy(ui_model *m, ui_session *c, const ac_session_summary *s,
			 const char *host, int64_t now_ms)
{
	memset(c, 0, sizeof(*c));
	c->id = ui_safe_str(s->id);
	c->raw_id = ui_raw_str(s->id);
	c->task = ui_safe_dup(s->task, ac_session_summary_task_len(s));
	c->status = ui_safe_str(s->status);
	c->user = ui_safe_str(s->user);
	c->agent = ui_safe_str(s->agent);
	c->created = ui_safe_str(s->created_at);
	c->updated = ui_safe_str(s->updated_at);
	c->host = ui_safe_str(host ? host : "");
	c->messages = s->messages;
	c->tokens = s->tokens;
	c->st = ui_status_of(s->status);
	c->written_ms = s->written_ms;
	c->state = seed_state(m, s->status, s->written_ms, now_ms);
	if (s->stale) {
		/* Its last good read: said in the status column, in red. */
		c->pending = "unreadable";
		c->pending_alarm = true;
	}
}

static bool same_row(const ui_session *a, const ui_session *b)
{
	return !strcmp(a->raw_id, b->raw_id) && !strcmp(a->task, b->task) &&
	       !strcmp(a->status, b->status) && !strcmp(a->updated, b->updated) &&
	       a->messages == b->messages && a->tokens == b->tokens &&
	       a->pending == b->pending && !strcmp(a->host, b->host);
}

void ui_model_touch_session(ui_model *m, const char *id)
{
	char *copy;

	if (!m->track_touched || m->n_touched == TOUCHED_MAX)
		return;
	if (m->n_touched == m->cap_touched) {
		size_t cap = m->cap_touched ? 2 * m->cap_touched : 64;
		char **grown = realloc(m->touched, cap * sizeof(*grown));

		if (!grown)
			return;
		m->touched = grown;
		m->cap_touched = cap;
	}
	if ((copy = strdup(id)))
		m->touched[m->n_touched++] = copy;
}

void ui_model_clear_touched(ui_model *m)
{
	for (size_t i = 0; i < m->n_touched; i++)
		free(m->touched[i]);
	m->n_touched = 0;
}

/* Whether row comes before (updated, id) in the store's listing order:
 * newest first, ties by id. */
static bool row_before(const ui_session *row, const char *updated, const char *id)
{
	int c = strcmp(row->updated, updated);

	return c > 0 || (c == 0 && strcmp(row->raw_id, id) < 0);
}

/* The rows replaced by list (hosts[i]: row i's host; hosts NULL: none). */
static int set_rows(ui_model *m, const ac_session_summary *const *list, const char *const *hosts,
		    size_t n)
{
	ui_session *copy = n ? calloc(n, sizeof(*copy)) : NULL;
	bool hosts_known = false;
	int64_t now = ac_time_now_ms();

	if (n && !copy)
		return AC_ENOMEM;
	memset(m->by_status, 0, sizeof(m->by_status));
	m->states_change_at = 0;
	m->n_pending_quiet = 0;
	for (size_t i = 0; i < n; i++) {
		session_copy(m, &copy[i], list[i], hosts ? hosts[i] : NULL, now);
		hosts_known = hosts_known || *copy[i].host;
		m->by_status[copy[i].st]++;
		count_pending(m, &copy[i], 1);
		/* Rows keep their places unless one came or went: compared
		 * with the row there before, only for the frame trace. */
		if (m->track_touched && (i >= m->n_sessions || !same_row(&m->sessions[i], &copy[i])))
			ui_model_touch_session(m, copy[i].id);
	}
	sessions_free(m->sessions, m->n_sessions);
	ui_id_map_clear(&m->row_ids);
	m->rows_in_order = true;
	for (size_t i = 0; i < n; i++) {
		ui_id_map_put(&m->row_ids, copy[i].raw_id, copy[i].updated);
		if (i && !row_before(&copy[i - 1], copy[i].updated, copy[i].raw_id))
			m->rows_in_order = false;
	}
	m->sessions = copy;
	m->n_sessions = m->cap_sessions = n;
	m->sessions_gen = ++last_generation;
	m->sessions_prev_gen = 0;
	m->hosts_known = hosts_known;
	m->n_transcripts = 0; /* replaced whole: the source appends them again */
	m->n_tree_children = 0;
	return 0;
}

int ui_model_set_sessions(ui_model *m, const ac_session_summary *const *list, size_t n)
{
	return set_rows(m, list, NULL, n);
}

/* A listing carries the task and creation time from the store's columns
 * (never the documents; "" from a backend that leaves them out). Borrows
 * info's strings. */
static ac_session_summary summary_of(const ac_backend_session_info *info)
{
	/* A store has no file's mtime: its last write is its updated_at. */
	int64_t written = 0;

	if (!info->updated_at || ac_time_parse(&written, info->updated_at) != 0)
		written = 0;
	return (ac_session_summary){
		.written_ms = written,
		.id = info->session_id, .task = info->task ? info->task : "", .status = info->status,
		.created_at = info->created_at ? info->created_at : "",
		.updated_at = info->updated_at, .tenant = info->tenant, .user = info->user,
		.agent = info->agent, .messages = info->messages, .tokens = info->tokens,
		.input_tokens = info->input_tokens, .output_tokens = info->output_tokens,
		.turns = info->turns,
	};
}

int ui_model_set_store_sessions(ui_model *m, const ac_backend_session_info *list, size_t n)
{
	ac_session_summary *rows = n ? calloc(n, sizeof(*rows)) : NULL;
	const ac_session_summary **order = n ? calloc(n, sizeof(*order)) : NULL;
	const char **hosts = n ? calloc(n, sizeof(*hosts)) : NULL;
	int rc = AC_ENOMEM;

	if (n && (!rows || !order || !hosts))
		goto done;
	for (size_t i = 0; i < n; i++) {
		rows[i] = summary_of(&list[i]);
		order[i] = &rows[i];
		hosts[i] = list[i].host;
	}
	rc = set_rows(m, order, hosts, n);
done:
	free(rows);
	free(order);
	free(hosts);
	return rc;
}

static int put_row(ui_model *m, size_t was_at, const ac_session_summary *s, const char *host,
		   size_t now_at, const char *pending, bool alarm);

int ui_model_put_session(ui_model *m, size_t was_at, const ac_session_summary *s, size_t now_at,
			 const char *pending, bool alarm)
{
	m->rows_in_order = false; /* the index's order, not the store's */
	return put_row(m, was_at, s, NULL, now_at, pending, alarm);
}

/* Newest first, ties by id: the store's listing order. */
static bool comes_before(const ui_session *row, const ac_backend_session_info *info)
{
	return row_before(row, info->updated_at, info->session_id);
}

/* The first of the rows [0, n) not before (updated, id), when they are in
 * listing order. */
static size_t place_of(const ui_model *m, size_t n, const char *updated, const char *id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (row_before(&m->sessions[mid], updated, id))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t ui_model_find_session(const ui_model *m, const char *id)
{
	size_t stored = m->n_sessions - m->n_transcripts;
	const ui_id_entry *e = m->row_ids.lost ? NULL : ui_id_map_get(&m->row_ids, id);

	if (e) {
		size_t at = m->rows_in_order ? place_of(m, stored, e->updated, e->id) : stored;

		if (at < stored && m->sessions[at].raw_id == e->id)
			return at;
		/* Not in listing order (session files): its own string, row by row. */
		for (size_t i = 0; i < stored; i++)
			if (m->sessions[i].raw_id == e->id)
				return i;
	} else if (!m->row_ids.lost) {
		/* Not a file's nor the store's: a transcript's, or none. */
		for (size_t i = stored; i < m->n_sessions; i++)
			if (!strcmp(m->sessions[i].raw_id, id))
				return i;
		return AC_SESSION_INDEX_NONE;
	}
	for (size_t i = 0; i < m->n_sessions; i++)
		if (!strcmp(m->sessions[i].raw_id, id))
			return i;
	return AC_SESSION_INDEX_NONE;
}

int ui_model_put_store_session(ui_model *m, const char *id, const ac_backend_session_info *info)
{
	ac_session_summary s;
	size_t was_at, now_at, stored = m->n_sessions - m->n_transcripts;
	int rc;

	/* Among the store's rows: the transcripts' stay after them. */
	was_at = ui_model_find_session(m, id);
	if (was_at != AC_SESSION_INDEX_NONE && was_at >= stored)
		was_at = AC_SESSION_INDEX_NONE;
	if (!info)
		return was_at == AC_SESSION_INDEX_NONE ? 0 : put_row(m, was_at, NULL, NULL, 0, NULL, false);
	/* Its place among the others (without itself), the rows being in
	 * listing order; else counted row by row. */
	if (m->rows_in_order) {
		now_at = place_of(m, stored, info->updated_at, info->session_id);
		if (was_at != AC_SESSION_INDEX_NONE && was_at < now_at)
			now_at--;
	} else {
		now_at = 0;
		for (size_t i = 0; i < stored; i++)
			if (i != was_at && comes_before(&m->sessions[i], info))
				now_at++;
	}
	s = summary_of(info);
	rc = put_row(m, was_at, &s, info->host, now_at, NULL, false);
	if (rc == 0 && *info->host)
		m->hosts_known = true;
	return rc;
}

/* Notes that row id changes, for ui_model_changed_since(); the list
 * starts over when some other change came since the last note. */
static void note_changed(ui_model *m, const char *id)
{
	char *copy;

	if (m->sessions_gen != m->changed_to)
		ui_model_changed_forget(m);
	if (m->changed_lost)
		return;
	if (m->n_changed == m->cap_changed) {
		size_t cap = m->cap_changed ? 2 * m->cap_changed : 16;
		char **grown = cap <= CHANGED_MAX ? realloc(m->changed, cap * sizeof(*grown)) : NULL;

		if (!grown) {
			m->changed_lost = true;
			return;
		}
		m->changed = grown;
		m->cap_changed = cap;
	}
	if (!(copy = strdup(id))) {
		m->changed_lost = true;
		return;
	}
	m->changed[m->n_changed++] = copy;
}

char *const *ui_model_changed_since(const ui_model *m, uint64_t gen, size_t *n)
{
	*n = 0;
	if (m->changed_lost || gen != m->changed_from || m->sessions_gen != m->changed_to)
		return NULL;
	*n = m->n_changed;
	return m->changed;
}

void ui_model_changed_forget(ui_model *m)
{
	for (size_t i = 0; i < m->n_changed; i++)
		free(m->changed[i]);
	m->n_changed = 0;
	m->changed_lost = false;
	m->changed_from = m->changed_to = m->sessions_gen;
}

static int put_row(ui_model *m, size_t was_at, const ac_session_summary *s, const char *host,
		   size_t now_at, const char *pending, bool alarm)
{
	ui_session row;

	if ((was_at != AC_SESSION_INDEX_NONE && was_at >= m->n_sessions) ||
	    (s && now_at > m->n_sessions - (was_at != AC_SESSION_INDEX_NONE)))
		return AC_EINVAL;
	if (s && was_at == AC_SESSION_INDEX_NONE && m->n_sessions == m->cap_sessions) {
		size_t cap = m->cap_sessions ? 2 * m->cap_sessions : 16;
		ui_session *grown = realloc(m->sessions, cap * sizeof(*grown));

		if (!grown)
			return AC_ENOMEM;
		m->sessions = grown;
		m->cap_sessions = cap;
	}
	if (was_at != AC_SESSION_INDEX_NONE || s)
		note_changed(m, was_at != AC_SESSION_INDEX_NONE ? m->sessions[was_at].raw_id : s->id);
	m->sessions_prev_gen = m->sessions_gen;
	m->sessions_gen = ++last_generation;
	m->changed_to = m->sessions_gen;
	m->sessions_move = (ac_session_index_change){was_at, s ? now_at : AC_SESSION_INDEX_NONE, true};
	if (was_at != AC_SESSION_INDEX_NONE) {
		m->by_status[m->sessions[was_at].st]--;
		count_pending(m, &m->sessions[was_at], -1);
		ui_id_map_remove(&m->row_ids, m->sessions[was_at].raw_id);
		ui_session_free_row(&m->sessions[was_at]);
		if (!s) {
			memmove(&m->sessions[was_at], &m->sessions[was_at + 1],
				(m->n_sessions - was_at - 1) * sizeof(*m->sessions));
			m->n_sessions--;
			return 0;
		}
	}
	if (!s)
		return 0;
	session_copy(m, &row, s, host, ac_time_now_ms());
	if (pending && !row.pending) {
		row.pending = pending;
		row.pending_alarm = alarm;
	}
	/* Only the rows between its old and new place move (a changed row
	 * goes to the top: the rows below it stay put). */
	if (was_at == AC_SESSION_INDEX_NONE) {
		memmove(&m->sessions[now_at + 1], &m->sessions[now_at],
			(m->n_sessions - now_at) * sizeof(*m->sessions));
		m->n_sessions++;
	} else if (now_at < was_at) {
		memmove(&m->sessions[now_at + 1], &m->sessions[now_at],
			(was_at - now_at) * sizeof(*m->sessions));
	} else if (now_at > was_at) {
		memmove(&m->sessions[was_at], &m->sessions[was_at + 1],
			(now_at - was_at) * sizeof(*m->sessions));
	}
	m->sessions[now_at] = row;
	ui_id_map_put(&m->row_ids, row.raw_id, row.updated);
	m->by_status[row.st]++;
	count_pending(m, &row, 1);
	ui_model_touch_session(m, row.id);
	return 0;
}

size_t ui_model_renumber_rows(const ui_model *m, size_t *rows, size_t n)
{
	size_t was = m->sessions_move.was_at, now = m->sessions_move.now_at, kept = 0;

	for (size_t i = 0; i < n; i++) {
		size_t row = rows[i];

		if (row == was)
			continue;
		if (was != AC_SESSION_INDEX_NONE && row > was)
			row--;
		if (now != AC_SESSION_INDEX_NONE && row >= now)
			row++;
		rows[kept++] = row;
	}
	return kept;
}

size_t ui_rows_insert(size_t *rows, size_t n, size_t row)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows[mid] < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&rows[lo + 1], &rows[lo], (n - lo) * sizeof(*rows));
	rows[lo] = row;
	return n + 1;
}

void ui_model_clear_sessions(ui_model *m)
{
	ui_model_changed_forget(m);
	free(m->changed);
	m->changed = NULL;
	m->cap_changed = 0;
	ui_id_map_clear(&m->row_ids);
	sessions_free(m->sessions, m->n_sessions);
	m->sessions = NULL;
	m->n_sessions = m->cap_sessions = 0;
	m->sessions_gen = ++last_generation;
	m->sessions_prev_gen = 0;
	m->n_transcripts = 0;
	m->n_tree_children = 0;
	memset(m->by_status, 0, sizeof(m->by_status));
	m->n_pending_quiet = 0;
	ui_model_clear_touched(m);
	free(m->touched);
	m->touched = NULL;
	m->cap_touched = 0;
}

void ui_model_set_session_pending(ui_model *m, const char *id, const char *label, bool alarm)
{
	size_t i = ui_model_find_session(m, id);

	if (i != AC_SESSION_INDEX_NONE) {
		count_pending(m, &m->sessions[i], -1);
		m->sessions[i].pending = label;
		m->sessions[i].pending_alarm = alarm;
		count_pending(m, &m->sessions[i], 1);
	}
}
