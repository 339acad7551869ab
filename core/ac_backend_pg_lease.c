/* A lease on the PostgreSQL store (ac_backend_pg_lease): a session-level
 * advisory lock on the backend's own connection, so the server lets it go
 * the moment that connection ends, the holder's death included. */
#include "ac_backend_pg_impl.h"

#include "ac_backend_pg.h"
#include "ac_error.h"

#include <string.h>

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
	if (!ac_pg_conn(b->pg, &rc))
		return rc;
	/* Taken on this very connection: still ours. A reconnection lost it
	 * (the server released it with the old session), so it is tried
	 * again; trying on a connection that holds it would only stack it. */
	if (b->leased_on && b->leased_on == b->pg->connects) {
		*out_held = true;
		return 0;
	}
	b->leased_on = 0;
	values[0] = name;
	values[1] = b->pg->schema;
	if ((rc = ac_pg_exec(b->pg, &res, name,
			     "SELECT pg_try_advisory_lock(hashtext($1 || ' ' || $2))", 2, values,
			     NULL)))
		return rc;
	*out_held = !strcmp(ac_pg_text(res, 0, 0), "t");
	if (*out_held)
		b->leased_on = b->pg->connects;
	sym_PQclear(res);
	return 0;
}
