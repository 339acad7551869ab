/* The model's rows by raw id: a hash table of the rows' own id strings
 * (borrowed: a row's strings stay put when the rows move), so that one
 * changed session is found without comparing every row's id. Linear
 * probing; a removal shifts the entries after it back (no tombstones). */
#include "model.h"

#include "ac_session_index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_of(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static size_t slot_of(const ui_id_map *t, const char *id)
{
	size_t i = hash_of(id) & (t->cap - 1);

	while (t->slot[i].id && strcmp(t->slot[i].id, id))
		i = (i + 1) & (t->cap - 1);
	return i;
}

void ui_id_map_clear(ui_id_map *t)
{
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static bool grow(ui_id_map *t)
{
	ui_id_map bigger = {.cap = t->cap ? 2 * t->cap : 64};

	if (!(bigger.slot = calloc(bigger.cap, sizeof(*bigger.slot))))
		return false;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i].id)
			bigger.slot[slot_of(&bigger, t->slot[i].id)] = t->slot[i];
	bigger.n = t->n;
	free(t->slot);
	*t = bigger;
	return true;
}

void ui_id_map_put(ui_id_map *t, const char *id, const char *updated)
{
	size_t i;

	if (t->lost)
		return;
	if ((t->n + 1) * 4 > t->cap * 3 && !grow(t)) {
		/* Without memory the rows are searched one by one. */
		ui_id_map_clear(t);
		t->lost = true;
		return;
	}
	i = slot_of(t, id);
	t->n += !t->slot[i].id;
	t->slot[i] = (ui_id_entry){id, updated};
}

void ui_id_map_remove(ui_id_map *t, const char *id)
{
	size_t i, j;

	if (!t->n)
		return;
	i = slot_of(t, id);
	if (!t->slot[i].id)
		return;
	t->slot[i].id = NULL;
	t->n--;
	/* Moves back each later entry of the run that the hole would hide. */
	for (j = (i + 1) & (t->cap - 1); t->slot[j].id; j = (j + 1) & (t->cap - 1)) {
		size_t home = hash_of(t->slot[j].id) & (t->cap - 1);

		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			t->slot[i] = t->slot[j];
			t->slot[j].id = NULL;
			i = j;
		}
	}
}

const ui_id_entry *ui_id_map_get(const ui_id_map *t, const char *id)
{
	size_t i;

	if (!t->n)
		return NULL;
	i = slot_of(t, id);
	return t->slot[i].id ? &t->slot[i] : NULL;
}
