/* The hooks lease (ac_hooks_lease.h): flock on .agent/hooks.lock, or the
 * store's own lease when it has one (a database's advisory lock). */
#include "ac_hooks_lease.h"

#include "ac_backend_sys.h"
#include "ac_buf.h"
#include "ac_error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The name of the store's lease (a database's adds its schema). */
#define LEASE_NAME "agentctl hooks"

struct ac_hooks_lease {
	const ac_backend *store; /* a database's lease, or NULL: the file's */
	char *dir;               /* <root>/.agent */
	char *path;              /* <root>/.agent/hooks.lock */
	int fd;                  /* the lock file, open while tried or held */
	bool held;
	char text[256];          /* ac_hooks_lease_text() */
};

int ac_hooks_lease_new(ac_hooks_lease **out, const char *root, const ac_backend *store)
{
	ac_hooks_lease *l = calloc(1, sizeof(*l));
	ac_buf dir = AC_BUF_INIT, path = AC_BUF_INIT;

	*out = NULL;
	if (!l || ac_buf_printf(&dir, "%s/.agent", root ? root : ".") ||
	    ac_buf_printf(&path, "%s/hooks.lock", dir.data)) {
		free(l);
		ac_buf_free(&dir);
		ac_buf_free(&path);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	l->dir = ac_buf_detach(&dir);
	l->path = ac_buf_detach(&path);
	l->fd = -1;
	if (store && store->optional.lease)
		l->store = store;
	*out = l;
	return 0;
}

static void drop(ac_hooks_lease *l)
{
	if (l->fd >= 0)
		close(l->fd); /* releases the flock */
	l->fd = -1;
	l->held = false;
}

void ac_hooks_lease_free(ac_hooks_lease *lease)
{
	if (!lease)
		return;
	drop(lease);
	free(lease->dir);
	free(lease->path);
	free(lease);
}

/* True while the lock file's path still names the file we hold open: one
 * removed (or replaced) under us would let a newcomer lock another. */
static bool still_ours(const ac_hooks_lease *l)
{
	struct stat named, open_one;

	return stat(l->path, &named) == 0 && fstat(l->fd, &open_one) == 0 &&
	       named.st_dev == open_one.st_dev && named.st_ino == open_one.st_ino;
}

static ac_hooks_lease_state none(ac_hooks_lease *l, const char *what, int err)
{
	drop(l);
	snprintf(l->text, sizeof(l->text), "%s %s: %s", what, l->path, strerror(err));
	return AC_HOOKS_LEASE_NONE;
}

/* Who holds it, as the holder wrote it ("<pid> <host>"). */
static void read_holder(ac_hooks_lease *l)
{
	char line[128];
	ssize_t n = pread(l->fd, line, sizeof(line) - 1, 0);
	long pid;
	char host[100];

	l->text[0] = '\0';
	if (n <= 0)
		return;
	line[n] = '\0';
	if (sscanf(line, "%ld %99s", &pid, host) == 2)
		snprintf(l->text, sizeof(l->text), "pid %ld on %s", pid, host);
}

/* Says who holds it, for the others; a read-only file keeps its old text. */
static void write_holder(const ac_hooks_lease *l)
{
	char host[100] = "", line[160];
	int n;

	if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
		snprintf(host, sizeof(host), "?");
	n = snprintf(line, sizeof(line), "%ld %s\n", (long)getpid(), host);
	if (ftruncate(l->fd, 0) == 0 && pwrite(l->fd, line, (size_t)n, 0) != n)
		(void)ftruncate(l->fd, 0);
}

static ac_hooks_lease_state take_file(ac_hooks_lease *l)
{
	for (int round = 0; round < 2; round++) {
		if (l->held && still_ours(l))
			return AC_HOOKS_LEASE_HELD;
		if (l->fd >= 0 && !still_ours(l))
			drop(l); /* removed or replaced: lock what the path names now */
		if (l->fd < 0) {
			if (mkdir(l->dir, 0755) != 0 && errno != EEXIST)
				return none(l, "cannot create the folder of", errno);
			l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
			/* A read-only folder may still hold the file: flock needs
			 * no write access. */
			if (l->fd < 0 && (errno == EROFS || errno == EACCES))
				l->fd = open(l->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			if (l->fd < 0)
				return none(l, "cannot open", errno);
		}
		if (flock(l->fd, LOCK_EX | LOCK_NB) != 0) {
			if (errno != EWOULDBLOCK && errno != EINTR)
				return none(l, "cannot lock", errno);
			read_holder(l);
			return AC_HOOKS_LEASE_ELSEWHERE;
		}
		l->held = true;
		if (still_ours(l)) {
			write_holder(l);
			l->text[0] = '\0';
			return AC_HOOKS_LEASE_HELD;
		}
		drop(l); /* we locked a file just removed: once more */
	}
	snprintf(l->text, sizeof(l->text), "%s keeps being replaced", l->path);
	return AC_HOOKS_LEASE_NONE;
}

static ac_hooks_lease_state take_store(ac_hooks_lease *l)
{
	bool held = false;

	l->text[0] = '\0';
	if (l->store->optional.lease(l->store, &held, LEASE_NAME) != 0) {
		snprintf(l->text, sizeof(l->text), "%s", ac_error_last());
		ac_error_clear();
		l->held = false;
		return AC_HOOKS_LEASE_NONE;
	}
	l->held = held;
	return held ? AC_HOOKS_LEASE_HELD : AC_HOOKS_LEASE_ELSEWHERE;
}

ac_hooks_lease_state ac_hooks_lease_take(ac_hooks_lease *lease)
{
	return lease->store ? take_store(lease) : take_file(lease);
}

const char *ac_hooks_lease_text(const ac_hooks_lease *lease)
{
	return lease->text;
}
