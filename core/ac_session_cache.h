/* The session listing's cache between processes (ac_session_cache.c): each
 * session file's stamp and its listed summary, so that a new `session list`
 * or dashboard reads only the files that changed. Not for use outside
 * ac_session_index.c. */
#ifndef AC_SESSION_CACHE_H
#define AC_SESSION_CACHE_H

#include "ac_session_index.h"

#include <stdint.h>
#include <time.h>

/* One session file as it was read: its name in the folder, its stamp, and
 * its summary, whose strings lie in strings[0..strings_len) in the order
 * id, task (task_len bytes), status, created_at, updated_at, tenant, user,
 * agent, each ended by a NUL. */
typedef struct {
	const char *name;
	uint64_t ino, size;
	struct timespec mtime, ctime;
	ac_session_summary summary;
	const char *strings;
	size_t strings_len;
} ac_session_cache_record;

/* The cache file for the session folder dir (allocated): under
 * $XDG_CACHE_HOME/agentctl, else $HOME/.cache/agentctl; *out NULL when
 * neither is set. */
int ac_session_cache_path(char **out, const char *dir);

/* A cache file read whole and checked (ac_session_cache_load()): the names
 * and strings of its records lie in memory it owns, so that a listing of
 * 10,000 sessions takes them without two allocations a record. */
typedef struct ac_session_cache ac_session_cache;

/* Reads the cache at path, made for the folder whose stat is dir_dev and
 * dir_ino. A cache that is missing, not ours (another owner, writable by
 * others, a link, another version or folder) or damaged anywhere
 * (checksum) is no error: *out is NULL. Always 0: a cache that memory cannot
 * hold is as none. */
int ac_session_cache_load(ac_session_cache **out, const char *path, uint64_t dir_dev,
			  uint64_t dir_ino);

/* How many records the cache says it holds: at most that many are given. */
size_t ac_session_cache_count(const ac_session_cache *cache);

/* Called for each good record: its name and strings stay valid until
 * ac_session_cache_free(). Non-zero stops the walk and is returned. */
typedef int (*ac_session_cache_fn)(const ac_session_cache_record *r, void *ctx);

/* Each good record of cache to fn, in the file's order (a record that
 * does not fit its bounds or layout is skipped). 0 or fn's code. */
int ac_session_cache_each(ac_session_cache *cache, ac_session_cache_fn fn, void *ctx);

void ac_session_cache_free(ac_session_cache *cache);

/* Writes records[0..n) to path atomically, for that folder. */
int ac_session_cache_save(const char *path, uint64_t dir_dev, uint64_t dir_ino,
			  const ac_session_cache_record *records, size_t n);

#endif
