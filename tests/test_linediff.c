/* ac_linediff: the review diff of a trusted file and its change. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ac_linediff.h"

#include <string.h>

static void diff(const char *a, const char *b, int context, const char *expected,
		 size_t added, size_t removed)
{
	ac_buf out = AC_BUF_INIT;
	size_t adds = 99, dels = 99;

	assert_int_equal(ac_linediff(&out, a, strlen(a), b, strlen(b), context, &adds, &dels), 0);
	assert_string_equal(out.data ? out.data : "", expected);
	assert_int_equal(adds, added);
	assert_int_equal(dels, removed);
	ac_buf_free(&out);
}

static void test_same_lines_show_nothing(void **state)
{
	(void)state;
	diff("a\nb\n", "a\nb\n", 3, "", 0, 0);
	diff("", "", 3, "", 0, 0);
}

static void test_from_nothing_every_line_is_new(void **state)
{
	(void)state;
	diff("", "a\nb", 3, "@@ -1 +1 @@\n+a\n+b\n", 2, 0);
	diff("a\n", "", 0, "@@ -1 +1 @@\n-a\n", 0, 1);
}

static void test_one_change_with_context(void **state)
{
	(void)state;
	diff("1\n2\n3\n4\n5\n6\n", "1\n2\n3\nfour\n5\n6\n", 1,
	     "@@ -3 +3 @@\n 3\n-4\n+four\n 5\n", 1, 1);
}

/* Changes far apart are groups of their own; near ones share one. */
static void test_groups(void **state)
{
	(void)state;
	diff("1\n2\n3\n4\n5\n6\n7\n8\n", "x\n2\n3\n4\n5\n6\n7\ny\n", 1,
	     "@@ -1 +1 @@\n-1\n+x\n 2\n@@ -7 +7 @@\n 7\n-8\n+y\n", 2, 2);
	diff("1\n2\n3\n4\n", "x\n2\n3\ny\n", 1,
	     "@@ -1 +1 @@\n-1\n+x\n 2\n 3\n-4\n+y\n", 2, 2);
}

static void test_inserted_line_keeps_the_rest(void **state)
{
	(void)state;
	diff("{\n  \"a\": 1\n}\n", "{\n  \"a\": 1,\n  \"b\": 2\n}\n", 0,
	     "@@ -2 +2 @@\n-  \"a\": 1\n+  \"a\": 1,\n+  \"b\": 2\n", 2, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_lines_show_nothing),
		cmocka_unit_test(test_from_nothing_every_line_is_new),
		cmocka_unit_test(test_one_change_with_context),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_inserted_line_keeps_the_rest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
