/* The core's calls through the file-system seam (agentctl/sys/ac_fs.h):
 * each named and used as the system call it stands for, so a protocol
 * reads as it did, and the simulator sees every step of it. Internal to
 * the core. */
#ifndef AC_FS_CALLS_H
#define AC_FS_CALLS_H

#include "ac_fs.h"

#include <fcntl.h>

extern const ac_fs *ac_fs_active;

static inline int ac_fs_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return ac_fs_active->openat(ac_fs_active->ctx, dirfd, path, flags, mode);
}

static inline int ac_fs_open(const char *path, int flags, mode_t mode)
{
	return ac_fs_openat(AT_FDCWD, path, flags, mode);
}

static inline int ac_fs_close(int fd)
{
	return ac_fs_active->close(ac_fs_active->ctx, fd);
}

static inline ssize_t ac_fs_read(int fd, void *buf, size_t len)
{
	return ac_fs_active->read(ac_fs_active->ctx, fd, buf, len);
}

static inline ssize_t ac_fs_pread(int fd, void *buf, size_t len, off_t at)
{
	return ac_fs_active->pread(ac_fs_active->ctx, fd, buf, len, at);
}

static inline ssize_t ac_fs_write(int fd, const void *buf, size_t len)
{
	return ac_fs_active->write(ac_fs_active->ctx, fd, buf, len);
}

static inline ssize_t ac_fs_pwrite(int fd, const void *buf, size_t len, off_t at)
{
	return ac_fs_active->pwrite(ac_fs_active->ctx, fd, buf, len, at);
}

static inline int ac_fs_fsync(int fd)
{
	return ac_fs_active->fsync(ac_fs_active->ctx, fd);
}

static inline int ac_fs_ftruncate(int fd, off_t len)
{
	return ac_fs_active->ftruncate(ac_fs_active->ctx, fd, len);
}

static inline int ac_fs_fstat(int fd, struct stat *st)
{
	return ac_fs_active->fstat(ac_fs_active->ctx, fd, st);
}

static inline int ac_fs_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return ac_fs_active->fstatat(ac_fs_active->ctx, dirfd, path, st, flags);
}

static inline int ac_fs_stat(const char *path, struct stat *st)
{
	return ac_fs_fstatat(AT_FDCWD, path, st, 0);
}

static inline int ac_fs_lstat(const char *path, struct stat *st)
{
	return ac_fs_fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

static inline int ac_fs_renameat2(int from_dir, const char *from, int to_dir, const char *to,
				  unsigned int flags)
{
	return ac_fs_active->renameat2(ac_fs_active->ctx, from_dir, from, to_dir, to, flags);
}

static inline int ac_fs_rename(const char *from, const char *to)
{
	return ac_fs_renameat2(AT_FDCWD, from, AT_FDCWD, to, 0);
}

static inline int ac_fs_link(const char *from, const char *to)
{
	return ac_fs_active->linkat(ac_fs_active->ctx, AT_FDCWD, from, AT_FDCWD, to, 0);
}

static inline int ac_fs_unlinkat(int dirfd, const char *path, int flags)
{
	return ac_fs_active->unlinkat(ac_fs_active->ctx, dirfd, path, flags);
}

static inline int ac_fs_unlink(const char *path)
{
	return ac_fs_unlinkat(AT_FDCWD, path, 0);
}

static inline int ac_fs_mkdirat(int dirfd, const char *path, mode_t mode)
{
	return ac_fs_active->mkdirat(ac_fs_active->ctx, dirfd, path, mode);
}

static inline int ac_fs_mkdir(const char *path, mode_t mode)
{
	return ac_fs_mkdirat(AT_FDCWD, path, mode);
}

static inline int ac_fs_flock(int fd, int operation)
{
	return ac_fs_active->flock(ac_fs_active->ctx, fd, operation);
}

static inline int ac_fs_fcntl(int fd, int cmd, int arg)
{
	return ac_fs_active->fcntl(ac_fs_active->ctx, fd, cmd, arg);
}

static inline int ac_fs_clock_gettime(clockid_t clock, struct timespec *ts)
{
	return ac_fs_active->clock_gettime(ac_fs_active->ctx, clock, ts);
}

static inline int ac_fs_nanosleep(const struct timespec *ts)
{
	return ac_fs_active->nanosleep(ac_fs_active->ctx, ts);
}

static inline pid_t ac_fs_getpid(void)
{
	return ac_fs_active->getpid(ac_fs_active->ctx);
}

static inline int ac_fs_kill(pid_t pid, int sig)
{
	return ac_fs_active->kill(ac_fs_active->ctx, pid, sig);
}

static inline ssize_t ac_fs_getrandom(void *buf, size_t len, unsigned int flags)
{
	return ac_fs_active->getrandom(ac_fs_active->ctx, buf, len, flags);
}

/* A folder's listing (opendir(3)): ac_fs_readdir() gives its names. */
typedef void ac_fs_dir;

/* Takes fd over (closed by ac_fs_closedir()); NULL with errno. */
static inline ac_fs_dir *ac_fs_fdopendir(int fd)
{
	return ac_fs_active->fdopendir(ac_fs_active->ctx, fd);
}

static inline ac_fs_dir *ac_fs_opendir(const char *path)
{
	int fd = ac_fs_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	ac_fs_dir *dir = fd >= 0 ? ac_fs_fdopendir(fd) : NULL;

	if (fd >= 0 && !dir)
		ac_fs_close(fd);
	return dir;
}

/* The next entry's name ("." and ".." included), or NULL at the end. */
static inline const char *ac_fs_readdir(ac_fs_dir *dir)
{
	return ac_fs_active->readdir(ac_fs_active->ctx, dir);
}

static inline int ac_fs_closedir(ac_fs_dir *dir)
{
	return ac_fs_active->closedir(ac_fs_active->ctx, dir);
}

static inline char *ac_fs_realpath(const char *path)
{
	return ac_fs_active->realpath(ac_fs_active->ctx, path);
}

#endif
