/* Watching the workspace and following the journal like tail -F. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_backend.h"
#include "ac_config.h"
#include "ac_error.h"
#include "ac_journal.h"
#include "ac_journal_follow.h"
#include "ac_json_scan.h"
#include "ac_session.h"
#include "ac_watch.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	char *dir;
	char *journal;
	ac_config *config;
	ac_workspace ws;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_make_temp_dir();
	f->journal = tu_path(f->dir, "JOURNAL.jsonl");
	assert_int_equal(ac_config_load(&f->config, f->dir), 0);
	assert_int_equal(ac_workspace_init(&f->ws, f->config), 0);
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
	free(f->journal);
	free(f);
	return 0;
}

/* Collects the messages of followed events, space-separated. */
typedef struct {
	char seen[4096];
	int count;
} seen_events;

static int remember(const ac_scan_match *m, void *ctx)
{
	seen_events *s = ctx;
	const ac_json_span *msg = &m->fields[AC_EV_RESULT_MESSAGE];

	strncat(s->seen, msg->start + 1, msg->len - 2);
	strcat(s->seen, " ");
	s->count++;
	return 0;
}

static void append_event(const char *journal, const char *message)
{
	const char *line = tu_event_line("Claude", message);

	assert_int_equal(ac_journal_append(NULL, journal, line, strlen(line), NULL), 0);
}

static const char *follow(ac_journal_follow *fl, seen_events *s, bool *restarted)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(ac_journal_follow_read(fl, restarted, NULL, remember, s), 0);
	return s->seen;
}

static void test_follow_backlog_then_only_new_events(void **state)
{
	fixture *f = *state;
	ac_journal_follow *fl;
	seen_events s;
	bool restarted;

	for (int i = 0; i < 5; i++) {
		char msg[16];

		snprintf(msg, sizeof(msg), "old%d", i);
		append_event(f->journal, msg);
	}
	assert_int_equal(ac_journal_follow_new(&fl, f->journal, 2, NULL), 0);
	assert_string_equal(follow(fl, &s, &restarted), "old3 old4 ");
	assert_string_equal(follow(fl, &s, &restarted), "");
	append_event(f->journal, "new1");
	append_event(f->journal, "new2");
	assert_string_equal(follow(fl, &s, &restarted), "new1 new2 ");
	assert_false(restarted);
	ac_journal_follow_free(fl);
}

static void test_follow_waits_for_the_newline(void **state)
{
	fixture *f = *state;
	char *line = strdup(tu_event_line("Codex", "slow"));
	size_t half = strlen(line) / 2;
	ac_journal_follow *fl;
	seen_events s;

	append_event(f->journal, "first");
	assert_int_equal(ac_journal_follow_new(&fl, f->journal, 10, NULL), 0);
	assert_string_equal(follow(fl, &s, NULL), "first ");
	tu_append_file(f->journal, line, half);
	assert_string_equal(follow(fl, &s, NULL), "");
	tu_append_file(f->journal, line + half, strlen(line) - half);
	tu_append_file(f->journal, "\n", 1);
	assert_string_equal(follow(fl, &s, NULL), "slow ");
	assert_string_equal(follow(fl, &s, NULL), "");
	ac_journal_follow_free(fl);
	free(line);
}

static void test_follow_survives_rotation_and_truncation(void **state)
{
	fixture *f = *state;
	ac_journal_follow *fl;
	seen_events s;
	bool restarted;

	append_event(f->journal, "before");
	assert_int_equal(ac_journal_follow_new(&fl, f->journal, 10, NULL), 0);
	follow(fl, &s, &restarted);
	assert_int_equal(ac_journal_rotate(NULL, f->journal, NULL), 0);
	assert_string_equal(follow(fl, &s, &restarted), "");
	assert_true(restarted);
	append_event(f->journal, "after-rotation");
	assert_string_equal(follow(fl, &s, &restarted), "after-rotation ");
	assert_false(restarted);
	/* Truncated in place and regrown. */
	tu_write_file(f->journal, "", 0);
	append_event(f->journal, "regrown");
	assert_string_equal(follow(fl, &s, &restarted), "regrown ");
	assert_true(restarted);
	/* Deleted: nothing, no error; re-created: read from its start. */
	unlink(f->journal);
	assert_string_equal(follow(fl, &s, &restarted), "");
	append_event(f->journal, "recreated");
	assert_string_equal(follow(fl, &s, &restarted), "recreated ");
	/* Replaced between two looks, possibly with the same inode number. */
	unlink(f->journal);
	append_event(f->journal, "replaced-unseen");
	assert_string_equal(follow(fl, &s, &restarted), "replaced-unseen ");
	assert_true(restarted);
	ac_journal_follow_free(fl);
}

/* Waits (on the fd, or the poll interval) until the watcher reports bits
 * of want, for at most two seconds; returns everything it reported. */
static unsigned wait_for(ac_watch *w, unsigned want)
{
	unsigned seen = 0;

	for (int round = 0; round < 40 && (seen & want) != want; round++) {
		struct pollfd p = {ac_watch_fd(w), POLLIN, 0};

		if (p.fd >= 0)
			poll(&p, 1, 50);
		else
			usleep(50 * 1000);
		seen |= ac_watch_read(w);
	}
	return seen;
}

static void check_watcher(fixture *f, int poll_ms)
{
	ac_watch *w;
	char *ops;

	assert_int_equal(ac_watch_new(&w, &f->ws, poll_ms), 0);
	assert_int_equal(ac_watch_polling(w, NULL), poll_ms < 0);
	ac_watch_read(w);
	append_event(f->journal, "watched");
	assert_true(wait_for(w, AC_WATCH_JOURNAL) & AC_WATCH_JOURNAL);
	assert_int_equal(ac_session_create(NULL, f->ws.sessions_dir, "w1", "t", NULL, NULL, NULL), 0);
	assert_true(wait_for(w, AC_WATCH_SESSIONS) & AC_WATCH_SESSIONS);
	assert_int_equal(ac_session_set_status(NULL, f->ws.sessions_dir, "w1", "paused"), 0);
	assert_true(wait_for(w, AC_WATCH_SESSIONS) & AC_WATCH_SESSIONS);
	ops = tu_path(f->dir, ".agent/operations.jsonl");
	tu_append_file(ops, "{}\n", 3);
	assert_true(wait_for(w, AC_WATCH_OPERATIONS) & AC_WATCH_OPERATIONS);
	free(ops);
	ac_watch_free(w);
}

static void test_inotify_reports_each_kind(void **state)
{
	check_watcher(*state, 1000);
}

static void test_polling_reports_each_kind(void **state)
{
	check_watcher(*state, -100);
}

static void test_idle_inotify_watcher_sleeps(void **state)
{
	fixture *f = *state;
	ac_watch *w;
	struct pollfd p;

	append_event(f->journal, "x");
	assert_int_equal(ac_watch_new(&w, &f->ws, 1000), 0);
	ac_watch_read(w);
	/* Nothing happens: the fd stays quiet (a dashboard would sleep). */
	p = (struct pollfd){ac_watch_fd(w), POLLIN, 0};
	assert_int_equal(poll(&p, 1, 100), 0);
	assert_int_equal(ac_watch_read(w), 0);
	ac_watch_free(w);
}

static void append_trace(fixture *f, const char *tenant, const char *session)
{
	char *sessions = tu_path(f->dir, ".agent/sessions"), *data = tu_path(f->dir, ".agent");
	ac_backend_fs_options opts = {.sessions_dir = sessions, .data_dir = data};
	json_t *envelope = json_pack("{s:s}", "type", "tool_call");
	ac_backend b;

	assert_int_equal(ac_backend_fs_init(&b, &opts), 0);
	assert_int_equal(b.trace.append(b.impl, NULL, tenant, session, envelope), 0);
	ac_backend_close(&b);
	json_decref(envelope);
	free(sessions);
	free(data);
}

/* What the watcher reports once events had time to arrive: 100 ms on the
 * fd, or two polling intervals. */
static unsigned settle(ac_watch *w, int poll_ms)
{
	struct pollfd p = {ac_watch_fd(w), POLLIN, 0};
	unsigned seen = 0;

	if (p.fd >= 0) {
		poll(&p, 1, 100);
		return ac_watch_read(w);
	}
	for (int i = 0; i < 2; i++) {
		usleep((useconds_t)(poll_ms < 0 ? -poll_ms : poll_ms) * 1000);
		seen |= ac_watch_read(w);
	}
	return seen;
}

/* The followed trace is reported when it is created (its tenant folder
 * did not exist yet) and on every append; another session's is not. */
static void check_trace_watch(fixture *f, int poll_ms)
{
	ac_watch *w;

	assert_int_equal(ac_watch_new(&w, &f->ws, poll_ms), 0);
	assert_int_equal(ac_watch_trace(w, "acme", "s1"), 0);
	ac_watch_read(w);
	append_trace(f, "acme", "s1");
	assert_true(wait_for(w, AC_WATCH_TRACES) & AC_WATCH_TRACES);
	append_trace(f, "acme", "s1");
	assert_true(wait_for(w, AC_WATCH_TRACES) & AC_WATCH_TRACES);
	append_trace(f, "acme", "other");
	assert_false(settle(w, poll_ms) & AC_WATCH_TRACES);
	/* Following another trace; then none. */
	assert_int_equal(ac_watch_trace(w, "acme", "other"), 0);
	append_trace(f, "acme", "other");
	assert_true(wait_for(w, AC_WATCH_TRACES) & AC_WATCH_TRACES);
	assert_int_equal(ac_watch_trace(w, NULL, NULL), 0);
	append_trace(f, "acme", "other");
	assert_false(settle(w, poll_ms) & AC_WATCH_TRACES);
	ac_watch_free(w);
}

static void test_inotify_follows_a_trace(void **state)
{
	check_trace_watch(*state, 1000);
}

static void test_polling_follows_a_trace(void **state)
{
	check_trace_watch(*state, -100);
}

static void test_trace_ids_are_checked(void **state)
{
	fixture *f = *state;
	ac_watch *w;

	assert_int_equal(ac_watch_new(&w, &f->ws, 1000), 0);
	assert_int_equal(ac_watch_trace(w, "../escape", "s1"), AC_EINVAL);
	assert_int_equal(ac_watch_trace(w, "acme", "a/b"), AC_EINVAL);
	assert_int_equal(ac_watch_trace(w, "acme", "s1"), 0);
	ac_watch_free(w);
}

/* Writes <checkpoints>/<session>/<name>.json (folders made as needed). */
static void put_checkpoint(fixture *f, const char *session, const char *name)
{
	char rel[256];

	snprintf(rel, sizeof(rel), ".agent/checkpoints/%s/%s.json", session, name);
	tu_put(f->dir, rel, "{}");
}

/* Checkpoints are written into per-session folders: each one is reported,
 * in a folder that was there when watching began and in one that appears
 * later; a folder removed and made again is still followed. */
static void check_checkpoint_watch(fixture *f, int poll_ms)
{
	ac_watch *w;

	put_checkpoint(f, "s1", "c1");
	assert_int_equal(ac_watch_new(&w, &f->ws, poll_ms), 0);
	ac_watch_read(w);
	settle(w, poll_ms);
	put_checkpoint(f, "s1", "c2");
	assert_true(wait_for(w, AC_WATCH_CHECKPOINTS) & AC_WATCH_CHECKPOINTS);
	settle(w, poll_ms);
	put_checkpoint(f, "s2", "c1");
	assert_true(wait_for(w, AC_WATCH_CHECKPOINTS) & AC_WATCH_CHECKPOINTS);
	settle(w, poll_ms);
	put_checkpoint(f, "s2", "c2");
	assert_true(wait_for(w, AC_WATCH_CHECKPOINTS) & AC_WATCH_CHECKPOINTS);
	settle(w, poll_ms);
	/* Nothing written: nothing reported. */
	assert_false(settle(w, poll_ms) & AC_WATCH_CHECKPOINTS);
	{
		char *s2 = tu_path(f->dir, ".agent/checkpoints/s2");

		tu_remove_tree(s2);
		free(s2);
	}
	assert_true(wait_for(w, AC_WATCH_CHECKPOINTS) & AC_WATCH_CHECKPOINTS);
	settle(w, poll_ms);
	put_checkpoint(f, "s2", "c3");
	assert_true(wait_for(w, AC_WATCH_CHECKPOINTS) & AC_WATCH_CHECKPOINTS);
	settle(w, poll_ms);
	put_checkpoint(f, "s2", "c4");
	assert_true(wait_for(w, AC_WATCH_CHECKPOINTS) & AC_WATCH_CHECKPOINTS);
	ac_watch_free(w);
}

static void test_inotify_follows_session_checkpoint_folders(void **state)
{
	check_checkpoint_watch(*state, 1000);
}

static void test_polling_follows_session_checkpoint_folders(void **state)
{
	check_checkpoint_watch(*state, -100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_follow_backlog_then_only_new_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_waits_for_the_newline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_survives_rotation_and_truncation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inotify_reports_each_kind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_polling_reports_each_kind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_inotify_watcher_sleeps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inotify_follows_a_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_polling_follows_a_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_ids_are_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inotify_follows_session_checkpoint_folders, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_polling_follows_session_checkpoint_folders, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
