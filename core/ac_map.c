/* Read-only file mappings, with SIGBUS on them caught per thread. */
#include "ac_map.h"

#include "ac_error.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int ac_map_file(ac_map *out, int fd, uint64_t offset, uint64_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t skip = offset % (uint64_t)(page > 0 ? page : 4096);
	void *base;

	memset(out, 0, sizeof(*out));
	if (len == 0)
		return ac_error_set(AC_EINVAL, "cannot map an empty range");
	if (len + skip > SIZE_MAX)
		return ac_error_set(AC_ENOMEM, "cannot map %llu bytes", (unsigned long long)len);
	base = mmap(NULL, (size_t)(len + skip), PROT_READ, MAP_SHARED, fd,
		    (off_t)(offset - skip));
	if (base == MAP_FAILED)
		return ac_error_errno(errno, "cannot map the file");
	out->base = base;
	out->base_len = (size_t)(len + skip);
	out->data = (const char *)((uintptr_t)base + skip - offset);
	out->offset = offset;
	out->len = (size_t)len;
	return 0;
}

void ac_map_release(ac_map *m)
{
	if (m->base)
		munmap(m->base, m->base_len);
	memset(m, 0, sizeof(*m));
}

/* The guarded call running on this thread, if any. */
typedef struct {
	sigjmp_buf jump;
	const char *lo, *hi; /* the mapping's bytes */
} guard;

static _Thread_local guard *volatile current;
/* Where the fault was; static, so that it is known after siglongjmp. */
static _Thread_local const char *volatile fault_at;

static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t users;
static struct sigaction previous;

static void on_sigbus(int sig, siginfo_t *info, void *uctx)
{
	guard *g = current;
	const char *addr = info ? (const char *)info->si_addr : NULL;
	struct sigaction dfl;

	/* si_code > 0: a fault of this thread, not a SIGBUS sent by kill(). */
	if (g && info && info->si_code > 0 && addr >= g->lo && addr < g->hi) {
		fault_at = addr;
		current = NULL;
		siglongjmp(g->jump, 1);
	}
	/* Not ours: as the handler before would have had it. */
	if (previous.sa_flags & SA_SIGINFO) {
		previous.sa_sigaction(sig, info, uctx);
		return;
	}
	if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
		return;
	}
	if (previous.sa_handler == SIG_IGN && !(info && info->si_code > 0))
		return; /* a sent one, ignored as before */
	/* The default action (a fault cannot be ignored): end the process
	 * as SIGBUS does. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGBUS, &dfl, NULL);
	raise(SIGBUS);
}

int ac_map_guard_begin(void)
{
	int rc = 0;

	pthread_mutex_lock(&install_lock);
	if (users == 0) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, &previous) != 0)
			rc = ac_error_errno(errno, "cannot catch SIGBUS");
	}
	if (rc == 0)
		users++;
	pthread_mutex_unlock(&install_lock);
	return rc;
}

void ac_map_guard_end(void)
{
	pthread_mutex_lock(&install_lock);
	if (users > 0 && --users == 0)
		sigaction(SIGBUS, &previous, NULL);
	pthread_mutex_unlock(&install_lock);
}

int ac_map_guarded(const ac_map *m, int (*fn)(void *arg), void *arg, bool *out_faulted,
		   uint64_t *out_fault)
{
	guard g;
	sigset_t bus, old;
	int rc;

	*out_faulted = false;
	g.lo = m->data + m->offset;
	g.hi = g.lo + m->len;
	/* A fault while SIGBUS is blocked would end the process whatever
	 * the handler: let it through on this thread for the call. */
	sigemptyset(&bus);
	sigaddset(&bus, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &bus, &old);
	if (sigsetjmp(g.jump, 0) == 0) {
		current = &g;
		rc = fn(arg);
		current = NULL;
	} else {
		*out_faulted = true;
		*out_fault = m->offset + (uint64_t)(fault_at - (m->data + m->offset));
		rc = 0;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int ac_map_fault_error(int fd, const char *path, uint64_t offset)
{
	struct stat st;

	/* A page the disk could not read faults too: not a shrink. */
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > offset)
		return ac_error_errno(EIO, "%s: read at byte %llu", path,
				      (unsigned long long)offset);
	return ac_error_set(AC_EIO, "%s: the file shrank while being read (at byte %llu)", path,
			    (unsigned long long)offset);
}
