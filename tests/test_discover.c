/* Tests for finding the workspace from a subfolder (ac_discover_workspace):
 * each marker, the nearest folder first, and the boundaries (a ceiling,
 * $HOME) that are not searched unless the walk starts there, and the
 * markers another user could have planted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ac_discover.h"
#include "ac_error.h"
#include "test_util.h"

static char *sub(const char *root, const char *rel)
{
	char *path = tu_path(root, rel), *real;

	assert_int_equal(mkdir(path, 0755) == 0 || tu_exists(root, rel), 1);
	real = realpath(path, NULL);
	free(path);
	assert_non_null(real);
	return real;
}

static void expect(const char *start, const char *ceilings, const char *home, const char *want)
{
	char *found = NULL;
	int rc = ac_discover_workspace(&found, NULL, start, ceilings, home);

	if (want) {
		assert_int_equal(rc, 0);
		assert_string_equal(found, want);
	} else {
		assert_int_equal(rc, AC_ENOTFOUND);
		assert_null(found);
		assert_non_null(strstr(ac_error_last(), "or above"));
	}
	free(found);
}

static void test_walks_up(void **state)
{
	char *root = tu_make_temp_dir(), *top, *a, *b, *c;

	(void)state;
	top = sub(root, "top");
	a = sub(top, "a");
	b = sub(a, "b");
	c = sub(b, "c");
	expect(c, top, NULL, NULL);                /* nothing below the ceiling */
	tu_put(a, "JOURNAL.jsonl", "");
	expect(c, top, NULL, a);                   /* a journal marks it */
	tu_put(b, ".agentrc.json", "{}");
	expect(c, top, NULL, b);                   /* the nearest wins */
	free(sub(c, ".agent"));
	expect(c, top, NULL, c);                   /* the start itself */
	tu_put(c, ".agent-not", "");
	expect(b, top, NULL, b);
	/* .agent must be a folder to count. */
	tu_remove_tree(c);
	free(sub(b, "c"));
	tu_put(c, ".agent", "");
	expect(c, top, NULL, b);
	free(top), free(a), free(b), free(c);
	tu_remove_tree(root);
	free(root);
}

static void test_boundaries(void **state)
{
	char *root = tu_make_temp_dir(), *home, *proj, *deep, *ceiling;
	char ceilings[4096];

	(void)state;
	home = sub(root, "home");
	free(sub(home, ".agent")); /* the user's own agent state */
	proj = sub(home, "proj");
	deep = sub(proj, "deep");
	expect(deep, NULL, home, NULL);            /* $HOME is not searched... */
	expect(home, NULL, home, home);            /* ...unless the walk starts there */
	tu_put(root, "JOURNAL.jsonl", "");
	ceiling = sub(root, "home");
	snprintf(ceilings, sizeof(ceilings), "relative/ignored:%s", home);
	expect(deep, ceilings, NULL, NULL);        /* a ceiling stops it too */
	expect(deep, "", NULL, home);              /* without either, .agent in home is found */
	free(home), free(proj), free(deep), free(ceiling);
	tu_remove_tree(root);
	free(root);
}

/* A marker another user could have put there is not taken (git's
 * CVE-2022-24765 class): above the start it is skipped, and said; in the
 * start itself it is refused. */
static void test_foreign_markers(void **state)
{
	char *root = tu_make_temp_dir(), *shared, *x, *y, *agent, *found = NULL, *skipped = NULL;

	(void)state;
	shared = sub(root, "shared");
	x = sub(shared, "x");
	y = sub(x, "y");
	agent = sub(shared, ".agent");
	/* Writable by anyone and not sticky: anyone could have made .agent. */
	assert_int_equal(chmod(shared, 0777), 0);
	assert_int_equal(ac_discover_workspace(&found, &skipped, y, root, NULL), AC_ENOTFOUND);
	assert_null(found);
	assert_non_null(skipped);
	assert_non_null(strstr(skipped, shared));
	assert_non_null(strstr(skipped, "not sticky"));
	assert_non_null(strstr(ac_error_last(), shared));
	free(skipped);
	skipped = NULL;
	/* Sticky, as the system's temporary folder is: the owner decides. */
	assert_int_equal(chmod(shared, 01777), 0);
	expect(y, root, NULL, shared);
	if (geteuid() == 0) {
		/* Another user's .agent: skipped for a workspace further up. */
		tu_put(root, "JOURNAL.jsonl", "");
		assert_int_equal(chown(agent, 65534, 65534), 0);
		assert_int_equal(ac_discover_workspace(&found, &skipped, y, NULL, NULL), 0);
		assert_string_equal(found, root);
		assert_non_null(strstr(skipped, shared));
		assert_non_null(strstr(skipped, "uid 65534"));
		assert_null(strchr(skipped, '\n'));
		free(found);
		free(skipped);
		/* Started in it: refused, and -w named as the way to take it. */
		assert_int_equal(ac_discover_workspace(&found, &skipped, shared, NULL, NULL),
				 AC_EDENIED);
		assert_null(found);
		assert_null(skipped);
		assert_non_null(strstr(ac_error_last(), "-w"));
		/* Root's own is taken. */
		assert_int_equal(chown(agent, 0, 0), 0);
		expect(y, NULL, NULL, shared);
	}
	free(shared), free(x), free(y), free(agent);
	tu_remove_tree(root);
	free(root);
}

static void test_bad_start(void **state)
{
	char *found = (char *)"x";

	(void)state;
	assert_int_equal(ac_discover_workspace(&found, NULL, "/nonexistent/folder/x", NULL, NULL),
			 AC_ENOTFOUND);
	assert_null(found);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walks_up),
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_foreign_markers),
		cmocka_unit_test(test_bad_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
