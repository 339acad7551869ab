/* The dashboard's sessions, conversations and journal from a store that
 * keeps no local session files (a database; the workspace's store,
 * ac_workspace_store(), says so by having no optional.local_sessions): read through the ac_backend and journal store
 * interfaces only, the listing with the host that last wrote each
 * session, the journal by seq (only the events after the last one read),
 * the open conversation likewise (the messages appended since, when
 * nothing else changed its history: session.load_after).
 * What tells the dashboard to read again is the store watch
 * (ac_store_watch.h) in its loop, not the file watcher; it names the kind
 * of change, so a journal event reads the journal alone and a checkpoint
 * the open checkpoint list alone. The operations pane still reads the
 * workspace's file; checkpoints come through ac_checkpoint_store_open(),
 * the database's provider. */
#include "source_impl.h"

#include "ac_source_watch.h"

#include "ac_store_watch.h"
#include "ac_error.h"
#include "ac_journal_store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* AGENTCTL_DEBUG_STATS=FILE (tests and benchmarks): each reading of the
 * store's sessions appends "<CLOCK_MONOTONIC ns> full <rows>" (the whole
 * listing) or "<ns> row <id>" (one session's row) to FILE, once the model
 * holds it, so a test tells a change read row by row from one that read
 * everything, and a benchmark times a commit to the model. */
static void debug_stat(const char *what, const char *name)
{
	static FILE *stats;
	static bool opened;
	struct timespec now;

	if (!opened) {
		const char *path = getenv("AGENTCTL_DEBUG_STATS");

		opened = true;
		stats = path && *path ? fopen(path, "ae") : NULL;
	}
	if (!stats)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	fprintf(stats, "%lld %s %s\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec, what,
		name);
	fflush(stats);
}

int ui_source_use_store(ui_source *src)
{
	char line[1000];
	int rc;

	/* Session files here: the source reads them itself, the watcher
	 * follows them. */
	if (ac_backend_has_local_sessions(src->backend))
		return 0;
	if (!(src->store_name = strdup(ac_workspace_store_where(src->ws))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_journal_store_open(&src->journal, src->ws)))
		return rc;
	src->database = true;
	src->m->store_where = ui_safe_str(src->store_name);
	snprintf(line, sizeof(line), "store: %.500s: sessions, conversations, the journal and "
		 "checkpoints from the database, followed live; the coding agents' transcripts "
		 "from their folders; the operations pane still reads the workspace's file",
		 src->store_name);
	ui_model_log(src->m, false, line);
	/* The journal file's events read so far are not this store's. */
	ui_model_clear_events(src->m);
	ui_source_update(src, src->m, AC_WATCH_SESSIONS | AC_WATCH_JOURNAL);
	return 0;
}

int ui_source_watch_store(const ui_source *src, ac_store_watch **out)
{
	const ac_backend *b = src->backend;
	const char *rescan = getenv("AGENTCTL_STORE_RESCAN_MS");
	int rc;

	*out = NULL;
	if (!ac_backend_has_watch(b))
		return 0;
	if ((rc = ac_backend_watch(b, out)))
		return rc;
	/* Tests shorten (or lengthen) the reading of everything that catches
	 * writers which notify nobody. */
	if (rescan && *rescan)
		ac_store_watch_set_rescan(*out, atoi(rescan));
	return 0;
}

unsigned ui_source_store_read_journal(ui_source *src)
{
	uint64_t before = src->m->events_seen, at = src->journal_seq;
	int rc = ac_journal_store_follow(src->journal, &src->journal_seq, UI_MODEL_EVENTS, NULL,
					 ui_source_on_event, src);

	/* As the listing: once more on a connection made again, unless some
	 * events were read (then the next notification reads on). */
	if (rc && src->journal_seq == at)
		rc = ac_journal_store_follow(src->journal, &src->journal_seq, UI_MODEL_EVENTS, NULL,
					     ui_source_on_event, src);
	if (rc) {
		/* What is shown stays; the next notification (or reconnection)
		 * reads on from the same seq. */
		ui_source_note_problem(src->m, src->store_name, ac_error_last());
		ui_sfree(src->m->journal_error);
		src->m->journal_error = ui_safe_str(src->m->last_problem);
		return UI_CHANGED_JOURNAL;
	}
	if (src->m->journal_error) {
		ui_sfree(src->m->journal_error);
		src->m->journal_error = NULL;
	}
	return src->m->events_seen != before ? UI_CHANGED_JOURNAL : 0;
}

const char *ui_source_store_label(const ui_source *src)
{
	return src->database ? src->store_name : "file";
}

const ac_backend *ui_source_store(const ui_source *src)
{
	return src->database ? src->backend : NULL;
}

/* Readings of the whole listing so far (this process has one dashboard). */
static uint64_t full_reads;

unsigned ui_source_store_read_sessions(ui_source *src)
{
	ac_backend_session_info *list = NULL;
	size_t n = 0;

	full_reads++;
	/* A connection the server dropped (a restart) fails its first
	 * statement and is made again by the next: a read tries twice. */
	if (ac_backend_inspector_list_sessions(src->backend, &list, &n, NULL) != 0 &&
	    ac_backend_inspector_list_sessions(src->backend, &list, &n, NULL) != 0) {
		/* The rows on screen stay: the store watch reads again once the
		 * connection is back. */
		ui_source_note_problem(src->m, src->store_name, ac_error_last());
		return UI_CHANGED_SESSIONS;
	}
	src->rows_synced = ui_model_set_store_sessions(src->m, list, n) == 0;
	if (!src->rows_synced)
		ui_source_note_problem(src->m, src->store_name, "out of memory");
	else {
		char rows[32];

		snprintf(rows, sizeof(rows), "%zu", n);
		debug_stat("full", rows);
	}
	ac_backend_sessions_free(list, n);
	/* The coding agents' transcripts go after the store's rows, as after
	 * the files' (the listing replaced them all). */
	return UI_CHANGED_SESSIONS | ui_source_transcripts_read(src, src->m, !src->transcripts_read);
}

unsigned ui_source_store_update_session(ui_source *src, ui_model *m, const char *id)
{
	ac_backend_session_info info = {0};
	unsigned changed = UI_CHANGED_SESSIONS;
	int rc;

	src->m = m;
	if (!src->database || !src->rows_synced)
		return ui_source_update(src, m, AC_WATCH_SESSIONS | AC_WATCH_TRACES);
	rc = ac_backend_inspector_find(src->backend, &info, id);
	if ((rc != 0 && rc != AC_ENOTFOUND) ||
	    ui_model_put_store_session(m, id, rc == 0 ? &info : NULL) != 0) {
		ac_backend_session_info_clear(&info);
		src->rows_synced = false;
		return ui_source_update(src, m, AC_WATCH_SESSIONS | AC_WATCH_TRACES);
	}
	ac_backend_session_info_clear(&info);
	debug_stat("row", id);
	if (m->conv_session && !strcmp(m->conv_session, id)) {
		ui_source_store_open_conversation(src, m, id);
		changed |= UI_CHANGED_CONVERSATION | ui_source_update(src, m, AC_WATCH_TRACES);
	}
	return changed;
}

/* What find_sessions' rows are put with: the model, and which of the
 * named sessions came back (the others are gone). */
typedef struct {
	ui_model *m;
	const char (*named)[AC_STORE_ID_SIZE];
	bool *found;
	size_t n;
} found_rows;

static int put_found(const ac_backend_session_info *info, void *ctx)
{
	found_rows *f = ctx;

	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->named[i], info->session_id))
			f->found[i] = true;
	return ui_model_put_store_session(f->m, info->session_id, info);
}

/* The named sessions' rows in one statement (optional.find_sessions), put
 * into place, the sessions not found taken out; then the open
 * conversation when it is one of them. Everything read again when a row
 * cannot be put. */
static unsigned update_found(ui_source *src, ui_model *m, const char (*named)[AC_STORE_ID_SIZE],
			     size_t n)
{
	const ac_backend *b = src->backend;
	found_rows f = {m, named, calloc(n, sizeof(bool)), n};
	const char **ids = calloc(n, sizeof(*ids));
	unsigned changed = UI_CHANGED_SESSIONS;
	int rc = f.found && ids ? 0 : AC_ENOMEM;

	for (size_t i = 0; rc == 0 && i < n; i++)
		ids[i] = named[i];
	if (rc == 0)
		rc = ac_backend_find_sessions(b, ids, n, put_found, &f);
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (!f.found[i])
			rc = ui_model_put_store_session(m, named[i], NULL);
	free(f.found);
	free(ids);
	if (rc) {
		src->rows_synced = false;
		return ui_source_update(src, m, AC_WATCH_SESSIONS | AC_WATCH_TRACES);
	}
	for (size_t i = 0; i < n; i++) {
		debug_stat("row", named[i]);
		if (m->conv_session && !strcmp(m->conv_session, named[i])) {
			ui_source_store_open_conversation(src, m, named[i]);
			changed |= UI_CHANGED_CONVERSATION | ui_source_update(src, m, AC_WATCH_TRACES);
		}
	}
	return changed;
}

unsigned ui_source_store_changed(ui_source *src, ui_model *m, const ac_store_watch *w)
{
	const char(*named)[AC_STORE_ID_SIZE];
	size_t n = ac_store_watch_sessions(w, &named);
	unsigned changed = 0;

	src->m = m;
	if (n == SIZE_MAX || !src->database || !src->rows_synced)
		return ui_source_update(src, m, AC_WATCH_SESSIONS | AC_WATCH_TRACES);
	if (n > 1 && ac_backend_has_find_sessions(src->backend))
		return update_found(src, m, named, n);
	/* A row that cannot be put in place reads everything: the rest then
	 * needs no reading. */
	for (size_t i = 0, at = full_reads; i < n && at == full_reads; i++)
		changed |= ui_source_store_update_session(src, m, named[i]);
	return changed;
}

static char *member_dup(const json_t *object, const char *key)
{
	const char *v = json_string_value(json_object_get(object, key));

	return v ? strdup(v) : NULL;
}

static char *info_dup(const char *v)
{
	return v && *v ? strdup(v) : NULL;
}

/* The open conversation's messages: only those appended since the lines
 * were built when nothing else changed (*appended true), else all of
 * them, with the cursor for the next read. */
static int read_messages(ui_source *src, json_t **out, bool *appended, bool held,
			 const char *tenant, const char *id)
{
	int rc = AC_ECONFLICT;

	*appended = false;
	if (held && src->conv_cursor.epoch)
		rc = ac_backend_session_load_after(src->backend, out, &src->conv_cursor,
						     tenant, id);
	if (rc == 0)
		*appended = true;
	if (rc == AC_ECONFLICT) {
		memset(&src->conv_cursor, 0, sizeof(src->conv_cursor));
		rc = ac_backend_session_load_after(src->backend, out, &src->conv_cursor,
						     tenant, id);
	}
	return rc;
}

int ui_source_store_open_conversation(ui_source *src, ui_model *m, const char *id)
{
	ac_backend_session_info info = {0};
	bool same = m->conv_session && !strcmp(m->conv_session, id);
	bool incremental = ac_backend_has_load_after(src->backend), appended = false;
	json_t *doc = NULL, *messages = NULL, *metadata;
	char title[600];
	int rc;

	/* The operator names a session by id; its tenant comes from the store. */
	if ((rc = ac_backend_inspector_find(src->backend, &info, id)) == 0) {
		if (incremental)
			rc = read_messages(src, &messages, &appended,
					   same && m->conv_title && !m->conv_error, info.tenant, id);
		else if ((rc = ac_backend_session_get(src->backend, &doc, info.tenant, id)) == 0)
			messages = json_incref(json_object_get(doc, "conversationHistory"));
	}
	if (rc && same && m->conv_title && !m->conv_error) {
		/* Read well before: the last good read stays, said so. */
		ui_sfree(m->conv_stale);
		m->conv_stale = ui_safe_str(ac_error_last());
		ac_backend_session_info_clear(&info);
		return rc;
	}
	if (rc) {
		char *why = strdup(ac_error_last());

		ui_model_close_conversation(m);
		m->conv_session = strdup(id);
		m->conv_title = ui_safe_str(id);
		m->conv_error = ui_safe_str(why ? why : "");
		free(why);
		free(src->tenant);
		src->tenant = NULL;
		memset(&src->conv_cursor, 0, sizeof(src->conv_cursor));
		ac_backend_session_info_clear(&info);
		return rc;
	}
	ui_sfree(m->conv_stale);
	m->conv_stale = NULL;
	{
		/* The document's task whole (a \u0000 shows as ^@). */
		const json_t *whole = doc ? json_object_get(doc, "task") : NULL;
		char *shown = whole ? ui_safe_dup(json_string_value(whole), json_string_length(whole))
				    : ui_safe_str(info.task);

		snprintf(title, sizeof(title), "%.100s  %.12s  %.300s  host %.60s", id, info.status,
			 shown, *info.host ? info.host : "-");
		ui_sfree(shown);
	}
	/* Appended only: their lines go after the ones shown, which stay. */
	rc = appended ? ui_model_append_conversation(m, title, messages)
		      : ui_model_set_conversation(m, id, title, messages);
	if (m->track_touched) {
		/* The frame trace names the conversation by its length. */
		snprintf(title, sizeof(title), "conversation:%.100s:%zu", id, m->n_conv_messages);
		ui_model_touch_session(m, title);
	}
	{
		json_t *usage = NULL;

		if (rc == 0 &&
		    ac_backend_session_load_usage(src->backend, &usage, info.tenant, id) == 0)
			rc = ui_model_set_usage(m, usage);
		json_decref(usage);
	}
	if (doc) {
		metadata = json_object_get(doc, "metadata");
		ui_source_set_owner(src, m, same, strdup(info.tenant), member_dup(metadata, "userId"),
				    member_dup(metadata, "agentId"));
	} else {
		ui_source_set_owner(src, m, same, strdup(info.tenant), info_dup(info.user),
				    info_dup(info.agent));
	}
	if (rc)
		/* Lines missing: the next read builds them whole. */
		memset(&src->conv_cursor, 0, sizeof(src->conv_cursor));
	json_decref(messages);
	json_decref(doc);
	ac_backend_session_info_clear(&info);
	return rc;
}
