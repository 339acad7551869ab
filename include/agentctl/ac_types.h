/* Small value types that several public modules share: a file's identity,
 * the longest file name agentctl can replace atomically, and the options of
 * the lock-file protocol. The functions over them are internal to the
 * library (core/ac_atomic.h, core/ac_lock.h); this header only lets public
 * structs (ac_request, ac_journal_options) and limits (AC_SESSION_ID_MAX)
 * be spelled out without exposing those modules. */
#ifndef AC_TYPES_H
#define AC_TYPES_H

#include <stdint.h>
#include <sys/types.h>

/* What a temporary name adds to the name of the file it replaces: '.',
 * '.', the pid (at most 7 digits: Linux caps pids at PID_MAX_LIMIT, 2^22),
 * '.', 8 hex digits, ".tmp". A file whose name is longer than
 * AC_ATOMIC_NAME_MAX cannot be written: its temporary name would pass
 * NAME_MAX (255). */
#define AC_ATOMIC_TEMP_EXTRA (1 + 1 + 7 + 1 + 8 + 4)
#define AC_ATOMIC_NAME_MAX (255 - AC_ATOMIC_TEMP_EXTRA)

/* Which file a path named when it was looked at: another writer's rename
 * gives a new inode, an in-place edit a new size or modification time. */
typedef struct {
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns;
} ac_file_id;

/* How a writer takes the shared "<file>.lock" (see core/ac_lock.h).
 * Options start from AC_LOCK_OPTIONS_INIT (the defaults below): a lock
 * is refused with options of another version (AC_EINVAL naming them). */
#define AC_LOCK_OPTIONS_VERSION 1
#define AC_LOCK_OPTIONS_INIT                                                             \
	{                                                                                \
		.version = AC_LOCK_OPTIONS_VERSION, .timeout_ms = 10000, .stale_ms = 10000, \
		.foreign_stale_ms = 120000                                               \
	}

typedef struct {
	unsigned int version; /* AC_LOCK_OPTIONS_VERSION */
	int timeout_ms; /* give up (AC_EBUSY) after this long; default 10000 */
	int stale_ms;   /* a lock older than this is broken; default 10000 */
	/* A lock another host (or another boot or pid namespace) holds: its
	 * pid means nothing here, so only its age can say it is stale, and the
	 * age is read against this host's clock. Default 120000: generous
	 * for clock skew between hosts ("lock.foreignStaleMs"). */
	int foreign_stale_ms;
	/* Called when a stale lock is found, before it is broken: while the
	 * dead holder's lock is still in place no other writer may touch the
	 * file, so this is the moment to clean up after the holder (the
	 * journal ends its torn last line here). May be NULL. */
	void (*before_break)(void *ctx);
	void *before_break_ctx;
} ac_lock_options;

#endif
