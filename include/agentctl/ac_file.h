/* Small, careful file-system helpers shared by the stores. Public
 * (<agentctl/ac_file.h>): an agent reading files other programs write into
 * a workspace needs the same refusals (links, FIFOs, folders, paths out of
 * the workspace). What a call allocates for the caller is said at the call
 * (*out of ac_file_read(), ac_file_list()'s names and array); the caller
 * frees it with free(). */
#ifndef AC_FILE_H
#define AC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "ac_buf.h"

/* Reads a regular file whole into an allocated, NUL-terminated buffer
 * (the caller frees *out). Refuses symbolic links, FIFOs, devices and
 * folders (AC_ECORRUPT, naming the file) rather than block or wander out of
 * a folder. AC_ENOTFOUND when absent. */
int ac_file_read(char **out, size_t *out_len, const char *path);

/* Reads a regular file as ac_file_read() does, handing each block of at
 * most AC_FILE_BLOCK bytes to fn(bytes, len, ctx) as it comes instead of
 * keeping it: memory stays the same whatever the file's size. A non-zero
 * return from fn stops the read and is returned. */
#define AC_FILE_BLOCK (128 * 1024)
typedef int (*ac_file_block_fn)(const char *bytes, size_t len, void *ctx);
int ac_file_each_block(const char *path, ac_file_block_fn fn, void *ctx);

/* Like ac_file_read() for name inside the open folder dir_fd. */
int ac_file_read_at(char **out, size_t *out_len, int dir_fd, const char *name,
		    const char *shown_path);

/* Opens path (relative to dir_fd, AT_FDCWD for none) with flags plus
 * O_CLOEXEC, the one way the stores open a workspace file: the open itself
 * never blocks (a FIFO or device planted in the file's place would hang a
 * reader or writer), and anything but a regular file is refused with
 * AC_ECORRUPT "<shown>: not a regular file" (or ": is a symbolic link" when
 * flags hold O_NOFOLLOW). The descriptor returned is blocking again.
 * AC_ENOTFOUND when absent. The caller closes *out_fd. */
int ac_file_open_regular(int *out_fd, int dir_fd, const char *path, int flags,
			 mode_t mode, const char *shown);

/* The names of dir's folders (dirs) or regular files (!dirs), sorted by
 * bytes, leaving out dot entries and anything else (symbolic links...); a
 * missing dir has none. *out and each name are malloc'ed (free each, then
 * the array). */
int ac_file_list(char ***out, size_t *out_n, const char *dir, bool dirs);

/* Git's "dubious ownership" test (safe.directory, CVE-2022-24765): entry
 * (as lstat() gave it) was found in folder dir; another user could have put
 * it there, or replace it, when entry or dir (stat'ed here; one that cannot
 * be read counts as the caller's) is owned by neither the caller (the
 * effective uid) nor, with allow_root, root. Then returns true and sets
 * *out_uid to that owner. */
bool ac_file_foreign_owner(uid_t *out_uid, const struct stat *entry, const char *dir,
			   bool allow_root);

/* Creates dir and its missing parents (mode 0755). */
int ac_file_mkdirs(const char *dir);

/* ac_file_mkdirs(), then every folder from dir's parent up to root (dir
 * inside root) synced: each names the next, so that a file then written
 * durably in dir is not lost with a folder on its way to a power cut.
 * Synced whether or not this call created them: another writer killed
 * between its mkdir and its sync leaves a folder that exists but is not
 * durable. A folder with nothing new to write syncs at once. */
int ac_file_mkdirs_durable(const char *dir, const char *root);

/* Makes everything written so far on the file system holding path durable
 * (syncfs(2)): one wait for the disk where an fsync per file and folder
 * waits once each. Since Linux 5.8 it reports a write-back error of any
 * file there. AC_EIO (or AC_ENOSPACE) naming path when it fails. */
int ac_file_sync_fs(const char *path);

/* Resolves path (absolute) into out: "." and ".." folded, and every
 * symbolic link that exists on the way followed through realpath();
 * components that do not exist yet are taken as written. out is "/" for
 * the root. AC_EINVAL naming the link and what it holds for a link that
 * leads nowhere or loops. */
int ac_file_resolve(ac_buf *out, const char *path);

/* The part of resolved (an ac_file_resolve() result) below root (a
 * resolved folder): "" for root itself, NULL when resolved is outside it.
 * Borrowed from resolved. */
const char *ac_file_below(const char *resolved, const char *root);

/* DESIGN: "a store folder is never followed through a symlink out of the
 * workspace". A path that lies inside root (the workspace) as written must
 * still lead inside it once its existing symbolic links are followed
 * (a link that stays inside is fine); a path outside root as written is
 * the operator's own choice and is not checked. AC_EDENIED, one line
 * naming path and where it leads, otherwise. Relative paths are taken
 * against the current folder. */
int ac_file_check_in(const char *root, const char *path);

/* Opens the folder path (O_DIRECTORY, the caller closes *out_fd) with the
 * rule of ac_file_check_in() kept while opening: a path inside root is
 * walked from root one component at a time with O_NOFOLLOW, and a link
 * met on the way is followed only when it leads inside root, so a link
 * swapped in at any moment cannot lead the descriptor out (AC_EDENIED).
 * A path outside root as written is opened as given. AC_ENOTFOUND when
 * absent. */
int ac_file_open_dir_in(int *out_fd, const char *root, const char *path);

/* fsyncs folder dir, so that a name created, renamed or removed there is
 * on disk. A file system that cannot sync folders (EINVAL, EROFS,
 * ENOTSUP, ENOSYS), or a folder
 * that cannot be opened, is nothing to report; a sync that failed (EIO,
 * ENOSPC: the disk did not take it) is an error naming dir, because what
 * the caller published there is then not known to survive a power cut. */
int ac_file_sync_folder(const char *dir);

/* ac_file_sync_folder() of the folder holding path. */
int ac_file_sync_folder_of(const char *path);

#endif
