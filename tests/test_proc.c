/* Tests for running commands (ac_proc_*): large inputs and outputs both
 * ways without deadlock, exit statuses, standard error, time-outs that kill
 * the whole process group, programs that cannot start, children that do
 * not read their input, and detached commands. /bin/sh -c appears here
 * only to make test children; the core never uses a shell. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_proc.h"
#include "test_util.h"

#define BIG ((size_t)5 << 20)

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Bytes that are not one repeated value, so a lost or reordered chunk shows. */
static char *make_input(size_t len)
{
	char *data = malloc(len);
	uint32_t x = 2463534242u;

	assert_non_null(data);
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = (char)(x & 0xff);
	}
	return data;
}

/* Waits until pid (not necessarily our child) has exited, on a pidfd
 * rather than by sleeping; fails the test after timeout_ms. */
static void wait_exit(pid_t pid, int timeout_ms)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd p;

	if (fd < 0) {
		assert_int_equal(errno, ESRCH); /* gone already */
		return;
	}
	p = (struct pollfd){.fd = fd, .events = POLLIN};
	assert_int_equal(poll(&p, 1, timeout_ms), 1);
	close(fd);
}

static void sh(ac_proc_result *out, const char *script, const char *input, size_t len,
	       int timeout_ms)
{
	const char *argv[] = {"/bin/sh", "-c", script, NULL};
	int rc = ac_proc_run(out, argv, NULL, input, len, timeout_ms);

	if (rc)
		fail_msg("ac_proc_run(%s): %d %s", script, rc, ac_error_last());
}

static void test_round_trip_large(void **state)
{
	char *input = make_input(BIG);
	ac_proc_result r;

	(void)state;
	sh(&r, "cat", input, BIG, 60000);
	assert_int_equal(r.exit_status, 0);
	assert_int_equal(r.timed_out, 0);
	assert_int_equal(r.out.len, BIG);
	assert_memory_equal(r.out.data, input, BIG);
	assert_int_equal(r.err.len, 0);
	ac_proc_result_free(&r);
	free(input);
}

/* Output on both pipes before any input is read: a writer that fed stdin
 * first, or read stdout first, would hang here. */
static void test_output_before_input(void **state)
{
	char *input = make_input(BIG);
	ac_proc_result r;

	(void)state;
	sh(&r, "head -c 3000000 /dev/zero; head -c 1000000 /dev/zero >&2; cat", input, BIG, 60000);
	assert_int_equal(r.exit_status, 0);
	assert_int_equal(r.out.len, 3000000 + BIG);
	assert_memory_equal(r.out.data + 3000000, input, BIG);
	assert_int_equal(r.err.len, 64 << 10); /* standard error is capped */
	ac_proc_result_free(&r);
	free(input);
}

static void test_empty_input(void **state)
{
	ac_proc_result r;

	(void)state;
	sh(&r, "cat; echo done", NULL, 0, 10000);
	assert_int_equal(r.exit_status, 0);
	assert_string_equal(r.out.data, "done\n");
	ac_proc_result_free(&r);
}

static void test_exit_status_and_stderr(void **state)
{
	ac_buf why = AC_BUF_INIT;
	ac_proc_result r;

	(void)state;
	sh(&r, "echo partial; echo '  first problem  ' >&2; echo second >&2; exit 3", NULL, 0,
	   10000);
	assert_int_equal(r.exit_status, 3);
	assert_int_equal(r.timed_out, 0);
	assert_string_equal(r.out.data, "partial\n");
	assert_string_equal(r.err.data, "  first problem  \nsecond\n");
	ac_proc_describe_failure(&why, &r, 10000);
	assert_string_equal(why.data, "exited with status 3: first problem");
	ac_buf_free(&why);
	ac_proc_result_free(&r);

	sh(&r, "exit 0", NULL, 0, 10000);
	assert_int_equal(r.exit_status, 0);
	ac_proc_result_free(&r);
}

static void test_killed_by_signal(void **state)
{
	ac_buf why = AC_BUF_INIT;
	ac_proc_result r;

	(void)state;
	sh(&r, "kill -9 $$", NULL, 0, 10000);
	assert_int_equal(r.exit_status, 128 + 9);
	assert_int_equal(r.timed_out, 0);
	ac_proc_describe_failure(&why, &r, 10000);
	assert_string_equal(why.data, "was killed by signal 9");
	ac_buf_free(&why);
	ac_proc_result_free(&r);
}

static void test_timeout_kills(void **state)
{
	ac_buf why = AC_BUF_INIT;
	ac_proc_result r;
	int64_t start = now_ms();

	(void)state;
	sh(&r, "sleep 10", NULL, 0, 300);
	assert_true(now_ms() - start < 5000);
	assert_int_equal(r.timed_out, 1);
	assert_int_equal(r.exit_status, 128 + 9);
	ac_proc_describe_failure(&why, &r, 300);
	assert_string_equal(why.data, "timed out after 300 ms");
	ac_buf_clear(&why);
	ac_proc_describe_failure(&why, &r, 30000);
	assert_string_equal(why.data, "timed out after 30 s");
	ac_buf_free(&why);
	ac_proc_result_free(&r);
}

/* A grandchild holding the output pipe open must die with the child, or
 * the caller would wait for its end of file. */
static void test_timeout_kills_the_group(void **state)
{
	ac_proc_result r;
	int64_t start = now_ms();

	(void)state;
	sh(&r, "sleep 30 & echo $!; sleep 30 & wait", NULL, 0, 300);
	assert_true(now_ms() - start < 5000);
	assert_int_equal(r.timed_out, 1);
	assert_true(r.out.len > 0);
	wait_exit((pid_t)atol(r.out.data), 5000);
	ac_proc_result_free(&r);
}

static void *write_later(void *arg)
{
	int fd = *(int *)arg;

	usleep(300 * 1000);
	if (write(fd, "x", 1) != 1)
		abort();
	return NULL;
}

/* The cancel fd turning readable mid-run kills the command's whole group
 * (a grandchild too) and says so; a run started while it is readable is
 * killed at once; the fd is this thread's alone, and -1 turns it off. */
static void test_cancel_fd_kills_the_group(void **state)
{
	ac_buf why = AC_BUF_INIT;
	ac_proc_result r;
	pthread_t writer;
	int fds[2];
	int64_t start = now_ms();

	(void)state;
	assert_int_equal(pipe(fds), 0);
	ac_proc_set_cancel_fd(fds[0]);
	assert_int_equal(pthread_create(&writer, NULL, write_later, &fds[1]), 0);
	sh(&r, "sleep 30 & echo $!; sleep 30 & wait", NULL, 0, 20000);
	pthread_join(writer, NULL);
	assert_true(now_ms() - start < 5000);
	assert_int_equal(r.cancelled, 1);
	assert_int_equal(r.timed_out, 0);
	assert_int_equal(r.exit_status, 128 + 9);
	assert_true(r.out.len > 0);
	wait_exit((pid_t)atol(r.out.data), 5000);
	ac_proc_describe_failure(&why, &r, 20000);
	assert_string_equal(why.data, "was cancelled by the operator");
	ac_buf_free(&why);
	ac_proc_result_free(&r);

	start = now_ms();
	sh(&r, "sleep 30", NULL, 0, 20000);
	assert_true(now_ms() - start < 5000);
	assert_int_equal(r.cancelled, 1);
	ac_proc_result_free(&r);

	ac_proc_set_cancel_fd(-1);
	sh(&r, "echo done", NULL, 0, 5000);
	assert_int_equal(r.cancelled, 0);
	assert_int_equal(r.exit_status, 0);
	ac_proc_result_free(&r);
	close(fds[0]);
	close(fds[1]);
}

/* A child that exits while a background process still holds its output
 * pipe: the run ends when the child does. */
static void test_exit_with_background_holder(void **state)
{
	ac_proc_result r;
	int64_t start = now_ms();

	(void)state;
	sh(&r, "echo main; sleep 3 & exit 4", NULL, 0, 20000);
	assert_true(now_ms() - start < 2500);
	assert_int_equal(r.timed_out, 0);
	assert_int_equal(r.exit_status, 4);
	assert_string_equal(r.out.data, "main\n");
	ac_proc_result_free(&r);
}

static void test_missing_program(void **state)
{
	const char *argv[] = {"agentctl-no-such-program-xyz", "arg", NULL};
	ac_proc_result r;
	int rc;

	(void)state;
	rc = ac_proc_run(&r, argv, NULL, "x", 1, 5000);
	assert_int_equal(rc, AC_ENOTFOUND);
	assert_string_equal(ac_error_last(),
			    "cannot run 'agentctl-no-such-program-xyz': No such file or directory");
	ac_proc_result_free(&r);

	argv[0] = NULL;
	assert_int_equal(ac_proc_run(&r, argv, NULL, NULL, 0, 5000), AC_EINVAL);
}

static void test_not_executable(void **state)
{
	char *dir = tu_make_temp_dir(), *path = tu_path(dir, "script");
	const char *argv[] = {path, NULL};
	ac_proc_result r;

	(void)state;
	tu_write_file(path, "#!/bin/sh\n", 10); /* mode 0644: not executable */
	assert_int_equal(ac_proc_run(&r, argv, NULL, NULL, 0, 5000), AC_EIO);
	assert_non_null(strstr(ac_error_last(), "Permission denied"));
	assert_non_null(strstr(ac_error_last(), path));
	tu_remove_tree(dir);
	free(path);
	free(dir);
}

static void test_cwd(void **state)
{
	char *dir = tu_make_temp_dir(), *real = realpath(dir, NULL), *missing = tu_path(dir, "nope");
	const char *argv[] = {"pwd", "-P", NULL};
	ac_proc_result r;

	(void)state;
	assert_int_equal(ac_proc_run(&r, argv, dir, NULL, 0, 5000), 0);
	assert_int_equal(r.exit_status, 0);
	assert_true(r.out.len > 0);
	r.out.data[r.out.len - 1] = '\0';
	assert_string_equal(r.out.data, real);
	ac_proc_result_free(&r);

	assert_int_equal(ac_proc_run(&r, argv, missing, NULL, 0, 5000), AC_ENOTFOUND);
	assert_non_null(strstr(ac_error_last(), missing));
	tu_remove_tree(dir);
	free(missing);
	free(real);
	free(dir);
}

/* The child exits without reading 5 MB of input: the write fails with
 * EPIPE, the test process survives, and no SIGPIPE is left pending. */
static void test_child_ignores_input(void **state)
{
	char *input = make_input(BIG);
	sigset_t pending, mask;
	ac_proc_result r;

	(void)state;
	sh(&r, "exit 0", input, BIG, 10000);
	assert_int_equal(r.exit_status, 0);
	ac_proc_result_free(&r);
	/* Still running after closing its input: our next write gets EPIPE. */
	sh(&r, "exec 0<&-; sleep 0.2; echo closed", input, BIG, 10000);
	assert_int_equal(r.exit_status, 0);
	assert_string_equal(r.out.data, "closed\n");
	ac_proc_result_free(&r);
	sh(&r, "head -c 10 >/dev/null; echo read-ten", input, BIG, 10000);
	assert_int_equal(r.exit_status, 0);
	assert_string_equal(r.out.data, "read-ten\n");
	ac_proc_result_free(&r);
	assert_int_equal(sigpending(&pending), 0);
	assert_int_equal(sigismember(&pending, SIGPIPE), 0);
	assert_int_equal(pthread_sigmask(SIG_BLOCK, NULL, &mask), 0);
	assert_int_equal(sigismember(&mask, SIGPIPE), 0);
	free(input);
}

/* Field 6 of /proc/<pid>/stat: the session id. */
static long stat_session(const char *stat_line)
{
	const char *p = strrchr(stat_line, ')');
	long skip, session;
	char state;

	assert_non_null(p);
	assert_int_equal(sscanf(p + 1, " %c %ld %ld %ld", &state, &skip, &skip, &session), 4);
	return session;
}

static void test_spawn_detached(void **state)
{
	char *dir = tu_make_temp_dir(), *log = tu_path(dir, "logs/deep/run.log"), *text;
	const char *hello[] = {"/bin/sh", "-c", "echo detached-hello; echo to-stderr >&2", NULL};
	const char *stat[] = {"cat", "/proc/self/stat", NULL};
	char pid_text[32];
	pid_t pid = 0;

	(void)state;
	assert_int_equal(ac_proc_spawn_detached(&pid, hello, NULL, log), 0);
	assert_true(pid > 0);
	wait_exit(pid, 10000);
	text = tu_read_file(log, NULL);
	assert_string_equal(text, "detached-hello\nto-stderr\n");
	free(text);

	/* Appended, not replaced; its own session; the pid is the program's. */
	assert_int_equal(ac_proc_spawn_detached(&pid, stat, dir, log), 0);
	wait_exit(pid, 10000);
	text = tu_read_file(log, NULL);
	assert_true(strncmp(text, "detached-hello\nto-stderr\n", 25) == 0);
	snprintf(pid_text, sizeof(pid_text), "%ld ", (long)pid);
	assert_true(strncmp(text + 25, pid_text, strlen(pid_text)) == 0);
	assert_true(stat_session(text + 25) != (long)getsid(0));
	free(text);

	assert_int_equal(ac_proc_spawn_detached(NULL, hello, NULL, log), 0);

	tu_remove_tree(dir);
	free(log);
	free(dir);
}

static void test_spawn_detached_missing_program(void **state)
{
	char *dir = tu_make_temp_dir(), *log = tu_path(dir, "run.log");
	const char *argv[] = {"agentctl-no-such-program-xyz", NULL};
	pid_t pid = 0;

	(void)state;
	assert_int_equal(ac_proc_spawn_detached(&pid, argv, NULL, log), AC_ENOTFOUND);
	assert_non_null(strstr(ac_error_last(), "cannot run 'agentctl-no-such-program-xyz'"));
	tu_remove_tree(dir);
	free(log);
	free(dir);
}

/* ---- command templates: placeholders only as whole arguments ---- */

static const char *const placeholders[] = AC_PROC_PLACEHOLDERS;

static void test_expand_whole_argument(void **state)
{
	const char *const template[] = {"agent", "--resume", "{id}", "--x={id}x", NULL};
	const char *const ok[] = {"agent", "--resume", "{id}", "{id}", "--id", NULL};
	const char *const values[] = {"x;touch PWNED;#", NULL};
	char **argv = NULL;

	(void)state;
	/* Embedded: refused, naming the argument's index. */
	assert_int_equal(ac_proc_expand_argv(&argv, template, placeholders, values), AC_EINVAL);
	assert_null(argv);
	assert_non_null(strstr(ac_error_last(), "argument 3"));
	/* Whole: replaced verbatim, shell characters and all, each time. */
	assert_int_equal(ac_proc_expand_argv(&argv, ok, placeholders, values), 0);
	assert_string_equal(argv[0], "agent");
	assert_string_equal(argv[1], "--resume");
	assert_string_equal(argv[2], "x;touch PWNED;#");
	assert_string_equal(argv[3], "x;touch PWNED;#");
	assert_string_equal(argv[4], "--id");
	assert_null(argv[5]);
	ac_proc_argv_free(argv);
	/* No names: a plain copy. */
	assert_int_equal(ac_proc_expand_argv(&argv, template, NULL, NULL), 0);
	assert_string_equal(argv[3], "--x={id}x");
	ac_proc_argv_free(argv);
}

static void test_check_template_index(void **state)
{
	const char *const shell[] = {"sh", "-c", "agent --resume {id}", NULL};
	const char *const fine[] = {"sh", "-c", "agent --resume \"$AGENT_SESSION_ID\"", NULL};
	size_t at = 99;

	(void)state;
	assert_int_equal(ac_proc_check_template(shell, placeholders, &at), AC_EINVAL);
	assert_int_equal(at, 2);
	assert_int_equal(ac_proc_check_template(fine, placeholders, &at), 0);
}

/* The variables in env reach the child, replacing inherited ones; the
 * value is not interpreted. */
static void test_run_env(void **state)
{
	const char *const argv[] = {"/bin/sh", "-c", "printf '%s|%s' \"$AGENT_SESSION_ID\" \"$AC_TEST_KEEP\"", NULL};
	const char *const env[] = {"AGENT_SESSION_ID", "x;touch PWNED;#", NULL};
	ac_proc_result r;

	(void)state;
	setenv("AGENT_SESSION_ID", "inherited", 1);
	setenv("AC_TEST_KEEP", "kept", 1);
	assert_int_equal(ac_proc_run_env(&r, argv, env, NULL, "", 0, 5000), 0);
	assert_int_equal(r.exit_status, 0);
	assert_non_null(r.out.data);
	assert_string_equal(r.out.data, "x;touch PWNED;#|kept");
	ac_proc_result_free(&r);
	unsetenv("AGENT_SESSION_ID");
	unsetenv("AC_TEST_KEEP");
}

/* What the summariser and rollbackTools run through. */
static void test_run_for_session(void **state)
{
	const char *const argv[] = {"/bin/sh", "-c", "printf '%s|%s' \"$0\" \"$AGENT_SESSION_ID\"", "{id}", NULL};
	const char *const bad[] = {"/bin/sh", "-c", "echo {id}", NULL};
	ac_proc_result r;

	(void)state;
	assert_int_equal(ac_proc_run_for_session(&r, argv, "a b;c", NULL, "", 0, 5000), 0);
	assert_string_equal(r.out.data, "a b;c|a b;c");
	ac_proc_result_free(&r);
	assert_int_equal(ac_proc_run_for_session(&r, bad, "x", NULL, "", 0, 5000), AC_EINVAL);
	/* No session: the template runs as written. */
	assert_int_equal(ac_proc_run_for_session(&r, bad, NULL, NULL, "", 0, 5000), 0);
	assert_string_equal(r.out.data, "{id}\n");
	ac_proc_result_free(&r);
}

static void test_spawn_detached_env(void **state)
{
	char *dir = tu_make_temp_dir(), *log = tu_path(dir, "logs/out.log"), *text = NULL;
	const char *const argv[] = {"/bin/sh", "-c", "printf '%s' \"$AGENT_SESSION_ID\"", NULL};
	const char *const env[] = {"AGENT_SESSION_ID", "s-1", NULL};
	pid_t pid = 0;
	size_t len = 0;

	(void)state;
	assert_int_equal(ac_proc_spawn_detached_env(&pid, argv, env, dir, log), 0);
	assert_true(pid > 0);
	for (int i = 0; i < 200 && len < 3; i++) {
		struct timespec ts = {0, 20 * 1000000};

		free(text);
		text = tu_read_file(log, &len);
		if (len < 3)
			nanosleep(&ts, NULL);
	}
	assert_int_equal(len, 3);
	assert_memory_equal(text, "s-1", 3);
	free(text);
	free(log);
	tu_remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_large),
		cmocka_unit_test(test_output_before_input),
		cmocka_unit_test(test_empty_input),
		cmocka_unit_test(test_exit_status_and_stderr),
		cmocka_unit_test(test_killed_by_signal),
		cmocka_unit_test(test_timeout_kills),
		cmocka_unit_test(test_timeout_kills_the_group),
		cmocka_unit_test(test_exit_with_background_holder),
		cmocka_unit_test(test_cancel_fd_kills_the_group),
		cmocka_unit_test(test_missing_program),
		cmocka_unit_test(test_not_executable),
		cmocka_unit_test(test_cwd),
		cmocka_unit_test(test_child_ignores_input),
		cmocka_unit_test(test_spawn_detached),
		cmocka_unit_test(test_spawn_detached_missing_program),
		cmocka_unit_test(test_expand_whole_argument),
		cmocka_unit_test(test_check_template_index),
		cmocka_unit_test(test_run_env),
		cmocka_unit_test(test_spawn_detached_env),
		cmocka_unit_test(test_run_for_session),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
