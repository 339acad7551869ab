/* The file-system seam's kernel table and the pointer every call of the
 * core's file protocols goes through (ac_fs_calls.h). One indirect call
 * per system call: the cost is measured in docs/RELIABILITY.md
 * ("Simulation"). */
#include "ac_fs_calls.h"

#include "ac_error.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

static int real_openat(void *ctx, int dirfd, const char *path, int flags, mode_t mode)
{
	(void)ctx;
	return openat(dirfd, path, flags, mode);
}

static int real_close(void *ctx, int fd)
{
	(void)ctx;
	return close(fd);
}

static ssize_t real_read(void *ctx, int fd, void *buf, size_t len)
{
	(void)ctx;
	return read(fd, buf, len);
}

static ssize_t real_pread(void *ctx, int fd, void *buf, size_t len, off_t at)
{
	(void)ctx;
	return pread(fd, buf, len, at);
}

static ssize_t real_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx;
	return write(fd, buf, len);
}

static ssize_t real_pwrite(void *ctx, int fd, const void *buf, size_t len, off_t at)
{
	(void)ctx;
	return pwrite(fd, buf, len, at);
}

static int real_fsync(void *ctx, int fd)
{
	(void)ctx;
	return fsync(fd);
}

static int real_ftruncate(void *ctx, int fd, off_t len)
{
	(void)ctx;
	return ftruncate(fd, len);
}

static int real_fstat(void *ctx, int fd, struct stat *st)
{
	(void)ctx;
	return fstat(fd, st);
}

static int real_fstatat(void *ctx, int dirfd, const char *path, struct stat *st, int flags)
{
	(void)ctx;
	return fstatat(dirfd, path, st, flags);
}

static int real_renameat2(void *ctx, int from_dir, const char *from, int to_dir, const char *to,
			  unsigned int flags)
{
	(void)ctx;
	return flags ? renameat2(from_dir, from, to_dir, to, flags)
		     : renameat(from_dir, from, to_dir, to);
}

static int real_linkat(void *ctx, int from_dir, const char *from, int to_dir, const char *to,
		       int flags)
{
	(void)ctx;
	return linkat(from_dir, from, to_dir, to, flags);
}

static int real_unlinkat(void *ctx, int dirfd, const char *path, int flags)
{
	(void)ctx;
	return unlinkat(dirfd, path, flags);
}

static int real_mkdirat(void *ctx, int dirfd, const char *path, mode_t mode)
{
	(void)ctx;
	return mkdirat(dirfd, path, mode);
}

static int real_flock(void *ctx, int fd, int operation)
{
	(void)ctx;
	return flock(fd, operation);
}

static int real_fcntl(void *ctx, int fd, int cmd, int arg)
{
	(void)ctx;
	return fcntl(fd, cmd, arg);
}

static int real_clock_gettime(void *ctx, clockid_t clock, struct timespec *ts)
{
	(void)ctx;
	return clock_gettime(clock, ts);
}

static int real_nanosleep(void *ctx, const struct timespec *ts)
{
	(void)ctx;
	return nanosleep(ts, NULL);
}

static pid_t real_getpid(void *ctx)
{
	(void)ctx;
	return getpid();
}

static int real_kill(void *ctx, pid_t pid, int sig)
{
	(void)ctx;
	return kill(pid, sig);
}

static ssize_t real_getrandom(void *ctx, void *buf, size_t len, unsigned int flags)
{
	(void)ctx;
	return getrandom(buf, len, flags);
}

static void *real_fdopendir(void *ctx, int fd)
{
	(void)ctx;
	return fdopendir(fd);
}

static const char *real_readdir(void *ctx, void *dir)
{
	struct dirent *entry = readdir(dir);

	(void)ctx;
	return entry ? entry->d_name : NULL;
}

static int real_closedir(void *ctx, void *dir)
{
	(void)ctx;
	return closedir(dir);
}

static char *real_realpath(void *ctx, const char *path)
{
	(void)ctx;
	return realpath(path, NULL);
}

static const ac_fs kernel = {
	.version = AC_FS_VERSION,
	.openat = real_openat,
	.close = real_close,
	.read = real_read,
	.pread = real_pread,
	.write = real_write,
	.pwrite = real_pwrite,
	.fsync = real_fsync,
	.ftruncate = real_ftruncate,
	.fstat = real_fstat,
	.fstatat = real_fstatat,
	.renameat2 = real_renameat2,
	.linkat = real_linkat,
	.unlinkat = real_unlinkat,
	.mkdirat = real_mkdirat,
	.flock = real_flock,
	.fcntl = real_fcntl,
	.clock_gettime = real_clock_gettime,
	.nanosleep = real_nanosleep,
	.getpid = real_getpid,
	.kill = real_kill,
	.getrandom = real_getrandom,
	.fdopendir = real_fdopendir,
	.readdir = real_readdir,
	.closedir = real_closedir,
	.realpath = real_realpath,
};

const ac_fs *ac_fs_active = &kernel;

const ac_fs *ac_fs_real(void)
{
	return &kernel;
}

int ac_fs_use(const ac_fs *fs)
{
	if (!fs) {
		ac_fs_active = &kernel;
		return 0;
	}
	if (fs->version != AC_FS_VERSION)
		return ac_error_set(AC_EINVAL, "ac_fs: version %u, this library speaks %u",
				    fs->version, AC_FS_VERSION);
	if (!fs->openat || !fs->close || !fs->read || !fs->pread || !fs->write || !fs->pwrite ||
	    !fs->fsync || !fs->ftruncate || !fs->fstat || !fs->fstatat || !fs->renameat2 ||
	    !fs->linkat || !fs->unlinkat || !fs->mkdirat || !fs->flock || !fs->fcntl || !fs->clock_gettime ||
	    !fs->nanosleep || !fs->getpid || !fs->kill || !fs->getrandom || !fs->fdopendir ||
	    !fs->readdir || !fs->closedir || !fs->realpath)
		return ac_error_set(AC_EINVAL, "ac_fs: an operation is missing from the table");
	ac_fs_active = fs;
	return 0;
}
