/* The transcript index's lookup from a file's path to its slot: an
 * open-addressing table of slot numbers, the paths being the sessions'
 * own (not copied). A JSON object did this before: at 200,000 files its
 * keys and integers were 400,000 allocations. Any string key will do:
 * the sessions' parent rows (ac_source_parent_rows()) are found by id
 * with it. Not for use outside the ac_source*.c files. */
#ifndef AC_SOURCE_PATHS_H
#define AC_SOURCE_PATHS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint32_t hash; /* of the path; 0: empty */
	uint32_t slot;
} ac_source_paths_cell;

typedef struct {
	ac_source_paths_cell *cells;
	size_t mask;     /* cells - 1 (a power of two less one), 0 when none */
	size_t used;
} ac_source_paths;

/* The path of slot i, for comparisons. */
typedef const char *(*ac_source_path_of)(size_t i, void *ctx);

/* The slot whose path is path, or (size_t)-1. */
size_t ac_source_paths_find(const ac_source_paths *t, const char *path, ac_source_path_of of,
			    void *ctx);

/* Adds slot i under path (not yet in t). 0 or AC_ENOMEM. */
int ac_source_paths_add(ac_source_paths *t, const char *path, size_t i);

/* Empties t, keeping its cells. */
void ac_source_paths_clear(ac_source_paths *t);

void ac_source_paths_free(ac_source_paths *t);

#endif
