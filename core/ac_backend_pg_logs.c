/* The PostgreSQL backend: the trace store and orchestration persistence.
 * Both are logs of {"seq", "at", "data"} records in log_records, one log
 * per (tenant, kind, name). An append is one statement: an upsert of the
 * log's row in logs (its row lock orders the log's writers, whatever host
 * they run on) that takes last_seq + 1, and the record's insert. Seqs are
 * therefore strictly increasing and, since a failed append rolls both
 * back, gap-free. */
#include "ac_backend_pg_impl.h"

#include "ac_error.h"
#include "ac_json_exact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIND_TRACE "trace"
#define KIND_RUN "run"

static int log_append(ac_backend_pg *b, uint64_t *out_seq, const char *tenant, const char *kind,
		      const char *what, const char *log, const json_t *data)
{
	const char *values[5];
	size_t text_len;
	char *text;
	PGresult *res = NULL;
	int rc;

	if (out_seq)
		*out_seq = 0;
	if ((rc = ac_backend_id_check("tenant", tenant)) || (rc = ac_backend_id_check(what, log)))
		return rc;
	if (!json_is_object(data))
		return ac_error_set(AC_EINVAL, "%s %s: a record's data must be a JSON object", what, log);
	if (!(text = ac_json_exact_dumps(data, JSON_COMPACT | JSON_PRESERVE_ORDER, &text_len)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	values[0] = tenant;
	values[1] = kind;
	values[2] = log;
	values[3] = b->host;
	values[4] = text;
	rc = ac_pg_exec(b->pg, &res, "appending a log record",
			"WITH l AS ("
			" INSERT INTO logs (tenant, kind, log, last_seq) VALUES ($1, $2, $3, 1)"
			" ON CONFLICT (tenant, kind, log) DO UPDATE SET last_seq = logs.last_seq + 1"
			" RETURNING last_seq),"
			" r AS ("
			" INSERT INTO log_records (tenant, kind, log, seq, host, data)"
			" SELECT $1, $2, $3, l.last_seq, $4, $5::json FROM l)"
			" SELECT l.last_seq, pg_notify('agentctl', json_build_object('kind', $2::text,"
			" 'tenant', $1::text, 'session', $3::text)::text) FROM l",
			5, values, NULL);
	free(text);
	if (!rc && out_seq)
		*out_seq = ac_pg_u64(res, 0, 0);
	sym_PQclear(res);
	return rc;
}

static int log_load(ac_backend_pg *b, json_t **out, size_t *out_skipped, const char *tenant,
		    const char *kind, const char *what, const char *log, uint64_t after_seq)
{
	char after[24];
	const char *values[4] = {tenant, kind, log, after};
	PGresult *res = NULL;
	json_t *records;
	size_t skipped = 0;
	int rc;

	*out = NULL;
	if (out_skipped)
		*out_skipped = 0;
	if ((rc = ac_backend_id_check("tenant", tenant)) || (rc = ac_backend_id_check(what, log)))
		return rc;
	snprintf(after, sizeof(after), "%llu", (unsigned long long)after_seq);
	if ((rc = ac_pg_exec(b->pg, &res, "loading a log",
			     "SELECT seq, to_char(at AT TIME ZONE 'UTC',"
			     " 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), data FROM log_records"
			     " WHERE tenant = $1 AND kind = $2 AND log = $3 AND seq > $4::bigint"
			     " ORDER BY seq",
			     4, values, NULL)))
		return rc;
	if (!(records = json_array())) {
		sym_PQclear(res);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	for (int row = 0; row < sym_PQntuples(res) && !rc; row++) {
		json_t *data = NULL, *record;

		/* The column is json, so it parses; a number out of jansson's
		 * range is the one way it cannot: skipped, as a torn line is. */
		if (ac_json_exact_load(&data, sym_PQgetvalue(res, row, 2), (size_t)sym_PQgetlength(res, row, 2),
				       0, "log record") != 0) {
			skipped++;
			continue;
		}
		record = json_pack("{s:I, s:s, s:o}", "seq", (json_int_t)ac_pg_u64(res, row, 0), "at",
				   sym_PQgetvalue(res, row, 1), "data", data);
		if (!record || json_array_append_new(records, record))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
	}
	sym_PQclear(res);
	if (rc) {
		json_decref(records);
		return rc;
	}
	*out = records;
	if (out_skipped)
		*out_skipped = skipped;
	return 0;
}

static int trace_append(void *impl, uint64_t *out_seq, const char *tenant, const char *session_id,
			const json_t *envelope)
{
	return log_append(impl, out_seq, tenant, KIND_TRACE, "session", session_id, envelope);
}

static int trace_load(void *impl, json_t **out, size_t *out_skipped, const char *tenant,
		      const char *session_id, uint64_t after_seq)
{
	return log_load(impl, out, out_skipped, tenant, KIND_TRACE, "session", session_id, after_seq);
}

static int orch_append_event(void *impl, uint64_t *out_seq, const char *tenant,
			     const char *run_id, const json_t *event)
{
	return log_append(impl, out_seq, tenant, KIND_RUN, "run", run_id, event);
}

static int orch_load_events(void *impl, json_t **out, size_t *out_skipped, const char *tenant,
			    const char *run_id, uint64_t after_seq)
{
	return log_load(impl, out, out_skipped, tenant, KIND_RUN, "run", run_id, after_seq);
}

static int orch_write_snapshot(void *impl, const char *tenant, const char *run_id,
			       uint64_t covers_seq, const json_t *state)
{
	ac_backend_pg *b = impl;
	char covers[24], *text;
	size_t text_len;
	const char *values[4] = {tenant, run_id, covers, NULL};
	PGresult *res = NULL;
	int rc;

	if ((rc = ac_backend_id_check("tenant", tenant)) || (rc = ac_backend_id_check("run", run_id)))
		return rc;
	if (!state)
		return ac_error_set(AC_EINVAL, "run %s: a snapshot needs a state", run_id);
	if (!(text = ac_json_exact_dumps(state, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY,
					 &text_len)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	snprintf(covers, sizeof(covers), "%llu", (unsigned long long)covers_seq);
	values[3] = text;
	/* Written only when it covers no more than the log holds and no less
	 * than the stored one: snapshots never go back. */
	rc = ac_pg_exec(b->pg, &res, "writing a snapshot",
			"WITH last AS (SELECT coalesce(max(last_seq), 0) AS seq FROM logs"
			" WHERE tenant = $1 AND kind = 'run' AND log = $2),"
			" w AS ("
			" INSERT INTO snapshots (tenant, run_id, covers_seq, state)"
			" SELECT $1, $2, $3::bigint, $4::json FROM last WHERE $3::bigint <= last.seq"
			" ON CONFLICT (tenant, run_id) DO UPDATE"
			" SET covers_seq = EXCLUDED.covers_seq, state = EXCLUDED.state, at = now()"
			" WHERE snapshots.covers_seq <= EXCLUDED.covers_seq RETURNING 1),"
			" n AS (SELECT pg_notify('agentctl', json_build_object('kind', 'snapshot',"
			" 'tenant', $1::text, 'session', $2::text)::text) FROM w)"
			" SELECT (SELECT seq FROM last), (SELECT count(*) FROM w), (SELECT count(*) FROM n)",
			4, values, NULL);
	free(text);
	if (rc)
		return rc;
	if (covers_seq > ac_pg_u64(res, 0, 0))
		rc = ac_error_set(AC_EINVAL, "run %s: a snapshot cannot cover event %llu; the last "
				  "is %llu", run_id, (unsigned long long)covers_seq, ac_pg_u64(res, 0, 0));
	else if (ac_pg_u64(res, 0, 1) == 0)
		rc = ac_error_set(AC_ECONFLICT, "run %s: the stored snapshot covers more than %llu",
				  run_id, (unsigned long long)covers_seq);
	sym_PQclear(res);
	return rc;
}

static int orch_load_snapshot(void *impl, json_t **out_state, uint64_t *out_covers_seq,
			      const char *tenant, const char *run_id)
{
	ac_backend_pg *b = impl;
	const char *values[2] = {tenant, run_id};
	PGresult *res = NULL;
	int rc;

	*out_state = NULL;
	*out_covers_seq = 0;
	if ((rc = ac_backend_id_check("tenant", tenant)) || (rc = ac_backend_id_check("run", run_id)) ||
	    (rc = ac_pg_exec(b->pg, &res, "loading a snapshot",
			     "SELECT covers_seq, state FROM snapshots WHERE tenant = $1 AND run_id = $2",
			     2, values, NULL)))
		return rc;
	if (sym_PQntuples(res) == 0)
		rc = ac_error_set(AC_ENOTFOUND, "run %s: no snapshot", run_id);
	else if (!(rc = ac_json_exact_load(out_state, sym_PQgetvalue(res, 0, 1),
					   (size_t)sym_PQgetlength(res, 0, 1), JSON_DECODE_ANY,
					   "stored snapshot")))
		*out_covers_seq = ac_pg_u64(res, 0, 0);
	sym_PQclear(res);
	return rc;
}

void ac_backend_pg_fill_logs(ac_backend *b)
{
	b->trace = (ac_backend_trace_ops){.append = trace_append, .load = trace_load};
	b->orch = (ac_backend_orch_ops){.append_event = orch_append_event,
					.load_events = orch_load_events,
					.write_snapshot = orch_write_snapshot,
					.load_snapshot = orch_load_snapshot};
}
