/* The coding agents' sessions in the model: rows after the session files'
 * (tui/model/source.c reads the transcripts, ac_source.h). They are replaced
 * together, and only when one of them shows something else, so that a
 * poll that found nothing new redraws nothing. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

/* The usage index's name of a transcript's tool (ac_source_name()), or
 * AC_USAGE_AGENTCTL for one the index does not read. */
static ac_usage_source usage_source(const char *tool)
{
	if (!tool)
		return AC_USAGE_AGENTCTL;
	if (!strcmp(tool, "claude-code"))
		return AC_USAGE_CLAUDE;
	if (!strcmp(tool, "codex"))
		return AC_USAGE_CODEX;
	if (!strcmp(tool, "gemini"))
		return AC_USAGE_GEMINI;
	return AC_USAGE_AGENTCTL;
}

/* A transcript's tokens: its tool's own count (read live with the
 * transcript), else the usage index's total for its session (`agentctl
 * usage`'s figure, measured every minute), else 0 ("-"). */
static uint64_t tokens_of(const ui_model *m, const char *tool, const char *raw_id, uint64_t own)
{
	ac_usage_source source = usage_source(tool);
	const ac_usage_session_total *t;

	if (own || source == AC_USAGE_AGENTCTL)
		return own;
	t = ac_usage_session_total_find(m->usage_totals, m->n_usage_totals, source, raw_id);
	return t ? t->tokens : 0;
}

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
		fresh[i].tokens_usage = !rows[i].tokens;
		fresh[i].tokens = tokens_of(m, rows[i].source, fresh[i].raw_id, rows[i].tokens);
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
		if (m->sessions[i].pending && !m->sessions[i].pending_alarm)
			m->n_pending_quiet--;
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

void ui_model_usage_tokens_free(ui_model *m)
{
	free(m->usage_totals);
	free(m->usage_ids);
	m->usage_totals = NULL;
	m->usage_ids = NULL;
	m->n_usage_totals = 0;
}

bool ui_model_take_usage_tokens(ui_model *m, ac_usage_session_total *totals, size_t n, char *ids)
{
	size_t first = m->n_sessions - m->n_transcripts;
	bool changed = false;

	ui_model_usage_tokens_free(m);
	m->usage_totals = totals;
	m->n_usage_totals = n;
	m->usage_ids = ids;
	/* Only the rows whose tool counts none: a lookup each, no file read. */
	for (size_t i = first; i < m->n_sessions; i++) {
		ui_session *s = &m->sessions[i];
		const ac_usage_session_total *t;
		ac_usage_source source = usage_source(s->source);

		if (source == AC_USAGE_AGENTCTL || !s->tokens_usage)
			continue;
		t = ac_usage_session_total_find(totals, n, source, s->raw_id);
		if ((t ? t->tokens : 0) != s->tokens) {
			s->tokens = t ? t->tokens : 0;
			ui_model_touch_session(m, s->id);
			changed = true;
		}
	}
	if (changed) {
		m->sessions_gen = ui_model_next_generation();
		m->sessions_prev_gen = 0;
	}
	return changed;
}
