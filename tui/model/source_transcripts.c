/* The coding agents' transcripts in the dashboard: read incrementally
 * (ac_source.h) on the watcher's rounds and on a steady poll, their
 * states derived anew each time (they change with time alone), shown as
 * rows after the session files', and opened as conversations. Never
 * written to. */
#include "source_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_source_watch.h"
#include "ac_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int ui_source_transcripts_open(ui_source *src)
{
	ac_source_options opts;
	int rc;

	if (!src->ws->config)
		return 0;
	if (ac_source_options_from_config(&opts, src->ws->config, src->ws->root, false) != 0) {
		/* No transcripts is no reason to refuse the dashboard. */
		ui_model_log(src->m, true, ac_error_last());
		return 0;
	}
	src->limits = opts.limits;
	rc = ac_source_index_new(&src->transcripts, &opts);
	if (rc == 0)
		rc = ac_source_watch_new(&src->transcripts_watch);
	ac_source_options_free(&opts);
	return rc;
}

bool ui_source_transcript_folders(const ui_source *src)
{
	return src && src->transcripts;
}

const ac_source_session *ui_source_transcript(const ui_source *src, const char *id)
{
	ac_source_session *const *list;
	size_t n;

	if (!src->transcripts)
		return NULL;
	list = ac_source_index_list(src->transcripts, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i]->id, id))
			return list[i];
	return NULL;
}

/* What s waits on as its status file says, "" when not waiting. */
static const char *waiting_on(const ac_source_session *s)
{
	return s->agent == AC_AGENT_WAITING && s->waiting_reason ? s->waiting_reason : "";
}

/* The open conversation's transcript changed since it was read, or what
 * it waits on (its title says it). */
static bool conversation_changed(ui_source *src, const ac_source_session *s)
{
	return s->size != src->conv_size || s->mtime_ns != src->conv_mtime_ns ||
	       strncmp(waiting_on(s), src->conv_waiting, sizeof(src->conv_waiting) - 1);
}

int ui_source_transcript_conversation(ui_source *src, ui_model *m, const char *id)
{
	const ac_source_session *s = ui_source_transcript(src, id);
	json_t *messages = NULL;
	char title[900];
	int rc;

	if (!s)
		return ac_error_set(AC_ENOTFOUND, "no transcript '%s'", id);
	if ((rc = ac_source_session_conversation(&messages, s)) != 0) {
		ui_model_close_conversation(m);
		m->conv_session = strdup(id);
		m->conv_title = ui_safe_str(id);
		m->conv_error = ui_safe_str(ac_error_last());
		return rc;
	}
	/* The reason first: on a narrow terminal the title is all there is
	 * of the session's detail. Made safe by the model, as the task. */
	snprintf(title, sizeof(title), "%s%.200s%s%.100s  %s (read-only)  %.400s",
		 *waiting_on(s) ? "[" : "", waiting_on(s), *waiting_on(s) ? "] " : "", s->id,
		 ac_source_name(s->kind), ac_source_session_task(s));
	rc = ui_model_set_conversation(m, id, title, messages);
	src->conv_size = s->size;
	src->conv_mtime_ns = s->mtime_ns;
	snprintf(src->conv_waiting, sizeof(src->conv_waiting), "%s", waiting_on(s));
	/* A transcript has no tenant: its store tabs have nothing to read. */
	ui_source_set_owner(src, m, true, NULL, NULL, NULL);
	json_decref(messages);
	return rc;
}

/* True when the rows shown are list[0..n) as read, and each state derived
 * now is the one shown: nothing to build. */
static bool same_states(const ui_source *src, const ui_model *m, ac_source_session *const *list,
			size_t n, int64_t now)
{
	const ui_session *rows = m->sessions + (m->n_sessions - m->n_transcripts);

	if (n != m->n_transcripts)
		return false;
	for (size_t i = 0; i < n; i++) {
		ac_state_inputs in;

		ac_source_session_inputs(&in, list[i], now);
		if (rows[i].state != ac_session_state_derive(&in, &src->limits))
			return false;
	}
	return true;
}

/* Transcripts left out are said once each time their number changes
 * (the line names the first), not on every refresh. */
static void note_unreadable(ui_source *src, ui_model *m)
{
	const char *first;
	size_t n = ac_source_index_unreadable(src->transcripts, &first);
	char more[96];

	if (n == src->transcripts_unreadable)
		return;
	src->transcripts_unreadable = n;
	if (!n)
		return;
	snprintf(more, sizeof(more), "%zu coding-agent transcript%s not read", n, n == 1 ? "" : "s");
	ui_source_note_problem(m, more, first);
}

/* The format-drift canary (files not read, record types skipped), said
 * in the log once each time what it says changes. */
static void note_drift(ui_source *src, ui_model *m)
{
	ac_buf text = AC_BUF_INIT;
	uint64_t h = 14695981039346656037ull;

	for (int k = 0; k < AC_SOURCE_COUNT; k++) {
		size_t before = text.len;

		if (before && ac_buf_printf(&text, "; ") == 0)
			before = text.len;
		if (ac_source_drift_describe(&text, (ac_source_kind)k,
					     ac_source_index_drift(src->transcripts, (ac_source_kind)k)))
			break;
		if (text.len == before && before >= 2 && text.data[before - 2] == ';')
			text.len -= 2; /* this source said nothing */
	}
	for (size_t i = 0; i < text.len; i++)
		h = (h ^ (unsigned char)text.data[i]) * 1099511628211ull;
	if (text.len && h != src->drift_said) {
		ac_buf msg = AC_BUF_INIT;

		if (ac_buf_printf(&msg, "coding-agent formats not read: %s", text.data) == 0)
			ui_model_log(m, false, msg.data);
		ac_buf_free(&msg);
	}
	src->drift_said = text.len ? h : 0;
	ac_buf_free(&text);
}

unsigned ui_source_transcripts_read(ui_source *src, ui_model *m, bool refresh)
{
	ac_source_session *const *list;
	ui_transcript_row *rows;
	const ac_source_session *open;
	int64_t now = ac_time_now_ms();
	unsigned changed = 0;
	size_t n, read = 0;

	if (!src->transcripts)
		return 0;
	if (refresh) {
		if (ac_source_index_refresh(src->transcripts, &read) != 0) {
			ui_source_note_problem(m, "transcripts", ac_error_last());
			return 0;
		}
		src->transcripts_read = true;
		src->rows_differ = src->rows_differ || read > 0;
		note_unreadable(src, m);
		note_drift(src, m);
		/* New folders (a new project, a new day of Codex) are watched. */
		ac_source_watch_update(src->transcripts_watch, src->transcripts);
	}
	list = ac_source_index_list(src->transcripts, &n);
	if (!src->rows_differ && same_states(src, m, list, n, now))
		goto conversation; /* the steady state: no row built, nothing allocated */
	if (!(rows = calloc(n ? n : 1, sizeof(*rows))))
		return 0;
	for (size_t i = 0; i < n; i++) {
		ac_state_inputs in;
		ac_session_state state;

		ac_source_session_inputs(&in, list[i], now);
		state = ac_session_state_derive(&in, &src->limits);
		rows[i] = (ui_transcript_row){
			.id = list[i]->id, .task = ac_source_session_task(list[i]),
			.created = list[i]->started ? list[i]->started : "",
			.updated = list[i]->updated ? list[i]->updated : "",
			.source = ac_source_name(list[i]->kind), .path = list[i]->path,
			.parent = list[i]->parent_id, .last_action = list[i]->last_action,
			.tokens = list[i]->tokens,
			.relation = ac_source_relation_name(list[i]->relation),
			.messages = list[i]->messages,
			.state = state,
			/* Said only while it waits: an old reason misleads. */
			.waiting_for = state == AC_STATE_WAITING ? list[i]->waiting_reason : NULL,
		};
	}
	if (ui_model_set_transcripts(m, rows, n))
		changed |= UI_CHANGED_SESSIONS;
	src->rows_differ = m->n_transcripts != n; /* out of memory: again next time */
	free(rows);
conversation:
	if (m->conv_session && (open = ui_source_transcript(src, m->conv_session)) &&
	    conversation_changed(src, open)) {
		char *id = strdup(m->conv_session);

		if (id && ui_source_transcript_conversation(src, m, id) == 0)
			changed |= UI_CHANGED_CONVERSATION;
		free(id);
	}
	return changed;
}

unsigned ui_source_poll_transcripts(ui_source *src, ui_model *m, bool refresh)
{
	src->m = m;
	if (ac_source_watch_read(src->transcripts_watch))
		refresh = true;
	return ui_source_transcripts_read(src, m, refresh);
}

int ui_source_transcripts_fd(const ui_source *src)
{
	return src->transcripts ? ac_source_watch_fd(src->transcripts_watch) : -1;
}
