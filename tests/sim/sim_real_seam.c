/* The `ops` scenario's seam: the kernel's file system, not the simulated
 * one, since libgit2 (loaded by dlopen, core/ac_libgit2.h) writes the
 * repository's objects, index and refs itself. Every call agentctl makes
 * through ac_fs that changes something, and each libgit2 call of the
 * rollback that writes (a commit and the HEAD it moves, the index), is a
 * numbered kill point: a forked attempt armed with point N dies by
 * SIGKILL just before the Nth, as `kill -9` would leave it. Reads are not
 * kill points (a kill before a read leaves what a kill before the next
 * write leaves).
 *
 * What would make two runs of a seed differ comes from the seed instead:
 * the clocks (a simulated time that every call advances and a sleep
 * skips forward, so a wait never waits), the random bytes (uuids, temp
 * names) and the commits' signature time (so commit hashes repeat). The
 * points passed, the clock and the trace of the points live in shared
 * memory, so what a killed attempt did survives it. fsync is counted but
 * not done: this scenario kills processes, the power never fails. */
#include "sim.h"

#include "ac_error.h"
#include "ac_libgit2.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LOG_SIZE (1 << 20)

typedef struct {
	long points;        /* kill points passed by the armed attempt */
	long kill_at;       /* die just before this point (0: never) */
	int64_t clock_ns;   /* the simulated time, shared by every process */
	/* The wall clock's start: the real time at the set-up, since a lock
	 * file a killed attempt left is judged by its mtime, the kernel's. */
	int64_t epoch_ns;
	uint64_t random;    /* the random bytes' state */
	size_t log_len;     /* the trace of the points, not yet drained */
	char log[LOG_SIZE];
} shared_state;

static shared_state *shared;
static const ac_fs *kernel;
static char root[4096]; /* the workspace, left out of traced paths */

/* ---- the points ------------------------------------------------------------ */

/* path as the trace shows it: relative to the workspace, a temp file's
 * pid and random part left out (they differ from run to run). */
static void shown_path(char *out, size_t size, const char *path)
{
	size_t rlen = strlen(root), len;
	const char *base;

	if (!path) {
		snprintf(out, size, "-");
		return;
	}
	if (rlen && !strncmp(path, root, rlen) && (path[rlen] == '/' || !path[rlen]))
		path += rlen + (path[rlen] == '/');
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	len = strlen(base);
	if (base[0] == '.' && len > 4 && !strcmp(base + len - 4, ".tmp")) {
		const char *cut = base + len - 4;
		int dots = 0;

		/* ".<name>.<pid>.<random>.tmp": back over two dots. */
		while (cut > base && dots < 2)
			if (*--cut == '.')
				dots++;
		snprintf(out, size, "%.*s%.*s.*.tmp", (int)(base - path), path, (int)(cut - base),
			 base);
		return;
	}
	/* Else a pid among the name's parts ("<name>.agentctl-<pid>.tmp" of a
	 * symbolic link, "<lock>.stale.<pid>"): a number between '.' or '-'
	 * and '.' or the end. */
	snprintf(out, size, "%s", path);
	for (char *p = out + (base - path); *p; p++) {
		size_t digits = strspn(p + 1, "0123456789");

		if ((*p == '.' || *p == '-') && digits && (p[1 + digits] == '.' || !p[1 + digits])) {
			memmove(p + 2, p + 1 + digits, strlen(p + 1 + digits) + 1);
			p[1] = '*';
		}
	}
}

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (shared->log_len + 512 > LOG_SIZE)
		return;
	va_start(ap, fmt);
	n = vsnprintf(shared->log + shared->log_len, 510, fmt, ap);
	va_end(ap);
	if (n > 509)
		n = 509;
	shared->log_len += (size_t)n;
	shared->log[shared->log_len++] = '\n';
	shared->log[shared->log_len] = '\0';
}

/* One kill point: traced, and the armed attempt's last when it is due. */
static void point(const char *what, const char *path, const char *path2)
{
	char a[600], b[600];

	shown_path(a, sizeof(a), path);
	shown_path(b, sizeof(b), path2);
	shared->clock_ns += 1000000;
	if (!shared->kill_at) {
		log_line("    %s %s%s%s", what, a, path2 ? " -> " : "", path2 ? b : "");
		return;
	}
	shared->points++;
	if (shared->points == shared->kill_at) {
		log_line("    #%ld %s %s%s%s: KILLED here", shared->points, what, a,
			 path2 ? " -> " : "", path2 ? b : "");
		raise(SIGKILL);
	}
	log_line("    #%ld %s %s%s%s", shared->points, what, a, path2 ? " -> " : "",
		 path2 ? b : "");
}

/* ---- the seam -------------------------------------------------------------- */

static int op_openat(void *ctx, int dirfd, const char *path, int flags, mode_t mode)
{
	(void)ctx;
	if (flags & (O_CREAT | O_WRONLY | O_RDWR | O_TRUNC))
		point(flags & O_CREAT ? "create" : "open to write", path, NULL);
	return kernel->openat(kernel->ctx, dirfd, path, flags, mode);
}

static int op_close(void *ctx, int fd)
{
	(void)ctx;
	return kernel->close(kernel->ctx, fd);
}

static ssize_t op_read(void *ctx, int fd, void *buf, size_t len)
{
	(void)ctx;
	return kernel->read(kernel->ctx, fd, buf, len);
}

static ssize_t op_pread(void *ctx, int fd, void *buf, size_t len, off_t at)
{
	(void)ctx;
	return kernel->pread(kernel->ctx, fd, buf, len, at);
}

static ssize_t op_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx;
	point("write", NULL, NULL);
	return kernel->write(kernel->ctx, fd, buf, len);
}

static ssize_t op_pwrite(void *ctx, int fd, const void *buf, size_t len, off_t at)
{
	(void)ctx;
	point("pwrite", NULL, NULL);
	return kernel->pwrite(kernel->ctx, fd, buf, len, at);
}

static int op_fsync(void *ctx, int fd)
{
	(void)ctx;
	(void)fd;
	point("fsync", NULL, NULL);
	return 0;
}

static int op_ftruncate(void *ctx, int fd, off_t len)
{
	(void)ctx;
	point("truncate", NULL, NULL);
	return kernel->ftruncate(kernel->ctx, fd, len);
}

static int op_fstat(void *ctx, int fd, struct stat *st)
{
	(void)ctx;
	return kernel->fstat(kernel->ctx, fd, st);
}

static int op_fstatat(void *ctx, int dirfd, const char *path, struct stat *st, int flags)
{
	(void)ctx;
	return kernel->fstatat(kernel->ctx, dirfd, path, st, flags);
}

static int op_renameat2(void *ctx, int from_dir, const char *from, int to_dir, const char *to,
			unsigned int flags)
{
	(void)ctx;
	point(flags ? "exchange" : "rename", from, to);
	return kernel->renameat2(kernel->ctx, from_dir, from, to_dir, to, flags);
}

static int op_linkat(void *ctx, int from_dir, const char *from, int to_dir, const char *to,
		     int flags)
{
	(void)ctx;
	point("link", from, to);
	return kernel->linkat(kernel->ctx, from_dir, from, to_dir, to, flags);
}

static int op_unlinkat(void *ctx, int dirfd, const char *path, int flags)
{
	(void)ctx;
	point(flags & AT_REMOVEDIR ? "rmdir" : "unlink", path, NULL);
	return kernel->unlinkat(kernel->ctx, dirfd, path, flags);
}

static int op_mkdirat(void *ctx, int dirfd, const char *path, mode_t mode)
{
	struct stat st;

	(void)ctx;
	/* Making a folder that is there changes nothing: no point (each
	 * creation walks every folder above, from /). */
	if (kernel->fstatat(kernel->ctx, dirfd, path, &st, AT_SYMLINK_NOFOLLOW) != 0)
		point("mkdir", path, NULL);
	return kernel->mkdirat(kernel->ctx, dirfd, path, mode);
}

static int op_flock(void *ctx, int fd, int operation)
{
	(void)ctx;
	return kernel->flock(kernel->ctx, fd, operation);
}

static int op_fcntl(void *ctx, int fd, int cmd, int arg)
{
	(void)ctx;
	return kernel->fcntl(kernel->ctx, fd, cmd, arg);
}

static int op_clock_gettime(void *ctx, clockid_t clock, struct timespec *ts)
{
	int64_t ns = shared->clock_ns + (clock == CLOCK_REALTIME ? shared->epoch_ns : 0);

	(void)ctx;
	shared->clock_ns += 1000;
	ts->tv_sec = (time_t)(ns / 1000000000LL);
	ts->tv_nsec = (long)(ns % 1000000000LL);
	return 0;
}

static int op_nanosleep(void *ctx, const struct timespec *ts)
{
	(void)ctx;
	shared->clock_ns += (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
	return 0;
}

static pid_t op_getpid(void *ctx)
{
	(void)ctx;
	return kernel->getpid(kernel->ctx);
}

static int op_kill(void *ctx, pid_t pid, int sig)
{
	(void)ctx;
	return kernel->kill(kernel->ctx, pid, sig);
}

static ssize_t op_getrandom(void *ctx, void *buf, size_t len, unsigned int flags)
{
	unsigned char *out = buf;

	(void)ctx;
	(void)flags;
	for (size_t i = 0; i < len; i++) {
		/* xorshift64*: the seed's stream, shared across the attempts */
		shared->random ^= shared->random >> 12;
		shared->random ^= shared->random << 25;
		shared->random ^= shared->random >> 27;
		out[i] = (unsigned char)((shared->random * 0x2545F4914F6CDD1DULL) >> 56);
	}
	return (ssize_t)len;
}

static void *op_fdopendir(void *ctx, int fd)
{
	(void)ctx;
	return kernel->fdopendir(kernel->ctx, fd);
}

static const char *op_readdir(void *ctx, void *dir)
{
	(void)ctx;
	return kernel->readdir(kernel->ctx, dir);
}

static int op_closedir(void *ctx, void *dir)
{
	(void)ctx;
	return kernel->closedir(kernel->ctx, dir);
}

static char *op_realpath(void *ctx, const char *path)
{
	(void)ctx;
	return kernel->realpath(kernel->ctx, path);
}

static const ac_fs counted = {
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

/* ---- libgit2's writes ------------------------------------------------------ */

static __typeof__(git_commit_create) *real_commit_create;
static __typeof__(git_index_write) *real_index_write;
static __typeof__(git_index_write_tree) *real_index_write_tree;

/* A commit is two points: before it (nothing written) and after it (the
 * commit made and HEAD moved, the caller not yet told). */
static int counted_commit_create(git_oid *id, git_repository *repo, const char *update_ref,
				 const git_signature *author, const git_signature *committer,
				 const char *message_encoding, const char *message,
				 const git_tree *tree, size_t parent_count,
				 const git_commit *parents[])
{
	int rc;

	point("git commit", message, NULL);
	rc = real_commit_create(id, repo, update_ref, author, committer, message_encoding, message,
				tree, parent_count, parents);
	point("git commit made, HEAD moved", NULL, NULL);
	return rc;
}

static int counted_index_write(git_index *index)
{
	point("git index write", NULL, NULL);
	return real_index_write(index);
}

static int counted_index_write_tree(git_oid *out, git_index *index)
{
	point("git write tree", NULL, NULL);
	return real_index_write_tree(out, index);
}

/* The signature at the simulated time: the same commit hashes every run. */
static int fixed_signature(git_signature **out, git_repository *repo)
{
	(void)repo;
	return git_signature_new(out, "agentctl-sim", "sim@localhost",
				 (git_time_t)(1700000000LL + shared->clock_ns / 1000000000LL), 0);
}

static int fixed_signature_now(git_signature **out, const char *name, const char *email)
{
	(void)name;
	(void)email;
	return fixed_signature(out, NULL);
}

/* ---- the interface --------------------------------------------------------- */

int sim_real_seam_install(const char *workspace, uint64_t seed)
{
	if (!shared) {
		shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (shared == MAP_FAILED) {
			shared = NULL;
			return ac_error_set(AC_EIO, "mmap of the shared state failed");
		}
	}
	if (ac_libgit2_load() != 0)
		return AC_ENOTSUP;
	if (!real_commit_create) {
		real_commit_create = sym_git_commit_create;
		real_index_write = sym_git_index_write;
		real_index_write_tree = sym_git_index_write_tree;
		sym_git_commit_create = counted_commit_create;
		sym_git_index_write = counted_index_write;
		sym_git_index_write_tree = counted_index_write_tree;
		sym_git_signature_default = fixed_signature;
		sym_git_signature_now = fixed_signature_now;
	}
	memset(shared, 0, offsetof(shared_state, log) + 1);
	shared->random = seed * 0x9E3779B97F4A7C15ULL + 1;
	{
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		shared->epoch_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
	}
	snprintf(root, sizeof(root), "%s", workspace);
	kernel = ac_fs_real();
	return ac_fs_use(&counted);
}

void sim_real_seam_arm(long kill_at)
{
	shared->points = 0;
	shared->kill_at = kill_at;
}

long sim_real_seam_points(void)
{
	return shared->points;
}

void sim_real_seam_drain(void)
{
	char *line = shared->log, *end;

	while (line < shared->log + shared->log_len && (end = strchr(line, '\n'))) {
		*end = '\0';
		sim_trace("%s", line);
		line = end + 1;
	}
	shared->log_len = 0;
	shared->log[0] = '\0';
}
