/* The PostgreSQL checkpoint provider: one row per checkpoint in the
 * checkpoints table (ac_pg_schema.c, version 2), keyed as the files are by
 * session and checkpoint id, with the document as json (text-exact:
 * unknown keys, their order and every number as written) and the header
 * columns a listing needs, so list_headers never reads a document.
 *
 * A version belongs to one checkpoint of a session (a constraint): of two
 * hosts saving the same version, the second gets AC_ECONFLICT. Every save
 * and removal notifies listeners (kind "checkpoint") in its own statement. */
#include "ac_checkpoint.h"

#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_backend_pg_impl.h"
#include "ac_pg.h"
#include "ac_pg_schema.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	ac_checkpoint_store base;
	ac_pg *pg;
} pg_store;

/* Names the checkpoint too ($2), so a live view knows what changed. */
#define NOTIFY_CHECKPOINT(session_param)                                                   \
	"SELECT pg_notify('agentctl', json_build_object('kind', 'checkpoint', 'tenant', '',"   \
	" 'session', " session_param ", 'id', $2::text)::text) FROM done"

static int not_found(const char *session_id, const char *checkpoint_id)
{
	return ac_error_set(AC_ENOTFOUND, "checkpoint '%s' of session '%s' not found",
			    checkpoint_id, session_id);
}

static int pg_save(ac_checkpoint_store *store, const json_t *doc)
{
	pg_store *p = (pg_store *)store;
	ac_checkpoint_header h;
	char version[24], messages[24];
	size_t text_len = 0;
	char *text = NULL;
	const char *values[9];
	int lengths[9] = {0}, formats[9] = {0};
	int rc;

	if ((rc = ac_checkpoint_header_get(&h, doc)))
		return rc;
	/* Numbers jansson cannot hold are written back as they were read. */
	if (!(text = ac_json_exact_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER, &text_len))) {
		ac_checkpoint_header_clear(&h);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if (text_len > (size_t)INT_MAX / 2 || h.parent_id_len > (size_t)INT_MAX / 2) {
		rc = ac_error_set(AC_EINVAL, "checkpoint '%s': %zu bytes is more than the store takes",
				  h.checkpoint_id, text_len);
		goto done;
	}
	snprintf(version, sizeof(version), "%" PRId64, h.version);
	snprintf(messages, sizeof(messages), "%zu", h.messages);
	values[0] = ac_checkpoint_session(doc);
	values[1] = h.checkpoint_id;
	values[2] = version;
	values[3] = h.node_id;
	values[4] = h.created_at;
	values[5] = h.parent_id; /* bytes: it may hold NUL */
	lengths[5] = (int)h.parent_id_len;
	formats[5] = 1;
	values[6] = messages;
	values[7] = h.tombstone ? "t" : "f";
	values[8] = text;
	lengths[8] = (int)text_len;
	rc = ac_pg_exec_bytes(p->pg, NULL, "saving a checkpoint",
			      "WITH done AS (INSERT INTO checkpoints (session_id, checkpoint_id,"
			      " version, node_id, created_at, parent_id, messages, tombstone,"
			      " document) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
			      " ON CONFLICT (session_id, checkpoint_id) DO UPDATE SET"
			      " version = EXCLUDED.version, node_id = EXCLUDED.node_id,"
			      " created_at = EXCLUDED.created_at, parent_id = EXCLUDED.parent_id,"
			      " messages = EXCLUDED.messages, tombstone = EXCLUDED.tombstone,"
			      " document = EXCLUDED.document, saved_at = now() RETURNING 1) "
			      NOTIFY_CHECKPOINT("$1"),
			      9, values, lengths, formats, false);
	if (rc == AC_ECONFLICT)
		rc = ac_error_set(AC_ECONFLICT,
				  "checkpoint '%s' of session '%s': version %s is another "
				  "checkpoint's already",
				  h.checkpoint_id, values[0], version);
done:
	free(text);
	ac_checkpoint_header_clear(&h);
	return rc;
}

/* Appends the documents of res (column 0) to array; one that cannot be
 * read is reported and skipped, as the file provider skips a bad file. */
static int append_documents(json_t *array, pg_store *p, const PGresult *res)
{
	for (int row = 0; row < sym_PQntuples(res); row++) {
		json_t *doc = NULL;
		int rc = ac_json_exact_load(&doc, sym_PQgetvalue(res, row, 0),
					    (size_t)sym_PQgetlength(res, row, 0), 0,
					    "stored checkpoint");

		if (rc == AC_ENOMEM)
			return rc;
		if (rc == 0 && (rc = ac_checkpoint_validate(doc)) != 0)
			ac_error_set(AC_ECORRUPT, "stored checkpoint: %s", ac_error_last());
		if (rc) {
			json_decref(doc);
			if (p->base.problem)
				p->base.problem("stored checkpoint", ac_error_last(),
						p->base.problem_ctx);
			continue;
		}
		if (json_array_append_new(array, doc))
			return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

static int pg_list(ac_checkpoint_store *store, json_t **out, const ac_checkpoint_filter *filter)
{
	pg_store *p = (pg_store *)store;
	const char *values[2] = {filter->session_id, filter->include_tombstones ? "t" : "f"};
	PGresult *res = NULL;
	json_t *array;
	int rc;

	if ((rc = ac_pg_exec(p->pg, &res, "listing checkpoints",
			     "SELECT document FROM checkpoints WHERE session_id = $1"
			     " AND ($2 OR NOT tombstone) ORDER BY version, checkpoint_id COLLATE \"C\"",
			     2, values, NULL)))
		return rc;
	if (!(array = json_array()))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	else if ((rc = append_documents(array, p, res)))
		json_decref(array);
	else
		*out = array;
	sym_PQclear(res);
	return rc;
}

/* *out: the one document res holds, or AC_ENOTFOUND. */
static int one_document(json_t **out, pg_store *p, PGresult *res, const char *session_id,
			const char *checkpoint_id)
{
	json_t *array = json_array();
	int rc;

	if (!array)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = append_documents(array, p, res)) == 0) {
		if (json_array_size(array) == 0)
			rc = checkpoint_id ? not_found(session_id, checkpoint_id)
					   : ac_error_set(AC_ENOTFOUND,
							  "session '%s' has no checkpoint", session_id);
		else
			*out = json_incref(json_array_get(array, 0));
	}
	json_decref(array);
	return rc;
}

static int pg_latest(ac_checkpoint_store *store, json_t **out, const char *session_id)
{
	pg_store *p = (pg_store *)store;
	const char *values[1] = {session_id};
	PGresult *res = NULL;
	int rc;

	/* The last of the version order without tombstones, as list gives it. */
	if ((rc = ac_pg_exec(p->pg, &res, "reading the latest checkpoint",
			     "SELECT document FROM checkpoints WHERE session_id = $1 AND NOT tombstone"
			     " ORDER BY version DESC, checkpoint_id COLLATE \"C\" DESC LIMIT 1",
			     1, values, NULL)))
		return rc;
	rc = one_document(out, p, res, session_id, NULL);
	sym_PQclear(res);
	return rc;
}

static int pg_get(ac_checkpoint_store *store, json_t **out, const char *session_id,
		  const char *checkpoint_id)
{
	pg_store *p = (pg_store *)store;
	const char *values[2] = {session_id, checkpoint_id};
	PGresult *res = NULL;
	int rc;

	if ((rc = ac_pg_exec(p->pg, &res, "reading a checkpoint",
			     "SELECT document FROM checkpoints WHERE session_id = $1"
			     " AND checkpoint_id = $2",
			     2, values, NULL)))
		return rc;
	rc = one_document(out, p, res, session_id, checkpoint_id);
	sym_PQclear(res);
	return rc;
}

static int pg_remove(ac_checkpoint_store *store, const char *session_id,
		     const char *checkpoint_id)
{
	pg_store *p = (pg_store *)store;
	const char *values[2] = {session_id, checkpoint_id};
	PGresult *res = NULL;
	int rc;

	if ((rc = ac_pg_exec(p->pg, &res, "removing a checkpoint",
			     "WITH done AS (DELETE FROM checkpoints WHERE session_id = $1"
			     " AND checkpoint_id = $2 RETURNING 1) " NOTIFY_CHECKPOINT("$1"),
			     2, values, NULL)))
		return rc;
	if (sym_PQntuples(res) == 0)
		rc = not_found(session_id, checkpoint_id);
	sym_PQclear(res);
	return rc;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A bytea cell in text form ("\x4142") as a NUL-terminated copy. */
static int unhex(char **out, size_t *out_len, const char *text)
{
	size_t n = strlen(text);
	char *bytes;

	if (n < 2 || text[0] != '\\' || text[1] != 'x' || n % 2)
		return ac_error_set(AC_EIO, "stored checkpoint: parent id not in bytea hex form");
	n = (n - 2) / 2;
	if (!(bytes = malloc(n + 1)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit(text[2 + 2 * i]), lo = hex_digit(text[3 + 2 * i]);

		if (hi < 0 || lo < 0) {
			free(bytes);
			return ac_error_set(AC_EIO, "stored checkpoint: parent id not in bytea hex form");
		}
		bytes[i] = (char)(hi << 4 | lo);
	}
	bytes[n] = '\0';
	*out = bytes;
	*out_len = n;
	return 0;
}

/* Row row of a header query as a header. */
static int header_of(ac_checkpoint_header *h, const PGresult *res, int row)
{
	int rc = 0;

	memset(h, 0, sizeof(*h));
	if (!(h->checkpoint_id = strdup(sym_PQgetvalue(res, row, 0))) ||
	    !(h->node_id = strdup(sym_PQgetvalue(res, row, 1))) ||
	    (!sym_PQgetisnull(res, row, 2) && !(h->created_at = strdup(sym_PQgetvalue(res, row, 2)))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	if (!rc && !sym_PQgetisnull(res, row, 3))
		rc = unhex(&h->parent_id, &h->parent_id_len, sym_PQgetvalue(res, row, 3));
	if (rc) {
		ac_checkpoint_header_clear(h);
		return rc;
	}
	h->version = (int64_t)strtoll(sym_PQgetvalue(res, row, 4), NULL, 10);
	h->messages = (size_t)ac_pg_u64(res, row, 5);
	h->tombstone = !strcmp(sym_PQgetvalue(res, row, 6), "t");
	return 0;
}

static int pg_list_headers(ac_checkpoint_store *store, ac_checkpoint_header_list *out,
			   const ac_checkpoint_filter *filter)
{
	pg_store *p = (pg_store *)store;
	const char *values[2] = {filter->session_id, filter->include_tombstones ? "t" : "f"};
	ac_checkpoint_header h;
	PGresult *res = NULL;
	int rc;

	if ((rc = ac_pg_exec(p->pg, &res, "listing checkpoint headers",
			     "SELECT checkpoint_id, node_id, created_at, parent_id, version, messages,"
			     " tombstone FROM checkpoints WHERE session_id = $1"
			     " AND ($2 OR NOT tombstone) ORDER BY version, checkpoint_id COLLATE \"C\"",
			     2, values, NULL)))
		return rc;
	for (int row = 0; row < sym_PQntuples(res) && !rc; row++)
		if (!(rc = header_of(&h, res, row)))
			rc = ac_checkpoint_header_list_take(out, &h);
	sym_PQclear(res);
	return rc;
}

static void pg_free(ac_checkpoint_store *store)
{
	pg_store *p = (pg_store *)store;

	ac_pg_close(p->pg);
	free(p);
}

static int pg_sessions(ac_checkpoint_store *store, char ***out, size_t *out_n)
{
	pg_store *p = (pg_store *)store;
	PGresult *res = NULL;
	int rc;

	*out = NULL;
	*out_n = 0;
	if ((rc = ac_pg_exec(p->pg, &res, "listing checkpointed sessions",
			     "SELECT DISTINCT session_id FROM checkpoints ORDER BY 1", 0, NULL, NULL)))
		return rc;
	rc = ac_backend_pg_names(out, out_n, res);
	sym_PQclear(res);
	return rc;
}

static const ac_checkpoint_store_ops pg_ops = {
	.version = AC_CHECKPOINT_STORE_OPS_VERSION,
	.name = "postgresql",
	.save = pg_save,
	.list = pg_list,
	.latest = pg_latest,
	.get = pg_get,
	.remove = pg_remove,
	.free = pg_free,
	.list_headers = pg_list_headers,
	.sessions = pg_sessions,
};

int ac_checkpoint_store_pg_new(ac_checkpoint_store **out, const char *url, const char *schema)
{
	pg_store *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_pg_open(&p->pg, url, schema)) || (rc = ac_pg_schema_migrate(p->pg))) {
		ac_pg_close(p->pg);
		free(p);
		return rc;
	}
	p->base.ops = &pg_ops;
	*out = &p->base;
	return 0;
}
