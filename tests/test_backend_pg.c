/* The storage-backend conformance suite (tests/conformance) run against
 * the PostgreSQL backend, and what only a shared database can show: many
 * "hosts" (processes, each with its own host name) writing at once.
 *
 * The server is the one the standard PG* variables name; ctest runs this
 * through tests/pg/with-postgres.sh, which starts a throwaway cluster when
 * none is given. Each case gets a schema of its own, dropped afterwards. */
#include "ac_conformance.h"

#include "ac_backend_pg.h"
#include "ac_store_watch.h"
#include "ac_time.h"
#include "ac_workspace.h"

#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Every connection setting from the environment (PGHOST, PGPORT, ...). */
#define TEST_URL "application_name=agentctl-test"

static int case_number;
static char schema[64];

static void drop_schema(const char *name)
{
	PGconn *conn = PQconnectdb(TEST_URL " options='-c client_min_messages=warning'");
	char *quoted = conn ? PQescapeIdentifier(conn, name, strlen(name)) : NULL;
	char sql[160];

	if (quoted) {
		snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE", quoted);
		PQclear(PQexec(conn, sql));
		PQfreemem(quoted);
	}
	PQfinish(conn);
}

static int make_pg(ac_backend *out, void *ctx)
{
	ac_backend_pg_options opts = {.version = AC_BACKEND_PG_OPTIONS_VERSION,
		.url = TEST_URL, .host = "host-main"};

	(void)ctx;
	snprintf(schema, sizeof(schema), "conformance_%d_%d", (int)getpid(), ++case_number);
	drop_schema(schema);
	opts.schema = schema;
	if (ac_backend_pg_init(out, &opts) != 0) {
		fprintf(stderr, "test_backend_pg: %s\n", ac_error_last());
		return -1;
	}
	return 0;
}

static void release_pg(ac_backend *b, void *ctx)
{
	(void)ctx;
	ac_backend_close(b);
	drop_schema(schema);
}

/* ---- many hosts at once ---- */

#define HOSTS 6
#define ROUNDS 60

typedef struct {
	unsigned long long status_changes; /* CAS that succeeded */
	unsigned long long conflicts;      /* CAS refused */
} host_result;

/* One "host": its own backend (own connection, own host name), appending
 * a message, a trace record and an event each round, and flipping the
 * shared session's status running <-> paused by compare-and-set. */
static int run_host(int k, int fd)
{
	char host[32];
	ac_backend b;
	ac_backend_pg_options opts = {.version = AC_BACKEND_PG_OPTIONS_VERSION,
		.url = TEST_URL, .schema = schema, .host = host};
	host_result r = {0, 0};
	int rc = 0;

	snprintf(host, sizeof(host), "host-%d", k);
	if (ac_backend_pg_init(&b, &opts) != 0)
		return 1;
	for (int i = 0; i < ROUNDS && !rc; i++) {
		json_t *m = json_pack("[{s:s, s:s, s:i, s:i}]", "role", "user", "content", "hi", "host",
				      k, "i", i);
		json_t *ev = json_pack("{s:i, s:i}", "host", k, "i", i);
		const char *from = i % 2 ? "paused" : "running";
		const char *to = i % 2 ? "running" : "paused";
		int cas;

		rc = b.session.append(b.impl, "fleet", "shared", m) ||
		     b.trace.append(b.impl, NULL, "fleet", "shared", ev) ||
		     b.orch.append_event(b.impl, NULL, "fleet", "run", ev);
		cas = ac_backend_pg_set_status(&b, "fleet", "shared", from, to);
		if (cas == 0)
			r.status_changes++;
		else if (cas == AC_ECONFLICT)
			r.conflicts++;
		else
			rc = 1;
		json_decref(m);
		json_decref(ev);
	}
	ac_backend_close(&b);
	if (write(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		rc = 1;
	return rc ? 1 : 0;
}

/* seq 1..n exactly once each, in order, and each (host, i) exactly once. */
static void assert_log_whole(const json_t *records, size_t n, const char *what)
{
	bool seen[HOSTS][ROUNDS] = {{false}};
	json_t *r;
	size_t i;

	assert_int_equal(json_array_size(records), n);
	json_array_foreach(records, i, r) {
		json_t *data = json_object_get(r, "data");
		json_int_t host = json_integer_value(json_object_get(data, "host"));
		json_int_t round = json_integer_value(json_object_get(data, "i"));

		if (json_integer_value(json_object_get(r, "seq")) != (json_int_t)i + 1)
			fail_msg("%s: record %zu has seq %lld", what, i,
				 (long long)json_integer_value(json_object_get(r, "seq")));
		assert_false(seen[host][round]);
		seen[host][round] = true;
	}
}

static void test_many_hosts(void **state)
{
	ac_backend *b = *state;
	host_result total = {0, 0};
	json_t *all = NULL;
	ac_backend_session_info *list = NULL, info;
	pid_t pids[HOSTS];
	int pipes[HOSTS][2], status;
	size_t n;

	free(conform_new_session(b, "fleet", "ops", "shared"));
	for (int k = 0; k < HOSTS; k++) {
		assert_int_equal(pipe(pipes[k]), 0);
		pids[k] = fork();
		assert_true(pids[k] >= 0);
		if (pids[k] == 0)
			_exit(run_host(k, pipes[k][1]));
		close(pipes[k][1]);
	}
	for (int k = 0; k < HOSTS; k++) {
		host_result r;

		assert_int_equal(read(pipes[k][0], &r, sizeof(r)), (ssize_t)sizeof(r));
		close(pipes[k][0]);
		assert_int_equal(waitpid(pids[k], &status, 0), pids[k]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		total.status_changes += r.status_changes;
		total.conflicts += r.conflicts;
	}
	assert_int_equal(total.status_changes + total.conflicts, HOSTS * ROUNDS);
	/* Messages: every one there once, in seq order (message i of a host
	 * after its i-1). */
	OK(b->session.load_all(b->impl, &all, "fleet", "shared"));
	assert_int_equal(json_array_size(all), HOSTS * ROUNDS);
	{
		int next[HOSTS] = {0};
		json_t *m;
		size_t i;

		json_array_foreach(all, i, m) {
			json_int_t host = json_integer_value(json_object_get(m, "host"));

			assert_int_equal(json_integer_value(json_object_get(m, "i")), next[host]);
			next[host]++;
		}
	}
	json_decref(all);
	OK(b->trace.load(b->impl, &all, NULL, "fleet", "shared", 0));
	assert_log_whole(all, HOSTS * ROUNDS, "trace");
	json_decref(all);
	OK(b->orch.load_events(b->impl, &all, NULL, "fleet", "run", 0));
	assert_log_whole(all, HOSTS * ROUNDS, "events");
	json_decref(all);
	/* Each successful CAS flipped it once, from running: the parity of
	 * the successes is the final status. */
	info = conform_find_info(b, "shared", &list, &n);
	assert_int_equal(info.messages, HOSTS * ROUNDS);
	assert_string_equal(info.status, total.status_changes % 2 ? "paused" : "running");
	ac_backend_sessions_free(list, n);
	/* And a CAS from a status it no longer has is refused. */
	assert_int_equal(ac_backend_pg_set_status(b, "fleet", "shared",
						  total.status_changes % 2 ? "running" : "paused",
						  "failed"),
			 AC_ECONFLICT);
	assert_int_equal(ac_backend_pg_set_status(b, "evil", "shared", "running", "failed"),
			 AC_ENOTFOUND);
	print_message("many hosts: %d hosts x %d rounds, %llu status changes, %llu refused\n",
		      HOSTS, ROUNDS, total.status_changes, total.conflicts);
}

static int setup_pg(void **state)
{
	ac_backend *b = calloc(1, sizeof(*b));

	if (!b || make_pg(b, NULL) != 0) {
		free(b);
		return -1;
	}
	*state = b;
	return 0;
}

static int teardown_pg(void **state)
{
	release_pg(*state, NULL);
	free(*state);
	return 0;
}

/* Runs sql (constant, test set-up) on a fresh connection; 0 on success. */
static int run_sql(const char *sql)
{
	PGconn *conn = PQconnectdb(TEST_URL " options='-c client_min_messages=warning'");
	PGresult *res = PQexec(conn, sql);
	int ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;

	if (!ok)
		print_message("%s: %s", sql, PQerrorMessage(conn));
	PQclear(res);
	PQfinish(conn);
	return ok ? 0 : -1;
}

/* The one value of a one-row, one-column query, as a number. */
static long query_number(const char *sql)
{
	PGconn *conn = PQconnectdb(TEST_URL);
	PGresult *res = PQexec(conn, sql);
	long value = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1
			     ? atol(PQgetvalue(res, 0, 0))
			     : -1;

	PQclear(res);
	PQfinish(conn);
	return value;
}

/* Several processes opening one fresh schema at once: each migration is
 * applied and recorded once, and every process gets a working store. */
static void test_concurrent_migrations(void **state)
{
	pid_t pids[4];
	int status;

	(void)state;
	drop_schema("migrate_race");
	for (int k = 0; k < 4; k++) {
		pids[k] = fork();
		assert_true(pids[k] >= 0);
		if (pids[k] == 0) {
			ac_backend b;
			ac_backend_pg_options opts = {.version = AC_BACKEND_PG_OPTIONS_VERSION,
				.url = TEST_URL, .schema = "migrate_race"};
			char *id = NULL;
			int rc = ac_backend_pg_init(&b, &opts);

			if (rc == 0)
				rc = b.session.get_or_create(b.impl, &id, "t", "u", "a", NULL);
			free(id);
			ac_backend_close(&b);
			_exit(rc ? 1 : 0);
		}
	}
	for (int k = 0; k < 4; k++) {
		assert_int_equal(waitpid(pids[k], &status, 0), pids[k]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	/* Every migration recorded once: 1..latest, no repeat, no gap. */
	assert_int_equal(query_number("SELECT (count(*) = count(DISTINCT version) AND min(version) = 1"
				      " AND max(version) = count(*) AND count(*) >= 7)::int"
				      " FROM migrate_race.agentctl_migrations"), 1);
	assert_int_equal(query_number("SELECT count(*) FROM migrate_race.sessions"), 4);
	drop_schema("migrate_race");
}

/* A role with data rights only (no CREATE) opens a schema its owner
 * migrated, and works; on a schema that lacks migrations it gets one line. */
static void test_least_privilege(void **state)
{
	ac_backend b;
	ac_backend_pg_options opts = {.version = AC_BACKEND_PG_OPTIONS_VERSION,
		.url = TEST_URL " user=ac_agent password=agent-pw",
				      .schema = "least_priv"};
	ac_backend_pg_options owner = {.version = AC_BACKEND_PG_OPTIONS_VERSION,
		.url = TEST_URL, .schema = "least_priv"};
	char *id = NULL;

	(void)state;
	drop_schema("least_priv");
	run_sql("DROP ROLE IF EXISTS ac_agent");
	assert_int_equal(run_sql("CREATE ROLE ac_agent LOGIN PASSWORD 'agent-pw'"), 0);
	OK(ac_backend_pg_init(&b, &owner));
	ac_backend_close(&b);
	assert_int_equal(run_sql("GRANT USAGE ON SCHEMA least_priv TO ac_agent;"
				 " GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA"
				 " least_priv TO ac_agent"),
			 0);
	OK(ac_backend_pg_init(&b, &opts));
	OK(b.session.get_or_create(b.impl, &id, "t", "u", "a", NULL));
	OK(b.memo.append(b.impl, "t", "u", "user", "N.md", "x", 1));
	free(id);
	ac_backend_close(&b);
	/* A schema it cannot create: refused in one line, no password shown. */
	opts.schema = "least_priv_missing";
	assert_int_not_equal(ac_backend_pg_init(&b, &opts), 0);
	assert_null(strchr(ac_error_last(), '\n'));
	assert_null(strstr(ac_error_last(), "agent-pw"));
	drop_schema("least_priv");
	run_sql("DROP OWNED BY ac_agent; DROP ROLE ac_agent");
}

/* Bad input: one line naming the store, never the password. */
static void test_errors_hide_password(void **state)
{
	ac_backend b;
	ac_backend_pg_options opts = {.version = AC_BACKEND_PG_OPTIONS_VERSION,
		.url = "postgresql://agent:s3cret-pw@127.0.0.1:1/nodb?connect_timeout=2"};
	char *shown;

	(void)state;
	assert_int_equal(ac_backend_pg_init(&b, &opts), AC_EIO);
	assert_null(strstr(ac_error_last(), "s3cret"));
	assert_non_null(strstr(ac_error_last(), "postgresql://agent@127.0.0.1:1/nodb"));
	assert_null(strchr(ac_error_last(), '\n'));
	opts.url = "host=127.0.0.1 port=1 password=s3cret-pw connect_timeout=2";
	assert_int_equal(ac_backend_pg_init(&b, &opts), AC_EIO);
	assert_null(strstr(ac_error_last(), "s3cret"));
	shown = ac_storage_url_redact("postgres://u:p%40ss@h/db?sslmode=require&password=x&a=b");
	assert_string_equal(shown, "postgres://u@h/db?sslmode=require&a=b");
	free(shown);
}

/* A session carries the host and agent that last wrote it: the listing
 * shows the host, find both, and each write (a status change from a
 * second host, an append from the first) moves them. */
static void test_writer_recorded(void **state)
{
	ac_backend *b = *state, other;
	ac_backend_pg_options opts = {.version = AC_BACKEND_PG_OPTIONS_VERSION,
		.url = TEST_URL, .schema = schema, .host = "host-b",
				      .agent = "codex"};
	ac_backend_session_info *list = NULL, info;
	json_t *msgs;
	size_t n;

	free(conform_new_session(b, "fleet", "ops", "w1"));
	OK(b->inspector.find(b->impl, &info, "w1"));
	assert_string_equal(info.host, "host-main");
	assert_string_equal(info.writer, "claude"); /* the creating agent */
	ac_backend_session_info_clear(&info);
	OK(ac_backend_pg_init(&other, &opts));
	OK(other.session.set_status(other.impl, "fleet", "w1", "running", "paused"));
	ac_backend_close(&other);
	OK(b->inspector.find(b->impl, &info, "w1"));
	assert_string_equal(info.host, "host-b");
	assert_string_equal(info.writer, "codex");
	assert_string_equal(info.status, "paused");
	ac_backend_session_info_clear(&info);
	info = conform_find_info(b, "w1", &list, &n);
	assert_string_equal(info.host, "host-b");
	ac_backend_sessions_free(list, n);
	msgs = conform_msgs("[{\"role\":\"user\",\"content\":\"back\"}]");
	OK(b->session.append(b->impl, "fleet", "w1", msgs));
	json_decref(msgs);
	OK(b->inspector.find(b->impl, &info, "w1"));
	assert_string_equal(info.host, "host-main");
	ac_backend_session_info_clear(&info);
}

/* Reads w as a poll loop would (its socket, or its timeout while down)
 * until the mask has want or 10 s pass; the last mask. */
static unsigned watch_until(ac_store_watch *w, unsigned want, char *session, size_t size)
{
	int64_t end = ac_time_now_ms() + 10000;
	unsigned got = 0;

	while (!(got & want) && ac_time_now_ms() < end) {
		short events;
		int fd = ac_store_watch_fd(w, &events), timeout = ac_store_watch_timeout_ms(w);
		struct pollfd p = {fd, events, 0};
		const char *named = NULL;

		poll(&p, fd >= 0 ? 1 : 0, fd >= 0 ? 1000 : timeout);
		got = ac_store_watch_read(w, &named);
		if (got && session)
			snprintf(session, size, "%s", named);
	}
	return got;
}

/* The store watch hears every committed write of any backend, names the
 * session, and after its connection is killed connects again by itself
 * and asks for everything to be read again. */
static void test_store_watch(void **state)
{
	ac_backend *b = *state;
	ac_store_watch *w = NULL;
	char session[64] = "";
	json_t *msgs = conform_msgs("[{\"role\":\"user\",\"content\":\"hi\"}]");
	PGconn *admin;

	free(conform_new_session(b, "fleet", "ops", "n1"));
	free(conform_new_session(b, "fleet", "ops", "n2"));
	OK(ac_store_watch_new(&w, TEST_URL));
	assert_true(watch_until(w, AC_STORE_RESCAN, NULL, 0) & AC_STORE_RESCAN);
	assert_true(ac_store_watch_live(w));
	assert_non_null(strstr(ac_store_watch_state(w), "following"));
	OK(b->session.append(b->impl, "fleet", "n1", msgs));
	assert_true(watch_until(w, AC_STORE_CHANGED, session, sizeof(session)) & AC_STORE_CHANGED);
	assert_string_equal(session, "n1");
	OK(b->session.set_status(b->impl, "fleet", "n2", "running", "paused"));
	assert_true(watch_until(w, AC_STORE_CHANGED, session, sizeof(session)) & AC_STORE_CHANGED);
	assert_string_equal(session, "n2");
	/* The server ends the listening connection: it comes back. */
	admin = PQconnectdb(TEST_URL);
	PQclear(PQexec(admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
			      " WHERE query = 'LISTEN agentctl'"));
	PQfinish(admin);
	assert_true(watch_until(w, AC_STORE_RESCAN, NULL, 0) & AC_STORE_RESCAN);
	assert_true(ac_store_watch_live(w));
	OK(b->session.append(b->impl, "fleet", "n2", msgs));
	assert_true(watch_until(w, AC_STORE_CHANGED, session, sizeof(session)) & AC_STORE_CHANGED);
	assert_string_equal(session, "n2");
	json_decref(msgs);
	ac_store_watch_free(w);
}

/* Notifies, in one transaction, session s-<first>..s-<first + n - 1>. */
static void notify_many(int first, int n)
{
	PGconn *admin = PQconnectdb(TEST_URL);
	char sql[300];

	snprintf(sql, sizeof(sql),
		 "SELECT pg_notify('agentctl', json_build_object('kind', 'session', 'tenant', 'fleet',"
		 " 'session', 's-' || g)::text) FROM generate_series(%d, %d) g",
		 first, first + n - 1);
	PQclear(PQexec(admin, sql));
	PQfinish(admin);
}

/* The sessions a read names, each once (issue 28): what arrives together
 * is handed out whole, or as "read them all" past what one read names;
 * and while live, a reading of everything comes at the period set. */
static void test_store_watch_sessions(void **state)
{
	const char(*named)[AC_STORE_ID_SIZE] = NULL;
	ac_store_watch *w = NULL;
	bool seen[3] = {false, false, false}, overflow = false;
	int64_t end;

	(void)state;
	OK(ac_store_watch_new(&w, TEST_URL));
	assert_true(watch_until(w, AC_STORE_RESCAN, NULL, 0) & AC_STORE_RESCAN);
	notify_many(1, 3);
	notify_many(2, 1); /* s-2 again: named once */
	for (end = ac_time_now_ms() + 10000; !(seen[0] && seen[1] && seen[2]) && ac_time_now_ms() < end;) {
		size_t n;

		if (!(watch_until(w, AC_STORE_CHANGED, NULL, 0) & AC_STORE_CHANGED))
			continue;
		n = ac_store_watch_sessions(w, &named);
		assert_true(n >= 1 && n <= 3);
		for (size_t i = 0; i < n; i++) {
			int k = atoi(named[i] + 2);

			assert_true(k >= 1 && k <= 3);
			seen[k - 1] = true;
			for (size_t j = 0; j < i; j++)
				assert_string_not_equal(named[i], named[j]);
		}
	}
	assert_true(seen[0] && seen[1] && seen[2]);
	/* A thousand at once: more than a read names, so "read them all". */
	notify_many(1, 1000);
	for (end = ac_time_now_ms() + 10000; !overflow && ac_time_now_ms() < end;)
		if (watch_until(w, AC_STORE_CHANGED, NULL, 0) & AC_STORE_CHANGED)
			overflow = ac_store_watch_sessions(w, &named) == SIZE_MAX;
	assert_true(overflow);
	assert_null(named);
	/* The safety net: a reading of everything with no write at all. */
	ac_store_watch_set_rescan(w, 300);
	assert_true(ac_store_watch_timeout_ms(w) >= 0 && ac_store_watch_timeout_ms(w) <= 300);
	assert_true(watch_until(w, AC_STORE_RESCAN, NULL, 0) & AC_STORE_RESCAN);
	assert_true(ac_store_watch_live(w));
	ac_store_watch_free(w);
}

typedef struct {
	char ids[2000][16];
	size_t n;
} handed;

static int hand(const ac_backend_session_info *info, void *ctx)
{
	handed *h = ctx;

	if (h->n == 2000)
		return AC_EINVAL;
	snprintf(h->ids[h->n++], sizeof(h->ids[0]), "%s", info->session_id);
	return 0;
}

static int stop_at_three(const ac_backend_session_info *info, void *ctx)
{
	handed *h = ctx;

	(void)info;
	return ++h->n == 3 ? AC_ECONFLICT : 0;
}

/* The streamed listing (issue 28) hands out the rows list_sessions
 * gives, in its order, whatever the number of batches; the callback's
 * error stops it. find_sessions reads several sessions at once, the
 * missing ones left out. */
static void test_each_session(void **state)
{
	ac_backend *b = *state;
	ac_backend_session_info *list = NULL;
	handed *h = calloc(1, sizeof(*h));
	PGconn *admin = PQconnectdb(TEST_URL);
	const char *ids[] = {"e-7", "nobody", "e-1100"};
	char sql[600];
	size_t n = 0;

	assert_non_null(h);
	free(conform_new_session(b, "fleet", "ops", "e-first"));
	/* 1,102 more: more than two batches, ties on created_at broken by id. */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO %s.sessions (tenant, id, user_id, agent, status, created_at, updated_at, task)"
		 " SELECT CASE WHEN g %% 2 = 0 THEN 'fleet' ELSE 'other' END, 'e-' || g, 'u', 'a', 'running',"
		 " timestamptz '2025-01-01Z' + (g / 3) * interval '1 s', now(),"
		 " CASE WHEN g = 7 THEN repeat('x', 300) ELSE 't' END FROM generate_series(1, 1102) g",
		 schema);
	PQclear(PQexec(admin, sql));
	PQfinish(admin);
	OK(b->inspector.list_sessions(b->impl, &list, &n, NULL));
	assert_int_equal(n, 1103);
	OK(b->optional.each_session(b, NULL, hand, h));
	assert_int_equal(h->n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(h->ids[i], list[i].session_id);
	ac_backend_sessions_free(list, n);
	/* One tenant's. */
	h->n = 0;
	OK(b->optional.each_session(b, "other", hand, h));
	assert_int_equal(h->n, 551);
	/* Stopped by its callback: that error, and the connection still serves. */
	h->n = 0;
	assert_int_equal(b->optional.each_session(b, NULL, stop_at_three, h), AC_ECONFLICT);
	h->n = 0;
	OK(b->optional.each_session(b, "fleet", hand, h));
	assert_int_equal(h->n, 552);
	/* Several at once. */
	h->n = 0;
	OK(b->optional.find_sessions(b, ids, 3, hand, h));
	assert_int_equal(h->n, 2);
	assert_true((!strcmp(h->ids[0], "e-7") && !strcmp(h->ids[1], "e-1100")) ||
		    (!strcmp(h->ids[0], "e-1100") && !strcmp(h->ids[1], "e-7")));
	free(h);
}

/* A checkpoint rollback's cut: the messages after the checkpoint go (the
 * count follows), but only while the history is the one planned: another
 * host's append since is AC_ECONFLICT and nothing changes. */
static void test_cut_history(void **state)
{
	ac_backend *b = *state;
	json_t *msgs = conform_msgs("[{\"role\":\"user\",\"content\":\"a\"},"
				    "{\"role\":\"assistant\",\"content\":\"b\"},"
				    "{\"role\":\"user\",\"content\":\"c\"}]");
	json_t *planned = NULL, *now = NULL;
	ac_backend_session_info info = {0};

	free(conform_new_session(b, "fleet", "ops", "cut1"));
	OK(b->session.append(b->impl, "fleet", "cut1", msgs));
	OK(b->session.load_all(b->impl, &planned, "fleet", "cut1"));
	/* Another writer appends after the plan was read: refused. */
	OK(b->session.append(b->impl, "fleet", "cut1", msgs));
	assert_int_equal(ac_backend_pg_cut_history(b, "fleet", "cut1", planned, 1, NULL, NULL), AC_ECONFLICT);
	OK(b->session.load_all(b->impl, &now, "fleet", "cut1"));
	assert_int_equal(json_array_size(now), 6);
	json_decref(planned);
	planned = now;
	OK(ac_backend_pg_cut_history(b, "fleet", "cut1", planned, 1, NULL, NULL));
	OK(b->session.load_all(b->impl, &now, "fleet", "cut1"));
	assert_int_equal(json_array_size(now), 1);
	OK(b->inspector.find(b->impl, &info, "cut1"));
	assert_int_equal(info.messages, 1);
	/* Appends go on after the cut. */
	OK(b->session.append(b->impl, "fleet", "cut1", msgs));
	json_decref(now);
	OK(b->session.load_all(b->impl, &now, "fleet", "cut1"));
	assert_int_equal(json_array_size(now), 4);
	ac_backend_session_info_clear(&info);
	json_decref(now);
	json_decref(planned);
	json_decref(msgs);
}

/* load_after gives exactly the messages appended since the cursor, and
 * AC_ECONFLICT (cursor kept) once a compaction or rollback rewrote the
 * history, after which a whole read (a zeroed cursor) is right. */
static void test_load_after(void **state)
{
	ac_backend *b = *state;
	json_t *two = conform_msgs("[{\"role\":\"user\",\"content\":\"a\"},"
				   "{\"role\":\"assistant\",\"content\":\"b\"}]");
	json_t *one = conform_msgs("[{\"role\":\"user\",\"content\":\"c\"}]");
	json_t *got = NULL, *all = NULL, *planned = NULL;
	ac_backend_history_cursor cur = {0}, kept;
	ac_backend_compact_options opts;

	assert_non_null(b->session.load_after);
	free(conform_new_session(b, "fleet", "ops", "inc1"));
	OK(b->session.append(b->impl, "fleet", "inc1", two));
	OK(b->session.load_after(b->impl, &got, &cur, "fleet", "inc1"));
	assert_true(json_equal(got, two));
	json_decref(got);
	/* Nothing new: nothing read. */
	OK(b->session.load_after(b->impl, &got, &cur, "fleet", "inc1"));
	assert_int_equal(json_array_size(got), 0);
	json_decref(got);
	OK(b->session.append(b->impl, "fleet", "inc1", one));
	OK(b->session.record_turn(b->impl, "fleet", "inc1", two, NULL));
	OK(b->session.load_after(b->impl, &got, &cur, "fleet", "inc1"));
	assert_int_equal(json_array_size(got), 3);
	assert_true(json_equal(json_array_get(got, 0), json_array_get(one, 0)));
	assert_true(json_equal(json_array_get(got, 2), json_array_get(two, 1)));
	assert_int_equal(cur.count, 5);
	json_decref(got);
	/* Another tenant's session is not found. */
	kept = cur;
	assert_int_equal(b->session.load_after(b->impl, &got, &kept, "evil", "inc1"), AC_ENOTFOUND);

	/* Externalising a large tool result changes a message in place (the
	 * counts stay): the epoch tells. */
	{
		char *big = calloc(1, 6001);
		json_t *tool;

		assert_non_null(big);
		memset(big, 'x', 6000);
		tool = json_pack("[{s:s, s:s, s:s}]", "role", "tool", "toolCallId", "call1",
				 "content", big);
		OK(b->session.append(b->impl, "fleet", "inc1", tool));
		OK(b->session.load_after(b->impl, &got, &cur, "fleet", "inc1"));
		assert_true(json_equal(got, tool));
		json_decref(got);
		json_decref(tool);
		free(big);
	}
	ac_backend_compact_options_init(&opts);
	OK(b->session.compact_if_needed(b->impl, NULL, "fleet", "inc1", &opts));
	OK(b->session.load_all(b->impl, &all, "fleet", "inc1"));
	assert_int_equal(json_array_size(all), 6);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(all, 5), "content")),
			       "[artifact"));
	json_decref(all);
	all = NULL;
	kept = cur;
	assert_int_equal(b->session.load_after(b->impl, &got, &cur, "fleet", "inc1"), AC_ECONFLICT);
	assert_memory_equal(&kept, &cur, sizeof(cur));
	memset(&cur, 0, sizeof(cur));
	OK(b->session.load_after(b->impl, &got, &cur, "fleet", "inc1"));
	json_decref(got);

	/* A compaction rewrites the history: said so, cursor kept. */
	opts.compact.force = true;
	OK(b->session.compact_if_needed(b->impl, NULL, "fleet", "inc1", &opts));
	OK(b->session.append(b->impl, "fleet", "inc1", one));
	kept = cur;
	assert_int_equal(b->session.load_after(b->impl, &got, &cur, "fleet", "inc1"), AC_ECONFLICT);
	assert_null(got);
	assert_memory_equal(&kept, &cur, sizeof(cur));
	memset(&cur, 0, sizeof(cur));
	OK(b->session.load_after(b->impl, &got, &cur, "fleet", "inc1"));
	OK(b->session.load_all(b->impl, &all, "fleet", "inc1"));
	assert_true(json_equal(got, all));
	assert_true(json_array_size(all) < 7);
	json_decref(got);

	/* A rollback (the tail removed), then as many appended as removed:
	 * the counts add up, the epoch tells. */
	planned = all;
	all = NULL;
	OK(ac_backend_pg_cut_history(b, "fleet", "inc1", planned, json_array_size(planned) - 1,
				     NULL, NULL));
	OK(b->session.append(b->impl, "fleet", "inc1", two));
	OK(b->session.load_all(b->impl, &all, "fleet", "inc1"));
	assert_int_equal(json_array_size(all), json_array_size(planned) + 1);
	assert_int_equal(b->session.load_after(b->impl, &got, &cur, "fleet", "inc1"), AC_ECONFLICT);
	memset(&cur, 0, sizeof(cur));
	OK(b->session.load_after(b->impl, &got, &cur, "fleet", "inc1"));
	assert_true(json_equal(got, all));
	json_decref(got);
	OK(b->session.append(b->impl, "fleet", "inc1", one));
	OK(b->session.load_after(b->impl, &got, &cur, "fleet", "inc1"));
	assert_true(json_equal(got, one));
	json_decref(got);
	json_decref(all);
	json_decref(planned);
	json_decref(one);
	json_decref(two);
}

/* A document change for the tests: sets metadata.mark to ctx (a string),
 * or fails with AC_ECORRUPT when ctx is NULL. */
static int mark_document(json_t *root, void *ctx)
{
	json_t *metadata = json_object_get(root, "metadata");

	if (!ctx)
		return ac_error_set(AC_ECORRUPT, "refused by the test");
	return json_object_set_new(metadata, "mark", json_string(ctx)) ? AC_ENOMEM : 0;
}

static const char *mark_of(const ac_backend *b, json_t **doc, const char *session)
{
	json_decref(*doc);
	OK(b->session.get(b->impl, doc, "fleet", session));
	return json_string_value(json_object_get(json_object_get(*doc, "metadata"), "mark"));
}

/* The cut records the rollback in the stored document in its own
 * transaction: refused cut, no record; a record that cannot be written,
 * no cut. */
static void test_cut_history_notes(void **state)
{
	ac_backend *b = *state;
	json_t *msgs = conform_msgs("[{\"role\":\"user\",\"content\":\"a\"},"
				    "{\"role\":\"assistant\",\"content\":\"b\"}]");
	json_t *planned = NULL, *now = NULL, *doc = NULL;
	char conflict[] = "conflict", cut[] = "cut";

	free(conform_new_session(b, "fleet", "ops", "cut2"));
	OK(b->session.append(b->impl, "fleet", "cut2", msgs));
	OK(b->session.load_all(b->impl, &planned, "fleet", "cut2"));
	OK(b->session.append(b->impl, "fleet", "cut2", msgs));
	assert_int_equal(ac_backend_pg_cut_history(b, "fleet", "cut2", planned, 1, mark_document,
						   conflict), AC_ECONFLICT);
	assert_null(mark_of(b, &doc, "cut2"));
	json_decref(planned);
	OK(b->session.load_all(b->impl, &planned, "fleet", "cut2"));
	assert_int_equal(ac_backend_pg_cut_history(b, "fleet", "cut2", planned, 1, mark_document,
						   NULL), AC_ECORRUPT);
	OK(b->session.load_all(b->impl, &now, "fleet", "cut2"));
	assert_int_equal(json_array_size(now), 4);
	json_decref(now);
	OK(ac_backend_pg_cut_history(b, "fleet", "cut2", planned, 1, mark_document, cut));
	assert_string_equal(mark_of(b, &doc, "cut2"), "cut");
	assert_int_equal(json_array_size(json_object_get(doc, "conversationHistory")), 1);
	json_decref(doc);
	json_decref(planned);
	json_decref(msgs);
}

/* A change to the stored document (checkpoint auto): applied whole under
 * the row lock; refused changes and other tenants' sessions write nothing;
 * the history is untouched. */
static void test_update_document(void **state)
{
	ac_backend *b = *state;
	json_t *msgs = conform_msgs("[{\"role\":\"user\",\"content\":\"a\"}]");
	json_t *doc = NULL;
	char one[] = "one", two[] = "two";

	free(conform_new_session(b, "fleet", "ops", "doc1"));
	OK(b->session.append(b->impl, "fleet", "doc1", msgs));
	OK(ac_backend_pg_update_document(b, "fleet", "doc1", mark_document, one));
	assert_string_equal(mark_of(b, &doc, "doc1"), "one");
	assert_int_equal(json_array_size(json_object_get(doc, "conversationHistory")), 1);
	assert_int_equal(ac_backend_pg_update_document(b, "fleet", "doc1", mark_document, NULL),
			 AC_ECORRUPT);
	assert_string_equal(mark_of(b, &doc, "doc1"), "one");
	assert_int_equal(ac_backend_pg_update_document(b, "other", "doc1", mark_document, two),
			 AC_ENOTFOUND);
	assert_int_equal(ac_backend_pg_update_document(b, "fleet", "nosuch", mark_document, two),
			 AC_ENOTFOUND);
	assert_string_equal(mark_of(b, &doc, "doc1"), "one");
	json_decref(doc);
	json_decref(msgs);
}

/* Terminates every connection of this test's but admin's own. */
static void drop_connections(void)
{
	PGconn *admin = PQconnectdb("application_name=agentctl-test-admin");

	assert_int_equal(PQstatus(admin), CONNECTION_OK);
	/* With a timeout, it returns once they are gone (PostgreSQL 14). */
	PQclear(PQexec(admin, "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity"
			      " WHERE application_name = 'agentctl-test'"));
	PQfinish(admin);
}

/* The hooks lease (ac_backend_pg_lease): one connection holds it; asking
 * again keeps it; the server dropping the connections
 * frees it, and the first to come back takes it, the other must not think
 * it still holds it; closing the holder frees it. */
static void test_lease(void **state)
{
	ac_backend *b = *state, c;
	ac_backend_pg_options opts = {.version = AC_BACKEND_PG_OPTIONS_VERSION,
		.url = TEST_URL, .schema = schema, .host = "host-c"};
	bool held = false;

	OK(ac_backend_pg_init(&c, &opts));
	OK(ac_backend_pg_lease(b, &held, "agentctl hooks"));
	assert_true(held);
	OK(ac_backend_pg_lease(&c, &held, "agentctl hooks"));
	assert_false(held);
	OK(ac_backend_pg_lease(b, &held, "agentctl hooks"));
	assert_true(held);
	drop_connections();
	OK(ac_backend_pg_lease(&c, &held, "agentctl hooks"));
	assert_true(held);
	OK(ac_backend_pg_lease(b, &held, "agentctl hooks"));
	assert_false(held);
	ac_backend_close(&c);
	/* The server lets the lock go once c's backend process has ended,
	 * which is after PQfinish() returns: tried again meanwhile, as a
	 * dashboard does at each change. */
	for (int i = 0; i < 100; i++) {
		OK(ac_backend_pg_lease(b, &held, "agentctl hooks"));
		if (held)
			break;
		usleep(50 * 1000);
	}
	assert_true(held);
}

/* A notification's kind says what to read again: a journal event is not a
 * session change (it must not cost the listing a reading), a checkpoint
 * names its session apart from the sessions'. */
static void test_store_watch_kinds(void **state)
{
	ac_store_watch *w = NULL;
	PGconn *admin = PQconnectdb(TEST_URL);
	unsigned got;

	(void)state;
	OK(ac_store_watch_new(&w, TEST_URL));
	assert_true(watch_until(w, AC_STORE_RESCAN, NULL, 0) & AC_STORE_RESCAN);
	PQclear(PQexec(admin, "SELECT pg_notify('agentctl', '{\"kind\":\"journal\",\"tenant\":\"\","
			      "\"id\":\"evt_1\",\"seq\":1}')"));
	got = watch_until(w, AC_STORE_JOURNAL, NULL, 0);
	assert_int_equal(got, AC_STORE_JOURNAL);
	PQclear(PQexec(admin, "SELECT pg_notify('agentctl', '{\"kind\":\"checkpoint\",\"tenant\":\"\","
			      "\"session\":\"s9\",\"id\":\"c1\"}')"));
	got = watch_until(w, AC_STORE_CHECKPOINTS, NULL, 0);
	assert_int_equal(got, AC_STORE_CHECKPOINTS);
	assert_string_equal(ac_store_watch_checkpoint_session(w), "s9");
	/* Two sessions' checkpoints in one read: no one session to name. */
	PQclear(PQexec(admin, "BEGIN; SELECT pg_notify('agentctl', '{\"kind\":\"checkpoint\","
			      "\"session\":\"s1\"}'), pg_notify('agentctl', '{\"kind\":\"checkpoint\","
			      "\"session\":\"s2\"}'); COMMIT"));
	got = watch_until(w, AC_STORE_CHECKPOINTS, NULL, 0);
	assert_int_equal(got, AC_STORE_CHECKPOINTS);
	assert_string_equal(ac_store_watch_checkpoint_session(w), "");
	PQfinish(admin);
	ac_store_watch_free(w);
}

/* An unreachable store is no error for a watch: it says why and retries. */
static void test_store_watch_unreachable(void **state)
{
	ac_store_watch *w = NULL;

	(void)state;
	OK(ac_store_watch_new(&w, "postgresql://u:s3cret@127.0.0.1:1/x?connect_timeout=1"));
	for (int i = 0; i < 50 && ac_store_watch_fd(w, &(short){0}) >= 0; i++)
		watch_until(w, ~0u, NULL, 0);
	assert_false(ac_store_watch_live(w));
	assert_int_equal(ac_store_watch_fd(w, &(short){0}), -1);
	assert_true(ac_store_watch_timeout_ms(w) >= 0);
	assert_non_null(strstr(ac_store_watch_state(w), "trying again"));
	assert_null(strstr(ac_store_watch_state(w), "s3cret"));
	ac_store_watch_free(w);
}

/* ---- safe retries: request ids (issue 25) ---- */

static long messages_of(const char *session)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\".messages WHERE session_id = '%s'",
		 schema, session);
	return query_number(sql);
}

/* A write whose COMMIT succeeded but whose answer was lost (the test seam
 * ends the connection right after it, as a server restart does) fails;
 * retried under the same request id it succeeds with the first answer and
 * writes nothing: one write on the database. The error is one line naming
 * the server's reason after "database:", without libpq's severity words. */
static void test_request_lost_answer(void **state)
{
	ac_backend *b = *state;
	json_t *m = json_pack("[{s:s, s:s}]", "role", "user", "content", "once"), *answer = NULL;
	char *id = NULL, *again = NULL;
	bool replayed = false;

	OK(b->session.create(b->impl, &id, "t", NULL, NULL, "s", "task"));
	free(id);
	id = NULL;
	setenv("AGENTCTL_TEST_PG_LOSE_ANSWER", "1", 1);
	OK(b->request.use(b->impl, "req-1"));
	assert_int_equal(b->session.append(b->impl, "t", "s", m), AC_EIO);
	unsetenv("AGENTCTL_TEST_PG_LOSE_ANSWER");
	assert_non_null(strstr(ac_error_last(),
			       "database: terminating connection due to administrator command"));
	assert_null(strstr(ac_error_last(), "FATAL"));
	assert_null(strchr(ac_error_last(), '\n'));
	assert_int_equal(messages_of("s"), 1); /* committed */
	for (int retry = 0; retry < 3; retry++) {
		OK(b->request.use(b->impl, "req-1"));
		OK(b->session.append(b->impl, "t", "s", m));
		OK(b->request.answer(b->impl, &answer, &replayed));
		assert_true(replayed);
		assert_int_equal(json_integer_value(json_object_get(answer, "messages")), 1);
		json_decref(answer);
	}
	assert_int_equal(messages_of("s"), 1);
	/* The same id for other arguments, or another operation: refused. */
	json_array_append_new(m, json_pack("{s:s, s:s}", "role", "user", "content", "more"));
	OK(b->request.use(b->impl, "req-1"));
	assert_int_equal(b->session.append(b->impl, "t", "s", m), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "with other arguments"));
	OK(b->request.use(b->impl, "req-1"));
	assert_int_equal(b->session.set_status(b->impl, "t", "s", "running", "paused"), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "for session.append"));
	assert_int_equal(messages_of("s"), 1);
	/* Without an id a write is made each time; the id is taken by one call. */
	OK(b->request.use(b->impl, "req-2"));
	OK(b->session.append(b->impl, "t", "s", m));
	OK(b->session.append(b->impl, "t", "s", m));
	assert_int_equal(messages_of("s"), 5);
	/* A create with a random id, its answer lost: the retry names it. */
	setenv("AGENTCTL_TEST_PG_LOSE_ANSWER", "1", 1);
	OK(b->request.use(b->impl, "req-3"));
	assert_int_equal(b->session.create(b->impl, &id, "t", NULL, NULL, NULL, "random"), AC_EIO);
	unsetenv("AGENTCTL_TEST_PG_LOSE_ANSWER");
	assert_null(id);
	OK(b->request.use(b->impl, "req-3"));
	OK(b->session.create(b->impl, &id, "t", NULL, NULL, NULL, "random"));
	OK(b->request.use(b->impl, "req-3"));
	OK(b->session.create(b->impl, &again, "t", NULL, NULL, NULL, "random"));
	assert_string_equal(id, again);
	{
		char sql[160];

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\".sessions", schema);
		assert_int_equal(query_number(sql), 2);
	}
	/* A status change, its answer lost: check() answers the retry. */
	setenv("AGENTCTL_TEST_PG_LOSE_ANSWER", "1", 1);
	OK(b->request.use(b->impl, "req-4"));
	assert_int_equal(b->session.set_status(b->impl, "t", id, "running", "paused"), AC_EIO);
	unsetenv("AGENTCTL_TEST_PG_LOSE_ANSWER");
	json_decref(m);
	m = json_pack("{s:s, s:s}", "session", id, "to", "paused");
	OK(b->request.check(b->impl, &answer, "t", "req-4", "session.set_status", m));
	assert_string_equal(json_string_value(json_object_get(answer, "status")), "paused");
	json_decref(answer);
	assert_int_equal(b->request.check(b->impl, &answer, "t", "req-9", "session.set_status", m),
			 AC_ENOTFOUND);
	assert_int_equal(b->request.check(b->impl, &answer, "other", "req-4", "session.set_status",
					  m),
			 AC_ENOTFOUND); /* keys are per tenant */
	assert_int_equal(b->request.use(b->impl, "bad/id"), AC_EINVAL);
	json_decref(m);
	free(id);
	free(again);
}

int main(void)
{
	const ac_backend_factory postgres = {"conformance: postgresql", make_pg, release_pg, NULL};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_many_hosts, setup_pg, teardown_pg),
		cmocka_unit_test_setup_teardown(test_writer_recorded, setup_pg, teardown_pg),
		cmocka_unit_test_setup_teardown(test_store_watch, setup_pg, teardown_pg),
		cmocka_unit_test(test_store_watch_unreachable),
		cmocka_unit_test(test_store_watch_sessions),
		cmocka_unit_test_setup_teardown(test_each_session, setup_pg, teardown_pg),
		cmocka_unit_test(test_store_watch_kinds),
		cmocka_unit_test_setup_teardown(test_cut_history, setup_pg, teardown_pg),
		cmocka_unit_test_setup_teardown(test_load_after, setup_pg, teardown_pg),
		cmocka_unit_test_setup_teardown(test_cut_history_notes, setup_pg, teardown_pg),
		cmocka_unit_test_setup_teardown(test_update_document, setup_pg, teardown_pg),
		cmocka_unit_test_setup_teardown(test_lease, setup_pg, teardown_pg),
		cmocka_unit_test(test_errors_hide_password),
		cmocka_unit_test_setup_teardown(test_request_lost_answer, setup_pg, teardown_pg),
		cmocka_unit_test(test_concurrent_migrations),
		cmocka_unit_test(test_least_privilege),
	};
	PGconn *probe = PQconnectdb(TEST_URL);
	int failed;

	if (PQstatus(probe) != CONNECTION_OK) {
		fprintf(stderr, "test_backend_pg: no PostgreSQL server (PG* variables): run it through "
				"tests/pg/with-postgres.sh (scripts/install-deps.sh installs pg_virtualenv)\n");
		PQfinish(probe);
		return 1;
	}
	PQfinish(probe);
	failed = ac_backend_conformance_run(&postgres);
	return failed + cmocka_run_group_tests_name("postgresql only", tests, NULL, NULL);
}
