/* The store seam (ac_workspace_store(), issue 25): one call, whichever
 * store the workspace has. The same cases run on the files and, when
 * AC_TEST_PG is set (ctest's test_workspace_store_pg, through
 * tests/pg/with-postgres.sh), on PostgreSQL: the operator's status change
 * (with the status the operator saw), compaction, the optional operations
 * a store offers instead of its name (a watch and an unfold among them),
 * `storage check`'s report, and one store per thread. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_backend_pg.h"
#include "ac_config.h"
#include "ac_error.h"
#include "ac_operator.h"
#include "ac_store_watch.h"
#include "ac_workspace.h"

#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The server the PG* variables name; the default schema (a throwaway
 * cluster: ids are made unique per run instead). */
#define TEST_PG_URL "application_name=agentctl-test-workspace-store"

typedef struct {
	char *dir;
	ac_config *config;
	ac_workspace ws;
	char id[64];
} fixture;

static bool on_pg(void)
{
	return getenv("AC_TEST_PG") != NULL;
}

static int setup(void **state)
{
	static int n;
	fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_make_temp_dir();
	if (ac_config_load(&f->config, f->dir) != 0 ||
	    (on_pg() && ac_config_set_cli(f->config, "storage.url", TEST_PG_URL) != 0) ||
	    ac_config_set_cli(f->config, "session.quietMs", "0") != 0 ||
	    ac_workspace_init(&f->ws, f->config) != 0)
		fail_msg("%s", ac_error_last());
	snprintf(f->id, sizeof(f->id), "seam-%ld-%d", (long)getpid(), ++n);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ac_workspace_free(&f->ws);
	ac_config_free(f->config);
	tu_remove_tree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* A session of tenant t1 with n messages, made through the store. */
static void make_session(fixture *f, size_t n)
{
	ac_backend *b = NULL;
	json_t *messages = json_array();
	char *made = NULL;

	for (size_t i = 0; i < n; i++)
		json_array_append_new(messages, json_pack("{s:s, s:s+}", "role", i % 2 ? "assistant" : "user",
							  "content", "message number ", i % 2 ? "odd" : "even"));
	assert_int_equal(ac_workspace_store(&b, &f->ws), 0);
	assert_int_equal(b->session.create(b->impl, &made, "t1", "u1", "a1", f->id, "the task"), 0);
	if (n)
		assert_int_equal(b->session.append(b->impl, "t1", f->id, messages), 0);
	ac_workspace_store_release(&f->ws, b);
	json_decref(messages);
	free(made);
}

static void assert_status(fixture *f, const char *want)
{
	ac_backend *b = NULL;
	json_t *doc = NULL;

	assert_int_equal(ac_workspace_store(&b, &f->ws), 0);
	assert_int_equal(b->session.get(b->impl, &doc, "t1", f->id), 0);
	assert_string_equal(json_string_value(json_object_get(doc, "status")), want);
	json_decref(doc);
	ac_workspace_store_release(&f->ws, b);
}

/* Opened once: a second ask in the thread lends the same store. */
static void test_opened_once(void **state)
{
	fixture *f = *state;
	ac_backend *b1 = NULL, *b2 = NULL;

	assert_int_equal(ac_workspace_store(&b1, &f->ws), 0);
	assert_int_equal(ac_workspace_store(&b2, &f->ws), 0);
	assert_ptr_equal(b1, b2);
	ac_workspace_store_release(&f->ws, b2);
	ac_workspace_store_release(&f->ws, b1);
	assert_int_equal(ac_workspace_store(&b2, &f->ws), 0);
	assert_ptr_equal(b1, b2);
	ac_workspace_store_release(&f->ws, b2);
}

/* What only one store can do is an optional operation, asked for: the
 * files have local session files; the database its locks and cuts. */
static void test_optional_operations(void **state)
{
	fixture *f = *state;
	ac_backend *b = NULL;

	assert_int_equal(ac_workspace_store(&b, &f->ws), 0);
	if (on_pg()) {
		assert_null(b->optional.local_sessions);
		assert_non_null(b->optional.hold_session);
		assert_non_null(b->optional.lease);
		assert_non_null(b->optional.update_document);
		assert_non_null(b->optional.cut_history);
		assert_string_equal(ac_workspace_store_where(&f->ws), TEST_PG_URL);
	} else {
		assert_non_null(b->optional.local_sessions);
		assert_string_equal(b->optional.local_sessions(b), f->ws.sessions_dir);
		assert_null(b->optional.hold_session);
		assert_null(b->optional.lease);
		assert_null(b->optional.cut_history);
		assert_string_equal(ac_workspace_store_where(&f->ws), f->ws.sessions_dir);
	}
	ac_workspace_store_release(&f->ws, b);
}

/* Drives w until it is live or says why not (up to 10 s). */
static void watch_settle(ac_store_watch *w)
{
	for (int i = 0; i < 1000 && !ac_store_watch_live(w) &&
			!strstr(ac_store_watch_state(w), "trying again");
	     i++) {
		short events = 0;
		int fd = ac_store_watch_fd(w, &events);

		if (fd >= 0)
			poll(&(struct pollfd){fd, events, 0}, 1, 10);
		ac_store_watch_read(w, NULL);
	}
}

/* Following changes and unfolding a compaction are optional operations
 * too (issue 25): the database's watch LISTENs on its own connection and
 * comes live; the files have neither (their watcher is ac_watch.h, their
 * documents unfold themselves). */
static void test_watch_and_unfold_asked_for(void **state)
{
	fixture *f = *state;
	ac_store_watch *w = NULL;
	ac_backend *b = NULL;

	assert_int_equal(ac_workspace_store(&b, &f->ws), 0);
	if (on_pg()) {
		assert_non_null(b->optional.unfold);
		assert_non_null(b->optional.watch);
		assert_int_equal(b->optional.watch(b, &w), 0);
		watch_settle(w);
		assert_true(ac_store_watch_live(w));
		ac_store_watch_free(w);
	} else {
		assert_null(b->optional.unfold);
		assert_null(b->optional.watch);
	}
	ac_workspace_store_release(&f->ws, b);
}

/* A watch the server refuses says so in one line that names the
 * operation and the store, the server's reason after "database: ",
 * without libpq's severity words ("FATAL:  ") or a second line. */
static void test_watch_refused_one_line(void **state)
{
	ac_store_watch *w = NULL;
	const char *said;

	(void)state;
	if (!on_pg())
		skip();
	assert_int_equal(ac_store_watch_new(&w, TEST_PG_URL " dbname=agentctl_no_such_db"), 0);
	watch_settle(w);
	said = ac_store_watch_state(w);
	assert_false(ac_store_watch_live(w));
	assert_non_null(strstr(said, "store watch, connecting ("));
	assert_non_null(strstr(said, "): database: "));
	assert_non_null(strstr(said, "agentctl_no_such_db"));
	assert_null(strstr(said, "FATAL"));
	assert_null(strchr(said, '\n'));
	ac_store_watch_free(w);
}

/* `storage check` asks the seam: which store, and a database's schema. */
static void test_store_check(void **state)
{
	fixture *f = *state;
	ac_workspace_store_report r;

	assert_int_equal(ac_workspace_store_check(&r, &f->ws), 0);
	assert_string_equal(r.where, ac_workspace_store_where(&f->ws));
	assert_int_equal(r.versioned, on_pg());
	assert_string_equal(r.kind, on_pg() ? "postgresql" : "files");
	assert_int_equal(r.missing, 0);
	if (on_pg())
		assert_int_equal(r.version, r.latest);
	ac_workspace_store_report_clear(&r);
}

/* The operator's status change: one call on either store, refused with
 * nothing written when the session is not what the operator saw. */
static void test_set_status_same_call(void **state)
{
	fixture *f = *state;
	ac_operator_outcome out;

	make_session(f, 2);
	assert_int_equal(ac_operator_set_status(&f->ws, f->id, NULL, "paused", false, &out, NULL), 0);
	assert_true(out.applied);
	assert_status(f, "paused");
	/* The operator saw it running: another change came first. */
	assert_int_equal(ac_operator_set_status(&f->ws, f->id, "running", "completed", false, &out,
						NULL),
			 AC_ECONFLICT);
	assert_status(f, "paused");
	assert_int_equal(ac_operator_set_status(&f->ws, f->id, "paused", "running", false, &out,
						NULL),
			 0);
	assert_status(f, "running");
	/* The rules are the same: an ended session stays ended. */
	assert_int_equal(ac_operator_set_status(&f->ws, f->id, NULL, "completed", false, &out, NULL),
			 0);
	assert_int_equal(ac_operator_set_status(&f->ws, f->id, NULL, "running", false, &out, NULL),
			 AC_EINVAL);
	assert_status(f, "completed");
	assert_int_equal(ac_operator_set_status(&f->ws, "no-such-session", NULL, "paused", false,
						&out, NULL),
			 AC_ENOTFOUND);
}

/* Compaction: one call; the summarised messages go to an archive file on
 * the files and into the store's own table on a database. */
static void test_compact_same_call(void **state)
{
	fixture *f = *state;
	ac_operator_compaction c = {0};
	ac_backend *b = NULL;
	json_t *messages = NULL;

	make_session(f, 40);
	assert_int_equal(ac_operator_compact(&f->ws, f->id, true, &c, NULL), 0);
	assert_true(c.done.compacted);
	assert_int_equal(c.done.messages_before, 40);
	assert_true(c.done.messages_after < 40);
	assert_int_equal(c.archive != NULL, !on_pg());
	assert_int_equal(ac_workspace_store(&b, &f->ws), 0);
	assert_int_equal(b->session.load_all(b->impl, &messages, "t1", f->id), 0);
	assert_int_equal(json_array_size(messages), c.done.messages_after);
	ac_workspace_store_release(&f->ws, b);
	json_decref(messages);
	ac_operator_compaction_free(&c);
	assert_null(c.archive);
}

typedef struct {
	const ac_workspace *ws;
	const ac_backend *lent;
	int rc;
	bool same;
} other_thread;

static void *ask_from_another_thread(void *arg)
{
	other_thread *t = arg;
	ac_backend *b = NULL;

	t->rc = ac_workspace_store(&b, t->ws);
	t->same = b == t->lent;
	ac_workspace_store_release(t->ws, b);
	return NULL;
}

/* A backend serves one thread at a time: a thread asking while another
 * holds the store gets one of its own. */
static void test_one_store_per_thread(void **state)
{
	fixture *f = *state;
	ac_backend *b = NULL;
	other_thread t = {&f->ws, NULL, -1, true};
	pthread_t thread;

	assert_int_equal(ac_workspace_store(&b, &f->ws), 0);
	t.lent = b;
	assert_int_equal(pthread_create(&thread, NULL, ask_from_another_thread, &t), 0);
	pthread_join(thread, NULL);
	assert_int_equal(t.rc, 0);
	assert_false(t.same);
	ac_workspace_store_release(&f->ws, b);
}

/* The default tenant: storage.tenant, else the user's name. */
static void test_default_tenant(void **state)
{
	fixture *f = *state;
	struct passwd *pw = getpwuid(geteuid());
	char *tenant = NULL;

	assert_int_equal(ac_workspace_tenant(&tenant, &f->ws), 0);
	assert_non_null(pw);
	assert_string_equal(tenant, pw->pw_name);
	free(tenant);
	assert_int_equal(ac_config_set_cli(f->config, "storage.tenant", "team-a"), 0);
	assert_int_equal(ac_workspace_tenant(&tenant, &f->ws), 0);
	assert_string_equal(tenant, "team-a");
	free(tenant);
	assert_int_equal(ac_config_set_cli(f->config, "storage.tenant", "a/b"), 0);
	assert_int_equal(ac_workspace_tenant(&tenant, &f->ws), AC_EINVAL);
	assert_null(tenant);
	assert_non_null(strstr(ac_error_last(), "storage.tenant"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_opened_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_optional_operations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_and_unfold_asked_for, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_refused_one_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_status_same_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compact_same_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_store_per_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_tenant, setup, teardown),
	};

	return cmocka_run_group_tests_name(on_pg() ? "workspace_store_pg" : "workspace_store",
					   tests, NULL, NULL);
}
