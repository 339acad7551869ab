/* Path -> slot for the transcript index (ac_source_paths.h). */
#include "ac_source_paths.h"

#include "ac_error.h"

#include <stdlib.h>
#include <string.h>

/* Eight bytes a step, each mixed in by a multiply, then a finaliser
 * (murmur3's): paths differ only in a few hex digits, and a path is
 * hashed on every lookup of a walk. Never 0, so that a cell's hash tells
 * empty from used. */
static uint32_t hash_of(const char *path)
{
	size_t n = strlen(path), i = 0;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, path + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, path + i, n - i);
	h = (h ^ w) * 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (uint32_t)h | 1;
}

size_t ac_source_paths_find(const ac_source_paths *t, const char *path, ac_source_path_of of,
			    void *ctx)
{
	uint32_t h;

	if (!t->cells)
		return (size_t)-1;
	h = hash_of(path);
	for (size_t at = h & t->mask;; at = (at + 1) & t->mask) {
		const ac_source_paths_cell *c = &t->cells[at];

		if (!c->hash)
			return (size_t)-1;
		if (c->hash == h && !strcmp(of(c->slot, ctx), path))
			return c->slot;
	}
}

static void put(ac_source_paths *t, uint32_t h, size_t i)
{
	size_t at = h & t->mask;

	while (t->cells[at].hash)
		at = (at + 1) & t->mask;
	t->cells[at] = (ac_source_paths_cell){h, (uint32_t)i};
	t->used++;
}

/* Doubles the cells (at most half full), placing every slot again. */
static int grow(ac_source_paths *t)
{
	size_t n = t->cells ? (t->mask + 1) * 2 : 1024;
	ac_source_paths_cell *old = t->cells, *cells = calloc(n, sizeof(*cells));
	size_t old_n = t->cells ? t->mask + 1 : 0;

	if (!cells)
		return ac_error_set(AC_ENOMEM, "out of memory");
	t->cells = cells;
	t->mask = n - 1;
	t->used = 0;
	for (size_t k = 0; k < old_n; k++)
		if (old[k].hash)
			put(t, old[k].hash, old[k].slot);
	free(old);
	return 0;
}

int ac_source_paths_add(ac_source_paths *t, const char *path, size_t i)
{
	int rc;

	if (i >= UINT32_MAX - 1)
		return ac_error_set(AC_ENOMEM, "too many transcripts");
	if ((!t->cells || (t->used + 1) * 2 > t->mask + 1) && (rc = grow(t)))
		return rc;
	put(t, hash_of(path), i);
	return 0;
}

void ac_source_paths_clear(ac_source_paths *t)
{
	if (t->cells)
		memset(t->cells, 0, (t->mask + 1) * sizeof(*t->cells));
	t->used = 0;
}

void ac_source_paths_free(ac_source_paths *t)
{
	free(t->cells);
	*t = (ac_source_paths){0};
}
