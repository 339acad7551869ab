/* The PostgreSQL backend: what a copy between stores needs (ac_backend.h
 * section 8), and the new session from a whole document that shares its
 * one-statement write. A session is put with one statement (its row, document and
 * messages, or nothing: one statement is one transaction), as are a log's
 * records; the walks read the keys alone, in key order. */
#include "ac_backend_pg_impl.h"

#include "ac_backend_check.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_messages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string member of object, or NULL (SQL NULL) when it is not one. */
static const char *member(const json_t *object, const char *key)
{
	return json_string_value(json_object_get(object, key));
}

static unsigned long long usage_of(const json_t *usage, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(usage, key));

	return v > 0 ? (unsigned long long)v : 0;
}

/* The row takes what listings read from the document (tenancy, status,
 * times, the usage totals), the document goes in without its history,
 * and the messages get seqs 1..n: one statement, so a crash leaves the
 * whole session or none of it. */
static int pg_put_session(void *impl, bool *out_created, const char *tenant, const json_t *doc)
{
	ac_backend_pg *b = impl;
	const json_t *metadata = json_object_get(doc, "metadata");
	const json_t *usage = json_object_get(metadata, "usage");
	json_t *history = json_object_get(doc, "conversationHistory"), *rest = NULL;
	char count[24], tokens[24], input[24], output[24], turns[24];
	char *rest_text = NULL, *history_text = NULL;
	const char *values[16], *id = member(doc, "id");
	size_t len;
	PGresult *res = NULL;
	int rc;

	*out_created = false;
	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", id ? id : "")))
		return rc;
	if (history && !json_is_array(history))
		return ac_error_set(AC_EINVAL, "session %s: conversationHistory is not an array", id);
	/* Absent or not, the history is the messages table's. */
	if ((rest = json_deep_copy(doc)))
		json_object_del(rest, "conversationHistory");
	if (!rest || !(rest_text = ac_json_exact_dumps(rest, JSON_COMPACT | JSON_PRESERVE_ORDER, &len)) ||
	    !(history_text = history ? ac_json_exact_dumps(history, JSON_COMPACT, &len)
				     : strdup("[]"))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	snprintf(count, sizeof(count), "%zu", json_array_size(history));
	snprintf(tokens, sizeof(tokens), "%llu",
		 (unsigned long long)(history ? ac_messages_tokens(history) : 0));
	snprintf(input, sizeof(input), "%llu", usage_of(usage, "inputTokens"));
	snprintf(output, sizeof(output), "%llu", usage_of(usage, "outputTokens"));
	snprintf(turns, sizeof(turns), "%llu", usage_of(usage, "turns"));
	values[0] = tenant;
	values[1] = id;
	values[2] = member(metadata, "userId");
	values[3] = member(metadata, "agentId");
	values[4] = member(doc, "status");
	values[5] = member(doc, "createdAt");
	values[6] = member(doc, "updatedAt");
	values[7] = b->host;
	values[8] = b->agent;
	values[9] = count;
	values[10] = tokens;
	values[11] = input;
	values[12] = output;
	values[13] = turns;
	values[14] = rest_text;
	values[15] = history_text;
	rc = ac_pg_exec(b->pg, &res, "copying a session",
			"WITH s AS ("
			" INSERT INTO sessions (tenant, id, user_id, agent, status, created_at,"
			"  updated_at, written_by_host, written_by_agent, last_seq, message_count,"
			"  tokens, input_tokens, output_tokens, turns)"
			" VALUES ($1, $2, coalesce($3, ''), coalesce($4, ''), coalesce($5, 'running'),"
			"  coalesce($6::timestamptz, now()), coalesce($7::timestamptz, $6::timestamptz,"
			"  now()), $8, $9, $10::bigint, $10::bigint, $11::bigint, $12::bigint,"
			"  $13::bigint, $14::bigint)"
			" ON CONFLICT (id) DO NOTHING RETURNING id),"
			" d AS (INSERT INTO session_documents (tenant, session_id, document)"
			"  SELECT $1, id, $15::json FROM s),"
			" m AS (INSERT INTO messages (tenant, session_id, seq, message)"
			"  SELECT $1, s.id, e.ord, e.elem"
			"  FROM s, json_array_elements($16::json) WITH ORDINALITY AS e(elem, ord))"
			" SELECT pg_notify('agentctl', json_build_object('kind', 'session', 'tenant',"
			" $1::text, 'session', $2::text)::text) FROM s",
			16, values, NULL);
	if (!rc)
		*out_created = sym_PQntuples(res) == 1;
done:
	sym_PQclear(res);
	json_decref(rest);
	free(rest_text);
	free(history_text);
	return rc;
}

/* A new session from a whole document (a fork): put_session's one
 * statement, so the row, the document and the messages land together or
 * not at all; an id taken (whatever its tenant) is refused. */
static int pg_create_document(void *impl, const char *tenant, const json_t *doc)
{
	bool created = false;
	int rc;

	if ((rc = ac_backend_document_check(tenant, doc)) ||
	    (rc = pg_put_session(impl, &created, tenant, doc)))
		return rc;
	if (!created)
		return ac_error_set(AC_EINVAL, "session '%s' exists already",
				    json_string_value(json_object_get(doc, "id")));
	return 0;
}

/* Hands fn each row of sql's result as the key (every column a name). */
static int each_row(ac_backend_pg *b, const char *what, const char *sql, ac_backend_key_fn fn,
		    void *ctx)
{
	PGresult *res = NULL;
	const char *key[4];
	int rc, cols;

	if ((rc = ac_pg_exec(b->pg, &res, what, sql, 0, NULL, NULL)))
		return rc;
	cols = sym_PQnfields(res) < 4 ? sym_PQnfields(res) : 4;
	for (int row = 0; row < sym_PQntuples(res) && !rc; row++) {
		for (int col = 0; col < cols; col++)
			key[col] = ac_pg_text(res, row, col);
		rc = fn(key, ctx);
	}
	sym_PQclear(res);
	return rc;
}

static int pg_each_memo(void *impl, ac_backend_key_fn fn, void *ctx)
{
	return each_row(impl, "listing memos",
			"SELECT tenant, owner, scope, name FROM memos ORDER BY 1, 2, 3, 4", fn, ctx);
}

static int pg_each_artifact(void *impl, ac_backend_key_fn fn, void *ctx)
{
	return each_row(impl, "listing artifacts",
			"SELECT tenant, session_id, tool_call_id FROM artifacts ORDER BY 1, 2, 3", fn,
			ctx);
}

static int pg_each_log(void *impl, ac_backend_key_fn fn, void *ctx)
{
	return each_row(impl, "listing logs",
			"SELECT tenant, kind, log FROM logs WHERE kind IN ('trace', 'run')"
			" UNION SELECT tenant, 'run', run_id FROM snapshots ORDER BY 2 DESC, 1, 3",
			fn, ctx);
}

/* The records as they are, and the log's last_seq raised to the highest,
 * so the next append follows them: one statement, all or none (a seq
 * already there is a unique violation: AC_ECONFLICT). */
static int pg_put_records(void *impl, const char *tenant, const char *kind, const char *log,
			  const json_t *records)
{
	ac_backend_pg *b = impl;
	const char *values[5];
	char *text;
	size_t len;
	int rc;

	if ((rc = ac_backend_id_check("tenant", tenant)) || (rc = ac_backend_id_check("log", log)))
		return rc;
	if (strcmp(kind, "trace") != 0 && strcmp(kind, "run") != 0)
		return ac_error_set(AC_EINVAL, "log kind '%s': not trace or run", kind);
	if (json_array_size(records) == 0)
		return 0;
	if (!(text = ac_json_exact_dumps(records, JSON_COMPACT | JSON_PRESERVE_ORDER, &len)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	values[0] = tenant;
	values[1] = kind;
	values[2] = log;
	values[3] = b->host;
	values[4] = text;
	rc = ac_pg_exec(b->pg, NULL, "copying log records",
			"WITH r AS ("
			" INSERT INTO log_records (tenant, kind, log, seq, at, host, data)"
			" SELECT $1, $2, $3, (e->>'seq')::bigint, coalesce((e->>'at')::timestamptz, now()),"
			"  $4, e->'data' FROM json_array_elements($5::json) AS e RETURNING seq),"
			" l AS ("
			" INSERT INTO logs (tenant, kind, log, last_seq) SELECT $1, $2, $3, max(seq) FROM r"
			" ON CONFLICT (tenant, kind, log)"
			" DO UPDATE SET last_seq = greatest(logs.last_seq, EXCLUDED.last_seq)"
			" RETURNING last_seq)"
			" SELECT pg_notify('agentctl', json_build_object('kind', $2::text, 'tenant',"
			" $1::text, 'session', $3::text)::text) FROM l",
			5, values, NULL);
	free(text);
	return rc;
}

void ac_backend_pg_fill_copy(ac_backend *b)
{
	b->session.create_document = pg_create_document;
	b->copy = (ac_backend_copy_ops){
		.put_session = pg_put_session,
		.each_memo = pg_each_memo,
		.each_artifact = pg_each_artifact,
		.each_log = pg_each_log,
		.put_records = pg_put_records,
	};
}
