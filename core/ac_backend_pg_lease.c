/* A lease on the PostgreSQL store (ac_backend_pg_lease): a session-level
 * advisory lock on the backend's own connection, so the server lets it go
 * the moment that connection ends, the holder's death included. */
#include "ac_backend_pg_impl.h"

#include "ac_backend_pg.h"
#include "ac_error.h"

#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Reads what the server sent an idle connection, without waiting: its
 * goodbye (a FATAL message), then the end of the stream that marks the
 * connection bad, come in separate reads. */
static void read_what_came(PGconn *conn)
{
	struct pollfd fd = {sym_PQsocket(conn), POLLIN, 0};

	for (int i = 0; i < 4 && fd.fd >= 0 && poll(&fd, 1, 0) > 0; i++)
		if (!sym_PQconsumeInput(conn) || sym_PQstatus(conn) == CONNECTION_BAD)
			break;
}

int ac_backend_pg_lease(const ac_backend *backend, bool *out_held, const char *name)
{
	ac_backend_pg *b;
	PGresult *res = NULL;
	const char *values[2];
	int rc;

	*out_held = false;
	if (!backend || !backend->name || strcmp(backend->name, "pg") != 0)
		return ac_error_set(AC_EINVAL, "lease %s: not a PostgreSQL backend", name);
	b = backend->impl;
	/* A connection the server ended says so only when read: what it sent
	 * is read now (never waiting), so a dead one is made again below
	 * instead of passing for the holder. */
	if (b->pg->conn && b->pg->pid == getpid())
		read_what_came(b->pg->conn);
	if (!ac_pg_conn(b->pg, &rc))
		return rc;
	/* Taken on this very connection: still ours. A reconnection lost it
	 * (the server released it with the old session), so it is tried
	 * again; trying on a connection that holds it would only stack it. */
	if (b->leased_on && b->leased_on == b->pg->connects && !strcmp(b->lease_name, name)) {
		*out_held = true;
		return 0;
	}
	b->leased_on = 0;
	values[0] = name;
	values[1] = b->pg->schema;
	/* A connection the server dropped is found dead only by a statement:
	 * once more, on the connection ac_pg_conn() makes again. */
	for (int attempt = 0; attempt < 2; attempt++)
		if ((rc = ac_pg_exec(b->pg, &res, name,
				     "SELECT pg_try_advisory_lock(hashtext($1 || ' ' || $2))", 2,
				     values, NULL)) != AC_EIO)
			break;
	if (rc)
		return rc;
	*out_held = !strcmp(ac_pg_text(res, 0, 0), "t");
	if (*out_held) {
		b->leased_on = b->pg->connects;
		snprintf(b->lease_name, sizeof(b->lease_name), "%s", name);
	}
	sym_PQclear(res);
	return 0;
}

int ac_backend_pg_hold_session(const ac_backend *backend, const char *session_id, bool hold)
{
	const char *values[2];
	ac_backend_pg *b;
	int rc;

	if (!backend || !backend->name || strcmp(backend->name, "pg") != 0)
		return ac_error_set(AC_EINVAL, "session %s: not a PostgreSQL backend", session_id);
	b = backend->impl;
	values[0] = session_id;
	values[1] = b->pg->schema;
	rc = ac_pg_exec(b->pg, NULL, "the session's operator lock",
			hold ? "SELECT pg_advisory_lock_shared("
			       AC_BACKEND_PG_SESSION_LOCK_KEY("$1", "$2") ")"
			     : "SELECT pg_advisory_unlock_shared("
			       AC_BACKEND_PG_SESSION_LOCK_KEY("$1", "$2") ")",
			2, values, NULL);
	return rc;
}
