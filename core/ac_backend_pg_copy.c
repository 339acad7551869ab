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

/* The task column listings read (schema 5), from doc's task: "" when it
 * has none. PostgreSQL's text holds no NUL: a \u0000 in the task is
 * written there as "^@", as ac_text_sanitize() shows it (the document
 * keeps the bytes), so a listing shows what follows it too. NULL: out of
 * memory. */
static char *task_column(const json_t *doc)
{
	const json_t *task = json_object_get(doc, "task");
	const char *text = json_is_string(task) ? json_string_value(task) : "";
	size_t len = json_string_length(task);
	ac_buf out = AC_BUF_INIT;
	int rc = ac_buf_append(&out, "", 0);

	for (size_t i = 0; rc == 0 && i < len; i++)
		rc = text[i] ? ac_buf_putc(&out, text[i]) : ac_buf_append(&out, "^@", 2);
	if (rc) {
		ac_buf_free(&out);
		return NULL;
	}
	return ac_buf_detach(&out);
}

/* The row takes what listings read from the document (tenancy, status,
 * times, the usage totals, the task), the document goes in without its history,
 * and the messages get seqs 1..n: one statement, so a crash leaves the
 * whole session or none of it. */
static int pg_put_session(void *impl, bool *out_created, const char *tenant, const json_t *doc)
{
	ac_backend_pg *b = impl;
	const json_t *metadata = json_object_get(doc, "metadata");
	const json_t *usage = json_object_get(metadata, "usage");
	json_t *history = json_object_get(doc, "conversationHistory"), *rest = NULL;
	char count[24], tokens[24], input[24], output[24], turns[24];
	char *rest_text = NULL, *history_text = NULL, *task = NULL;
	const char *values[17], *id = member(doc, "id");
	size_t len;
	PGresult *res = NULL;
	int rc;

	*out_created = false;
	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", id ? id : "")))
		return rc;
	if (history && !json_is_array(history))
		return ac_error_set(AC_EINVAL, "session %s: conversationHistory is not an array", id);
	/* Absent or not, the history is the messages table's (its place kept). */
	if ((rest = json_deep_copy(doc)) && ac_backend_pg_history_slot(rest)) {
		json_decref(rest);
		rest = NULL;
	}
	if (!rest || !(rest_text = ac_json_exact_dumps(rest, JSON_COMPACT | JSON_PRESERVE_ORDER, &len)) ||
	    !(history_text = history ? ac_json_exact_dumps(history, JSON_COMPACT, &len)
				     : strdup("[]")) || !(task = task_column(doc))) {
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
	values[16] = task;
	rc = ac_pg_exec(b->pg, &res, "copying a session",
			"WITH s AS ("
			" INSERT INTO sessions (tenant, id, user_id, agent, status, created_at,"
			"  updated_at, written_by_host, written_by_agent, last_seq, message_count,"
			"  tokens, input_tokens, output_tokens, turns, task)"
			" VALUES ($1, $2, coalesce($3, ''), coalesce($4, ''), coalesce($5, 'running'),"
			"  coalesce($6::timestamptz, now()), coalesce($7::timestamptz, $6::timestamptz,"
			"  now()), $8, $9, $10::bigint, $10::bigint, $11::bigint, $12::bigint,"
			"  $13::bigint, $14::bigint, $17)"
			" ON CONFLICT (id) DO NOTHING RETURNING id),"
			" d AS (INSERT INTO session_documents (tenant, session_id, document)"
			"  SELECT $1, id, $15::json FROM s),"
			" m AS (INSERT INTO messages (tenant, session_id, seq, message)"
			"  SELECT $1, s.id, e.ord, e.elem"
			"  FROM s, json_array_elements($16::json) WITH ORDINALITY AS e(elem, ord))"
			" SELECT pg_notify('agentctl', json_build_object('kind', 'session', 'tenant',"
			" $1::text, 'session', $2::text)::text) FROM s",
			17, values, NULL);
	if (!rc)
		*out_created = sym_PQntuples(res) == 1;
done:
	sym_PQclear(res);
	json_decref(rest);
	free(rest_text);
	free(history_text);
	free(task);
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

/* ---- archives: rows of compactions, named by AC_BACKEND_PG_ARCHIVE_NAME ---- */
#define ARCHIVE_NAME AC_BACKEND_PG_ARCHIVE_NAME

static int pg_each_archive(void *impl, ac_backend_key_fn fn, void *ctx)
{
	return each_row(impl, "listing compaction archives",
			"SELECT tenant, session_id, kind, " ARCHIVE_NAME
			" FROM compactions ORDER BY 1, 2, 3, 4",
			fn, ctx);
}

/* A copied archive's document with its messages put back in their place
 * (key order kept); one written here made up as ac_archive.c lays it out. */
static int pg_get_archive(void *impl, json_t **out, const char *const *key)
{
	ac_backend_pg *b = impl;
	json_t *messages = NULL;
	PGresult *res = NULL;
	int rc;

	*out = NULL;
	if ((rc = ac_pg_exec(b->pg, &res, "reading a compaction archive",
			     "SELECT document, messages,"
			     " to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
			     " FROM compactions WHERE tenant = $1 AND session_id = $2 AND kind = $3"
			     " AND " ARCHIVE_NAME " = $4",
			     4, key, NULL)))
		goto done;
	if (sym_PQntuples(res) == 0) {
		rc = ac_error_set(AC_ENOTFOUND, "archive %s/%s/%s/%s not found", key[0], key[1],
				  key[2], key[3]);
		goto done;
	}
	if ((rc = ac_json_exact_load(&messages, sym_PQgetvalue(res, 0, 1),
				     (size_t)sym_PQgetlength(res, 0, 1), 0, "compactions.messages")))
		goto done;
	if (!sym_PQgetisnull(res, 0, 0))
		rc = ac_json_exact_load(out, sym_PQgetvalue(res, 0, 0),
					(size_t)sym_PQgetlength(res, 0, 0), 0, "compactions.document");
	else if (!(*out = json_pack("{s:s, s:s}", "sessionId", key[1], "createdAt",
				    sym_PQgetvalue(res, 0, 2))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	if (!rc && (!json_is_object(*out) || json_object_set(*out, "messages", messages)))
		rc = ac_error_set(AC_ECORRUPT, "archive %s/%s/%s/%s: its document is not an object",
				  key[0], key[1], key[2], key[3]);
done:
	if (rc) {
		json_decref(*out);
		*out = NULL;
	}
	json_decref(messages);
	sym_PQclear(res);
	return rc;
}

/* One statement: the row, or nothing when the name is taken (AC_ECONFLICT).
 * `at` is when the copy arrived; the name keeps the archive's own time. */
static int pg_put_archive(void *impl, const char *const *key, const json_t *doc)
{
	ac_backend_pg *b = impl;
	json_t *rest = json_deep_copy(doc);
	char *rest_text = NULL, *messages_text = NULL;
	const char *values[6] = {key[0], key[1], key[2], key[3]};
	PGresult *res = NULL;
	size_t len;
	int rc;

	if ((rc = ac_backend_id_check("tenant", key[0])) ||
	    (rc = ac_backend_id_check("session", key[1])) ||
	    (rc = ac_backend_id_check("archive", key[3])))
		goto done;
	if (strcmp(key[2], "compaction") != 0 && strcmp(key[2], "rollback") != 0) {
		rc = ac_error_set(AC_EINVAL, "archive kind '%s': not compaction or rollback", key[2]);
		goto done;
	}
	if (!json_is_array(json_object_get(doc, "messages"))) {
		rc = ac_error_set(AC_EINVAL, "archive %s: no messages array", key[3]);
		goto done;
	}
	if (!rest || json_object_set_new(rest, "messages", json_null()) ||
	    !(rest_text = ac_json_exact_dumps(rest, JSON_COMPACT, &len)) ||
	    !(messages_text = ac_json_exact_dumps(json_object_get(doc, "messages"), JSON_COMPACT,
						  &len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	values[4] = messages_text;
	values[5] = rest_text;
	if ((rc = ac_pg_exec(b->pg, &res, "copying a compaction archive",
			     "INSERT INTO compactions (tenant, session_id, at, first_seq, last_seq,"
			     " messages, kind, name, document)"
			     " SELECT $1, $2, clock_timestamp(), 1, json_array_length($5::json),"
			     " $5::json, $3, $4, $6::json"
			     " WHERE NOT EXISTS (SELECT 1 FROM compactions WHERE session_id = $2"
			     " AND kind = $3 AND " ARCHIVE_NAME " = $4)"
			     " ON CONFLICT DO NOTHING RETURNING 1",
			     6, values, NULL)))
		goto done;
	if (sym_PQntuples(res) == 0)
		rc = ac_error_set(AC_ECONFLICT, "archive %s/%s/%s/%s: the name is taken", key[0],
				  key[1], key[2], key[3]);
done:
	sym_PQclear(res);
	json_decref(rest);
	free(rest_text);
	free(messages_text);
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
		.usage_rows = ac_backend_pg_usage_rows,
		.put_usage_rows = ac_backend_pg_put_usage_rows,
		.each_archive = pg_each_archive,
		.get_archive = pg_get_archive,
		.put_archive = pg_put_archive,
	};
}
