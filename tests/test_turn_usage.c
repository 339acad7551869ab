/* Per-turn usage rows in the file store (ac_turn_usage): rows survive a
 * foreign writer that rewrites the session the seed's way, totals are
 * derived from the rows after a crash between the writes, totals counted
 * before rows existed are carried, and a torn last row is skipped and
 * repaired. */
#include "ac_backend.h"
#include "ac_error.h"
#include "ac_session.h"
#include "ac_turn_usage.h"

#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define OK(expr)                                                                   \
	do {                                                                           \
		int rc_ = (expr);                                                          \
		if (rc_ != 0)                                                              \
			fail_msg("%s: %d (%s)", #expr, rc_, ac_error_last());              \
	} while (0)

typedef struct {
	char *root;
	char *sessions;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	ac_session *s = NULL;

	f->root = tu_make_temp_dir();
	f->sessions = tu_path(f->root, "sessions");
	if (ac_session_create(&s, f->sessions, "s1", "task", "t", "u", "a") != 0)
		return -1;
	ac_session_free(s);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	tu_remove_tree(f->root);
	free(f->root);
	free(f->sessions);
	free(f);
	return 0;
}

static void turn(const fixture *f, uint64_t in, uint64_t out)
{
	ac_usage u = {in, out, NULL};

	OK(ac_turn_usage_record(NULL, NULL, f->sessions, "s1", NULL, &u, NULL));
}

static json_int_t doc_usage(const fixture *f, const char *key)
{
	json_t *doc = tu_seed_load(f->sessions, "s1");
	json_int_t v = json_integer_value(
		json_object_get(json_object_get(json_object_get(doc, "metadata"), "usage"), key));

	json_decref(doc);
	return v;
}

static json_int_t rows_total(const fixture *f, const char *key, size_t *out_rows)
{
	json_t *doc = tu_seed_load(f->sessions, "s1"), *loaded = NULL;
	json_int_t v;

	OK(ac_turn_usage_load(&loaded, f->sessions, "s1",
			      json_object_get(json_object_get(doc, "metadata"), "usage")));
	v = json_integer_value(json_object_get(json_object_get(loaded, "totals"), key));
	if (out_rows)
		*out_rows = json_array_size(json_object_get(loaded, "turns"));
	json_decref(loaded);
	json_decref(doc);
	return v;
}

/* A seed-style writer read the document before our turn and saved it
 * after: the document's totals lose the turn, the row does not; the next
 * turn writes totals that count it again. */
static void test_foreign_rewrite_loses_no_row(void **state)
{
	fixture *f = *state;
	json_t *stale;
	size_t rows;

	turn(f, 10, 1);
	stale = tu_seed_load(f->sessions, "s1");
	turn(f, 20, 2);
	tu_add_turn(stale, "foreign");
	tu_seed_save(f->sessions, "s1", stale);
	json_decref(stale);
	assert_int_equal(doc_usage(f, "turns"), 1); /* the lost update */
	assert_int_equal(rows_total(f, "turns", &rows), 2);
	assert_int_equal(rows, 2);
	assert_int_equal(rows_total(f, "inputTokens", NULL), 30);
	turn(f, 40, 4);
	assert_int_equal(doc_usage(f, "turns"), 3);
	assert_int_equal(doc_usage(f, "inputTokens"), 70);
	assert_int_equal(doc_usage(f, "outputTokens"), 7);
}

static const char *crash_point;

static void die_at(const char *point, void *ctx)
{
	(void)ctx;
	if (crash_point && !strcmp(point, crash_point))
		_exit(42);
}

/* SIGKILL-like death between the row and the totals: the row is the
 * truth; readers sum it, the next turn writes the right totals. */
static void test_crash_after_row(void **state)
{
	fixture *f = *state;
	ac_turn_usage_hooks hooks = {NULL, die_at, NULL};
	ac_usage u = {5, 5, NULL};
	int status;
	pid_t pid;

	turn(f, 1, 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		crash_point = AC_TURN_USAGE_AFTER_ROW;
		_exit(ac_turn_usage_record(NULL, NULL, f->sessions, "s1", NULL, &u, &hooks) ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 42);
	assert_int_equal(doc_usage(f, "turns"), 1);
	assert_int_equal(rows_total(f, "turns", NULL), 2);
	assert_int_equal(rows_total(f, "inputTokens", NULL), 6);
	turn(f, 1, 1);
	assert_int_equal(doc_usage(f, "turns"), 3);
	assert_int_equal(doc_usage(f, "inputTokens"), 7);
}

/* Totals from before rows were kept are one carried row: nothing lost,
 * turn numbers go on. */
static void test_legacy_totals_carried(void **state)
{
	fixture *f = *state;
	ac_session *s = NULL;
	size_t rows;

	OK(ac_session_record_usage(&s, f->sessions, "s1", 50, 5));
	ac_session_free(s);
	OK(ac_session_record_usage(&s, f->sessions, "s1", 50, 5));
	ac_session_free(s);
	assert_int_equal(rows_total(f, "turns", &rows), 2); /* shown before any row */
	assert_int_equal(rows, 1);
	turn(f, 1, 1);
	assert_int_equal(rows_total(f, "turns", &rows), 3);
	assert_int_equal(rows, 2);
	assert_int_equal(doc_usage(f, "inputTokens"), 101);
	assert_int_equal(doc_usage(f, "turns"), 3);
}

/* A writer that died mid-row left a torn line: readers skip it, the next
 * append cuts it, and the file is whole rows again. */
static void test_torn_row_repaired(void **state)
{
	fixture *f = *state;
	char *path = tu_path(f->sessions, ".usage/s1.jsonl");
	static const char torn[] = "{\"turn\":2,\"timestamp\":\"1999-";
	size_t rows;
	char *text;

	turn(f, 1, 1);
	tu_append_file(path, torn, strlen(torn));
	assert_int_equal(rows_total(f, "turns", &rows), 1);
	assert_int_equal(rows, 1);
	turn(f, 2, 2);
	assert_int_equal(rows_total(f, "turns", &rows), 2);
	assert_int_equal(rows, 2);
	text = tu_read_file(path, NULL);
	assert_null(strstr(text, torn));
	assert_int_equal(tu_count_lines(path), 2);
	free(text);
	free(path);
}

/* A bad Usage, or a total past 2^53-1, writes nothing at all. */
static void test_refusals_write_nothing(void **state)
{
	fixture *f = *state;
	json_t *bad = json_pack("{s:s}", "totalTokens", "12");
	json_t *msgs = json_pack("[{s:s, s:s}]", "role", "user", "content", "lost?");
	ac_usage u = {1, 1, bad}, huge = {AC_SESSION_COUNT_MAX, 0, NULL};
	char *before, *after;
	char *doc = tu_path(f->sessions, "s1.json");

	turn(f, 1, 1);
	before = tu_read_file(doc, NULL);
	assert_int_equal(ac_turn_usage_record(NULL, NULL, f->sessions, "s1", msgs, &u, NULL),
			 AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "totalTokens"));
	assert_int_equal(ac_turn_usage_record(NULL, NULL, f->sessions, "s1", msgs, &huge, NULL),
			 AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "inputTokens would pass"));
	after = tu_read_file(doc, NULL);
	assert_string_equal(before, after);
	assert_int_equal(rows_total(f, "turns", NULL), 1);
	free(before);
	free(after);
	free(doc);
	json_decref(bad);
	json_decref(msgs);
}

/* A row's total is the Usage's own totalTokens when given (it may count
 * cache tokens), else input + output; the totals sum those, never 0 for
 * turns that said nothing of a total. */
static void test_total_tokens_derived(void **state)
{
	json_t *rows = json_pack("[{s:i, s:{s:i, s:i, s:i, s:i}}, {s:i, s:{s:i, s:i}}]",
				 "turn", 1, "usage", "inputTokens", 100, "outputTokens", 20,
				 "cacheReadInputTokens", 500, "totalTokens", 620,
				 "turn", 2, "usage", "inputTokens", 7, "outputTokens", 3);
	json_t *totals = NULL;

	(void)state;
	assert_int_equal(ac_turn_usage_total(json_object_get(json_array_get(rows, 0), "usage")), 620);
	assert_int_equal(ac_turn_usage_total(json_object_get(json_array_get(rows, 1), "usage")), 10);
	OK(ac_turn_usage_totals(&totals, rows));
	assert_int_equal(json_integer_value(json_object_get(totals, "totalTokens")), 630);
	assert_int_equal(json_integer_value(json_object_get(totals, "inputTokens")), 107);
	assert_int_equal(json_integer_value(json_object_get(totals, "turns")), 2);
	json_decref(totals);
	json_decref(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_foreign_rewrite_loses_no_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_after_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_legacy_totals_carried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_row_repaired, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals_write_nothing, setup, teardown),
		cmocka_unit_test(test_total_tokens_derived),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
