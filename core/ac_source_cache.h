/* The transcript index's cache between processes (ac_source_cache.c):
 * where each transcript was read to, and the summary that far. Not for
 * use outside the ac_source*.c files. */
#ifndef AC_SOURCE_CACHE_H
#define AC_SOURCE_CACHE_H

#include "ac_source_impl.h"

/* The cache file for opts (allocated), or *out NULL when opts has no
 * cache folder. */
int ac_source_cache_path(char **out, const ac_source_options *opts);

/* Called for each well-formed record of the cache: s is a new session
 * (owned by the callee) as it was when saved, its file not yet looked at.
 * Non-zero stops the load and is returned. */
typedef int (*ac_source_cache_fn)(ac_source_session *s, void *ctx);

/* Reads the cache at path, each record to fn. A missing file or one that
 * is not ours is no error (nothing is called); a bad record is skipped; a
 * torn end ends the load. 0, AC_ENOMEM or fn's code. */
int ac_source_cache_load(const char *path, ac_source_cache_fn fn, void *ctx);

/* Writes the summaries of list[0..n) to path (atomically). */
int ac_source_cache_save(const char *path, ac_source_session *const *list, size_t n);

#endif
