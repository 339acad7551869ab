/* Replacing a whole file atomically and durably.
 *
 * The new contents go to a unique temporary file in the same folder
 * (".<name>.<pid>.<random>.tmp": never ending in ".json", so session readers
 * skip it), created with O_EXCL|O_NOFOLLOW so a planted symlink cannot
 * redirect it, written, fsync'ed, renamed over the target, and then the
 * folder is fsync'ed. A crash at any point leaves the old file or the new
 * one, never an empty or partial one. Public (<agentctl/ac_atomic.h>): an
 * agent replacing a workspace file should do it this way, so agentctl and
 * other readers never see half of it. Nothing is allocated for the caller
 * but ac_atomic_swap()'s *out_displaced (the caller frees it). */
#ifndef AC_ATOMIC_H
#define AC_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ac_types.h"

/* AC_ATOMIC_NAME_MAX, the longest name a file written here may have, and
 * ac_file_id are in ac_types.h (public). */

/* Called between writing the temp file and renaming it over path, so a
 * caller can make a last check (has another writer changed path?). A
 * non-zero return abandons the write (the temp file is removed) and is
 * returned by ac_atomic_write(). */
typedef int (*ac_atomic_check_fn)(const char *path, void *ctx);

/* Replaces path with data[0..len). check may be NULL. Returns 0, the
 * check's code, AC_ENOSPACE or AC_EIO; on failure path is unchanged. */
int ac_atomic_write(const char *path, const char *data, size_t len,
		    ac_atomic_check_fn check, void *ctx);

/* ac_atomic_write() without its two fsyncs, for a batch of files that the
 * caller makes durable at once afterwards (ac_file_sync_fs()): a crash of
 * the process still leaves the old file or the new one; a power cut before
 * that sync may leave either, or an empty file (see docs/RELIABILITY.md,
 * "Rollback durability"). */
int ac_atomic_write_unsynced(const char *path, const char *data, size_t len);

/* ac_atomic_write_unsynced() of a file that must have mode (e.g. 0755,
 * whatever the umask) from the moment it appears: the mode is set before
 * the rename, so a crash never leaves the new contents with the old mode. */
int ac_atomic_write_unsynced_mode(const char *path, const char *data, size_t len, mode_t mode);

/* Puts data[0..len) at path and hands back the exact contents it
 * displaced, so a caller can tell whether it replaced the version it read
 * (compare-and-swap without a lock). The swap is one renameat2 exchange:
 * readers see the old file or the new, never a gap. *out_displaced is
 * allocated (caller frees), or NULL when path did not exist. When
 * must_be_new is set, an existing path is not replaced (AC_ECONFLICT).
 * AC_ENOTSUP when the file system cannot exchange; then nothing changed. */
int ac_atomic_swap(char **out_displaced, size_t *out_displaced_len, const char *path,
		   const char *data, size_t len, bool must_be_new);

/* The identity of the file at path (not following a final symlink).
 * AC_ENOTFOUND when absent. */
int ac_file_id_of(ac_file_id *out, const char *path);

bool ac_file_id_equal(const ac_file_id *a, const ac_file_id *b);

/* Compare-and-swap by identity, for files that writers which take no lock
 * replace by renaming (a crash-safe "if unchanged, replace"). data goes to
 * a temp file; path is checked to still be the file expected names right
 * before a renameat2 exchange, and what the exchange displaced is checked
 * again. If another writer got in between, its version is put straight
 * back (and any newer one after it), and AC_ECONFLICT is returned: nothing
 * of ours stays at path. *out_published (may be NULL) is set when our data
 * was visible at path, however briefly; a caller must then assume readers
 * may have seen it. Returns 0, AC_ECONFLICT, AC_ENOTSUP (no exchange here:
 * nothing changed) or AC_EIO/AC_ENOSPACE. *out_written (may be NULL)
 * receives the identity of the file written, on success. */
int ac_atomic_swap_if(bool *out_published, ac_file_id *out_written, const char *path,
		      const ac_file_id *expected, const char *data, size_t len);

/* True for the names ac_atomic_write() and the reference writers
 * ("<name>.tmp") use for temporary files. */
bool ac_atomic_is_temp_name(const char *name);

/* Removes temporary files in dir left by crashed writers: ours whose pid is
 * dead, and any temp file older than max_age_seconds. Never touches a file
 * that a live writer may still rename. Returns the number removed. */
int ac_atomic_clean_temps(const char *dir, int max_age_seconds);

#endif
