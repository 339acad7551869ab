/* Claude Code's status files (ac_source_status.h) over the fixture of
 * tests/fixtures/sources-current/home/.claude: a live process's word
 * decides (waiting with its reason, busy, idle), a dead or reused pid's
 * file makes its session ended however recent its transcript, two files
 * for one session, hostile files, and the dashboard told of a change
 * that touched no transcript. The processes are children of the test:
 * their pids replace the recorded ones, as the status files name the
 * live process that wrote them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_source.h"
#include "ac_source_status.h"
#include "ac_time.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define WS "/work/fixture-project"
#define W "11111111-aaaa-4aaa-8aaa-000000000001"
#define B "11111111-aaaa-4aaa-8aaa-000000000002"
#define I "11111111-aaaa-4aaa-8aaa-000000000003"
#define X "11111111-aaaa-4aaa-8aaa-000000000004"
#define CL "11111111-aaaa-4aaa-8aaa-000000000005"

typedef struct {
	char *home, *status_dir;
	ac_source_options opts;
	ac_source_index *index;
	pid_t children[4];
	int n_children;
} fixture;

/* A child that lives until the test ends it. */
static pid_t live_child(fixture *f)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	f->children[f->n_children++] = pid;
	return pid;
}

/* A pid that was a process and is no more (spawned and reaped). */
static pid_t dead_pid(void)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return pid;
}

/* Moves the fixture's status file <from>.json to <pid>.json, started at
 * started_ms (the recorded pid and time are another machine's). */
static void move_status(fixture *f, long from, long pid, int64_t started_ms)
{
	char old_name[32], new_name[32], *path;
	json_t *doc;

	snprintf(old_name, sizeof(old_name), "%ld.json", from);
	snprintf(new_name, sizeof(new_name), "%ld.json", pid);
	path = tu_path(f->status_dir, old_name);
	doc = json_load_file(path, 0, NULL);
	assert_non_null(doc);
	assert_int_equal(unlink(path), 0);
	free(path);
	json_object_set_new(doc, "pid", json_integer(pid));
	json_object_set_new(doc, "startedAt", json_integer(started_ms));
	path = tu_path(f->status_dir, new_name);
	assert_int_equal(json_dump_file(doc, path, JSON_COMPACT), 0);
	free(path);
	json_decref(doc);
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->home = tu_copy_fixture("sources-current/home");
	f->status_dir = tu_path(f->home, "/.claude/sessions");
	f->opts = (ac_source_options)AC_SOURCE_OPTIONS_INIT;
	f->opts.dir[AC_SOURCE_CLAUDE] = tu_path(f->home, "/.claude/projects");
	f->opts.status_dir = strdup(f->status_dir);
	f->opts.workspace = strdup(WS);
	f->opts.limits = (ac_state_thresholds)AC_STATE_THRESHOLDS_DEFAULT;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	for (int i = 0; i < f->n_children; i++) {
		kill(f->children[i], SIGKILL);
		waitpid(f->children[i], NULL, 0);
	}
	ac_source_index_free(f->index);
	ac_source_options_free(&f->opts);
	tu_remove_tree(f->home);
	free(f->home);
	free(f->status_dir);
	free(f);
	return 0;
}

static ac_source_session *find(fixture *f, const char *id, size_t *out_read)
{
	if (!f->index)
		assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
	assert_int_equal(ac_source_index_refresh(f->index, out_read), 0);
	return ac_source_index_find(f->index, id);
}

static ac_session_state state_of(const ac_source_session *s, const fixture *f)
{
	ac_state_inputs in;

	assert_non_null(s);
	/* The transcripts were just written: recent, whatever they say. */
	ac_source_session_inputs(&in, s, s->mtime_ms + 1000);
	return ac_session_state_derive(&in, &f->opts.limits);
}

/* The fixture's three live processes, as Claude Code leaves them. */
static void live_processes(fixture *f)
{
	int64_t now = ac_time_now_ms();

	move_status(f, 40001, live_child(f), now);
	move_status(f, 40002, live_child(f), now);
	move_status(f, 40003, live_child(f), now);
}

static void test_a_live_process_decides(void **state)
{
	fixture *f = *state;
	ac_source_session *s;

	live_processes(f);
	s = find(f, W, NULL);
	assert_int_equal(s->agent, AC_AGENT_WAITING);
	assert_int_equal(state_of(s, f), AC_STATE_WAITING);
	assert_string_equal(s->waiting_reason, "permission prompt");
	/* Busy though its transcript ended on a text (the user's turn). */
	s = ac_source_index_find(f->index, B);
	assert_int_equal(state_of(s, f), AC_STATE_RUNNING);
	assert_null(s->waiting_reason);
	/* Idle though its transcript just answered (would be "waiting"). */
	assert_int_equal(state_of(ac_source_index_find(f->index, I), f), AC_STATE_IDLE);
	/* No file names it: the transcript decides (/clear left the turn
	 * to the user). */
	s = ac_source_index_find(f->index, CL);
	assert_int_equal(s->agent, AC_AGENT_UNKNOWN);
	assert_int_equal(state_of(s, f), AC_STATE_WAITING);
}

static void test_a_dead_process_is_never_running(void **state)
{
	fixture *f = *state;
	ac_source_session *s = find(f, X, NULL);

	/* The fixture's pid is past any pid_max: its process is gone, and
	 * its transcript (a tool's result, the agent's turn) says running. */
	assert_int_equal(s->agent, AC_AGENT_GONE);
	assert_int_equal(state_of(s, f), AC_STATE_ENDED);
	/* A pid that was a process a moment ago. */
	move_status(f, 4194305, dead_pid(), ac_time_now_ms());
	s = find(f, X, NULL);
	assert_int_equal(state_of(s, f), AC_STATE_ENDED);
	/* Without the status files the transcript alone says running. */
	free(f->opts.status_dir);
	f->opts.status_dir = NULL;
	ac_source_index_free(f->index);
	f->index = NULL;
	assert_int_equal(state_of(find(f, X, NULL), f), AC_STATE_RUNNING);
}

static void test_a_reused_pid_is_not_the_writer(void **state)
{
	fixture *f = *state;

	/* A live process that started after the file was written (its
	 * startedAt is the fixture's, days ago) is another process. */
	move_status(f, 40001, live_child(f), 1795165200000);
	assert_false(ac_source_status_pid_alive(f->children[0], 1795165200000));
	assert_true(ac_source_status_pid_alive(f->children[0], ac_time_now_ms()));
	assert_true(ac_source_status_pid_alive(f->children[0], 0));
	assert_int_equal(state_of(find(f, W, NULL), f), AC_STATE_ENDED);
	assert_null(ac_source_index_find(f->index, W)->waiting_reason);
	assert_false(ac_source_status_pid_alive(0, 0));
	assert_false(ac_source_status_pid_alive(-5, 0));
}

/* A process started in dir as Claude Code (argv[0] "claude"). */
static pid_t claude_in(fixture *f, const char *dir)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (chdir(dir) == 0)
			execl("/bin/sleep", "claude", "600", (char *)NULL);
		_exit(127);
	}
	f->children[f->n_children++] = pid;
	return pid;
}

static void test_no_file_and_no_process_is_not_running(void **state)
{
	fixture *f = *state;
	char *dir = tu_make_temp_dir(), *path, *line, *real;
	ac_source_session *s;

	/* A clean exit mid-turn removed the file: no process works on X. */
	path = tu_path(f->status_dir, "/4194305.json");
	assert_int_equal(unlink(path), 0);
	free(path);
	s = find(f, X, NULL);
	assert_int_equal(s->agent, AC_AGENT_NONE);
	assert_int_equal(state_of(s, f), AC_STATE_IDLE);
	/* The same transcript in a folder where Claude Code runs (a print
	 * mode run writes no file): the transcript decides, running. */
	real = realpath(dir, NULL);
	path = tu_path(f->home, "/.claude/projects/-work-fixture-project/"
			  "22222222-aaaa-4aaa-8aaa-000000000004.jsonl");
	if (asprintf(&line, "{\"type\":\"user\",\"cwd\":\"%s\",\"timestamp\":\"2026-11-20T09:00:00Z\","
		     "\"message\":{\"role\":\"user\",\"content\":\"go on\"}}\n", real) < 0)
		fail();
	tu_write_file(path, line, strlen(line));
	claude_in(f, real);
	/* Until the child has changed folder and run "claude": polled, as
	 * nothing signals an exec done. */
	for (int i = 0; i < 500; i++) {
		char link[64], cmd[16] = "";
		FILE *in;

		snprintf(link, sizeof(link), "/proc/%ld/cmdline", (long)f->children[f->n_children - 1]);
		if ((in = fopen(link, "r"))) {
			size_t got = fread(cmd, 1, sizeof(cmd) - 1, in);

			fclose(in);
			cmd[got] = '\0';
		}
		if (!strcmp(cmd, "claude"))
			break;
		usleep(10 * 1000);
	}
	f->opts.all_projects = true;
	ac_source_index_free(f->index);
	f->index = NULL;
	s = find(f, "22222222-aaaa-4aaa-8aaa-000000000004", NULL);
	assert_int_equal(s->agent, AC_AGENT_UNKNOWN);
	assert_int_equal(state_of(s, f), AC_STATE_RUNNING);
	assert_int_equal(ac_source_index_find(f->index, X)->agent, AC_AGENT_NONE);
	free(line);
	free(path);
	free(real);
	tu_remove_tree(dir);
	free(dir);
}

static void test_the_live_file_of_two_speaks(void **state)
{
	fixture *f = *state;

	/* A session resumed in a second terminal after the first crashed. */
	tu_put(f->status_dir, "/4194304.json", "{\"pid\":4194304,\"sessionId\":\"" B "\","
	       "\"status\":\"waiting\",\"waitingFor\":\"input needed\",\"startedAt\":1}");
	move_status(f, 40002, live_child(f), ac_time_now_ms());
	assert_int_equal(state_of(find(f, B, NULL), f), AC_STATE_RUNNING);
}

static void test_hostile_files_are_skipped(void **state)
{
	fixture *f = *state;
	ac_source_status_list list;
	char big[AC_SOURCE_STATUS_MAX + 2], reason[1400], *path, *text;
	ac_source_session *s;
	pid_t pid = live_child(f);
	int64_t now = ac_time_now_ms();
	size_t n;

	memset(big, ' ', sizeof(big));
	big[0] = '{';
	big[sizeof(big) - 1] = '}';
	tu_put(f->status_dir, "/1.json", "not json \x1b[2J");
	tu_put(f->status_dir, "/2.json", "[1,2]");
	tu_put(f->status_dir, "/3.json", "{\"pid\":99,\"sessionId\":\"" I "\",\"status\":\"busy\"}");
	tu_put(f->status_dir, "/4.json", "{\"pid\":4,\"status\":\"busy\"}");
	path = tu_path(f->status_dir, "/5.json");
	tu_write_file(path, big, sizeof(big));
	free(path);
	path = tu_path(f->status_dir, "/6.json");
	assert_int_equal(mkfifo(path, 0600), 0);
	free(path);
	path = tu_path(f->status_dir, "/7.json");
	assert_int_equal(symlink("40003.json", path), 0);
	free(path);
	tu_put(f->status_dir, "/0099.json.tmp", "{}");
	tu_put(f->status_dir, "/12.abcdef.key", "secret");
	/* Control bytes and a reason far longer than any the tool writes,
	 * cut on a character boundary ("é" is two bytes). */
	n = (size_t)snprintf(reason, sizeof(reason), "approve \\u001b[31mBash");
	while (n < 1300)
		n += (size_t)snprintf(reason + n, sizeof(reason) - n, "\\u00e9");
	if (asprintf(&text, "{\"pid\":%ld,\"sessionId\":\"" W "\",\"status\":\"waiting\","
		     "\"waitingFor\":\"%s\",\"startedAt\":%lld}", (long)pid, reason,
		     (long long)now) < 0)
		fail();
	{
		char name[32];

		snprintf(name, sizeof(name), "/%ld.json", (long)pid);
		tu_put(f->status_dir, name, text);
	}
	free(text);
	assert_int_equal(ac_source_status_read(&list, f->status_dir), 0);
	/* 1, 2, 3 (pid contradicts the name), 4 (no sessionId), 5 (too
	 * large), 6 (a FIFO) and 7 (a link) are no status files. */
	assert_int_equal(list.skipped, 7);
	ac_source_status_list_free(&list);
	s = find(f, W, NULL);
	assert_int_equal(state_of(s, f), AC_STATE_WAITING);
	assert_true(strlen(s->waiting_reason) <= AC_SOURCE_STATUS_REASON_MAX);
	assert_true(strlen(s->waiting_reason) >= AC_SOURCE_STATUS_REASON_MAX - 1);
	assert_int_equal(strncmp(s->waiting_reason, "approve \x1b[31mBash\xc3\xa9", 19), 0);
	assert_int_equal(((unsigned char)s->waiting_reason[strlen(s->waiting_reason) - 1]), 0xa9);
	/* 3.json (another pid inside) does not speak for I; its own file,
	 * the fixture's pid and start days ago, names no live writer. */
	assert_int_equal(state_of(ac_source_index_find(f->index, I), f), AC_STATE_ENDED);
	/* A missing folder: the transcripts decide alone. */
	assert_int_equal(ac_source_status_read(&list, "/nonexistent/agentctl/status"), 0);
	assert_int_equal(list.n, 0);
}

static void test_a_status_change_is_a_change(void **state)
{
	fixture *f = *state;
	size_t read = 0;
	pid_t pid = live_child(f);
	char name[32], *path;

	move_status(f, 40003, pid, ac_time_now_ms());
	assert_non_null(find(f, I, &read));
	assert_int_equal(state_of(ac_source_index_find(f->index, I), f), AC_STATE_IDLE);
	find(f, I, &read);
	assert_int_equal(read, 0);
	/* The process exits cleanly: its file goes, no transcript changes. */
	snprintf(name, sizeof(name), "/%ld.json", (long)pid);
	path = tu_path(f->status_dir, name);
	assert_int_equal(unlink(path), 0);
	free(path);
	find(f, I, &read);
	assert_int_equal(read, 1);
	assert_int_equal(ac_source_index_find(f->index, I)->agent, AC_AGENT_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_live_process_decides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_dead_process_is_never_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_reused_pid_is_not_the_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_live_file_of_two_speaks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_file_and_no_process_is_not_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_files_are_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_status_change_is_a_change, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
