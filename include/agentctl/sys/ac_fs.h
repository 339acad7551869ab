/* The file-system seam (implementer tier): the operations the core's file
 * protocols (atomic session writes, locks, the journal's appends,
 * compaction's archives, gc's walks) make on
 * files, folders, clocks and processes, as one table. The real table calls
 * the kernel and is the default; a test installs another with
 * ac_fs_use() — the deterministic simulator (tests/sim/) installs an
 * in-memory tree that keeps what was fsynced apart from what was only
 * written, crashes, fails chosen calls and runs a clock per process.
 *
 * Every operation behaves as its system call does: -1 (or a negative
 * ssize_t) with errno set on failure. Paths are relative to dirfd as in
 * the *at() calls (AT_FDCWD for the current folder). */
#ifndef AGENTCTL_SYS_AC_FS_H
#define AGENTCTL_SYS_AC_FS_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever an operation is added: a table built for an older
 * version lacks it (2: folder listings and realpath). */
#define AC_FS_VERSION 2

typedef struct ac_fs {
	unsigned int version; /* AC_FS_VERSION */
	void *ctx;            /* handed to every operation */
	int (*openat)(void *ctx, int dirfd, const char *path, int flags, mode_t mode);
	int (*close)(void *ctx, int fd);
	ssize_t (*read)(void *ctx, int fd, void *buf, size_t len);
	ssize_t (*pread)(void *ctx, int fd, void *buf, size_t len, off_t at);
	ssize_t (*write)(void *ctx, int fd, const void *buf, size_t len);
	ssize_t (*pwrite)(void *ctx, int fd, const void *buf, size_t len, off_t at);
	int (*fsync)(void *ctx, int fd);      /* also stands for fdatasync */
	int (*ftruncate)(void *ctx, int fd, off_t len);
	int (*fstat)(void *ctx, int fd, struct stat *st);
	int (*fstatat)(void *ctx, int dirfd, const char *path, struct stat *st, int flags);
	int (*renameat2)(void *ctx, int from_dir, const char *from, int to_dir, const char *to,
			 unsigned int flags);
	int (*linkat)(void *ctx, int from_dir, const char *from, int to_dir, const char *to,
		      int flags);
	int (*unlinkat)(void *ctx, int dirfd, const char *path, int flags);
	int (*mkdirat)(void *ctx, int dirfd, const char *path, mode_t mode);
	int (*flock)(void *ctx, int fd, int operation);
	/* F_GETFL, F_SETFL and F_DUPFD_CLOEXEC only */
	int (*fcntl)(void *ctx, int fd, int cmd, int arg);
	int (*clock_gettime)(void *ctx, clockid_t clock, struct timespec *ts);
	int (*nanosleep)(void *ctx, const struct timespec *ts);
	pid_t (*getpid)(void *ctx);
	int (*kill)(void *ctx, pid_t pid, int sig); /* only sig 0 (is it alive?) is asked */
	ssize_t (*getrandom)(void *ctx, void *buf, size_t len, unsigned int flags);
	/* A folder's listing, as fdopendir(3), readdir(3) (the next entry's
	 * name, "." and ".." included; NULL at the end) and closedir(3): the
	 * listing takes fd over, and closedir closes it. */
	void *(*fdopendir)(void *ctx, int fd);
	const char *(*readdir)(void *ctx, void *dir);
	int (*closedir)(void *ctx, void *dir);
	char *(*realpath)(void *ctx, const char *path); /* realpath(path, NULL): malloc'd */
} ac_fs;

/* Makes fs (borrowed; it must outlive its use) the table every later call
 * goes through; NULL puts the kernel's back. Meant to be called before
 * any other thread uses the library. AC_EINVAL for a table of another
 * version or with an operation missing. */
int ac_fs_use(const ac_fs *fs);

/* The kernel's table, for a table that wraps it. */
const ac_fs *ac_fs_real(void);

#ifdef __cplusplus
}
#endif

#endif
