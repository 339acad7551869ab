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

/* Called for each good record of the cache. The callee owns name and
 * strings (both malloc'ed; the summary's strings point into strings).
 * Non-zero stops the load and is returned. */
typedef int (*ac_session_cache_fn)(char *name, char *strings, const ac_session_cache_record *r,
				   void *ctx);

/* Reads the cache at path, made for the folder whose stat is dir_dev and
 * dir_ino, each record to fn. A cache that is missing, not ours (another
 * owner, writable by others, a link, another version or folder) or
 * damaged anywhere (checksum) is no error: nothing is called. 0, AC_ENOMEM
 * or fn's code. */
int ac_session_cache_load(const char *path, uint64_t dir_dev, uint64_t dir_ino,
			  ac_session_cache_fn fn, void *ctx);

/* Writes records[0..n) to path atomically, for that folder. */
int ac_session_cache_save(const char *path, uint64_t dir_dev, uint64_t dir_ino,
			  const ac_session_cache_record *records, size_t n);

#endif
