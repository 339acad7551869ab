/* The hooks lease on files (ac_hooks_lease.h): one holder among the
 * dashboards of a workspace, the next one takes over when the holder lets
 * go or dies, a hook the holder started never keeps it, a lock file
 * replaced under the holder, and no lease to be had at all. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_hooks_lease.h"
#include "ac_proc.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int setup(void **state)
{
	*state = tu_make_temp_dir();
	return 0;
}

static int teardown(void **state)
{
	tu_remove_tree(*state);
	free(*state);
	return 0;
}

static ac_hooks_lease *lease_of(const char *root)
{
	ac_hooks_lease *l = NULL;

	assert_int_equal(ac_hooks_lease_new(&l, root, NULL), 0);
	return l;
}

static void test_one_holder(void **state)
{
	const char *root = *state;
	ac_hooks_lease *a = lease_of(root), *b = lease_of(root);
	char host[100] = "", want[160], *path = tu_path(root, ".agent/hooks.lock"), *text;

	assert_int_equal(ac_hooks_lease_take(a), AC_HOOKS_LEASE_HELD);
	assert_int_equal(ac_hooks_lease_take(b), AC_HOOKS_LEASE_ELSEWHERE);
	/* The others learn who runs the hooks. */
	gethostname(host, sizeof(host) - 1);
	snprintf(want, sizeof(want), "pid %ld on %s", (long)getpid(), host);
	assert_string_equal(ac_hooks_lease_text(b), want);
	text = tu_read_file(path, NULL);
	snprintf(want, sizeof(want), "%ld %s\n", (long)getpid(), host);
	assert_string_equal(text, want);
	/* Asking again changes nothing. */
	assert_int_equal(ac_hooks_lease_take(a), AC_HOOKS_LEASE_HELD);
	assert_int_equal(ac_hooks_lease_take(b), AC_HOOKS_LEASE_ELSEWHERE);
	/* The holder quits: the next one to ask has it. */
	ac_hooks_lease_free(a);
	assert_int_equal(ac_hooks_lease_take(b), AC_HOOKS_LEASE_HELD);
	ac_hooks_lease_free(b);
	free(text);
	free(path);
}

static void test_holder_killed(void **state)
{
	const char *root = *state;
	ac_hooks_lease *l;
	int ready[2];
	char byte;
	pid_t child;

	assert_int_equal(pipe(ready), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		ac_hooks_lease *mine = lease_of(root);

		byte = ac_hooks_lease_take(mine) == AC_HOOKS_LEASE_HELD ? 'y' : 'n';
		if (write(ready[1], &byte, 1) != 1)
			_exit(1);
		for (;;)
			pause(); /* killed holding it */
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &byte, 1), 1);
	assert_int_equal(byte, 'y');
	l = lease_of(root);
	assert_int_equal(ac_hooks_lease_take(l), AC_HOOKS_LEASE_ELSEWHERE);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_int_equal(ac_hooks_lease_take(l), AC_HOOKS_LEASE_HELD);
	ac_hooks_lease_free(l);
	close(ready[0]);
}

/* A hook runs up to 30 s after the dashboard that started it quits: it
 * must not hold the lease meanwhile. */
static void test_hook_does_not_keep_it(void **state)
{
	const char *root = *state;
	const char *const argv[] = {"sleep", "30", NULL};
	ac_hooks_lease *a = lease_of(root), *b = lease_of(root);
	char *log = tu_path(root, "hook.log");
	pid_t hook = 0;

	assert_int_equal(ac_hooks_lease_take(a), AC_HOOKS_LEASE_HELD);
	assert_int_equal(ac_proc_spawn_detached(&hook, argv, root, log), 0);
	ac_hooks_lease_free(a);
	assert_int_equal(ac_hooks_lease_take(b), AC_HOOKS_LEASE_HELD);
	ac_hooks_lease_free(b);
	kill(hook, SIGKILL);
	free(log);
}

/* The lock file removed under its holder: a newcomer locks a new file,
 * and the holder learns at its next look that it runs nothing any more. */
static void test_lock_file_removed(void **state)
{
	const char *root = *state;
	ac_hooks_lease *a = lease_of(root), *b = lease_of(root);
	char *path = tu_path(root, ".agent/hooks.lock");

	assert_int_equal(ac_hooks_lease_take(a), AC_HOOKS_LEASE_HELD);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(ac_hooks_lease_take(b), AC_HOOKS_LEASE_HELD);
	assert_int_equal(ac_hooks_lease_take(a), AC_HOOKS_LEASE_ELSEWHERE);
	ac_hooks_lease_free(b);
	assert_int_equal(ac_hooks_lease_take(a), AC_HOOKS_LEASE_HELD);
	ac_hooks_lease_free(a);
	free(path);
}

/* No lock file can be opened (here a folder is in its place; a read-only
 * workspace does the same): NONE, saying why, so the caller runs the hooks. */
static void test_cannot_be_had(void **state)
{
	const char *root = *state;
	ac_hooks_lease *l = lease_of(root);

	tu_put(root, ".agent/hooks.lock/.keep", "");
	assert_int_equal(ac_hooks_lease_take(l), AC_HOOKS_LEASE_NONE);
	assert_non_null(strstr(ac_hooks_lease_text(l), "hooks.lock"));
	ac_hooks_lease_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_holder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_holder_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hook_does_not_keep_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_file_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cannot_be_had, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
