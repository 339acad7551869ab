/* The storage backends side by side: appends per second with many writer
 * processes, the file backend against PostgreSQL on the same work, and
 * listing many sessions from PostgreSQL through the inspector and the
 * user lister (the columns only, never the documents).
 *
 *   bench_backend_pg appends fs DIR WRITERS COUNT [traces]
 *   bench_backend_pg appends pg URL WRITERS COUNT [traces]
 *       WRITERS processes each make COUNT appends of one ~200-byte message
 *       to their own session (not with "traces"), then COUNT trace records
 *       to one shared trace.
 *       prints: store, writers, per second and seconds of each (0: not run)
 *   bench_backend_pg list pg URL SESSIONS RUNS
 *       fills the schema "bench_list_SESSIONS" with SESSIONS sessions (once,
 *       in SQL, 100 users, 10 tenants), then times RUNS listings of each kind.
 *       prints: the median and best milliseconds per listing */
#include "ac_backend_pg.h"
#include "ac_backend_fs.h"
#include "ac_error.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_store(ac_backend *b, const char *kind, const char *where, const char *schema)
{
	int rc;

	if (!strcmp(kind, "pg")) {
		ac_backend_pg_options opts = {.version = AC_BACKEND_PG_OPTIONS_VERSION,
			.url = where, .schema = schema};

		rc = ac_backend_pg_init(b, &opts);
	} else {
		char sessions[4096], data[4096];

		snprintf(data, sizeof(data), "%s/.agent", where);
		snprintf(sessions, sizeof(sessions), "%s/.agent/sessions", where);
		mkdir(where, 0755);
		mkdir(data, 0755);
		mkdir(sessions, 0755);
		rc = ac_backend_fs_init(b, &(ac_backend_fs_options){.version = AC_BACKEND_FS_OPTIONS_VERSION,
			.sessions_dir = sessions,
								    .data_dir = data});
	}
	if (rc)
		fprintf(stderr, "bench_backend_pg: %s\n", ac_error_last());
	return rc;
}

/* One writer: its session's messages, or records of the shared trace. */
static int write_some(const char *kind, const char *where, int writer, int count, bool trace)
{
	char session[64];
	ac_backend b;
	char *id = NULL;
	int rc;

	if (open_store(&b, kind, where, "bench_appends"))
		return 1;
	snprintf(session, sizeof(session), "writer-%d", writer);
	rc = b.session.get_or_create(b.impl, &id, "bench", "u", "a", session);
	for (int i = 0; i < count && !rc; i++) {
		json_t *m = json_pack("[{s:s, s:s}]", "role", "assistant", "content",
				      "edited the request handler to check the config before use; "
				      "the tests pass and the linter is quiet about the new branch");
		json_t *e = json_pack("{s:s, s:i, s:i}", "type", "step", "writer", writer, "i", i);

		rc = trace ? b.trace.append(b.impl, NULL, "bench", "shared", e)
			   : b.session.append(b.impl, "bench", id, m);
		json_decref(m);
		json_decref(e);
	}
	if (rc)
		fprintf(stderr, "bench_backend_pg: %s\n", ac_error_last());
	free(id);
	ac_backend_close(&b);
	return rc ? 1 : 0;
}

static double run_writers(const char *kind, const char *where, int writers, int count, bool trace)
{
	pid_t pids[64];
	double start = now_s();
	int status, failed = 0;

	for (int k = 0; k < writers; k++)
		if ((pids[k] = fork()) == 0)
			_exit(write_some(kind, where, k, count, trace));
	for (int k = 0; k < writers; k++)
		if (waitpid(pids[k], &status, 0) != pids[k] || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			failed = 1;
	return failed ? -1 : (double)writers * count / (now_s() - start);
}

static int appends(const char *kind, const char *where, int writers, int count,
		   bool traces_only)
{
	ac_backend b;
	double messages = 0, traces;

	/* Schema made (and migrated) once, before the clock starts. */
	if (open_store(&b, kind, where, "bench_appends"))
		return 1;
	ac_backend_close(&b);
	if (!traces_only)
		messages = run_writers(kind, where, writers, count, false);
	traces = run_writers(kind, where, writers, count, true);
	if (messages < 0 || traces < 0)
		return 1;
	printf("%s writers=%d count=%d messages_per_second=%.0f traces_per_second=%.0f"
	       " messages_seconds=%.4f traces_seconds=%.4f\n",
	       kind, writers, count, messages, traces, messages ? writers * count / messages : 0,
	       writers * count / traces);
	return 0;
}

/* ---- listing ---- */

/* Bench code, not the store: the schema's name (digits only) is put in
 * the SQL text here. Each session's task is 48 characters, under the
 * 200 the listing indexes carry (AC_PG_TASK_HEAD): the usual case. */
static int fill(const char *url, const char *schema, long sessions)
{
	PGconn *conn = PQconnectdb(url);
	char count[24], sql[2048];
	const char *values[1] = {count};
	PGresult *res;
	int rc = 0;

	snprintf(count, sizeof(count), "%ld", sessions);
	/* Only when the table does not hold them yet (the data is reused). */
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s.sessions", schema);
	res = PQexecParams(conn, sql, 0, NULL, NULL, NULL, NULL, 0);
	if (PQresultStatus(res) == PGRES_TUPLES_OK && atol(PQgetvalue(res, 0, 0)) == sessions) {
		PQclear(res);
		PQfinish(conn);
		return 0;
	}
	PQclear(res);
	snprintf(sql, sizeof(sql),
			   "WITH s AS ("
			   " INSERT INTO %s.sessions (tenant, id, user_id, agent, status,"
			   " created_at, updated_at, written_by_host, message_count, tokens, turns, task)"
			   " SELECT 'tenant-' || (i %% 10), 'session-' || i, 'user-' || (i %% 100), 'claude',"
			   " (ARRAY['running','paused','completed','failed'])[1 + i %% 4],"
			   " now() - i * interval '1 second', now() - i * interval '1 second',"
			   " 'host-' || (i %% 8), 50, 12000, 25, repeat('a long task ', 4)"
			   " FROM generate_series(1, $1::bigint) AS i ON CONFLICT DO NOTHING"
			   " RETURNING tenant, id)"
			   " INSERT INTO %s.session_documents (tenant, session_id, document)"
			   " SELECT tenant, id, json_build_object('id', id, 'task', repeat('a long task ', 40),"
			   " 'metadata', json_build_object('tenantId', tenant)) FROM s",
			   schema, schema);
	res = PQexecParams(conn, sql, 1, NULL, values, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		fprintf(stderr, "bench_backend_pg: filling: %s", PQerrorMessage(conn));
		rc = 1;
	}
	PQclear(res);
	snprintf(sql, sizeof(sql), "VACUUM ANALYZE %s.sessions", schema);
	PQclear(PQexec(conn, sql));
	PQfinish(conn);
	return rc;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, double *ms, int runs, size_t n)
{
	qsort(ms, (size_t)runs, sizeof(*ms), compare_double);
	printf("%s: %zu sessions, median %.1f ms, best %.1f ms (%d runs)\n", what, n, ms[runs / 2],
	       ms[0], runs);
}

static int list(const char *url, long sessions, int runs)
{
	ac_backend b;
	ac_backend_session_info *out = NULL;
	double ms[3][101];
	size_t n[3] = {0, 0, 0};
	char schema[64];

	if (runs > 101)
		runs = 101;
	snprintf(schema, sizeof(schema), "bench_list_%ld", sessions);
	if (open_store(&b, "pg", url, schema))
		return 1;
	if (fill(url, schema, sessions))
		return 1;
	for (int r = 0; r < runs; r++) {
		for (int kind = 0; kind < 3; kind++) {
			double start = now_s();
			int rc = kind == 0   ? b.inspector.list_sessions(b.impl, &out, &n[kind], NULL)
				 : kind == 1 ? b.inspector.list_sessions(b.impl, &out, &n[kind], "tenant-3")
					     : b.users.list(b.impl, &out, &n[kind], "tenant-3", "user-13");

			ms[kind][r] = (now_s() - start) * 1000;
			ac_backend_sessions_free(out, n[kind]);
			if (rc) {
				fprintf(stderr, "bench_backend_pg: %s\n", ac_error_last());
				return 1;
			}
		}
	}
	report("inspector, every session", ms[0], runs, n[0]);
	report("inspector, one tenant", ms[1], runs, n[1]);
	report("user lister, one user", ms[2], runs, n[2]);
	ac_backend_close(&b);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 6 || (argc == 7 && !strcmp(argv[6], "traces"))) &&
	    !strcmp(argv[1], "appends") && (!strcmp(argv[2], "fs") || !strcmp(argv[2], "pg")))
		return appends(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]), argc == 7);
	if (argc == 6 && !strcmp(argv[1], "list") && !strcmp(argv[2], "pg"))
		return list(argv[3], atol(argv[4]), atoi(argv[5]));
	fprintf(stderr, "usage: bench_backend_pg appends fs|pg DIR|URL WRITERS COUNT [traces]\n"
			"       bench_backend_pg list pg URL SESSIONS RUNS\n");
	return 2;
}
