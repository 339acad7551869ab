/* The transcript index's cache between processes (ac_source_cache.c):
 * where each transcript was read to, and the summary that far. Not for
 * use outside the ac_source*.c files. */
#ifndef AC_SOURCE_CACHE_H
#define AC_SOURCE_CACHE_H

#include "ac_source_impl.h"

/* The cache file for opts (allocated), or *out NULL when opts has no
 * cache folder. */
int ac_source_cache_path(char **out, const ac_source_options *opts);

/* Reads the cache at path into *out, an object path -> entry (a new
 * reference; NULL when there is no usable cache, which is no error). */
int ac_source_cache_load(json_t **out, const char *path);

/* Restores s (new, unread) from its entry in cache when the entry is
 * well formed and its file is the same, not shorter: the next read then
 * parses only what was appended. False when it was not (s stays unread). */
bool ac_source_cache_restore(ac_source_session *s, const json_t *cache);

/* Writes the summaries of list[0..n) to path (atomically). */
int ac_source_cache_save(const char *path, ac_source_session *const *list, size_t n);

#endif
