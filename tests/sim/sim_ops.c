/* The seam's table while the simulator runs: each call is one step of the
 * calling actor (sim_step(): others may run first, or the actor may be
 * killed there), then the in-memory file system's operation. Costs are
 * simulated time drawn from the seed: a few microseconds a call, a
 * millisecond or more an fsync. */
#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

static int64_t call_cost(void)
{
	return 2000 + (int64_t)sim_below(40000);
}

static int op_openat(void *ctx, int dirfd, const char *path, int flags, mode_t mode)
{
	(void)ctx;
	sim_step(call_cost(), (flags & O_CREAT) ? "create" : "open", path);
	return sim_fs_openat(dirfd, path, flags, mode);
}

static int op_close(void *ctx, int fd)
{
	(void)ctx;
	sim_step(call_cost(), "close", NULL);
	return sim_fs_close(fd);
}

static ssize_t op_read(void *ctx, int fd, void *buf, size_t len)
{
	(void)ctx;
	sim_step(call_cost(), "read", NULL);
	return sim_fs_read(fd, buf, len);
}

static ssize_t op_pread(void *ctx, int fd, void *buf, size_t len, off_t at)
{
	(void)ctx;
	sim_step(call_cost(), "pread", NULL);
	return sim_fs_pread(fd, buf, len, at);
}

/* A write is not atomic: a longer one may land in two parts, with a
 * step (where the writer may be killed) between them. */
static size_t first_part(size_t len)
{
	return len > 16 && sim_chance(0.3) ? 1 + (size_t)sim_below(len - 1) : len;
}

static ssize_t op_write(void *ctx, int fd, const void *buf, size_t len)
{
	size_t part = first_part(len);
	ssize_t n;

	(void)ctx;
	sim_step(call_cost(), "write", NULL);
	if ((n = sim_fs_write(fd, buf, part)) < (ssize_t)part || part == len)
		return n;
	sim_step(call_cost(), "write (rest)", NULL);
	n = sim_fs_write(fd, (const char *)buf + part, len - part);
	return n < 0 ? (ssize_t)part : (ssize_t)part + n;
}

static ssize_t op_pwrite(void *ctx, int fd, const void *buf, size_t len, off_t at)
{
	size_t part = first_part(len);
	ssize_t n;

	(void)ctx;
	sim_step(call_cost(), "pwrite", NULL);
	if ((n = sim_fs_pwrite(fd, buf, part, at)) < (ssize_t)part || part == len)
		return n;
	sim_step(call_cost(), "pwrite (rest)", NULL);
	n = sim_fs_pwrite(fd, (const char *)buf + part, len - part, at + (off_t)part);
	return n < 0 ? (ssize_t)part : (ssize_t)part + n;
}

static int op_fsync(void *ctx, int fd)
{
	(void)ctx;
	sim_step(500000 + (int64_t)sim_below(4000000), "fsync", NULL);
	return sim_fs_fsync(fd);
}

static int op_ftruncate(void *ctx, int fd, off_t len)
{
	(void)ctx;
	sim_step(call_cost(), "truncate", NULL);
	return sim_fs_ftruncate(fd, len);
}

static int op_fstat(void *ctx, int fd, struct stat *st)
{
	(void)ctx;
	sim_step(call_cost(), "fstat", NULL);
	return sim_fs_fstat(fd, st);
}

static int op_fstatat(void *ctx, int dirfd, const char *path, struct stat *st, int flags)
{
	(void)ctx;
	sim_step(call_cost(), "stat", path);
	return sim_fs_fstatat(dirfd, path, st, flags);
}

static int op_renameat2(void *ctx, int from_dir, const char *from, int to_dir, const char *to,
			unsigned int flags)
{
	(void)ctx;
	sim_step(call_cost(), flags ? "exchange/noreplace" : "rename", to);
	return sim_fs_renameat2(from_dir, from, to_dir, to, flags);
}

static int op_linkat(void *ctx, int from_dir, const char *from, int to_dir, const char *to,
		     int flags)
{
	(void)ctx;
	sim_step(call_cost(), "link", to);
	return sim_fs_linkat(from_dir, from, to_dir, to, flags);
}

static int op_unlinkat(void *ctx, int dirfd, const char *path, int flags)
{
	(void)ctx;
	sim_step(call_cost(), "unlink", path);
	return sim_fs_unlinkat(dirfd, path, flags);
}

static int op_mkdirat(void *ctx, int dirfd, const char *path, mode_t mode)
{
	(void)ctx;
	sim_step(call_cost(), "mkdir", path);
	return sim_fs_mkdirat(dirfd, path, mode);
}

static int op_flock(void *ctx, int fd, int operation)
{
	(void)ctx;
	sim_step(call_cost(), "flock", NULL);
	return sim_fs_flock(fd, operation);
}

static int op_fcntl(void *ctx, int fd, int cmd, int arg)
{
	(void)ctx;
	return sim_fs_fcntl(fd, cmd, arg);
}

static int op_clock_gettime(void *ctx, clockid_t clock, struct timespec *ts)
{
	sim_actor *a = sim_current();
	int64_t ns = sim_now_ns();

	(void)ctx;
	/* A process's wall clock is off by its skew; monotonic clocks agree
	 * with true time (only their differences mean anything). */
	if (a && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE))
		ns += a->clock_skew_ns;
	ts->tv_sec = (time_t)(ns / 1000000000);
	ts->tv_nsec = (long)(ns % 1000000000);
	return 0;
}

static int op_nanosleep(void *ctx, const struct timespec *ts)
{
	(void)ctx;
	sim_sleep_ns((int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec);
	return 0;
}

static pid_t op_getpid(void *ctx)
{
	sim_actor *a = sim_current();

	(void)ctx;
	return a ? a->pid : 1;
}

static int op_kill(void *ctx, pid_t pid, int sig)
{
	(void)ctx;
	if (sig != 0)
		return errno = EPERM, -1;
	return sim_pid_alive(pid) ? 0 : (errno = ESRCH, -1);
}

static ssize_t op_getrandom(void *ctx, void *buf, size_t len, unsigned int flags)
{
	(void)ctx;
	(void)flags;
	for (size_t i = 0; i < len; i += 8) {
		uint64_t r = sim_rand();

		memcpy((char *)buf + i, &r, len - i < 8 ? len - i : 8);
	}
	return (ssize_t)len;
}

/* A listing's names are read in one step (one getdents for a folder this
 * small); reading them out of it is not a system call. */
static void *op_fdopendir(void *ctx, int fd)
{
	(void)ctx;
	sim_step(call_cost(), "list", NULL);
	return sim_fs_fdopendir(fd);
}

static const char *op_readdir(void *ctx, void *dir)
{
	(void)ctx;
	return sim_fs_readdir(dir);
}

static int op_closedir(void *ctx, void *dir)
{
	(void)ctx;
	sim_step(call_cost(), "close", NULL);
	return sim_fs_closedir(dir);
}

static char *op_realpath(void *ctx, const char *path)
{
	(void)ctx;
	sim_step(call_cost(), "realpath", path);
	return sim_fs_realpath(path);
}

const ac_fs sim_fs_table = {
	.version = AC_FS_VERSION,
	.openat = op_openat,
	.close = op_close,
	.read = op_read,
	.pread = op_pread,
	.write = op_write,
	.pwrite = op_pwrite,
	.fsync = op_fsync,
	.ftruncate = op_ftruncate,
	.fstat = op_fstat,
	.fstatat = op_fstatat,
	.renameat2 = op_renameat2,
	.linkat = op_linkat,
	.unlinkat = op_unlinkat,
	.mkdirat = op_mkdirat,
	.flock = op_flock,
	.fcntl = op_fcntl,
	.clock_gettime = op_clock_gettime,
	.nanosleep = op_nanosleep,
	.getpid = op_getpid,
	.kill = op_kill,
	.getrandom = op_getrandom,
	.fdopendir = op_fdopendir,
	.readdir = op_readdir,
	.closedir = op_closedir,
	.realpath = op_realpath,
};
