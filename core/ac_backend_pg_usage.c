/* The PostgreSQL store's turn rows (schema migration 6): what record_turn
 * writes besides the two counts, and load_usage, which reads the rows back
 * in the shape the file store gives (ac_turn_usage.h), totals summed by the
 * same code, so both stores answer alike. */
#include "ac_backend_pg_impl.h"

#include "ac_error.h"
#include "ac_turn_usage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ac_backend_pg_usage_params(ac_backend_pg_usage *out, const ac_usage *usage)
{
	static const char *const columns[] = {"cacheCreationInputTokens", "cacheReadInputTokens",
					      "reasoningTokens"};
	json_t *row = ac_turn_usage_of(usage), *total;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!row)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_turn_usage_check(row, "usage")))
		goto done;
	for (int i = 0; i < 3; i++)
		snprintf(out->counts[i], sizeof(out->counts[i]), "%lld",
			 (long long)json_integer_value(json_object_get(row, columns[i])));
	total = json_object_get(row, "totalTokens");
	if (total)
		snprintf(out->reported_total, sizeof(out->reported_total), "%lld",
			 (long long)json_integer_value(total));
	out->has_reported_total = total != NULL;
	/* The columns hold the counts; the jsonb the rest. */
	for (size_t k = 0; ac_turn_usage_counts[k]; k++)
		json_object_del(row, ac_turn_usage_counts[k]);
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

/* One row as the file store writes it, from the result's row r. */
static int row_of(json_t **out, const PGresult *res, int r)
{
	static const char *const names[] = {"inputTokens", "outputTokens",
					    "cacheCreationInputTokens", "cacheReadInputTokens",
					    "reasoningTokens"};
	json_t *usage = NULL;
	json_error_t jerr;
	int rc = 0;

	if (!(usage = json_loads(ac_pg_text(res, r, 8), 0, &jerr)) || !json_is_object(usage)) {
		rc = ac_error_set(AC_ECORRUPT, "turn_usage row %s: fields is not an object",
				  ac_pg_text(res, r, 0));
		goto done;
	}
	for (int i = 0; i < 5; i++)
		if (json_object_set_new(usage, names[i],
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
			     " u.fields::text"
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
