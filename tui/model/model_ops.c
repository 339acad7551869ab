/* The Operations pane's rows: what each operation did, by whom, how big
 * its commit is, and whether the operator later undid it. The log is read
 * in file order; the git side (ui_ops_fill()) is read only for rows on
 * screen, once each, so a long log opens as fast as a short one. No
 * curses here. */
#include "model.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_git.h"

#include <stdlib.h>
#include <string.h>

static const char *detail(const ac_op *op, const char *const *keys)
{
	for (size_t i = 0; keys[i]; i++) {
		const char *s = json_string_value(json_object_get(op->details, keys[i]));

		if (s && *s)
			return s;
	}
	return NULL;
}

/* The operations a rollback (everything from its target on) or a revert
 * (its target alone) recorded as op undid, marked so the operator does
 * not undo them twice. A rollback written as file_write by older versions
 * names its target the same way. */
static void mark_undone(ui_model *m, const ac_op *op)
{
	const char *rb = json_string_value(json_object_get(op->details, "rollbackOf"));
	const char *rv = json_string_value(json_object_get(op->details, "revertOf"));
	const char *target = rb ? rb : rv;
	size_t at = m->n_ops - 1;

	if (!target)
		return;
	for (size_t i = at; i-- > 0;) {
		if (strcmp(m->ops[i].raw_id, target))
			continue;
		for (size_t j = i; j < (rb ? at : i + 1); j++)
			if (!m->ops[j].undone)
				m->ops[j].undone = rb ? 'R' : 'V';
		return;
	}
}

int ui_model_add_op(ui_model *m, const ac_op *op)
{
	static const char *const agent_keys[] = {"agent", "agentId", NULL};
	static const char *const note_keys[] = {"note", "message", "description", NULL};
	ac_buf what = AC_BUF_INIT;
	const char *s;
	ui_op *o;

	if (m->n_ops == m->cap_ops) {
		size_t cap = m->cap_ops ? m->cap_ops * 2 : 64;
		ui_op *grown = realloc(m->ops, cap * sizeof(*grown));

		if (!grown)
			return AC_ENOMEM;
		m->ops = grown;
		m->cap_ops = cap;
	}
	o = &m->ops[m->n_ops++];
	memset(o, 0, sizeof(*o));
	ac_oplog_summary(&what, op->details, 300);
	o->id = ui_safe_str(op->id);
	o->raw_id = ui_raw_str(op->id);
	o->timestamp = ui_safe_str(op->timestamp);
	o->session = ui_safe_str(op->session_id);
	o->type = ui_safe_str(op->type);
	o->what = ui_safe_dup(what.data, what.len);
	o->commit = ui_safe_str(op->commit ? op->commit : "");
	o->reversible = op->commit != NULL;
	if ((s = detail(op, agent_keys)))
		o->agent = ui_safe_str(s);
	if ((s = detail(op, note_keys)))
		o->note = ui_safe_str(s);
	o->stats_read = !op->commit; /* nothing to read */
	ac_buf_free(&what);
	mark_undone(m, op);
	return 0;
}

/* The session's agentId, else its user; NULL when the session is not
 * listed (yet). */
static char *session_agent(const ui_model *m, const char *session)
{
	for (size_t i = 0; i < m->n_sessions; i++) {
		const ui_session *s = &m->sessions[i];

		if (strcmp(s->id, session))
			continue;
		if (s->agent[0])
			return ui_safe_str(s->agent);
		return s->user[0] ? ui_safe_str(s->user) : NULL;
	}
	return NULL;
}

static void read_stats(ui_op *o, ac_git *git)
{
	ac_git_change *changes = NULL;
	ac_buf subject = AC_BUF_INIT;
	size_t n = 0;

	o->stats_read = true;
	if (!git || ac_git_commit_changes(&changes, &n, git, o->commit) != 0) {
		o->stats_failed = true;
		return;
	}
	o->files = n;
	for (size_t i = 0; i < n; i++) {
		o->adds += changes[i].additions;
		o->dels += changes[i].deletions;
	}
	ac_git_changes_free(changes, n);
	/* The seed's "[agent] <type>: <details>" repeats the row; another
	 * tool's subject says what the change was for. */
	if (!o->note && ac_git_commit_subject(&subject, git, o->commit) == 0 && subject.len &&
	    strncmp(subject.data, "[agent] ", 8) != 0)
		o->note = ui_safe_dup(subject.data, subject.len);
	ac_buf_free(&subject);
}

bool ui_ops_fill(ui_model *m, const ac_workspace *ws, const size_t *idx, size_t n)
{
	ac_git *git = NULL;
	bool opened = false, changed = false;

	for (size_t k = 0; k < n; k++) {
		ui_op *o = &m->ops[idx[k]];

		if (!o->agent && o->session[0] && (o->agent = session_agent(m, o->session)))
			changed = true;
		if (o->stats_read)
			continue;
		if (!opened) {
			opened = true;
			if (!ws || ac_oplog_open_git(&git, ws) != 0)
				git = NULL;
		}
		read_stats(o, git);
		changed = true;
	}
	ac_git_free(git);
	return changed;
}
