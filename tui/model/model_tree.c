/* The sessions as a tree: a coding agent's sub-agents and forks
 * (ac_source.h: relation, parent_id) under the session they belong to,
 * folded and unfolded by the operator (htop's tree: '-' and '+').
 *
 * Links are made once per read of the transcript rows (ui_model_tree_link),
 * so a frame only walks them; the order is made per frame over the rows
 * shown, and only when some row is a child. Parents and children are
 * both transcript rows, the last n_transcripts of the model. */
#include "model.h"

#include "ac_error.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A chain longer than this is no tree a tool writes: a cycle. */
#define DEPTH_MAX 8

static size_t first_transcript(const ui_model *m)
{
	return m->n_sessions - m->n_transcripts;
}

int ui_model_tree_link(ui_model *m)
{
	ui_session *rows = m->sessions + first_transcript(m);
	size_t n = m->n_transcripts;
	json_t *at = NULL;
	int rc = 0;

	m->n_tree_children = 0;
	for (size_t i = 0; i < n; i++) {
		rows[i].parent_row = SIZE_MAX;
		rows[i].depth = 0;
		rows[i].children = 0;
	}
	for (size_t i = 0; i < n && !at; i++)
		if (rows[i].parent && !(at = json_object())) /* none: nothing to link */
			return AC_ENOMEM;
	if (!at)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (json_object_set_new_nocheck(at, rows[i].raw_id, json_integer((json_int_t)i))) {
			rc = AC_ENOMEM;
			goto done;
		}
	for (size_t i = 0; i < n; i++) {
		const json_t *p = rows[i].parent ? json_object_get(at, rows[i].parent) : NULL;

		if (!p || (size_t)json_integer_value(p) == i)
			continue;
		rows[i].parent_row = (size_t)json_integer_value(p);
		rows[rows[i].parent_row].children++;
		m->n_tree_children++;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t r = rows[i].parent_row; r != SIZE_MAX && rows[i].depth < DEPTH_MAX;
		     r = rows[r].parent_row)
			rows[i].depth++;
done:
	json_decref(at);
	return rc;
}

bool ui_model_tree_closed(const ui_model *m, const char *raw_id)
{
	for (size_t i = 0; i < m->n_tree_closed; i++)
		if (!strcmp(m->tree_closed[i], raw_id))
			return true;
	return false;
}

int ui_model_tree_set(ui_model *m, const char *raw_id, bool closed)
{
	char **grown, *copy;

	if (!closed) {
		for (size_t i = 0; i < m->n_tree_closed; i++)
			if (!strcmp(m->tree_closed[i], raw_id)) {
				free(m->tree_closed[i]);
				m->tree_closed[i] = m->tree_closed[--m->n_tree_closed];
				return 0;
			}
		return 0;
	}
	if (ui_model_tree_closed(m, raw_id))
		return 0;
	if (!(copy = strdup(raw_id)) ||
	    !(grown = realloc(m->tree_closed, (m->n_tree_closed + 1) * sizeof(*grown)))) {
		free(copy);
		return AC_ENOMEM;
	}
	m->tree_closed = grown;
	m->tree_closed[m->n_tree_closed++] = copy;
	return 0;
}

size_t ui_model_tree_parent(const ui_model *m, size_t i)
{
	size_t first = first_transcript(m);

	if (i < first || i >= m->n_sessions || m->sessions[i].parent_row == SIZE_MAX ||
	    !m->sessions[i].parent)
		return SIZE_MAX;
	return first + m->sessions[i].parent_row;
}

bool ui_model_tree_hidden(const ui_model *m, size_t i)
{
	unsigned steps = 0;

	if (!m->n_tree_closed)
		return false;
	for (size_t r = ui_model_tree_parent(m, i); r != SIZE_MAX && steps++ < DEPTH_MAX;
	     r = ui_model_tree_parent(m, r))
		if (ui_model_tree_closed(m, m->sessions[r].raw_id))
			return true;
	return false;
}

typedef struct {
	const size_t *idx;
	size_t *first, *next, *out;
	bool *placed;
	size_t n_out;
} order_ctx;

static void place(order_ctx *c, size_t k, unsigned depth)
{
	if (c->placed[k])
		return;
	c->placed[k] = true;
	c->out[c->n_out++] = c->idx[k];
	if (depth >= DEPTH_MAX)
		return;
	for (size_t ch = c->first[k]; ch != SIZE_MAX; ch = c->next[ch])
		place(c, ch, depth + 1);
}

void ui_model_tree_order(const ui_model *m, size_t *idx, size_t n)
{
	size_t first = first_transcript(m), nt = m->n_transcripts;
	size_t *pos = NULL;
	bool *child = NULL;
	order_ctx c = {idx, NULL, NULL, NULL, NULL, 0};

	if (!m->n_tree_children || n < 2)
		return;
	pos = malloc((nt + 1) * sizeof(*pos));
	c.first = malloc(n * sizeof(*c.first));
	c.next = malloc(n * sizeof(*c.next));
	c.out = malloc(n * sizeof(*c.out));
	c.placed = calloc(n, sizeof(*c.placed));
	child = calloc(n, sizeof(*child));
	if (!pos || !c.first || !c.next || !c.out || !c.placed || !child)
		goto done; /* out of memory: shown flat */
	for (size_t t = 0; t < nt; t++)
		pos[t] = SIZE_MAX;
	for (size_t k = 0; k < n; k++) {
		c.first[k] = c.next[k] = SIZE_MAX;
		if (idx[k] >= first)
			pos[idx[k] - first] = k;
	}
	/* Linked from the last, so that each parent's children keep the
	 * order they are shown in. */
	for (size_t k = n; k-- > 0;) {
		const ui_session *s = &m->sessions[idx[k]];
		size_t pk;

		if (idx[k] < first || s->parent_row == SIZE_MAX || !s->parent ||
		    (pk = pos[s->parent_row]) == SIZE_MAX)
			continue;
		child[k] = true;
		c.next[k] = c.first[pk];
		c.first[pk] = k;
	}
	for (size_t k = 0; k < n; k++)
		if (!child[k])
			place(&c, k, 0);
	for (size_t k = 0; k < n; k++) /* a cycle's rows: where they were */
		if (!c.placed[k])
			place(&c, k, DEPTH_MAX);
	memcpy(idx, c.out, n * sizeof(*idx));
done:
	free(pos);
	free(c.first);
	free(c.next);
	free(c.out);
	free(c.placed);
	free(child);
}

void ui_model_tree_free(ui_model *m)
{
	for (size_t i = 0; i < m->n_tree_closed; i++)
		free(m->tree_closed[i]);
	free(m->tree_closed);
	m->tree_closed = NULL;
	m->n_tree_closed = 0;
}
