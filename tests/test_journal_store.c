/* The journal store interface: the same cases against the journal file and,
 * when AC_TEST_PG is set (ctest's test_journal_store_pg, through
 * tests/pg/with-postgres.sh), the PostgreSQL table: appends, the last N,
 * queries whose terms map to indexed columns and ones that do not, time
 * windows, check, and many processes appending at once (nothing lost, in
 * PostgreSQL seqs 1..n without gaps). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_event.h"
#include "ac_journal_store.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEST_PG_URL "application_name=agentctl-test-journal"

typedef struct {
	char *dir;
	char *journal;
	bool pg;
	char schema[64];
	ac_journal_store *store;
} fixture;

static int case_number;

static PGconn *admin(void)
{
	return PQconnectdb(TEST_PG_URL " options='-c client_min_messages=warning'");
}

static void drop_schema(const char *name)
{
	PGconn *conn = admin();
	char *quoted = PQescapeIdentifier(conn, name, strlen(name));
	char sql[160];

	if (quoted) {
		snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE", quoted);
		PQclear(PQexec(conn, sql));
		PQfreemem(quoted);
	}
	PQfinish(conn);
}

/* A number the query gives (one row, one column). */
static long long query_number(const char *sql)
{
	PGconn *conn = admin();
	PGresult *res = PQexec(conn, sql);
	long long n = -1;

	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
		n = atoll(PQgetvalue(res, 0, 0));
	else
		fprintf(stderr, "%s: %s", sql, PQerrorMessage(conn));
	PQclear(res);
	PQfinish(conn);
	return n;
}

static int open_store(fixture *f, ac_journal_store **out)
{
	ac_journal_options opts;

	if (f->pg)
		return ac_journal_store_pg_new(out, TEST_PG_URL, f->schema, "host-test", NULL);
	ac_journal_options_init(&opts);
	return ac_journal_store_file_new(out, f->journal, &opts, NULL);
}

static int setup(void **state, bool pg)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_make_temp_dir();
	f->journal = tu_path(f->dir, "JOURNAL.jsonl");
	f->pg = pg;
	if (pg) {
		snprintf(f->schema, sizeof(f->schema), "journal_%d_%d", (int)getpid(),
			 ++case_number);
		drop_schema(f->schema);
	}
	if (open_store(f, &f->store) != 0)
		fail_msg("%s", ac_error_last());
	*state = f;
	return 0;
}

static int setup_file(void **state)
{
	return setup(state, false);
}

static int setup_pg(void **state)
{
	return setup(state, true);
}

static int teardown(void **state)
{
	fixture *f = *state;

	ac_journal_store_free(f->store);
	if (f->pg)
		drop_schema(f->schema);
	tu_remove_tree(f->dir);
	free(f->dir);
	free(f->journal);
	free(f);
	return 0;
}

/* Completes and appends one event (as journal log does). */
static void log_event(ac_journal_store *store, const char *agent, const char *status,
		      const char *correlation, const char *timestamp, const char *message)
{
	char text[512], id[AC_EVENT_ID_LEN + 1], *line = NULL;
	size_t len = 0;

	snprintf(text, sizeof(text),
		 "{\"timestamp\":\"%s\",\"agent\":\"%s\",\"status\":\"%s\","
		 "\"action\":{\"type\":\"FILE_EDIT\",\"params\":{}},"
		 "\"result\":{\"message\":\"%s\"},\"trace\":{\"correlation_id\":\"%s\"}}",
		 timestamp, agent, status, message, correlation);
	assert_int_equal(ac_event_prepare(&line, &len, id, text, &store->schema), 0);
	if (ac_journal_store_append(store, line, len, NULL) != 0)
		fail_msg("append: %s", ac_error_last());
	free(line);
}

/* Each event as its result.message, one a line. */
static int format_message(ac_buf *out, ac_buf *scratch, const ac_scan_match *m, const void *ctx)
{
	const char *key = "\"message\":\"", *at = NULL, *end;

	(void)scratch;
	(void)ctx;
	at = strstr(m->line, key);
	if (!at)
		return AC_EINVAL;
	at += strlen(key);
	end = strchr(at, '"');
	ac_buf_append(out, at, (size_t)(end - at));
	ac_buf_putc(out, ' ');
	return 0;
}

static int collect(const char *data, size_t len, void *ctx)
{
	return ac_buf_append(ctx, data, len);
}

/* The messages the terms (space-separated, may be "") select, with last_n. */
static char *messages(fixture *f, const char *terms_text, size_t last_n)
{
	char copy[256], *terms[8], *save = NULL;
	size_t n = 0;
	ac_query *q = NULL;
	ac_buf out = AC_BUF_INIT;
	ac_scan_stats stats = {0};

	snprintf(copy, sizeof(copy), "%s", terms_text);
	for (char *t = strtok_r(copy, " ", &save); t && n < 8; t = strtok_r(NULL, " ", &save))
		terms[n++] = t;
	assert_int_equal(ac_query_parse(&q, (const char *const *)terms, n), 0);
	if (f->store->ops->scan(f->store, &stats, false, q, last_n, format_message, NULL, collect,
				&out) != 0)
		fail_msg("scan: %s", ac_error_last());
	ac_query_free(q);
	ac_buf_putc(&out, '\0');
	return ac_buf_detach(&out);
}

static void assert_messages(fixture *f, const char *terms, size_t last_n, const char *expected)
{
	char *got = messages(f, terms, last_n);

	if (strcmp(got, expected))
		fail_msg("'%s' --last %zu: got '%s', expected '%s'", terms, last_n, got, expected);
	free(got);
}

static void fill(fixture *f)
{
	log_event(f->store, "Claude", "SUCCESS", "c1", "2025-01-01T00:00:00.000Z", "m1");
	log_event(f->store, "Codex", "FAILED", "c1", "2025-01-02T00:00:00.000Z", "m2");
	log_event(f->store, "Claude", "SUCCESS", "c2", "2025-01-03T00:00:00.000Z", "m3");
	log_event(f->store, "Codex", "SUCCESS", "c2", "2025-01-04T00:00:00.000Z", "m4");
	log_event(f->store, "Claude", "FAILED", "c3", "2025-01-05T00:00:00.000Z", "hello m5");
}

static void test_read_and_last(void **state)
{
	fixture *f = *state;

	fill(f);
	assert_messages(f, "", 0, "m1 m2 m3 m4 hello m5 ");
	assert_messages(f, "", 2, "m4 hello m5 ");
	assert_messages(f, "", 50, "m1 m2 m3 m4 hello m5 ");
}

/* Terms on indexed columns, terms only the matcher knows, and both. */
static void test_queries_as_the_file_engine_answers(void **state)
{
	fixture *f = *state;

	fill(f);
	assert_messages(f, "agent=Codex", 0, "m2 m4 ");
	assert_messages(f, "agent=Claude status=SUCCESS", 0, "m1 m3 ");
	assert_messages(f, "trace.correlation_id=c2", 0, "m3 m4 ");
	assert_messages(f, "action.type=FILE_EDIT agent=Codex", 1, "m4 ");
	assert_messages(f, "agent!=Claude", 0, "m2 m4 ");
	assert_messages(f, "text~hello", 0, "hello m5 ");
	assert_messages(f, "agent=Claude text~m", 2, "m3 hello m5 ");
	assert_messages(f, "since=2025-01-02 until=2025-01-04", 0, "m2 m3 ");
	assert_messages(f, "agent=Claude since=2025-01-02", 1, "hello m5 ");
	assert_messages(f, "agent=Nobody", 0, "");
	assert_messages(f, "agent=Nobody", 3, "");
}

static int count_checked(const char *part, uint64_t valid, uint64_t invalid, void *ctx)
{
	uint64_t *counts = ctx;

	(void)part;
	counts[0] += valid;
	counts[1] += invalid;
	return 0;
}

static void test_check_counts(void **state)
{
	fixture *f = *state;
	uint64_t counts[2] = {0, 0};

	fill(f);
	assert_int_equal(f->store->ops->check(f->store, false, NULL, count_checked, counts), 0);
	assert_int_equal(counts[0], 5);
	assert_int_equal(counts[1], 0);
}

#define WRITERS 6
#define EACH 40

/* Many processes as many hosts, each with its own store, appending at
 * once: every event is there once; in PostgreSQL seqs are 1..n. */
static void test_many_writers_lose_nothing(void **state)
{
	fixture *f = *state;
	pid_t pids[WRITERS];
	char *all;
	size_t found = 0;

	for (int k = 0; k < WRITERS; k++) {
		pids[k] = fork();
		assert_true(pids[k] >= 0);
		if (pids[k] == 0) {
			ac_journal_store *mine = NULL;
			char message[32];
			int rc = open_store(f, &mine);

			for (int i = 0; i < EACH && rc == 0; i++) {
				snprintf(message, sizeof(message), "w%d-%d", k, i);
				log_event(mine, "Claude", "SUCCESS", "c", "2025-01-01T00:00:00.000Z",
					  message);
			}
			ac_journal_store_free(mine);
			_exit(rc ? 1 : 0);
		}
	}
	for (int k = 0; k < WRITERS; k++) {
		int status = 0;

		assert_int_equal(waitpid(pids[k], &status, 0), pids[k]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	all = messages(f, "", 0);
	for (int k = 0; k < WRITERS; k++)
		for (int i = 0; i < EACH; i++) {
			char message[40];

			snprintf(message, sizeof(message), "w%d-%d ", k, i);
			found += strstr(all, message) != NULL;
		}
	free(all);
	assert_int_equal(found, WRITERS * EACH);
	if (f->pg) {
		char sql[256];

		snprintf(sql, sizeof(sql),
			 "SELECT (count(*) = %d AND min(seq) = 1 AND max(seq) = %d"
			 " AND count(DISTINCT id) = %d)::int FROM \"%s\".journal_events",
			 WRITERS * EACH, WRITERS * EACH, WRITERS * EACH, f->schema);
		assert_int_equal(query_number(sql), 1);
	}
}

/* What follow handed: each message, or "!" and why for an invalid one. */
static int collect_followed(const ac_scan_match *m, void *ctx)
{
	const char *at = strstr(m->line, "\"message\":\"");
	ac_buf *out = ctx;

	if (m->invalid)
		return ac_buf_printf(out, "!%.12s ", m->invalid);
	at += strlen("\"message\":\"");
	ac_buf_append(out, at, strcspn(at, "\""));
	return ac_buf_putc(out, ' ');
}

static void assert_follow(fixture *f, uint64_t *seq, size_t backlog, const char *expected)
{
	ac_buf out = AC_BUF_INIT;

	if (ac_journal_store_follow(f->store, seq, backlog, NULL, collect_followed, &out) != 0)
		fail_msg("follow: %s", ac_error_last());
	ac_buf_putc(&out, '\0');
	if (strcmp(out.data, expected))
		fail_msg("follow after %llu: got '%s', expected '%s'", (unsigned long long)*seq,
			 out.data, expected);
	ac_buf_free(&out);
}

/* A live view's reading: the newest `backlog` first, then only what came
 * after the last seq (nothing twice, nothing skipped), an event that no
 * longer checks handed marked. The file store says it is followed by its
 * watcher. */
static void test_follow_by_seq(void **state)
{
	fixture *f = *state;
	uint64_t seq = 0;
	char sql[512];

	if (!f->pg) {
		assert_int_equal(ac_journal_store_follow(f->store, &seq, 10, NULL, collect_followed,
							 NULL), AC_ENOTSUP);
		return;
	}
	fill(f);
	assert_follow(f, &seq, 2, "m4 hello m5 ");
	assert_int_equal(seq, 5);
	assert_follow(f, &seq, 2, "");
	log_event(f->store, "Codex", "SUCCESS", "c4", "2025-01-06T00:00:00.000Z", "m6");
	log_event(f->store, "Codex", "SUCCESS", "c4", "2025-01-07T00:00:00.000Z", "m7");
	assert_follow(f, &seq, 1, "m6 m7 ");
	snprintf(sql, sizeof(sql),
		 "WITH n AS (UPDATE \"%s\".logs SET last_seq = last_seq + 1 WHERE kind = 'journal'"
		 " RETURNING last_seq) INSERT INTO \"%s\".journal_events (seq, id, ts, agent, status,"
		 " action_type, host, event) SELECT last_seq, 'x', 'x', 'Robot', 'SUCCESS', 'ANALYSIS',"
		 " 'h', '{\"agent\":\"Robot\"}' FROM n RETURNING 1", f->schema, f->schema);
	assert_int_equal(query_number(sql), 1);
	log_event(f->store, "Codex", "SUCCESS", "c4", "2025-01-08T00:00:00.000Z", "m9");
	assert_follow(f, &seq, 1, "!id: missing  m9 ");
	assert_int_equal(seq, 9);
}

/* A store whose ops are of another version is refused before it is
 * asked to append or follow. */
static void test_store_version_refused(void **state)
{
	fixture *f = *state;
	const ac_journal_store_ops *real = f->store->ops;
	ac_journal_store_ops other = *real;
	uint64_t seq = 0;

	assert_int_equal(ac_journal_store_version_check(f->store), 0);
	other.version = AC_JOURNAL_STORE_OPS_VERSION + 1;
	f->store->ops = &other;
	assert_int_equal(ac_journal_store_append(f->store, "{}", 2, NULL), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "journal store version 2"));
	assert_int_equal(ac_journal_store_follow(f->store, &seq, 0, NULL, NULL, NULL), AC_EINVAL);
	f->store->ops = real;
	assert_int_equal(ac_journal_store_version_check(NULL), AC_EINVAL);
}

#define BOTH(name)                                                        \
	cmocka_unit_test_setup_teardown(name, setup_file, teardown)
#define PG(name) cmocka_unit_test_setup_teardown(name, setup_pg, teardown)

int main(void)
{
	const struct CMUnitTest file_tests[] = {
		BOTH(test_read_and_last),
		BOTH(test_queries_as_the_file_engine_answers),
		BOTH(test_check_counts),
		BOTH(test_many_writers_lose_nothing),
		BOTH(test_follow_by_seq),
		BOTH(test_store_version_refused),
	};
	const struct CMUnitTest pg_tests[] = {
		PG(test_read_and_last),
		PG(test_queries_as_the_file_engine_answers),
		PG(test_check_counts),
		PG(test_many_writers_lose_nothing),
		PG(test_follow_by_seq),
	};

	if (getenv("AC_TEST_PG"))
		return cmocka_run_group_tests_name("journal_store_pg", pg_tests, NULL, NULL);
	return cmocka_run_group_tests_name("journal_store_file", file_tests, NULL, NULL);
}
