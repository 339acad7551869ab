/* The shared O_EXCL lock file, with stale-lock breaking. */
#include "ac_lock.h"

#include "ac_error.h"
#include "ac_fs_calls.h"
#include "ac_mutation.h"
#include "ac_session.h"
#include "ac_struct_version.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void ac_lock_options_init(ac_lock_options *opts)
{
	*opts = (ac_lock_options)AC_LOCK_OPTIONS_INIT;
}

static int64_t monotonic_ms(void)
{
	struct timespec ts;

	ac_fs_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleeps a little longer each time, up to 4 ms, so waiting costs little CPU
 * but a freed lock is taken quickly. */
static void backoff(unsigned *round)
{
	long ns = 50000L << (*round < 6 ? *round : 6);
	struct timespec ts = {0, ns > 4000000L ? 4000000L : ns};

	(*round)++;
	ac_fs_nanosleep(&ts);
}

/* Who holds a lock agentctl takes: the pid on the first line, as the
 * shared spec has it (a reader that wants only the pid reads that line),
 * then the host, the boot and the pid namespace, so that another host on a
 * shared file system, or a container sharing the folder, can tell that the
 * pid is not one of its own. */
typedef struct {
	char host[256];
	char boot[64];
	char pidns[32];
} holder_identity;

static holder_identity local_identity;
static pthread_once_t local_identity_once = PTHREAD_ONCE_INIT;

static void read_first_line(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "re");

	out[0] = '\0';
	if (!f)
		return;
	if (fgets(out, (int)size, f))
		out[strcspn(out, "\r\n")] = '\0';
	fclose(f);
}

static void load_local_identity(void)
{
	holder_identity *id = &local_identity;
	struct stat st;

	if (gethostname(id->host, sizeof(id->host) - 1) != 0)
		id->host[0] = '\0';
	id->host[strcspn(id->host, "\r\n= ")] = '\0';
	read_first_line("/proc/sys/kernel/random/boot_id", id->boot, sizeof(id->boot));
	/* The kernel's, not the seam's: who this process is, not a file of
	 * the protocol (and a simulated actor killed inside this once-only
	 * call would leave every other waiting on it). */
	if (stat("/proc/self/ns/pid", &st) == 0)
		snprintf(id->pidns, sizeof(id->pidns), "%llu", (unsigned long long)st.st_ino);
}

static const holder_identity *our_identity(void)
{
	pthread_once(&local_identity_once, load_local_identity);
	return &local_identity;
}

static int open_guard(int *out_fd, const char *lock_path)
{
	char *copy = strdup(lock_path);
	int fd;

	if (!copy)
		return ac_error_set(AC_ENOMEM, "out of memory");
	fd = ac_fs_open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0) {
		int err = errno;
		int rc = ac_error_errno(err, "%s: cannot open its folder", lock_path);

		free(copy);
		return rc;
	}
	free(copy);
	*out_fd = fd;
	return 0;
}

/* Waits for flock on the folder: agentctl's own lock. */
static int take_guard(int fd, const char *lock_path, int64_t deadline)
{
	unsigned round = 0;

	while (ac_fs_flock(fd, LOCK_EX | LOCK_NB) != 0) {
		/* Some network file systems have no flock; the lock file alone
		 * still excludes writers there. */
		if (errno == EBADF || errno == ENOLCK || errno == EOPNOTSUPP)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return ac_error_errno(errno, "%s: flock", lock_path);
		if (monotonic_ms() >= deadline)
			return ac_error_set(AC_EBUSY,
					    "%s: another agentctl process holds the lock", lock_path);
		backoff(&round);
	}
	return 0;
}

int ac_lock_folder(int *out_fd, const char *path, int timeout_ms)
{
	int fd = -1, rc;

	if ((rc = open_guard(&fd, path)) ||
	    (rc = take_guard(fd, path, monotonic_ms() + timeout_ms))) {
		if (fd >= 0)
			ac_fs_close(fd);
		return rc;
	}
	*out_fd = fd;
	return 0;
}

int ac_lock_session(int *out_fd, const char *sessions_dir, const char *id, bool exclusive)
{
	char name[AC_SESSION_ID_MAX + sizeof(".lock")];
	int dir_fd, locks_fd = -1, fd = -1, rc = 0;

	*out_fd = -1;
	if ((rc = ac_session_id_check(id)))
		return rc;
	snprintf(name, sizeof(name), "%s.lock", id);
	if ((dir_fd = ac_fs_open(sessions_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)) < 0)
		return errno == ENOENT ? 0 : ac_error_errno(errno, "%s: cannot open", sessions_dir);
	if (ac_fs_mkdirat(dir_fd, ".locks", 0755) != 0 && errno != EEXIST) {
		rc = ac_error_errno(errno, "%s/.locks: cannot create", sessions_dir);
		goto done;
	}
	if ((locks_fd = ac_fs_openat(dir_fd, ".locks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0)) < 0 ||
	    (fd = ac_fs_openat(locks_fd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
		rc = ac_error_errno(errno, "%s/.locks/%s: cannot open", sessions_dir, name);
		goto done;
	}
	while (ac_fs_flock(fd, exclusive ? LOCK_EX | LOCK_NB : LOCK_SH) != 0) {
		if (errno == EINTR)
			continue;
		/* Some network file systems have no flock: no guard there. */
		if (errno == ENOLCK || errno == EOPNOTSUPP)
			break;
		rc = errno == EWOULDBLOCK
			     ? ac_error_set(AC_EBUSY, "session %s: an operator action (a compaction "
					    "or a rollback) is working on it", id)
			     : ac_error_errno(errno, "%s/.locks/%s: flock", sessions_dir, name);
		goto done;
	}
	*out_fd = fd;
	fd = -1;
done:
	if (fd >= 0)
		ac_fs_close(fd);
	if (locks_fd >= 0)
		ac_fs_close(locks_fd);
	ac_fs_close(dir_fd);
	return rc;
}

typedef struct {
	bool exists;
	bool stale;
	long pid;     /* 0 when the file holds no pid */
	int64_t age_ms;
	ino_t ino;
	bool foreign;             /* held on another host, boot or pid namespace */
	bool torn;                /* agentctl's holder text cut short: its writer died
				   * in the one write that makes it */
	holder_identity identity; /* empty fields: a pid-only lock */
} holder_info;

/* "host=...", "boot=..." and "pidns=..." lines after the pid. */
static void parse_identity(holder_identity *out, char *text)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *value = strchr(line, '=');
		char *field = NULL;
		size_t size = 0;

		if (!value)
			continue;
		*value++ = '\0';
		if (!strcmp(line, "host"))
			field = out->host, size = sizeof(out->host);
		else if (!strcmp(line, "boot"))
			field = out->boot, size = sizeof(out->boot);
		else if (!strcmp(line, "pidns"))
			field = out->pidns, size = sizeof(out->pidns);
		if (!field)
			continue;
		snprintf(field, size, "%s", value);
		/* The file is anyone's to write: what reaches an error line is
		 * kept to the characters a host name may hold. */
		for (char *c = field; *c; c++)
			if (!isalnum((unsigned char)*c) && !strchr(".-_:", *c))
				*c = '?';
	}
}

/* A lock names its holder's host: when any part differs from ours, the pid
 * is not ours to test. A lock without a host (the spec's pid-only lock) is
 * judged as local, as the spec's writers expect. */
static bool is_foreign(const holder_identity *holder)
{
	const holder_identity *us = our_identity();

	if (!holder->host[0])
		return false;
	return strcmp(holder->host, us->host) != 0 || strcmp(holder->boot, us->boot) != 0 ||
	       strcmp(holder->pidns, us->pidns) != 0;
}

/* Judges the holder read from the lock file. */
static void judge_holder(holder_info *out, int stale_ms, int foreign_stale_ms)
{
	/* A torn identity says nothing of where its writer ran: judged as
	 * local (the simulator found a torn "boot=" line taken for another
	 * machine's, which held every writer off for foreignStaleMs). */
	out->foreign = !out->torn && is_foreign(&out->identity);
	if (out->foreign)
		out->stale = out->age_ms > foreign_stale_ms;
	else if (out->pid > 0 && !AC_MUTATION("lock_dead_holder_kept") &&
		 ac_fs_kill((pid_t)out->pid, 0) != 0 && errno == ESRCH)
		out->stale = true;
	else if (out->age_ms > stale_ms)
		out->stale = true;
	/* A writer writes its pid right after creating the file, so an empty
	 * lock that is a second old belongs to a writer that died in between;
	 * so does one whose text stops short. */
	else if ((out->pid <= 0 || out->torn) && out->age_ms > 1000)
		out->stale = true;
}

static void inspect_holder(holder_info *out, const char *lock_path, int stale_ms,
			   int foreign_stale_ms)
{
	char text[512] = {0};
	char *rest;
	struct stat st;
	ssize_t n;
	int fd;

	memset(out, 0, sizeof(*out));
	/* O_NONBLOCK: a FIFO planted at the lock path must not hang us. */
	fd = ac_fs_open(lock_path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
	if (fd < 0) {
		/* A symlink planted at the lock path is never a valid lock. */
		out->exists = errno != ENOENT;
		out->stale = errno == ELOOP;
		return;
	}
	out->exists = true;
	if (ac_fs_fstat(fd, &st) == 0) {
		struct timespec now;

		if (!S_ISREG(st.st_mode)) {
			/* Nor is anything but a regular file (a FIFO, a folder). */
			out->stale = true;
			out->ino = st.st_ino;
			ac_fs_close(fd);
			return;
		}

		ac_fs_clock_gettime(CLOCK_REALTIME, &now);
		out->ino = st.st_ino;
		out->age_ms = ((int64_t)now.tv_sec - st.st_mtim.tv_sec) * 1000 +
			      (now.tv_nsec - st.st_mtim.tv_nsec) / 1000000;
	}
	n = ac_fs_read(fd, text, sizeof(text) - 1);
	ac_fs_close(fd);
	if (n > 0) {
		out->pid = strtol(text, &rest, 10);
		/* agentctl's text ends with its "pidns=" line; the spec's bare
		 * pid has no identity lines at all. */
		out->torn = strstr(text, "\nhost=") &&
			    (!strstr(text, "\npidns=") || text[n - 1] != '\n');
		parse_identity(&out->identity, rest);
	}
	judge_holder(out, stale_ms, foreign_stale_ms);
}

/* Moves a stale lock aside and deletes it. If what we moved is not the
 * file we judged (its holder was replaced in between), we put it back
 * without overwriting anything. */
static void break_stale(const char *lock_path, ino_t judged_ino)
{
	char aside[4096];
	struct stat st;

	snprintf(aside, sizeof(aside), "%s.stale.%ld", lock_path, (long)ac_fs_getpid());
	if (ac_fs_rename(lock_path, aside) != 0)
		return;
	if (ac_fs_lstat(aside, &st) == 0 && (judged_ino == 0 || st.st_ino == judged_ino)) {
		ac_fs_unlink(aside);
		return;
	}
	if (ac_fs_link(aside, lock_path) != 0 && errno != EEXIST)
		ac_fs_rename(aside, lock_path);
	ac_fs_unlink(aside);
}

static int create_lock(ac_lock *lock)
{
	const holder_identity *us = our_identity();
	char holder_text[512];
	struct stat st;
	int n, fd;

	fd = ac_fs_open(lock->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* One write: a reader sees the pid line whole or nothing. */
	n = snprintf(holder_text, sizeof(holder_text), "%ld\nhost=%s\nboot=%s\npidns=%s\n",
		     (long)ac_fs_getpid(), us->host, us->boot, us->pidns);
	if (n < 0 || (size_t)n >= sizeof(holder_text))
		n = snprintf(holder_text, sizeof(holder_text), "%ld\n", (long)ac_fs_getpid());
	errno = 0;
	if (ac_fs_write(fd, holder_text, (size_t)n) != n || ac_fs_fstat(fd, &st) != 0) {
		int err = errno ? errno : EIO;

		ac_fs_unlink(lock->path);
		ac_fs_close(fd);
		return -err;
	}
	lock->fd = fd;
	lock->dev = st.st_dev;
	lock->ino = st.st_ino;
	return 0;
}

int ac_lock_acquire(ac_lock *out, const char *lock_path, const ac_lock_options *opts)
{
	ac_lock_options defaults;
	ac_lock lock = {.fd = -1, .guard_fd = -1};
	holder_info holder = {0};
	unsigned round = 0;
	int64_t deadline;
	int rc;

	if (!opts) {
		ac_lock_options_init(&defaults);
		opts = &defaults;
	}
	if ((rc = ac_struct_version_check("ac_lock_options", opts->version, AC_LOCK_OPTIONS_VERSION,
					  "AC_LOCK_OPTIONS_INIT")))
		return rc;
	deadline = monotonic_ms() + opts->timeout_ms;
	lock.path = strdup(lock_path);
	if (!lock.path)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = open_guard(&lock.guard_fd, lock_path)) ||
	    (rc = take_guard(lock.guard_fd, lock_path, deadline)))
		goto done;
	for (;;) {
		int err = -create_lock(&lock);

		if (err == 0)
			break;
		if (err != EEXIST) {
			rc = ac_error_errno(err, "%s: cannot create the lock file", lock_path);
			goto done;
		}
		inspect_holder(&holder, lock_path, opts->stale_ms, opts->foreign_stale_ms);
		if (holder.exists && holder.stale) {
			if (opts->before_break)
				opts->before_break(opts->before_break_ctx);
			break_stale(lock_path, holder.ino);
			lock.broke_stale = true;
			continue;
		}
		if (monotonic_ms() >= deadline) {
			rc = holder.foreign
				     ? ac_error_set(AC_EBUSY,
						    "%s: held by pid %ld on host %s for %lld ms "
						    "(broken only after %d ms: lock.foreignStaleMs); "
						    "waited %d ms",
						    lock_path, holder.pid, holder.identity.host,
						    (long long)holder.age_ms, opts->foreign_stale_ms,
						    opts->timeout_ms)
				     : ac_error_set(AC_EBUSY,
						    "%s: held by pid %ld for %lld ms; waited %d ms",
						    lock_path, holder.pid, (long long)holder.age_ms,
						    opts->timeout_ms);
			goto done;
		}
		backoff(&round);
	}
	*out = lock;
	return 0;
done:
	ac_lock_release(&lock);
	return rc;
}

void ac_lock_release(ac_lock *lock)
{
	struct stat st;

	if (lock->fd >= 0) {
		/* Unlink only our own file: if ours was broken and replaced, the
		 * new one belongs to a live writer. */
		if (ac_fs_lstat(lock->path, &st) == 0 && st.st_dev == lock->dev &&
		    st.st_ino == lock->ino)
			ac_fs_unlink(lock->path);
		ac_fs_close(lock->fd);
	}
	if (lock->guard_fd >= 0)
		ac_fs_close(lock->guard_fd); /* drops the flock */
	free(lock->path);
	lock->path = NULL;
	lock->fd = lock->guard_fd = -1;
}
