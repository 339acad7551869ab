/* The dashboard's source: reads only what the watcher says changed, from
 * the core (journal follow, session index, operation log, checkpoints, the
 * storage backend for the conversation's tabs), into the model. The model
 * itself is tui/model/model.c. */
#include "source.h"
#include "source_impl.h"

#include "ac_checkpoint.h"
#include "ac_checkpoint_runtime.h"
#include "ac_error.h"
#include "ac_operator.h"
#include "ac_source_watch.h"
#include "ac_journal_follow.h"
#include "ac_json_scan.h"
#include "ac_messages.h"
#include "ac_oplog.h"
#include "ac_session.h"
#include "ac_text.h"
#include "ac_turn_usage.h"
#include "ac_watch.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


void ui_source_note_problem(ui_model *m, const char *path, const char *reason)
{
	char text[2600];
	size_t n = path ? strlen(path) : 0;

	/* The core's message often names the path already. */
	if (n && reason && !strncmp(reason, path, n) && reason[n] == ':')
		snprintf(text, sizeof(text), "%.2500s", reason);
	else
		snprintf(text, sizeof(text), "%.1500s: %.1000s", path ? path : "?", reason ? reason : "?");
	/* Every new problem goes to the message log; the same one again (a
	 * file read on each change) does not fill it. */
	if (!m->last_problem || strcmp(m->last_problem, text))
		ui_model_log(m, true, text);
	ui_sfree(m->last_problem);
	m->last_problem = ui_safe_str(text);
}

static void session_problem(const char *path, const char *reason, void *ctx)
{
	ui_source_note_problem(((ui_source *)ctx)->m, path, reason);
}

static void ckpt_problem(const char *path, const char *reason, void *ctx)
{
	ui_source *src = ctx;

	src->m->ckpt_problems++;
	ui_source_note_problem(src->m, path, reason);
}

static void op_problem(const char *path, uint64_t line, const char *reason, void *ctx)
{
	char where[1600];

	snprintf(where, sizeof(where), "%.1500s:%llu", path, (unsigned long long)line);
	ui_source_note_problem(((ui_source *)ctx)->m, where, reason);
}

const char *ui_event_field(ac_buf *scratch, const ac_json_span *f)
{
	size_t n = 0;

	ac_buf_clear(scratch);
	if (f->type != AC_JSON_STRING || ac_buf_reserve(scratch, f->len + 1) != 0)
		return "";
	ac_json_string_decode(scratch->data, &n, f);
	scratch->data[n] = '\0';
	scratch->len = n;
	/* A decoded \u0000 would end the C string early; show it instead. */
	for (size_t i = 0; i < n; i++)
		if (!scratch->data[i])
			scratch->data[i] = '\x01';
	return scratch->data;
}

int ui_source_on_event(const ac_scan_match *match, void *ctx)
{
	ui_source *src = ctx;
	char *parts[5];
	static const int which[5] = {AC_EV_ID, AC_EV_TIMESTAMP, AC_EV_AGENT, AC_EV_STATUS,
				     AC_EV_ACTION_TYPE};

	for (int i = 0; i < 5; i++) {
		const char *s = ui_event_field(&src->scratch, &match->fields[which[i]]);

		parts[i] = strdup(s);
	}
	ui_model_add_event(src->m, parts[0], parts[1], parts[2], parts[3], parts[4],
			   ui_event_field(&src->scratch, &match->fields[AC_EV_RESULT_MESSAGE]));
	if (src->m->track_touched) {
		char note[300];

		snprintf(note, sizeof(note), "journal:%.280s", parts[0]);
		ui_model_touch_session(src->m, note);
	}
	for (int i = 0; i < 5; i++)
		free(parts[i]);
	ui_event_session(&parts[0], &parts[1], &src->scratch, match->fields);
	ui_model_event_link(src->m, parts[0], parts[1]);
	free(parts[0]);
	free(parts[1]);
	if (match->invalid)
		ui_model_event_invalid(src->m, match->invalid, match->line, match->len);
	return 0;
}

void ui_event_session(char **out_session, char **out_parent, ac_buf *scratch,
		      const ac_json_span *fields)
{
	const ac_json_span *params = &fields[AC_EV_ACTION_PARAMS];
	ac_json_span id = {0};
	ac_json_path path;
	const char *s = "";

	if (params->type == AC_JSON_OBJECT && ac_json_path_init(&path, "sessionId") == 0 &&
	    ac_json_scan(&id, params->start, params->len, &path, 1, NULL) == 0)
		s = ui_event_field(scratch, &id);
	if (!*s)
		s = ui_event_field(scratch, &fields[AC_EV_TRACE_CORRELATION_ID]);
	*out_session = *s ? strdup(s) : NULL;
	s = ui_event_field(scratch, &fields[AC_EV_TRACE_PARENT_ID]);
	*out_parent = *s ? strdup(s) : NULL;
}

static unsigned read_journal(ui_source *src)
{
	ac_scan_stats stats = {0};
	bool restarted = false;
	uint64_t before = src->m->events_seen;

	if (src->journal)
		return ui_source_store_read_journal(src);
	/* A rotated or replaced journal goes on below what was shown, as
	 * tail -F does. */
	if (ac_journal_follow_read(src->follow, &restarted, &stats, ui_source_on_event, src) < 0) {
		struct stat st;
		char why[2600];

		ui_source_note_problem(src->m, src->ws->journal_path, ac_error_last());
		if (stat(src->ws->journal_path, &st) == 0 && S_ISDIR(st.st_mode))
			snprintf(why, sizeof(why), "%.2000s is a folder, not a journal file: no event "
				 "can be read until it is moved away", src->ws->journal_path);
		else
			snprintf(why, sizeof(why), "%.2500s", src->m->last_problem);
		ui_sfree(src->m->journal_error);
		src->m->journal_error = ui_safe_str(why);
		return UI_CHANGED_JOURNAL;
	}
	if (src->m->journal_error) {
		ui_sfree(src->m->journal_error);
		src->m->journal_error = NULL;
	}
	src->m->journal_skipped += stats.invalid;
	return src->m->events_seen != before || stats.invalid ? UI_CHANGED_JOURNAL : 0;
}

static const char *const pending_labels[] = {
	[AC_PENDING_PAUSING] = "pausing",         [AC_PENDING_OVERRIDDEN] = "overridden",
	[AC_PENDING_RESUMING] = "resuming",       [AC_PENDING_RESUME_LATE] = "stalled",
	[AC_PENDING_RESUME_FAILED] = "no resume", [AC_PENDING_RESUMED_ELSEWHERE] = "resumed elsewhere",
};

/* Trouble to show in red: anything but a request on its way. */
static bool pending_alarm(ac_pending pending)
{
	return pending != AC_PENDING_PAUSING && pending != AC_PENDING_RESUMING &&
	       pending != AC_PENDING_RESUMED_ELSEWHERE;
}

/* Operator requests still pending beside the sessions (a small folder):
 * "pausing", "resuming", and the trouble: a pause the agent overrode
 * ("overridden"), a resume nobody took over in time ("stalled") or whose
 * command could not start or died ("no resume"). Noticing an override journals it
 * (once). */
static void read_requests(ui_source *src, const ac_session_summary *const *list, size_t n)
{
	char **ids = NULL;
	size_t nids = 0;

	if (ac_request_list(&ids, &nids, src->ws->sessions_dir) != 0) {
		ui_source_note_problem(src->m, src->ws->sessions_dir, ac_error_last());
		return;
	}
	for (size_t r = 0; r < nids; r++) {
		for (size_t i = 0; i < n; i++) {
			ac_pending pending;

			if (strcmp(list[i]->id, ids[r]) != 0)
				continue;
			pending = ac_operator_notice(src->ws, ids[r], list[i]->status);
			if (pending != AC_PENDING_NONE)
				ui_model_set_session_pending(src->m, ids[r], pending_labels[pending],
							     pending_alarm(pending));
			break;
		}
		free(ids[r]);
	}
	free(ids);
}

/* The open conversation's file changed, or may have: read it again,
 * also after a failed read (a file removed and written again, or torn and
 * then saved whole, is shown again). */
static unsigned reopen_conversation(ui_source *src, ui_model *m)
{
	char *id;

	if (!m->conv_session || !(id = strdup(m->conv_session)))
		return 0;
	ui_source_open_conversation(src, m, id);
	free(id);
	return UI_CHANGED_CONVERSATION;
}

static unsigned read_sessions(ui_source *src)
{
	const ac_session_summary *const *list;
	size_t n = 0, parsed = 0;

	if (src->database)
		return ui_source_store_read_sessions(src);

	if (ac_session_index_refresh(src->index, session_problem, src, &parsed) != 0) {
		ui_source_note_problem(src->m, src->ws->sessions_dir, ac_error_last());
		return UI_CHANGED_SESSIONS;
	}
	src->m->session_problems = ac_session_index_problems(src->index);
	list = ac_session_index_list(src->index, &n);
	src->rows_synced = ui_model_set_sessions(src->m, list, n) == 0;
	if (!src->rows_synced)
		ui_source_note_problem(src->m, src->ws->sessions_dir, "out of memory");
	read_requests(src, list, n);
	return UI_CHANGED_SESSIONS | ui_source_transcripts_read(src, src->m, !src->transcripts_read);
}

/* One session file the watcher named: its row alone, and its request.
 * False when the rows must be set whole (they no longer mirror the
 * index's listing, or memory ran out). */
static bool read_session_file(ui_source *src, const char *name)
{
	ac_session_index_change change;
	const ac_session_summary *const *list, *s = NULL;
	ac_pending pending = AC_PENDING_NONE;
	size_t n;

	if (ac_session_index_refresh_file(src->index, name, session_problem, src, &change) != 0)
		return false;
	if (!change.changed)
		return true;
	list = ac_session_index_list(src->index, &n);
	if (change.now_at != AC_SESSION_INDEX_NONE) {
		s = list[change.now_at];
		pending = ac_operator_notice(src->ws, s->id, s->status);
	}
	return ui_model_put_session(src->m, change.was_at, s, change.now_at,
				    pending != AC_PENDING_NONE ? pending_labels[pending] : NULL,
				    pending != AC_PENDING_NONE && pending_alarm(pending)) == 0;
}

static bool names_session(const char *name, const char *id)
{
	size_t len = strlen(id);

	return !strncmp(name, id, len) && !strcmp(name + len, ".json");
}

/* The session files the watcher named, one by one: the cost of a change
 * does not grow with the number of sessions. */
static unsigned read_session_files(ui_source *src, const char *const *names, size_t n)
{
	ui_model *m = src->m;
	bool conversation = false;
	unsigned changed = 0;

	for (size_t i = 0; i < n; i++) {
		if (!src->rows_synced || !read_session_file(src, names[i])) {
			src->rows_synced = false;
			return read_sessions(src) | reopen_conversation(src, m);
		}
		conversation |= m->conv_session && names_session(names[i], m->conv_session);
		changed = UI_CHANGED_SESSIONS;
	}
	m->session_problems = ac_session_index_problems(src->index);
	if (changed) {
		/* Requests made meanwhile show beside their rows, as after a
		 * listing (the request folder is small). */
		size_t listed;
		const ac_session_summary *const *list = ac_session_index_list(src->index, &listed);

		read_requests(src, list, listed);
	}
	return changed | (conversation ? reopen_conversation(src, m) : 0);
}

unsigned ui_source_recheck_pending(ui_source *src, ui_model *m)
{
	const ac_session_summary *const *list;
	unsigned changed = 0;
	size_t n;

	src->m = m;
	list = ac_session_index_list(src->index, &n);
	if (!src->rows_synced || n != m->n_sessions - m->n_transcripts)
		return ui_source_update(src, m, AC_WATCH_SESSIONS);
	for (size_t i = 0; i < n; i++) {
		ui_session *row = &m->sessions[i];
		ac_pending pending;
		const char *label;
		bool alarm;

		if (!row->pending || row->pending_alarm)
			continue;
		pending = ac_operator_notice(src->ws, list[i]->id, list[i]->status);
		label = pending != AC_PENDING_NONE ? pending_labels[pending] : NULL;
		alarm = pending != AC_PENDING_NONE && pending_alarm(pending);
		if (label != row->pending || alarm != row->pending_alarm) {
			ui_model_set_session_pending(m, row->raw_id, label, alarm);
			changed = UI_CHANGED_SESSIONS;
		}
	}
	return changed;
}

/* The intent of a rollback stopped midway, shown above the operations. */
static unsigned read_intent(ui_source *src)
{
	ac_oplog_intent *intent = NULL;
	unsigned changed;

	if (ac_oplog_intent_read(&intent, src->ws) != 0)
		ui_source_note_problem(src->m, ".agent/" AC_OPLOG_INTENT_FILE, ac_error_last());
	changed = ui_model_set_intent(src->m, intent) ? UI_CHANGED_OPS : 0;
	ac_oplog_intent_free(intent);
	return changed;
}

static unsigned read_ops(ui_source *src)
{
	ui_model *m = src->m;
	ac_op_list list = {0};
	struct stat st;
	unsigned intent = read_intent(src);

	if (stat(src->ws->operations_path, &st) != 0) {
		bool had = m->ops_present || m->n_ops;

		m->ops_present = false;
		ui_model_clear_ops(m);
		src->ops_offset = 0;
		src->ops_line = 1;
		return intent | (had ? UI_CHANGED_OPS : 0);
	}
	if (!S_ISREG(st.st_mode)) {
		bool had = m->ops_present || m->n_ops;

		/* Never read (it could block); said once, as the journal's is. */
		if (had || src->ops_ino != st.st_ino)
			ui_source_note_problem(m, src->ws->operations_path, "not a regular file");
		m->ops_present = false;
		ui_model_clear_ops(m);
		src->ops_ino = st.st_ino;
		src->ops_offset = 0;
		return intent | (had ? UI_CHANGED_OPS : 0);
	}
	m->ops_present = true;
	if (st.st_ino != src->ops_ino || st.st_dev != src->ops_dev ||
	    (uint64_t)st.st_size < src->ops_offset) {
		/* Replaced or truncated: read it again from the start. */
		ui_model_clear_ops(m);
		m->ops_skipped = 0;
		src->ops_offset = 0;
		src->ops_line = 1;
		src->ops_dev = st.st_dev;
		src->ops_ino = st.st_ino;
	} else if ((uint64_t)st.st_size == src->ops_offset) {
		return intent;
	}
	if (ac_oplog_read(&list, src->ws->operations_path, src->ops_offset, src->ops_line,
			  op_problem, src) != 0) {
		ui_source_note_problem(m, src->ws->operations_path, ac_error_last());
		return UI_CHANGED_OPS;
	}
	for (size_t i = 0; i < list.n; i++)
		if (ui_model_add_op(m, &list.ops[i]) != 0)
			break;
	m->ops_skipped += list.skipped;
	src->ops_offset = list.next_offset;
	src->ops_line = list.next_line;
	ac_op_list_free(&list);
	return UI_CHANGED_OPS;
}

int ui_source_load_checkpoints(ui_source *src, ui_model *m, const char *id)
{
	ac_checkpoint_filter filter = {.session_id = id, .include_tombstones = true};
	ac_checkpoint_header_list list = {0};
	int rc = 0;
	char *path = NULL;
	struct stat st;

	ui_model_clear_checkpoints(m);
	m->ckpt_problems = 0;
	if (!id)
		return 0;
	m->ckpt_session = strdup(id);
	m->ckpt_session_shown = ui_safe_str(id);
	if (ac_session_id_check(id) != 0)
		return 0;
	/* A database has no folder per session: its listing says. */
	if (src->database)
		m->ckpts_present = true;
	else if (asprintf(&path, "%s/%s", src->ws->checkpoints_dir, id) >= 0)
		m->ckpts_present = stat(path, &st) == 0;
	free(path);
	if (!m->ckpts_present)
		return 0;
	rc = ac_checkpoint_store_list_headers(&list, src->store, &filter);
	if (rc != 0 && src->database) { /* a dropped connection is made again: once more */
		ac_checkpoint_header_list_free(&list);
		rc = ac_checkpoint_store_list_headers(&list, src->store, &filter);
	}
	if (rc != 0) {
		ui_source_note_problem(m, src->ws->checkpoints_dir, ac_error_last());
		ac_checkpoint_header_list_free(&list);
		return rc;
	}
	m->ckpts = calloc(list.count + 1, sizeof(*m->ckpts));
	if (!m->ckpts) {
		ac_checkpoint_header_list_free(&list);
		return AC_ENOMEM;
	}
	for (size_t i = 0; i < list.count; i++) {
		const ac_checkpoint_header *h = &list.items[i];
		ui_checkpoint *c = &m->ckpts[m->n_ckpts++];

		c->id = ui_safe_str(h->checkpoint_id);
		c->raw_id = ui_raw_str(h->checkpoint_id);
		c->node = ui_safe_str(h->node_id);
		c->created = ui_safe_str(h->created_at);
		c->version = h->version;
		c->messages = h->messages;
		c->tombstone = h->tombstone;
		if (m->track_touched) {
			char note[300];

			snprintf(note, sizeof(note), "checkpoint:%.280s", h->checkpoint_id);
			ui_model_touch_session(m, note);
		}
	}
	ac_checkpoint_header_list_free(&list);
	return 0;
}

static char *meta_dup(const ac_session *s, const char *key)
{
	const char *v = json_string_value(json_object_get(
		json_object_get(ac_session_root(s), "metadata"), key));

	return v ? strdup(v) : NULL;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Takes the tenant, user and agent (allocated) of the conversation just
 * loaded; the store tabs start again when the tenant is another one. */
void ui_source_set_owner(ui_source *src, ui_model *m, bool same_session, char *tenant,
			 char *user, char *agent)
{
	bool keep = same_session && tenant && same_str(tenant, src->tenant);

	free(src->user);
	free(src->agent);
	src->user = user;
	src->agent = agent;
	if (keep) {
		free(tenant);
		return;
	}
	ui_model_clear_store(m);
	free(src->tenant);
	src->tenant = NULL;
	if (!tenant) {
		m->store_note = ui_safe_str("this session has no metadata.tenantId: memory documents, "
					 "artifacts and traces are kept per tenant, so it has none");
	} else if (ac_backend_id_check("tenant", tenant) != 0) {
		char note[1200];

		snprintf(note, sizeof(note), "metadata.tenantId is not a usable tenant id: %.1000s",
			 ac_error_last());
		m->store_note = ui_safe_str(note);
		m->conv_tenant = ui_safe_str(tenant);
		free(tenant);
	} else {
		m->conv_tenant = ui_safe_str(tenant);
		src->tenant = tenant;
	}
}

const char *ui_source_tenant(const ui_source *src)
{
	return src->tenant;
}

int ui_source_open_conversation(ui_source *src, ui_model *m, const char *id)
{
	ac_session *s = NULL;
	char title[600];
	bool same = m->conv_session && !strcmp(m->conv_session, id);
	int rc;

	if (src->database && !ui_source_transcript(src, id))
		return ui_source_store_open_conversation(src, m, id);
	if (src->database) {
		ac_error_clear();
		return ui_source_transcript_conversation(src, m, id);
	}
	rc = ac_session_load(&s, src->ws->sessions_dir, id);
	if (rc == AC_ENOTFOUND && ui_source_transcript(src, id)) {
		ac_error_clear();
		return ui_source_transcript_conversation(src, m, id);
	}
	if (rc != 0 && same && m->conv_title && !m->conv_error) {
		/* Read well before: one torn write or a file being replaced
		 * keeps the last good read on screen, said so, and the next
		 * change of the file reads it again. */
		ui_sfree(m->conv_stale);
		m->conv_stale = ui_safe_str(ac_error_last());
		return rc;
	}
	if (rc != 0) {
		char *why = strdup(ac_error_last());

		ui_model_close_conversation(m);
		m->conv_session = strdup(id);
		m->conv_title = ui_safe_str(id);
		m->conv_error = why ? ui_safe_str(why) : NULL;
		if (m->conv_error && !*m->conv_error) {
			ui_sfree(m->conv_error);
			m->conv_error = NULL;
		}
		free(why);
		free(src->tenant);
		src->tenant = NULL;
		return rc;
	}
	{
		/* The task whole: a \u0000 shows as ^@ (sanitised here, with
		 * its length; the title is sanitised again, which keeps it). */
		const json_t *task = json_object_get(ac_session_root(s), "task");
		char *shown = ui_safe_dup(json_string_value(task), json_string_length(task));

		snprintf(title, sizeof(title), "%.100s  %.12s  %.400s", ac_session_id(s),
			 ac_session_status(s), shown);
		ui_sfree(shown);
	}
	rc = ui_model_set_conversation(m, id, title, ac_session_messages(s));
	{
		/* The inspector's usage: the rows are the truth (ac_turn_usage.h);
		 * a sidecar that cannot be read shows no rows, the rest stays. */
		json_t *usage = NULL;

		if (rc == 0 && ac_turn_usage_load(&usage, src->ws->sessions_dir, id,
						  json_object_get(json_object_get(ac_session_root(s),
										  "metadata"), "usage")) == 0)
			rc = ui_model_set_usage(m, usage);
		json_decref(usage);
	}
	ui_source_set_owner(src, m, same, meta_dup(s, "tenantId"), meta_dup(s, "userId"),
		  meta_dup(s, "agentId"));
	ac_session_free(s);
	return rc;
}

/* ---- the store tabs: through the backend interface only ------------------ */

static int store_push(ui_store_list *l, size_t *cap, const char *scope, const char *owner,
		      const char *name)
{
	ui_store_item *it;

	if (l->n == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 16;
		ui_store_item *grown = realloc(l->items, grown_cap * sizeof(*grown));

		if (!grown)
			return AC_ENOMEM;
		l->items = grown;
		*cap = grown_cap;
	}
	it = &l->items[l->n];
	if (!(it->raw_owner = strdup(owner)) || !(it->raw_name = strdup(name))) {
		free(it->raw_owner);
		return AC_ENOMEM;
	}
	it->scope = ui_safe_str(scope);
	it->owner = ui_safe_str(owner);
	it->name = ui_safe_str(name);
	l->n++;
	return 0;
}

/* A listing is done: fresh replaces *l, or when rc says it failed, *l is
 * kept with the error to show. Returns rc. */
static int store_list_settle(ui_store_list *l, ui_store_list *fresh, int rc)
{
	if (rc) {
		ui_store_list_clear(fresh);
		ui_sfree(l->error);
		l->error = ui_safe_str(ac_error_last());
	} else {
		ui_store_list_clear(l);
		*l = *fresh;
	}
	l->loaded = true;
	return rc;
}

static int load_memos(ui_source *src, ui_model *m)
{
	const ac_backend *b = src->backend;
	const char *const scopes[] = {"session", "user", "agent"};
	const char *const owners[] = {m->conv_session, src->user, src->agent};
	ui_store_list fresh = {0};
	size_t cap = 0;
	int rc = 0;

	for (size_t s = 0; s < 3 && !rc; s++) {
		char **names = NULL;
		size_t n = 0;

		/* A session names its user and agent; without one, that scope
		 * has no owner to look under. */
		if (!owners[s] || ac_backend_id_check("owner", owners[s]) != 0)
			continue;
		if ((rc = ac_backend_memo_list(b, &names, &n, src->tenant, owners[s], scopes[s])))
			break;
		for (size_t i = 0; i < n && !rc; i++)
			rc = store_push(&fresh, &cap, scopes[s], owners[s], names[i]);
		if (rc)
			ac_error_set(rc, "out of memory");
		ac_backend_names_free(names, n);
	}
	return store_list_settle(&m->memos, &fresh, rc);
}

static int load_artifacts(ui_source *src, ui_model *m)
{
	const ac_backend *b = src->backend;
	ui_store_list fresh = {0};
	char **ids = NULL;
	size_t n = 0, cap = 0;
	int rc;

	if (!(rc = ac_backend_artifact_list(b, &ids, &n, src->tenant, m->conv_session)))
		for (size_t i = 0; i < n && !rc; i++)
			if ((rc = store_push(&fresh, &cap, "", m->conv_session, ids[i])))
				ac_error_set(rc, "out of memory");
	ac_backend_names_free(ids, n);
	return store_list_settle(&m->artifacts, &fresh, rc);
}

/* Reads the records after the last seq seen. */
static unsigned read_trace(ui_source *src, ui_model *m)
{
	const ac_backend *b = src->backend;
	json_t *records = NULL;
	size_t skipped = 0, before = m->n_trace;
	bool had_error = m->trace_error != NULL;
	int rc;

	if (!src->tenant || !m->conv_session)
		return 0;
	rc = ac_backend_trace_load(b, &records, &skipped, src->tenant, m->conv_session, m->trace_seq);
	m->trace_loaded = true;
	ui_sfree(m->trace_error);
	m->trace_error = NULL;
	if (rc) {
		m->trace_error = ui_safe_str(ac_error_last());
		return UI_CHANGED_TRACE;
	}
	if (ui_model_add_trace(m, records) != 0)
		m->trace_error = ui_safe_str("out of memory");
	json_decref(records);
	if (skipped != m->trace_skipped || m->n_trace != before || had_error || m->trace_error) {
		m->trace_skipped = skipped;
		return UI_CHANGED_TRACE;
	}
	return 0;
}

int ui_source_load_tab(ui_source *src, ui_model *m, ui_tab tab)
{
	if (!m->conv_session || !src->tenant)
		return 0;
	switch (tab) {
	case UI_TAB_MEMORY: return load_memos(src, m);
	case UI_TAB_ARTIFACTS: return load_artifacts(src, m);
	case UI_TAB_TRACE:
		read_trace(src, m);
		return m->trace_error ? AC_EIO : 0;
	default: return 0;
	}
}

int ui_source_open_item(ui_source *src, ui_model *m, ui_tab tab, size_t i)
{
	const ac_backend *b = src->backend;
	const ui_store_list *l = tab == UI_TAB_MEMORY ? &m->memos : &m->artifacts;
	const ui_store_item *it;
	char *text = NULL, title[1400];
	size_t len = 0;
	int rc;

	if (!src->tenant || (tab != UI_TAB_MEMORY && tab != UI_TAB_ARTIFACTS) || i >= l->n)
		return AC_EINVAL;
	it = &l->items[i];
	if (tab == UI_TAB_MEMORY) {
		snprintf(title, sizeof(title), "memo %s/%.400s/%.400s", it->scope, it->raw_owner,
			 it->raw_name);
		rc = ac_backend_memo_read(b, &text, &len, src->tenant, it->raw_owner, it->scope,
				  it->raw_name);
	} else {
		snprintf(title, sizeof(title), "artifact %.400s", it->raw_name);
		rc = ac_backend_artifact_read(b, &text, &len, src->tenant, m->conv_session, it->raw_name);
	}
	if (rc) {
		ui_model_set_document(m, tab, title, "", 0);
		m->doc_error = ui_safe_str(ac_error_last());
	} else {
		rc = ui_model_set_document(m, tab, title, text, len);
	}
	free(text);
	return rc;
}

/* The session listing for the next start (a cache: one that cannot be
 * written costs that start time, nothing else). */
static void save_session_cache(ui_source *src)
{
	if (src->index && !src->database && ac_session_index_save_cache(src->index) != 0)
		ac_error_clear();
}

int ui_source_new(ui_source **out, ui_model *m, const ac_workspace *ws)
{
	ui_source *src = calloc(1, sizeof(*src));
	int rc;

	*out = NULL;
	if (!src)
		return AC_ENOMEM;
	src->ws = ws;
	src->m = m;
	src->ops_line = 1;
	/* A session file's state too is derived under sources.state.*. */
	ac_source_state_limits(&src->limits, ws->config);
	m->state_limits = &src->limits;
	/* The store every command uses (ac_workspace_store()): the store tabs
	 * read through it; ui_source_use_store() asks it whether the sessions
	 * are files here. */
	if ((rc = ac_workspace_store(&src->backend, ws)) != 0 ||
	    (rc = ac_journal_follow_new(&src->follow, ws->journal_path, UI_MODEL_EVENTS,
					&ws->schema)) != 0 ||
	    (rc = ac_session_index_new(&src->index, ws->sessions_dir)) != 0 ||
	    (rc = ac_checkpoint_store_open(&src->store, ws)) != 0) {
		ui_source_free(src);
		return rc;
	}
	if ((rc = ui_source_transcripts_open(src)) != 0) {
		ui_source_free(src);
		return rc;
	}
	/* One torn write must not make a row vanish (and the cursor jump). */
	ac_session_index_keep_last_good(src->index, true);
	/* The first screen from the last listing's cache: only the session
	 * files changed since are read (ac_session_index_use_cache()). */
	if ((rc = ac_session_index_use_cache(src->index)) != 0) {
		ui_source_free(src);
		return rc;
	}
	ac_checkpoint_store_set_problem(src->store, ckpt_problem, src);
	if (!m->workspace)
		m->workspace = ui_safe_str(ws->root);
	ui_source_update(src, m, ~0u);
	save_session_cache(src);
	*out = src;
	return 0;
}

void ui_source_free(ui_source *src)
{
	if (!src)
		return;
	if (src->m && src->m->state_limits == &src->limits)
		src->m->state_limits = NULL;
	ac_journal_follow_free(src->follow);
	save_session_cache(src);
	ac_session_index_free(src->index);
	ac_source_index_free(src->transcripts);
	ac_source_watch_free(src->transcripts_watch);
	ac_checkpoint_store_free(src->store);
	ac_journal_store_free(src->journal);
	ac_buf_free(&src->scratch);
	ac_workspace_store_release(src->ws, src->backend);
	free(src->store_name);
	free(src->tenant);
	free(src->user);
	free(src->agent);
	free(src);
}

unsigned ui_source_update_watched(ui_source *src, ui_model *m, const ac_watch *watch,
				  unsigned mask)
{
	const char *const *names;
	size_t n;
	unsigned changed = 0;

	src->m = m;
	if (src->database) /* the sessions are not files: the store watch follows them */
		mask &= ~(unsigned)AC_WATCH_SESSIONS;
	if ((mask & AC_WATCH_SESSIONS) && !(mask & AC_WATCH_RESCAN) &&
	    ac_watch_session_files(watch, &names, &n)) {
		changed = read_session_files(src, names, n);
		mask &= ~(unsigned)AC_WATCH_SESSIONS;
	}
	return mask ? changed | ui_source_update(src, m, mask) : changed;
}

unsigned ui_source_update(ui_source *src, ui_model *m, unsigned mask)
{
	unsigned changed = 0;

	src->m = m;
	if (mask & AC_WATCH_RESCAN)
		mask = ~0u;
	if (mask & AC_WATCH_JOURNAL)
		changed |= read_journal(src);
	/* An undone intent is journalled, and logs no operation. */
	if ((mask & AC_WATCH_JOURNAL) && !(mask & AC_WATCH_OPERATIONS))
		changed |= read_intent(src);
	if (mask & AC_WATCH_SESSIONS)
		changed |= read_sessions(src) | reopen_conversation(src, m);
	if ((mask & AC_WATCH_TRACES) && m->trace_loaded)
		changed |= read_trace(src, m);
	if (mask & AC_WATCH_OPERATIONS)
		changed |= read_ops(src);
	if ((mask & AC_WATCH_CHECKPOINTS) && m->ckpt_session) {
		char *id = strdup(m->ckpt_session);

		ui_source_load_checkpoints(src, m, id);
		free(id);
		changed |= UI_CHANGED_CHECKPOINTS;
	}
	return changed;
}
