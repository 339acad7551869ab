/* The transcript index's path table (ac_source_paths.c): every path added
 * is found at its slot through growth and collisions, others are not, and
 * a cleared table finds nothing until filled again. And the parent rows
 * of a listing, found by id through it (ac_source_parent_rows()). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ac_source.h"
#include "ac_source_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 50000

static char **paths;

static const char *path_of(size_t i, void *ctx)
{
	(void)ctx;
	return paths[i];
}

static void test_add_find_clear(void **state)
{
	ac_source_paths t = {0};
	char name[128];

	(void)state;
	paths = calloc(N, sizeof(*paths));
	assert_int_equal(ac_source_paths_find(&t, "/x", path_of, NULL), (size_t)-1);
	for (size_t i = 0; i < N; i++) {
		/* Paths alike but for a few hex digits, as transcripts' are. */
		snprintf(name, sizeof(name), "/home/u/.claude/projects/-w/%08zx-0000-4000-8000-%012zx.jsonl",
			 i, i);
		paths[i] = strdup(name);
		assert_int_equal(ac_source_paths_add(&t, paths[i], i), 0);
	}
	for (size_t i = 0; i < N; i++)
		assert_int_equal(ac_source_paths_find(&t, paths[i], path_of, NULL), i);
	assert_int_equal(ac_source_paths_find(&t, "/home/u/.claude/projects/-w/x.jsonl", path_of, NULL),
			 (size_t)-1);
	assert_true(t.used * 2 <= t.mask + 1);
	ac_source_paths_clear(&t);
	assert_int_equal(ac_source_paths_find(&t, paths[7], path_of, NULL), (size_t)-1);
	assert_int_equal(ac_source_paths_add(&t, paths[7], 7), 0);
	assert_int_equal(ac_source_paths_find(&t, paths[7], path_of, NULL), 7);
	assert_int_equal(ac_source_paths_find(&t, paths[8], path_of, NULL), (size_t)-1);
	ac_source_paths_free(&t);
	for (size_t i = 0; i < N; i++)
		free(paths[i]);
	free(paths);
}

/* A literal as a session's (writable) string field. */
#define S(text) ((char *)(text))

/* A parent by its id (of two rows with that id, the last); none, one not
 * listed, itself and a cycle as they are. */
static void test_parent_rows(void **state)
{
	ac_source_session rows[] = {
		{.id = S("a")},
		{.id = S("b"), .parent_id = S("a")},
		{.id = S("c"), .parent_id = S("gone")},
		{.id = S("a"), .parent_id = S("d")},
		{.id = S("d"), .parent_id = S("d")},
		{.id = S("e"), .parent_id = S("f")},
		{.id = S("f"), .parent_id = S("e")},
	};
	ac_source_session *list[7];
	size_t *parent = NULL;
	const size_t want[] = {SIZE_MAX, 3, SIZE_MAX, 4, 4, 6, 5};

	(void)state;
	for (size_t i = 0; i < 7; i++)
		list[i] = &rows[i];
	assert_int_equal(ac_source_parent_rows(&parent, list, 7), 0);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(parent[i], want[i]);
	free(parent);
	list[1] = &rows[0]; /* none names a parent */
	list[3] = list[4] = list[5] = list[6] = &rows[0];
	list[2] = &rows[0];
	assert_int_equal(ac_source_parent_rows(&parent, list, 7), 0);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(parent[i], SIZE_MAX);
	free(parent);
	assert_int_equal(ac_source_parent_rows(&parent, list, 0), 0);
	assert_non_null(parent);
	free(parent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find_clear),
		cmocka_unit_test(test_parent_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
