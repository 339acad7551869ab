/* The coding agents' sessions in the model: rows after the session files'
 * (tui/source.c reads the transcripts, ac_source.h). They are replaced
 * together, and only when one of them shows something else, so that a
 * poll that found nothing new redraws nothing. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

static void row_of(ui_session *c, const ui_transcript_row *r)
{
	memset(c, 0, sizeof(*c));
	c->id = ui_safe_str(r->id);
	c->raw_id = ui_raw_str(r->id);
	c->task = ui_safe_str(r->task);
	c->status = ui_safe_str(ac_session_state_name(r->state));
	c->user = ui_safe_str("");
	c->agent = ui_safe_str(r->source);
	c->created = ui_safe_str(r->created);
	c->updated = ui_safe_str(r->updated);
	c->host = ui_safe_str("");
	c->messages = r->messages;
	c->st = UI_STATUS_OTHER;
	c->source = r->source;
	c->state = r->state;
	c->path = r->path ? strdup(r->path) : NULL;
	c->waiting_for = r->waiting_for ? ui_safe_str(r->waiting_for) : NULL;
	c->parent = r->parent && *r->parent ? ui_raw_str(r->parent) : NULL;
	c->relation = c->parent ? r->relation : NULL;
	c->last_action = r->last_action ? ui_safe_str(r->last_action) : NULL;
	c->tokens = r->tokens;
}

static bool same_text(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

static bool same(const ui_session *row, const ui_session *fresh)
{
	return !strcmp(row->raw_id, fresh->raw_id) && !strcmp(row->task, fresh->task) &&
	       !strcmp(row->updated, fresh->updated) && row->messages == fresh->messages &&
	       row->state == fresh->state && row->source == fresh->source &&
	       same_text(row->waiting_for, fresh->waiting_for) &&
	       same_text(row->parent, fresh->parent) && row->tokens == fresh->tokens &&
	       same_text(row->last_action, fresh->last_action);
}

bool ui_model_set_transcripts(ui_model *m, const ui_transcript_row *rows, size_t n)
{
	size_t first = m->n_sessions - m->n_transcripts;
	ui_session *fresh = n ? calloc(n, sizeof(*fresh)) : NULL;
	bool changed = n != m->n_transcripts;

	if (n && !fresh)
		return false;
	for (size_t i = 0; i < n; i++) {
		row_of(&fresh[i], &rows[i]);
		changed = changed || !same(&m->sessions[first + i], &fresh[i]);
	}
	if (!changed)
		goto done;
	if (first + n > m->cap_sessions) {
		ui_session *grown = realloc(m->sessions, (first + n) * sizeof(*grown));

		if (!grown) {
			changed = false;
			goto done;
		}
		m->sessions = grown;
		m->cap_sessions = first + n;
	}
	for (size_t i = first; i < m->n_sessions; i++) {
		m->by_status[m->sessions[i].st]--;
		ui_session_free_row(&m->sessions[i]);
	}
	for (size_t i = 0; i < n; i++) {
		m->sessions[first + i] = fresh[i];
		m->by_status[fresh[i].st]++;
		ui_model_touch_session(m, fresh[i].id);
	}
	m->n_sessions = first + n;
	m->n_transcripts = n;
	ui_model_tree_link(m); /* out of memory: the rows are shown flat */
	m->sessions_gen = ui_model_next_generation();
	m->sessions_prev_gen = 0;
	free(fresh);
	return true;
done:
	for (size_t i = 0; i < n; i++)
		ui_session_free_row(&fresh[i]);
	free(fresh);
	return changed;
}
