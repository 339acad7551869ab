/* The O_EXCL lock file that every journal writer, in any language, takes.
 *
 * The shared spec: create "<file>.lock" with O_CREAT|O_EXCL, write the
 * writer's pid, append, unlink. agentctl honours that protocol and adds
 * flock(2) on the folder around it, so agentctl processes queue in the
 * kernel instead of polling each other and never race while breaking a
 * stale lock. A lock is stale when its pid is dead, or when it is older than
 * a bound (a crashed writer from another pid namespace, or a reused pid).
 *
 * agentctl's own lock files hold the pid on the first line, then
 * "host=", "boot=" and "pidns=" lines. A lock naming another host, boot or
 * pid namespace (a writer on another machine sharing the folder over NFS,
 * or in another container) is never judged by its pid, only by its age,
 * against a generous bound (foreign_stale_ms). The spec's pid-only locks
 * are judged as before. */
#ifndef AC_LOCK_H
#define AC_LOCK_H

#include <stdbool.h>
#include <sys/types.h>

#include "ac_types.h"

/* ac_lock_options is in ac_types.h (public: the journal's options hold one). */

typedef struct {
	char *path;   /* owned: the lock file's path */
	int fd;       /* the lock file we created */
	int guard_fd; /* the folder, flock'ed */
	dev_t dev;
	ino_t ino;
	bool broke_stale; /* this acquisition broke a stale lock */
} ac_lock;

/* Takes flock(2) on the folder that holds path, waiting up to timeout_ms:
 * how agentctl processes take turns at a read-modify-write of files in that
 * folder. *out_fd holds the lock until closed. 0, AC_EBUSY or AC_EIO. */
int ac_lock_folder(int *out_fd, const char *path, int timeout_ms);

/* The per-session operator lock: flock(2) on
 * <sessions_dir>/.locks/<id>.lock (folder and file made when absent,
 * neither followed through a symbolic link). An operator action that
 * writes a session's archives (compaction, checkpoint rollback) holds it
 * shared for its whole run, so such actions still overlap one another
 * (their writes take turns at the folder lock). gc takes it exclusive
 * without waiting (exclusive true) before it removes any file of that
 * session: AC_EBUSY while an action holds it. So gc never races an action
 * on the same session, whatever the clocks say. *out_fd holds the lock
 * until closed; it is -1 (and 0 returned) when sessions_dir does not
 * exist (no file of the session to guard). 0, AC_EBUSY, AC_EINVAL (an id
 * that is not a file name) or AC_EIO naming the lock file. */
int ac_lock_session(int *out_fd, const char *sessions_dir, const char *id, bool exclusive);

/* Fills opts with the defaults. */
void ac_lock_options_init(ac_lock_options *opts);

/* Takes the lock file lock_path (e.g. "JOURNAL.jsonl.lock"), waiting up to
 * opts->timeout_ms (opts may be NULL for the defaults). On success *out
 * holds the lock until ac_lock_release(). Returns 0, AC_EBUSY with the
 * holder's pid and age in the message, or AC_EIO. */
int ac_lock_acquire(ac_lock *out, const char *lock_path, const ac_lock_options *opts);

/* Removes the lock file (only if it is still ours) and drops the guard.
 * Safe to call again on a released lock. */
void ac_lock_release(ac_lock *lock);

#endif
