/* The PostgreSQL backend's idempotency keys (ac_backend.h section 9): a
 * session write made under a request id takes the key in its own
 * transaction, so the key is stored exactly when the write is, and a
 * retry (same tenant and id) finds it with the first answer instead of
 * writing again. The requests table (schema 12) keeps the operation, an
 * md5 of the arguments' canonical JSON and the answer; keys older than a
 * day and a half are removed by the writes that add new ones.
 *
 * Not here: the writes themselves (ac_backend_pg.c, _compact.c call
 * request_begin and request_end around theirs). */
#include "ac_backend_pg_impl.h"

#include "ac_backend_check.h"
#include "ac_error.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Kept at least AC_BACKEND_REQUEST_KEEP_S; removed after half as long
 * again, so a retry at the edge of the day still finds its key. */
#define PRUNE_AFTER_S "129600"

static void clear_open(ac_backend_pg *b)
{
	free(b->request_tenant);
	free(b->request_key);
	free(b->request_args);
	b->request_tenant = b->request_key = b->request_args = NULL;
	b->request_op = NULL;
}

void ac_backend_pg_request_free(ac_backend_pg *b)
{
	clear_open(b);
	free(b->request_id);
	b->request_id = NULL;
	json_decref(b->answer);
	b->answer = NULL;
}

static int pg_request_use(void *impl, const char *request_id)
{
	ac_backend_pg *b = impl;
	char *copy = NULL;
	int rc;

	if (request_id && (rc = ac_backend_id_check("request id", request_id)))
		return rc;
	if (request_id && !(copy = strdup(request_id)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	free(b->request_id);
	b->request_id = copy;
	return 0;
}

static int pg_request_answer(void *impl, json_t **out, bool *out_replayed)
{
	ac_backend_pg *b = impl;

	*out = NULL;
	if (out_replayed)
		*out_replayed = false;
	if (!b->answer)
		return ac_error_set(AC_ENOTFOUND, "no write was made under a request id");
	*out = json_incref(b->answer);
	if (out_replayed)
		*out_replayed = b->replayed;
	return 0;
}

/* The arguments as the digest takes them: keys sorted, compact. */
static char *canonical(const json_t *arguments)
{
	return json_dumps(arguments, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

/* Reads tenant's key id: AC_ENOTFOUND, or 0 with *out its answer when it
 * was used for operation with arguments (text), else AC_EINVAL. */
static int lookup(ac_backend_pg *b, json_t **out, const char *tenant, const char *id,
		  const char *operation, const char *arguments)
{
	const char *values[4] = {tenant, id, operation, arguments};
	PGresult *res = NULL;
	json_error_t error;
	int rc;

	*out = NULL;
	if ((rc = ac_pg_exec(b->pg, &res, "reading a request id",
			     "SELECT operation, operation = $3 AND digest = md5($4), result,"
			     " to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
			     " FROM requests WHERE tenant = $1 AND id = $2",
			     4, values, NULL)))
		return rc;
	if (sym_PQntuples(res) == 0)
		rc = ac_error_set(AC_ENOTFOUND, "request id '%s' not used", id);
	else if (strcmp(ac_pg_text(res, 0, 1), "t") != 0)
		rc = ac_error_set(AC_EINVAL, "request id '%s' was used at %s for %s%s: not written "
				  "(a retry repeats the same write; a new write takes a new id)",
				  id, ac_pg_text(res, 0, 3), ac_pg_text(res, 0, 0),
				  strcmp(ac_pg_text(res, 0, 0), operation) ? "" : " with other arguments");
	else if (!(*out = json_loads(ac_pg_text(res, 0, 2), JSON_DECODE_ANY, &error)))
		rc = ac_error_set(AC_ECORRUPT, "request id '%s': its stored answer is not JSON", id);
	sym_PQclear(res);
	return rc;
}

static int pg_request_check(void *impl, json_t **out, const char *tenant, const char *request_id,
			    const char *operation, const json_t *arguments)
{
	char *text = canonical(arguments);
	int rc;

	*out = NULL;
	if (!text)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (!(rc = ac_backend_id_check("tenant", tenant)) &&
	    !(rc = ac_backend_id_check("request id", request_id)))
		rc = lookup(impl, out, tenant, request_id, operation, text);
	free(text);
	return rc;
}

int ac_backend_pg_request_begin(ac_backend_pg *b, bool *out_open, bool *out_replayed,
				const char *tenant, const char *operation, const json_t *arguments)
{
	char *id = b->request_id, *text = NULL;
	const char *values[4];
	PGresult *res = NULL;
	json_t *first = NULL;
	int rc;

	*out_open = *out_replayed = false;
	b->request_id = NULL; /* this call takes it */
	json_decref(b->answer);
	b->answer = NULL;
	b->replayed = false;
	if (!id)
		return 0;
	if (!(text = canonical(arguments)) || !(b->request_tenant = strdup(tenant)) ||
	    !(b->request_key = strdup(id)) || !(b->request_args = strdup(text))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	values[0] = tenant;
	values[1] = id;
	values[2] = operation;
	values[3] = text;
	b->request_op = operation;
	/* Taking the key makes a second process with the same id wait here
	 * until the first commits (then finds the key) or rolls back. */
	if ((rc = ac_pg_begin(b->pg, "taking a request id")) ||
	    (rc = ac_pg_exec(b->pg, &res, "taking a request id",
			     "INSERT INTO requests (tenant, id, operation, digest)"
			     " VALUES ($1, $2, $3, md5($4)) ON CONFLICT (tenant, id) DO NOTHING"
			     " RETURNING 1",
			     4, values, NULL)))
		goto done;
	if (sym_PQntuples(res) == 1) {
		rc = ac_pg_exec(b->pg, NULL, "removing old request ids",
				"DELETE FROM requests WHERE created_at < now() - interval '" PRUNE_AFTER_S
				" seconds'",
				0, NULL, NULL);
		*out_open = rc == 0;
		goto done;
	}
	ac_pg_rollback(b->pg);
	if ((rc = lookup(b, &first, tenant, id, operation, text)) == 0) {
		b->answer = first;
		b->replayed = *out_replayed = true;
	}
done:
	if (rc || !*out_open) {
		if (b->pg->in_transaction)
			ac_pg_rollback(b->pg);
		clear_open(b);
	}
	sym_PQclear(res);
	free(text);
	free(id);
	return rc;
}

/* Test seam: AGENTCTL_TEST_PG_LOSE_ANSWER set, the connection is ended
 * right after a request's COMMIT succeeded, as a server restart or a
 * dropped link does before the answer arrives: the write is stored and the
 * caller is told it failed, which a retry under the same id resolves. */
static int lose_answer(ac_backend_pg *b)
{
	return ac_pg_exec(b->pg, NULL, "recording a request id",
			  "SELECT pg_terminate_backend(pg_backend_pid())", 0, NULL, NULL);
}

int ac_backend_pg_request_defer(ac_backend_pg *b)
{
	if (b->request_key && b->pg->in_transaction)
		ac_pg_rollback(b->pg);
	return 0;
}

int ac_backend_pg_request_end(ac_backend_pg *b, int rc, json_t *answer)
{
	char *text = NULL;
	const char *values[5] = {b->request_tenant, b->request_key, b->request_op, b->request_args,
				 NULL};

	if (!b->request_key) {
		json_decref(answer);
		return rc;
	}
	if (!rc && !(text = json_dumps(answer, JSON_COMPACT | JSON_ENCODE_ANY)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	values[4] = text;
	/* In the write's transaction, or after a deferred one's (compaction):
	 * the key is added then, unless a concurrent retry added it. */
	if (!rc)
		rc = ac_pg_exec(b->pg, NULL, "recording a request id",
				"INSERT INTO requests (tenant, id, operation, digest, result)"
				" VALUES ($1, $2, $3, md5($4), $5::json)"
				" ON CONFLICT (tenant, id) DO UPDATE SET result = EXCLUDED.result"
				" WHERE requests.result IS NULL",
				5, values, NULL);
	if (!rc && b->pg->in_transaction)
		rc = ac_pg_commit(b->pg, "recording a request id");
	if (!rc) {
		b->answer = answer;
		answer = NULL;
		if (getenv("AGENTCTL_TEST_PG_LOSE_ANSWER"))
			rc = lose_answer(b);
	}
	if (rc && b->pg->in_transaction)
		ac_pg_rollback(b->pg);
	json_decref(answer);
	free(text);
	clear_open(b);
	return rc;
}

void ac_backend_pg_fill_request(ac_backend *b)
{
	b->request.use = pg_request_use;
	b->request.answer = pg_request_answer;
	b->request.check = pg_request_check;
}
