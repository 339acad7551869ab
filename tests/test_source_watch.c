/* The dashboard's session rows, fed by the watcher: every change to a
 * session file reaches the model, one named file at a time, and a burst
 * that overflows the kernel's event queue is caught up by a full listing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "model.h"
#include "screen.h"
#include "source.h"
#include "test_util.h"
#include "view.h"

#include "ac_config.h"
#include "ac_control.h"
#include "ac_session_index.h"
#include "ac_time.h"
#include "ac_watch.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { IDS = 400, FIRST = 300 };

/* The list code links the screen; nothing here draws. */
void screen_put(int y, int x, int width, ui_style style, const char *text)
{
	(void)y, (void)x, (void)width, (void)style, (void)text;
}

void screen_fill(int y, int x, int width, ui_style style)
{
	(void)y, (void)x, (void)width, (void)style;
}

typedef struct {
	char *dir;
	ac_config *config;
	ac_workspace ws;
	ui_model m;
	ui_source *src;
	ac_watch *watch;
	char task[IDS][32];    /* what each session's file says now; "" when it has none */
	char created[IDS][32];
	unsigned seed;
	size_t named_reads, listings; /* reads that named their files, reads that could not */
} fixture;

static void save(fixture *f, int i, const char *task, const char *created)
{
	char id[16];
	json_t *s;

	snprintf(id, sizeof(id), "s%03d", i);
	s = json_pack("{s:s, s:s, s:s, s:s, s:[], s:{}}", "id", id, "createdAt", created, "task",
		      task, "status", i % 2 ? "running" : "paused", "conversationHistory",
		      "metadata");
	tu_seed_save(f->ws.sessions_dir, id, s);
	json_decref(s);
	snprintf(f->task[i], sizeof(f->task[i]), "%s", task);
	if (created != f->created[i])
		snprintf(f->created[i], sizeof(f->created[i]), "%s", created);
}

static void drop(fixture *f, int i)
{
	char name[32], *path;

	snprintf(name, sizeof(name), "s%03d.json", i);
	path = tu_path(f->ws.sessions_dir, name);
	if (unlink(path) == 0)
		f->task[i][0] = '\0';
	free(path);
}

static unsigned next(fixture *f, unsigned below)
{
	f->seed = f->seed * 1103515245u + 12345u;
	return (f->seed >> 16) % below;
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	char *agent;

	f->dir = tu_make_temp_dir();
	f->seed = 14;
	agent = tu_path(f->dir, ".agent");
	assert_int_equal(mkdir(agent, 0755), 0);
	free(agent);
	assert_int_equal(ac_config_load(&f->config, f->dir), 0);
	assert_int_equal(ac_workspace_init(&f->ws, f->config), 0);
	assert_int_equal(mkdir(f->ws.sessions_dir, 0755), 0);
	for (int i = 0; i < FIRST; i++)
		save(f, i, "first", "2026-01-01T00:00:00.000Z");
	assert_int_equal(ac_watch_new(&f->watch, &f->ws, 1000), 0);
	assert_false(ac_watch_polling(f->watch, NULL));
	assert_int_equal(ui_source_new(&f->src, &f->m, &f->ws), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ui_source_free(f->src);
	ui_model_free(&f->m);
	ac_watch_free(f->watch);
	ac_workspace_free(&f->ws);
	ac_config_free(f->config);
	tu_remove_tree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* What the dashboard's loop does, until the watcher stays quiet (the
 * kernel queues a change's events before the call that made it returns). */
static unsigned drain(fixture *f)
{
	struct pollfd p = {ac_watch_fd(f->watch), POLLIN, 0};
	unsigned seen = 0;

	while (poll(&p, 1, 20) > 0) {
		const char *const *names;
		size_t n;
		unsigned mask = ac_watch_read(f->watch);

		seen |= mask;
		if (mask & AC_WATCH_SESSIONS) {
			if (!(mask & AC_WATCH_RESCAN) && ac_watch_session_files(f->watch, &names, &n))
				f->named_reads++;
			else
				f->listings++;
		}
		if (mask)
			ui_source_update_watched(f->src, &f->m, f->watch, mask);
	}
	return seen;
}

/* The rows say what the files say, in the order a fresh listing gives. */
static void check_rows(fixture *f)
{
	ac_session_index *idx;
	const ac_session_summary *const *list;
	size_t n, present = 0, counted = 0;

	for (int i = 0; i < IDS; i++)
		present += f->task[i][0] != '\0';
	assert_int_equal(f->m.n_sessions, present);
	assert_int_equal(ac_session_index_new(&idx, f->ws.sessions_dir), 0);
	assert_int_equal(ac_session_index_refresh(idx, NULL, NULL, NULL), 0);
	list = ac_session_index_list(idx, &n);
	assert_int_equal(n, present);
	for (size_t r = 0; r < n; r++) {
		const ui_session *row = &f->m.sessions[r];
		int i = atoi(row->id + 1);

		assert_string_equal(row->id, list[r]->id);
		assert_string_equal(row->task, f->task[i]);
		assert_string_equal(row->created, f->created[i]);
		assert_int_equal(row->st, i % 2 ? UI_STATUS_RUNNING : UI_STATUS_PAUSED);
	}
	for (int s = 0; s < UI_STATUS_COUNT; s++)
		counted += f->m.by_status[s];
	assert_int_equal(counted, present);
	ac_session_index_free(idx);
}

/* The Sessions pane's order (by status: running first) equals sorting the
 * rows afresh: after one row moved, the pane moves it in the order it
 * kept (views/sessions.c) instead of sorting again. */
static void check_pane_order(fixture *f, const char *filter)
{
	ui_pane p = {.status_filter = -1, .sort = UI_SORT_STATUS};
	size_t *got = calloc(f->m.n_sessions + 1, sizeof(*got)), *want = calloc(f->m.n_sessions + 1, sizeof(*want));
	size_t shown, expected = 0;

	snprintf(p.filter, sizeof(p.filter), "%s", filter);
	shown = ui_list_visible(&ui_view_sessions, &f->m, &p, got);
	/* Every row has the same updatedAt (tu_seed_save): status, then the
	 * model's order. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < f->m.n_sessions; i++)
			if ((f->m.sessions[i].st == UI_STATUS_RUNNING) == (pass == 0) &&
			    ui_view_sessions.match(&f->m, i, &p))
				want[expected++] = i;
	assert_int_equal(shown, expected);
	for (size_t i = 0; i < shown; i++)
		assert_int_equal(got[i], want[i]);
	free(got);
	free(want);
}

/* One change at a time, each looked at before the next: the rows move
 * one by one, and the pane's kept order follows them. */
static void test_one_change_at_a_time(void **state)
{
	fixture *f = *state;

	drain(f);
	check_pane_order(f, "");
	check_pane_order(f, "s1");
	for (int step = 0; step < 150; step++) {
		unsigned what = next(f, 6), i = next(f, IDS);
		char task[32], created[32];

		snprintf(task, sizeof(task), "one %d", step);
		snprintf(created, sizeof(created), "2026-01-01T00:%02u:00.000Z", next(f, 60));
		if (what == 0 && f->task[i][0])
			drop(f, (int)i);
		else
			save(f, (int)i, task, what == 1 || !f->task[i][0] ? created : f->created[i]);
		drain(f);
		assert_true(f->m.sessions_prev_gen != 0); /* the rows moved by one */
		check_pane_order(f, step % 2 ? "" : "s1");
	}
	check_rows(f);
}

/* Saves, new sessions, removals and moves (a new createdAt), quickly, in
 * bursts of up to 60 between two looks: every one ends up in the rows,
 * and the rows are read one named file at a time. */
static void test_every_change_reaches_the_rows(void **state)
{
	fixture *f = *state;

	drain(f);
	f->named_reads = f->listings = 0;
	for (int step = 0; step < 3000; step++) {
		unsigned what = next(f, 20), i = next(f, IDS);
		char task[32], created[32];

		snprintf(task, sizeof(task), "task %d", step);
		snprintf(created, sizeof(created), "2026-01-01T00:%02u:00.000Z", next(f, 60));
		if (what == 0)
			drop(f, (int)i);
		else if (what == 1 || !f->task[i][0])
			save(f, (int)i, task, created);
		else
			save(f, (int)i, task, f->created[i]);
		if (next(f, 60) == 0)
			drain(f);
	}
	drain(f);
	check_rows(f);
	check_pane_order(f, "");
	assert_true(f->named_reads > 0);
	assert_int_equal(f->listings, 0);
}

/* More events than the kernel queues while nobody reads: the overflow
 * makes the source list the folder again, and the rows catch up; the
 * next change is read by name again. */
static void test_overflow_is_caught_up(void **state)
{
	fixture *f = *state;
	long limit = tu_inotify_queue_limit();

	if (limit <= 0 || limit > 200000)
		skip();
	drain(f);
	/* A save is at least four events (create, close, moved from, to). */
	for (long step = 0; step < limit / 4 + 64; step++) {
		char task[32];
		unsigned i = next(f, IDS);

		snprintf(task, sizeof(task), "burst %ld", step);
		if (next(f, 10) == 0)
			drop(f, (int)i);
		else
			save(f, (int)i, task, f->task[i][0] ? f->created[i] : "2026-01-02T00:00:00.000Z");
	}
	assert_true(drain(f) & AC_WATCH_RESCAN);
	check_rows(f);
	f->named_reads = f->listings = 0;
	save(f, 7, "after the burst", "2026-01-03T00:00:00.000Z");
	drain(f);
	check_rows(f);
	assert_int_equal(f->named_reads, 1);
	assert_int_equal(f->listings, 0);
}

static const ui_session *row_of(const ui_model *m, const char *id)
{
	for (size_t i = 0; i < m->n_sessions; i++)
		if (!strcmp(m->sessions[i].id, id))
			return &m->sessions[i];
	fail_msg("no row for %s", id);
	return NULL;
}

/* Requests show beside their rows when any session file changes (as
 * after a listing), and one on its way is judged again with time alone
 * ("resuming" turns "stalled") without reading a session file. */
static void test_requests_beside_named_rows(void **state)
{
	fixture *f = *state;
	ac_request resume = {.kind = AC_REQUEST_RESUME, .state = AC_REQUEST_RESUMING,
			     .requested_ms = ac_time_now_ms()};
	ac_request pause = {.kind = AC_REQUEST_PAUSE, .state = AC_REQUEST_PENDING,
			    .requested_ms = ac_time_now_ms()};

	/* The request folder made beforehand: its coming asks for a listing. */
	assert_int_equal(ac_request_write(f->ws.sessions_dir, "s002", &pause), 0);
	assert_int_equal(ac_request_clear(f->ws.sessions_dir, "s002"), 0);
	drain(f);
	f->named_reads = f->listings = 0;
	/* s000 is paused, s001 running (save()). */
	assert_int_equal(ac_request_write(f->ws.sessions_dir, "s000", &resume), 0);
	assert_int_equal(ac_request_write(f->ws.sessions_dir, "s001", &pause), 0);
	save(f, 3, "another session saves", f->created[3]);
	drain(f);
	assert_int_equal(f->named_reads, 1);
	assert_int_equal(f->listings, 0);
	assert_string_equal(row_of(&f->m, "s000")->pending, "resuming");
	assert_string_equal(row_of(&f->m, "s001")->pending, "pausing");
	assert_int_equal(ui_source_recheck_pending(f->src, &f->m), 0);
	resume.requested_ms -= 24 * 3600 * 1000;
	assert_int_equal(ac_request_write(f->ws.sessions_dir, "s000", &resume), 0);
	assert_int_equal(ui_source_recheck_pending(f->src, &f->m), UI_CHANGED_SESSIONS);
	assert_string_equal(row_of(&f->m, "s000")->pending, "stalled");
	assert_true(row_of(&f->m, "s000")->pending_alarm);
	assert_int_equal(ac_request_clear(f->ws.sessions_dir, "s001"), 0);
	assert_int_equal(ui_source_recheck_pending(f->src, &f->m), UI_CHANGED_SESSIONS);
	assert_null(row_of(&f->m, "s001")->pending);
	check_rows(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_change_reaches_the_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_change_at_a_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow_is_caught_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_requests_beside_named_rows, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
