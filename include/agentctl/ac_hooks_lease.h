/* Which of the dashboards open on one workspace runs hooks.onStatusChange.
 *
 * Every dashboard sees every change of state; the hook must run once. The
 * one that holds the lease runs it; the others leave it alone, and take
 * the lease over when its holder goes (quits, crashes, is killed): the
 * kernel or the server releases it then, nobody has to clean up.
 *
 * On files the lease is flock(2) on <workspace>/.agent/hooks.lock, whose
 * text says who holds it ("<pid> <host>"); the descriptor is close-on-exec,
 * so a hook the holder started never keeps it. On a PostgreSQL store it is
 * the backend's session-level advisory lock "agentctl hooks"
 * (ac_backend_pg_lease()), whatever host each dashboard runs on.
 *
 * When the lease cannot be had at all (a read-only workspace folder, a
 * file system without flock, the database unreachable) the caller runs
 * the hooks as if it held it: a hook run twice is better than a page
 * never sent. Not this module's business: running the hooks (ac_hooks.h)
 * and when to try (the dashboard tries again while it does not hold it). */
#ifndef AC_HOOKS_LEASE_H
#define AC_HOOKS_LEASE_H

#include "ac_backend.h"

typedef struct ac_hooks_lease ac_hooks_lease;

typedef enum {
	AC_HOOKS_LEASE_HELD,      /* this process runs the hooks */
	AC_HOOKS_LEASE_ELSEWHERE, /* another process does */
	AC_HOOKS_LEASE_NONE,      /* it cannot be had: run them here too */
} ac_hooks_lease_state;

/* The lease of the workspace at root (borrowed: files) or, when store is
 * a PostgreSQL backend (borrowed; used by one thread, and must outlive
 * the lease), of that database. Takes nothing yet. 0 or AC_ENOMEM. */
int ac_hooks_lease_new(ac_hooks_lease **out, const char *root, const ac_backend *store);

/* Drops the lease (closes the lock file; the database's lock goes with
 * the backend's connection). */
void ac_hooks_lease_free(ac_hooks_lease *lease);

/* Takes the lease when it is free, without waiting; when held already,
 * checks it still is (a database connection made again has lost it).
 * Cheap: one flock(2) on files (none once held), one statement on the
 * database. */
ac_hooks_lease_state ac_hooks_lease_take(ac_hooks_lease *lease);

/* After ac_hooks_lease_take(): who holds it (ELSEWHERE: "pid 123 on
 * host", or "" when the holder does not say), or why it cannot be had
 * (NONE). Borrowed from lease until the next take. */
const char *ac_hooks_lease_text(const ac_hooks_lease *lease);

#endif
