/* The model's side of the conversation search: hits by session id. */
#include "model.h"

#include "ac_error.h"

#include <stdlib.h>
#include <string.h>

void ui_model_csearch_reset(ui_model *m, const char *needle)
{
	ui_csearch *c = &m->conv_search;

	for (size_t i = 0; i < c->n; i++) {
		free(c->hits[i].id);
		free(c->hits[i].snippet);
	}
	free(c->hits);
	free(c->needle);
	c->hits = NULL;
	c->n = c->cap = 0;
	c->needle = needle ? strdup(needle) : NULL;
	c->running = false;
	c->gen++;
}

/* Where id is, or would go, in the sorted hits. */
static size_t place(const ui_csearch *c, const char *id, bool *found)
{
	size_t lo = 0, hi = c->n;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int order = strcmp(c->hits[mid].id, id);

		if (order == 0) {
			*found = true;
			return mid;
		}
		if (order < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ui_model_csearch_add(ui_model *m, const char *id, size_t message, const char *snippet)
{
	ui_csearch *c = &m->conv_search;
	ui_conv_hit hit = {strdup(id), message, strdup(snippet)};
	bool found;
	size_t at = place(c, id, &found);

	if (!hit.id || !hit.snippet)
		goto oom;
	if (found) { /* the first match of a session stays */
		free(hit.id);
		free(hit.snippet);
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;
		ui_conv_hit *grown = realloc(c->hits, cap * sizeof(*grown));

		if (!grown)
			goto oom;
		c->hits = grown;
		c->cap = cap;
	}
	memmove(&c->hits[at + 1], &c->hits[at], (c->n - at) * sizeof(*c->hits));
	c->hits[at] = hit;
	c->n++;
	c->gen++;
	return 0;
oom:
	free(hit.id);
	free(hit.snippet);
	return AC_ENOMEM;
}

const ui_conv_hit *ui_model_csearch_hit(const ui_model *m, const char *filter, const char *id)
{
	const ui_csearch *c = &m->conv_search;
	bool found;
	size_t at;

	if (!c->needle || !filter[0] || strcmp(c->needle, filter))
		return NULL;
	at = place(c, id, &found);
	return found ? &c->hits[at] : NULL;
}

void ui_model_csearch_remove(ui_model *m, const char *id)
{
	ui_csearch *c = &m->conv_search;
	bool found;
	size_t at = place(c, id, &found);

	if (!found)
		return;
	free(c->hits[at].id);
	free(c->hits[at].snippet);
	memmove(&c->hits[at], &c->hits[at + 1], (c->n - at - 1) * sizeof(*c->hits));
	c->n--;
	c->gen++;
}
