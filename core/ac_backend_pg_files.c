/* The PostgreSQL backend: memory documents and artifacts, bytes by name.
 * Bytes travel as binary parameters and results (bytea), so any byte,
 * NUL included, is kept as it is. */
#include "ac_backend_pg_impl.h"

#include "ac_backend_check.h"

#include "ac_error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* name is checked unless listing (the list has none). */
static int check_memo(const char *tenant, const char *owner, const char *scope, bool listing,
		      const char *name)
{
	int rc;

	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("owner", owner)) || (rc = ac_backend_scope_check(scope)) ||
	    (!listing && (rc = ac_backend_id_check("memo name", name))))
		return rc;
	return 0;
}

/* tool_call_id is checked unless listing. */
static int check_artifact(const char *tenant, const char *session_id, bool listing,
			  const char *tool_call_id)
{
	int rc;

	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session_id)) ||
	    (!listing && (rc = ac_backend_id_check("tool call id", tool_call_id))))
		return rc;
	return 0;
}

static int check_size(size_t len, const char *what)
{
	/* libpq's lengths are ints; bytea holds up to 1 GB anyway. */
	if (len > (size_t)INT_MAX / 2)
		return ac_error_set(AC_EINVAL, "%s: %zu bytes is more than the store takes", what, len);
	return 0;
}

/* The single bytea cell of res as an allocated, NUL-terminated copy. */
static int copy_bytes(char **out, size_t *out_len, const PGresult *res)
{
	size_t len = (size_t)sym_PQgetlength(res, 0, 0);
	char *copy = malloc(len + 1);

	if (!copy)
		return ac_error_set(AC_ENOMEM, "out of memory");
	memcpy(copy, sym_PQgetvalue(res, 0, 0), len);
	copy[len] = '\0';
	*out = copy;
	*out_len = len;
	return 0;
}

/* ---- memo ---- */

static int memo_read(void *impl, char **out, size_t *out_len, const char *tenant,
		     const char *owner, const char *scope, const char *name)
{
	ac_backend_pg *b = impl;
	const char *values[4] = {tenant, owner, scope, name};
	PGresult *res = NULL;
	int rc;

	*out = NULL;
	*out_len = 0;
	if ((rc = check_memo(tenant, owner, scope, false, name)) ||
	    (rc = ac_pg_exec_bytes(b->pg, &res, "reading a memo",
				   "SELECT data FROM memos WHERE tenant = $1 AND owner = $2"
				   " AND scope = $3 AND name = $4",
				   4, values, NULL, NULL, true)))
		return rc;
	if (sym_PQntuples(res) == 0)
		rc = ac_backend_memo_missing(tenant, owner, scope, name);
	else
		rc = copy_bytes(out, out_len, res);
	sym_PQclear(res);
	return rc;
}

static int memo_change(ac_backend_pg *b, bool append, const char *tenant, const char *owner,
		       const char *scope, const char *name, const char *data, size_t len)
{
	const char *values[6] = {tenant, owner, scope, name, data ? data : "", b->host};
	int lengths[6] = {0, 0, 0, 0, (int)len, 0}, formats[6] = {0, 0, 0, 0, 1, 0};
	int rc;

	if ((rc = check_memo(tenant, owner, scope, false, name)) || (rc = check_size(len, "memo")))
		return rc;
	/* One statement: an append lands whole and once, whoever else appends. */
	return ac_pg_exec_bytes(b->pg, NULL, append ? "appending to a memo" : "writing a memo",
				append ? "WITH w AS ("
					 " INSERT INTO memos (tenant, owner, scope, name, data, host)"
					 " VALUES ($1, $2, $3, $4, $5, $6)"
					 " ON CONFLICT (tenant, owner, scope, name) DO UPDATE"
					 " SET data = memos.data || EXCLUDED.data, updated_at = now(),"
					 " host = EXCLUDED.host RETURNING 1)"
					 " SELECT pg_notify('agentctl', json_build_object('kind', 'memo',"
					 " 'tenant', $1::text, 'session', NULL)::text) FROM w"
				       : "WITH w AS ("
					 " INSERT INTO memos (tenant, owner, scope, name, data, host)"
					 " VALUES ($1, $2, $3, $4, $5, $6)"
					 " ON CONFLICT (tenant, owner, scope, name) DO UPDATE"
					 " SET data = EXCLUDED.data, updated_at = now(),"
					 " host = EXCLUDED.host RETURNING 1)"
					 " SELECT pg_notify('agentctl', json_build_object('kind', 'memo',"
					 " 'tenant', $1::text, 'session', NULL)::text) FROM w",
				6, values, lengths, formats, false);
}

static int memo_write(void *impl, const char *tenant, const char *owner, const char *scope,
		      const char *name, const char *data, size_t len)
{
	return memo_change(impl, false, tenant, owner, scope, name, data, len);
}

static int memo_append(void *impl, const char *tenant, const char *owner, const char *scope,
		       const char *name, const char *data, size_t len)
{
	return memo_change(impl, true, tenant, owner, scope, name, data, len);
}

/* memo.write when the document is as the caller saw it (SHA-256 hex
 * expected, or NULL: none). One statement: under READ COMMITTED an UPDATE
 * that waited for another writer's row lock tests its WHERE again on the
 * row that writer left, and an INSERT that met a concurrent one does
 * nothing, so of writers that saw the same document one writes. */
int ac_backend_pg_memo_write_if(const ac_backend *backend, const char *tenant, const char *owner,
				const char *scope, const char *name, const char *expected,
				const char *data, size_t len)
{
	ac_backend_pg *b = backend->impl;
	const char *values[7] = {tenant, owner, scope, name, data ? data : "", b->host,
				 expected ? expected : ""};
	int lengths[7] = {0, 0, 0, 0, (int)len, 0, 0}, formats[7] = {0, 0, 0, 0, 1, 0, 0};
	PGresult *res = NULL;
	int rc;

	if ((rc = check_memo(tenant, owner, scope, false, name)) || (rc = check_size(len, "memo")))
		return rc;
	rc = ac_pg_exec_bytes(b->pg, &res, "writing a memo",
			      expected ? "WITH w AS ("
					 " UPDATE memos SET data = $5, updated_at = now(), host = $6"
					 " WHERE tenant = $1 AND owner = $2 AND scope = $3 AND name = $4"
					 " AND encode(sha256(data), 'hex') = $7 RETURNING 1)"
					 " SELECT pg_notify('agentctl', json_build_object('kind', 'memo',"
					 " 'tenant', $1::text, 'session', NULL)::text) FROM w"
				       : "WITH w AS ("
					 " INSERT INTO memos (tenant, owner, scope, name, data, host)"
					 " VALUES ($1, $2, $3, $4, $5, $6)"
					 " ON CONFLICT (tenant, owner, scope, name) DO NOTHING"
					 " RETURNING 1)"
					 " SELECT pg_notify('agentctl', json_build_object('kind', 'memo',"
					 " 'tenant', $1::text, 'session', NULL)::text) FROM w",
			      expected ? 7 : 6, values, lengths, formats, false);
	if (rc)
		return rc;
	if (sym_PQntuples(res) != 1)
		rc = ac_error_set(AC_ECONFLICT, "memo %s/%s/%s/%s: %s since it was read", tenant,
				  owner, scope, name,
				  expected ? "written or removed by another" : "written by another");
	sym_PQclear(res);
	return rc;
}

static int memo_list(void *impl, char ***out_names, size_t *out_n, const char *tenant,
		     const char *owner, const char *scope)
{
	ac_backend_pg *b = impl;
	const char *values[3] = {tenant, owner, scope};
	PGresult *res = NULL;
	int rc;

	*out_names = NULL;
	*out_n = 0;
	if ((rc = check_memo(tenant, owner, scope, true, NULL)) ||
	    (rc = ac_pg_exec(b->pg, &res, "listing memos",
			     "SELECT name FROM memos WHERE tenant = $1 AND owner = $2 AND scope = $3"
			     " ORDER BY name COLLATE \"C\"",
			     3, values, NULL)))
		return rc;
	rc = ac_backend_pg_names(out_names, out_n, res);
	sym_PQclear(res);
	return rc;
}

/* ---- artifacts ---- */

static int artifact_write(void *impl, const char *tenant, const char *session_id,
			  const char *tool_call_id, const char *data, size_t len)
{
	ac_backend_pg *b = impl;
	const char *values[4] = {tenant, session_id, tool_call_id, data ? data : ""};
	int lengths[4] = {0, 0, 0, (int)len}, formats[4] = {0, 0, 0, 1};
	int rc;

	if ((rc = check_artifact(tenant, session_id, false, tool_call_id)) ||
	    (rc = check_size(len, "artifact")))
		return rc;
	return ac_pg_exec_bytes(b->pg, NULL, "writing an artifact",
				"WITH w AS ("
				" INSERT INTO artifacts (tenant, session_id, tool_call_id, data)"
				" VALUES ($1, $2, $3, $4)"
				" ON CONFLICT (tenant, session_id, tool_call_id) DO UPDATE"
				" SET data = EXCLUDED.data, created_at = now() RETURNING 1)"
				" SELECT pg_notify('agentctl', json_build_object('kind', 'artifact',"
				" 'tenant', $1::text, 'session', $2::text)::text) FROM w",
				4, values, lengths, formats, false);
}

static int artifact_read(void *impl, char **out, size_t *out_len, const char *tenant,
			 const char *session_id, const char *tool_call_id)
{
	ac_backend_pg *b = impl;
	const char *values[3] = {tenant, session_id, tool_call_id};
	PGresult *res = NULL;
	int rc;

	*out = NULL;
	*out_len = 0;
	if ((rc = check_artifact(tenant, session_id, false, tool_call_id)) ||
	    (rc = ac_pg_exec_bytes(b->pg, &res, "reading an artifact",
				   "SELECT data FROM artifacts WHERE tenant = $1 AND session_id = $2"
				   " AND tool_call_id = $3",
				   3, values, NULL, NULL, true)))
		return rc;
	if (sym_PQntuples(res) == 0)
		rc = ac_error_set(AC_ENOTFOUND, "session %s: no artifact %s", session_id, tool_call_id);
	else
		rc = copy_bytes(out, out_len, res);
	sym_PQclear(res);
	return rc;
}

static int artifact_list(void *impl, char ***out_ids, size_t *out_n, const char *tenant,
			 const char *session_id)
{
	ac_backend_pg *b = impl;
	const char *values[2] = {tenant, session_id};
	PGresult *res = NULL;
	int rc;

	*out_ids = NULL;
	*out_n = 0;
	if ((rc = check_artifact(tenant, session_id, true, NULL)) ||
	    (rc = ac_pg_exec(b->pg, &res, "listing artifacts",
			     "SELECT tool_call_id FROM artifacts WHERE tenant = $1 AND session_id = $2"
			     " ORDER BY tool_call_id COLLATE \"C\"",
			     2, values, NULL)))
		return rc;
	rc = ac_backend_pg_names(out_ids, out_n, res);
	sym_PQclear(res);
	return rc;
}

int ac_backend_pg_artifact_put(ac_backend_pg *b, const char *tenant, const char *session_id,
			       const char *tool_call_id, const char *data, size_t len)
{
	const char *values[4] = {tenant, session_id, tool_call_id, data};
	int lengths[4] = {0, 0, 0, (int)len}, formats[4] = {0, 0, 0, 1};
	PGresult *res = NULL;
	int rc;

	if ((rc = check_size(len, "artifact")))
		return rc;
	/* Kept when already there; then it must hold the same bytes. */
	if ((rc = ac_pg_exec_bytes(b->pg, &res, "storing an artifact",
				   "WITH w AS ("
				   " INSERT INTO artifacts (tenant, session_id, tool_call_id, data)"
				   " VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1)"
				   " SELECT (SELECT count(*) FROM w) = 1"
				   " OR (SELECT data = $4 FROM artifacts WHERE tenant = $1"
				   " AND session_id = $2 AND tool_call_id = $3)",
				   4, values, lengths, formats, false)))
		return rc;
	if (strcmp(sym_PQgetvalue(res, 0, 0), "t") != 0)
		rc = AC_ECONFLICT;
	sym_PQclear(res);
	return rc;
}

void ac_backend_pg_fill_files(ac_backend *b)
{
	/* No stream: a bytea value arrives whole in one result anyway. */
	b->memo = (ac_backend_memo_ops){
		.read = memo_read, .write = memo_write, .append = memo_append, .list = memo_list};
	b->artifact = (ac_backend_artifact_ops){
		.write = artifact_write, .read = artifact_read, .list = artifact_list};
}
