/* Path -> slot for the transcript index (ac_source_paths.h). */
#include "ac_source_paths.h"

#include "ac_error.h"

#include <stdlib.h>
#include <string.h>

static size_t hash_of(const char *path)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29));
}

size_t ac_source_paths_find(const ac_source_paths *t, const char *path, ac_source_path_of of,
			    void *ctx)
{
	if (!t->cells)
		return (size_t)-1;
	for (size_t at = hash_of(path) & t->mask;; at = (at + 1) & t->mask) {
		uint32_t c = t->cells[at];

		if (!c)
			return (size_t)-1;
		if (!strcmp(of(c - 1, ctx), path))
			return c - 1;
	}
}

static void put(ac_source_paths *t, const char *path, size_t i)
{
	size_t at = hash_of(path) & t->mask;

	while (t->cells[at])
		at = (at + 1) & t->mask;
	t->cells[at] = (uint32_t)(i + 1);
	t->used++;
}

/* Doubles the cells (at most half full), placing every slot again. */
static int grow(ac_source_paths *t, ac_source_path_of of, void *ctx)
{
	size_t n = t->cells ? (t->mask + 1) * 2 : 1024;
	uint32_t *old = t->cells, *cells = calloc(n, sizeof(*cells));
	size_t old_n = t->cells ? t->mask + 1 : 0;

	if (!cells)
		return ac_error_set(AC_ENOMEM, "out of memory");
	t->cells = cells;
	t->mask = n - 1;
	t->used = 0;
	for (size_t k = 0; k < old_n; k++)
		if (old[k])
			put(t, of(old[k] - 1, ctx), old[k] - 1);
	free(old);
	return 0;
}

int ac_source_paths_add(ac_source_paths *t, const char *path, size_t i, ac_source_path_of of,
			void *ctx)
{
	int rc;

	if (i >= UINT32_MAX - 1)
		return ac_error_set(AC_ENOMEM, "too many transcripts");
	if ((!t->cells || (t->used + 1) * 2 > t->mask + 1) && (rc = grow(t, of, ctx)))
		return rc;
	put(t, path, i);
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
