/* The PostgreSQL store's turn rows (schema migrations 6 and 7): what
 * record_turn writes besides the two counts, load_usage, which reads the
 * rows back in the shape the file store gives (ac_turn_usage.h), totals
 * summed by the same code, so both stores answer alike; and the rows a copy
 * (storage migrate) reads and adds. */
#include "ac_backend_pg_impl.h"

#include "ac_error.h"
#include "ac_time.h"
#include "ac_turn_usage_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ac_backend_pg_usage_params(ac_backend_pg_usage *out, const ac_usage *usage)
{
	static const char *const columns[] = {"cacheCreationInputTokens", "cacheReadInputTokens",
					      "reasoningTokens"};
	json_t *row = NULL, *total;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_turn_usage_row_usage(&row, usage)))
		goto done;
	for (int i = 0; i < 3; i++)
		snprintf(out->counts[i], sizeof(out->counts[i]), "%lld",
			 (long long)json_integer_value(json_object_get(row, columns[i])));
	total = json_object_get(row, "totalTokens");
	if (total)
		snprintf(out->reported_total, sizeof(out->reported_total), "%lld",
			 (long long)json_integer_value(total));
	out->has_reported_total = total != NULL;
	/* The columns hold the counts; the jsonb the rest, and which of the
	 * three further counts were given (row_of gives back only those, as
	 * the file store's row has only them). */
	json_object_del(row, "inputTokens");
	json_object_del(row, "outputTokens");
	json_object_del(row, "totalTokens");
	if (!(out->fields = json_dumps(row, JSON_COMPACT)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	json_decref(row);
	return rc;
}

void ac_backend_pg_usage_clear(ac_backend_pg_usage *params)
{
	free(params->fields);
	params->fields = NULL;
}

/* One row as the file store writes it, from the result's row r: a copied
 * row as it came (column 9), else made from the columns. */
static int row_of(json_t **out, const PGresult *res, int r)
{
	static const char *const names[] = {"inputTokens", "outputTokens",
					    "cacheCreationInputTokens", "cacheReadInputTokens",
					    "reasoningTokens"};
	json_t *usage = NULL;
	json_error_t jerr;
	int rc = 0;

	if (!sym_PQgetisnull(res, r, 9)) {
		if (!(*out = json_loads(ac_pg_text(res, r, 9), 0, &jerr)) ||
		    !ac_turn_usage_is_row(*out)) {
			json_decref(*out);
			*out = NULL;
			return ac_error_set(AC_ECORRUPT, "turn_usage row %s: copied_row is not a row",
					    ac_pg_text(res, r, 0));
		}
		return 0;
	}

	if (!(usage = json_loads(ac_pg_text(res, r, 8), 0, &jerr)) || !json_is_object(usage)) {
		rc = ac_error_set(AC_ECORRUPT, "turn_usage row %s: fields is not an object",
				  ac_pg_text(res, r, 0));
		goto done;
	}
	/* A further count not given is left out, as the file store's row
	 * leaves it out; rows from before kept none in fields: theirs show
	 * when not 0. */
	for (int i = 0; i < 5; i++)
		if ((i < 2 || json_object_get(usage, names[i]) || ac_pg_u64(res, r, 2 + i)) &&
		    json_object_set_new(usage, names[i],
					json_integer((json_int_t)ac_pg_u64(res, r, 2 + i)))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	if (!sym_PQgetisnull(res, r, 7) &&
	    json_object_set_new(usage, "totalTokens", json_integer((json_int_t)ac_pg_u64(res, r, 7)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (!(*out = json_pack("{s:I, s:s, s:O}", "turn", (json_int_t)ac_pg_u64(res, r, 0),
			       "timestamp", ac_pg_text(res, r, 1), "usage", usage)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	json_decref(usage);
	return rc;
}

int ac_backend_pg_load_usage(void *impl, json_t **out, const char *tenant, const char *session_id)
{
	ac_backend_pg *b = impl;
	const char *values[2] = {tenant, session_id};
	json_t *rows = json_array(), *totals = NULL, *row = NULL;
	PGresult *res = NULL;
	int rc;

	*out = NULL;
	if (!rows)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session_id)))
		goto done;
	/* The session row joined, so "no such session" and "no turns yet"
	 * are told apart in one query. */
	if ((rc = ac_pg_exec(b->pg, &res, "loading turn usage",
			     "SELECT u.turn,"
			     " to_char(u.at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
			     " u.input_tokens, u.output_tokens, u.cache_creation_input_tokens,"
			     " u.cache_read_input_tokens, u.reasoning_tokens, u.reported_total_tokens,"
			     " u.fields::text, u.copied_row::text"
			     " FROM sessions s LEFT JOIN turn_usage u ON u.session_id = s.id"
			     " WHERE s.tenant = $1 AND s.id = $2 ORDER BY u.turn",
			     2, values, NULL)))
		goto done;
	if (sym_PQntuples(res) == 0) {
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' not found for tenant '%s'", session_id,
				  tenant);
		goto done;
	}
	for (int r = 0; r < sym_PQntuples(res); r++) {
		if (sym_PQgetisnull(res, r, 0))
			continue;
		if ((rc = row_of(&row, res, r)))
			goto done;
		if (json_array_append_new(rows, row)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
	if ((rc = ac_turn_usage_totals(&totals, rows)))
		goto done;
	if (!(*out = json_pack("{s:O, s:O}", "turns", rows, "totals", totals)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	json_decref(rows);
	json_decref(totals);
	sym_PQclear(res);
	return rc;
}

int ac_backend_pg_usage_room(void *impl, const char *tenant, const char *session_id,
			     const ac_usage *usage)
{
	json_t *loaded = NULL, *row_usage = NULL;
	int rc;

	if (!(rc = ac_turn_usage_row_usage(&row_usage, usage)) &&
	    !(rc = ac_backend_pg_load_usage(impl, &loaded, tenant, session_id)))
		rc = ac_turn_usage_room(loaded, row_usage);
	json_decref(loaded);
	json_decref(row_usage);
	return rc;
}

/* The sums the database keeps (usage_hours, schema 9), so what is read
 * grows with sessions times the hours they were used, not with turns. */
int ac_backend_pg_usage_by_hour(void *impl, json_t **out)
{
	ac_backend_pg *b = impl;
	json_t *list = json_array();
	PGresult *res = NULL;
	int rc;

	*out = NULL;
	if (!list)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_pg_exec(b->pg, &res, "summing turn usage",
			     "SELECT session_id, model, (extract(epoch FROM hour) * 1000)::bigint,"
			     " (extract(epoch FROM first_at) * 1000)::bigint,"
			     " (extract(epoch FROM last_at) * 1000)::bigint, turns, input_tokens,"
			     " output_tokens, cache_creation_input_tokens, cache_read_input_tokens,"
			     " reasoning_tokens"
			     " FROM usage_hours ORDER BY session_id, hour, model",
			     0, NULL, NULL)))
		goto done;
	for (int r = 0; r < sym_PQntuples(res); r++) {
		json_t *row = json_array();

		if (!row || json_array_append_new(list, row) ||
		    json_array_append_new(row, json_string(sym_PQgetvalue(res, r, 0))) ||
		    json_array_append_new(row, json_string(sym_PQgetvalue(res, r, 1)))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		for (int c = 2; c < 11; c++)
			if (json_array_append_new(row, json_integer(strtoll(sym_PQgetvalue(res, r, c),
									     NULL, 10)))) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				goto done;
			}
	}
	*out = json_incref(list);
done:
	json_decref(list);
	sym_PQclear(res);
	return rc;
}

int ac_backend_pg_usage_rows(void *impl, json_t **out, const char *tenant, const char *session)
{
	json_t *loaded = NULL;
	int rc;

	*out = NULL;
	/* The database makes up no row: load_usage's are the stored ones. */
	if ((rc = ac_backend_pg_load_usage(impl, &loaded, tenant, session)))
		return rc;
	*out = json_incref(json_object_get(loaded, "turns"));
	json_decref(loaded);
	return 0;
}

/* What the statement inserts for row: {turn, at (the instant its timestamp
 * names, null when none: now()), the counts' columns, reported, fields
 * (the Usage's other members), row (all of it, kept as it came)}. */
static int prepared(json_t **out, const json_t *row, const char *session)
{
	static const char *const columns[] = {"in", "out", "cc", "cr", "rt"};
	const json_t *usage = json_object_get(row, "usage"), *total;
	char at[AC_TIME_ISO_LEN + 1];
	json_t *p = NULL, *fields = NULL;
	const char *stamp;
	int64_t ms;
	int rc = 0;

	*out = NULL;
	if (!ac_turn_usage_is_row(row))
		return ac_error_set(AC_EINVAL, "session %s: a usage row is not a row (a turn number "
				    "from 1 and a Usage whose counts check)", session);
	total = json_object_get(usage, "totalTokens");
	if (!(fields = json_deep_copy(usage)) ||
	    !(p = json_pack("{s:O, s:o, s:O}", "turn", json_object_get(row, "turn"), "reported",
			    total ? json_incref((json_t *)total) : json_null(), "row", (json_t *)row))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t k = 0; ac_turn_usage_counts[k]; k++) {
		const json_t *v = json_object_get(usage, ac_turn_usage_counts[k]);

		/* inputTokens .. reasoningTokens are the first five counts. */
		if (k < 5 && json_object_set_new(p, columns[k],
						 json_integer(v ? json_integer_value(v) : 0))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		json_object_del(fields, ac_turn_usage_counts[k]);
	}
	/* The instant the timestamp names, for queries; the text is the row's. */
	stamp = json_string_value(json_object_get(row, "timestamp"));
	if (stamp && ac_time_parse(&ms, stamp) == 0)
		ac_time_format_iso(at, ms);
	else
		stamp = NULL;
	if (json_object_set_new(p, "at", stamp ? json_string(at) : json_null()) ||
	    json_object_set(p, "fields", fields)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	*out = p;
	p = NULL;
done:
	json_decref(p);
	json_decref(fields);
	return rc;
}

/* The rows, and the session's totals counted again from all its rows, in
 * one statement: all or none. A turn there already is a unique violation
 * (AC_ECONFLICT); the session row is locked first, so a turn recorded at
 * the same time waits for the copy and takes the number after it. */
int ac_backend_pg_put_usage_rows(void *impl, const char *tenant, const char *session,
				 const json_t *rows)
{
	ac_backend_pg *b = impl;
	json_t *all = json_array(), *p = NULL, *row;
	const char *values[4];
	char *text = NULL;
	PGresult *res = NULL;
	size_t i;
	int rc;

	if (!all)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session)))
		goto done;
	if (!json_is_array(rows)) {
		rc = ac_error_set(AC_EINVAL, "session %s: usage rows: not an array", session);
		goto done;
	}
	if (json_array_size(rows) == 0)
		goto done;
	json_array_foreach(rows, i, row) {
		if ((rc = prepared(&p, row, session)))
			goto done;
		if (json_array_append_new(all, p)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
	if (!(text = json_dumps(all, JSON_COMPACT | JSON_PRESERVE_ORDER))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	values[0] = tenant;
	values[1] = session;
	values[2] = b->host;
	values[3] = text;
	rc = ac_pg_exec(b->pg, &res, "copying turn usage rows",
			"WITH s AS (SELECT id FROM sessions WHERE tenant = $1 AND id = $2 FOR UPDATE),"
			" ins AS ("
			" INSERT INTO turn_usage (tenant, session_id, turn, at, input_tokens,"
			"  output_tokens, host, cache_creation_input_tokens, cache_read_input_tokens,"
			"  reasoning_tokens, reported_total_tokens, fields, copied_row)"
			" SELECT $1, s.id, (e->>'turn')::bigint, coalesce((e->>'at')::timestamptz, now()),"
			"  (e->>'in')::bigint, (e->>'out')::bigint, $3, (e->>'cc')::bigint,"
			"  (e->>'cr')::bigint, (e->>'rt')::bigint, (e->>'reported')::bigint,"
			"  (e->'fields')::jsonb, e->'row'"
			" FROM s, json_array_elements($4::json) AS e"
			" RETURNING turn, input_tokens, output_tokens),"
			" old AS (SELECT coalesce(sum(input_tokens), 0) AS i,"
			"  coalesce(sum(output_tokens), 0) AS o, coalesce(max(turn), 0) AS t"
			"  FROM turn_usage WHERE session_id = $2),"
			" u AS (UPDATE sessions SET"
			"  input_tokens = old.i + (SELECT sum(input_tokens) FROM ins),"
			"  output_tokens = old.o + (SELECT sum(output_tokens) FROM ins),"
			"  turns = greatest(old.t, (SELECT max(turn) FROM ins)), version = version + 1"
			"  FROM old WHERE sessions.tenant = $1 AND sessions.id = $2"
			"  RETURNING sessions.id)"
			" SELECT pg_notify('agentctl', json_build_object('kind', 'session', 'tenant',"
			" $1::text, 'session', $2::text)::text) FROM u",
			4, values, NULL);
	if (!rc && sym_PQntuples(res) == 0)
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' not found for tenant '%s'", session,
				  tenant);
done:
	sym_PQclear(res);
	json_decref(all);
	free(text);
	return rc;
}
