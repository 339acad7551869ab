/* The session listing's order and its cache (core/ac_session_index.c,
 * core/ac_session_cache.c): the newest-first order is the one strcmp()
 * gives, whatever the creation times hold (equal ones, short ones, ones
 * longer than the sort keys, bytes above 0x7F); the folder's names sort as
 * strcmp() sorts them, so a second look reads nothing; and an index whose
 * summaries came from the cache file keeps, frees and replaces them as it
 * does its own (ASan watches the frees). */
#include "test_util.h"

#include "ac_session_index.h"
#include "ac_sort_key.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

typedef struct {
	char *dir;   /* the session folder */
	char *cache; /* XDG_CACHE_HOME for the test */
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_make_temp_dir();
	f->cache = tu_make_temp_dir();
	setenv("XDG_CACHE_HOME", f->cache, 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	tu_remove_tree(f->dir);
	tu_remove_tree(f->cache);
	free(f->dir);
	free(f->cache);
	free(f);
	return 0;
}

/* Writes <id>.json with createdAt created (absent when NULL) and task,
 * its mtime an hour back. */
static void write_session(const fixture *f, const char *id, const char *created, const char *task)
{
	char name[128], text[512];
	struct timespec hour_ago[2];
	char *path;
	int n;

	snprintf(name, sizeof(name), "%s.json", id);
	if (created)
		n = snprintf(text, sizeof(text),
			     "{\"id\":\"%s\",\"createdAt\":\"%s\",\"task\":\"%s\","
			     "\"conversationHistory\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
			     id, created, task);
	else
		n = snprintf(text, sizeof(text), "{\"id\":\"%s\",\"task\":\"%s\"}", id, task);
	path = tu_path(f->dir, name);
	tu_write_file(path, text, (size_t)n);
	clock_gettime(CLOCK_REALTIME, &hour_ago[0]);
	hour_ago[0].tv_sec -= 3600;
	hour_ago[1] = hour_ago[0];
	assert_int_equal(utimensat(AT_FDCWD, path, hour_ago, 0), 0);
	free(path);
}

typedef struct {
	char id[64];
	char created[64];
} expected_row;

/* The listing's order as the comparison it stands for: createdAt newest
 * first by strcmp(), then id. */
static int newest_first(const void *a, const void *b)
{
	const expected_row *x = a, *y = b;
	int c = strcmp(y->created, x->created);

	return c ? c : strcmp(x->id, y->id);
}

/* The cache keeps no file whose mtime or ctime is under 2 s old (git's
 * racy-clean rule, ac_session_index_save_cache()), and utimensat() sets
 * the ctime: wait that out before saving one. */
static void past_the_racy_window(void)
{
	struct timespec wait = {2, 200000000};

	while (nanosleep(&wait, &wait) != 0)
		;
}

static ac_session_index *listed(const fixture *f, bool cache, size_t *out_parsed)
{
	ac_session_index *index;

	assert_int_equal(ac_session_index_new(&index, f->dir), 0);
	if (cache)
		assert_int_equal(ac_session_index_use_cache(index), 0);
	assert_int_equal(ac_session_index_refresh(index, NULL, NULL, out_parsed), 0);
	return index;
}

static void assert_order(ac_session_index *index, expected_row *rows, size_t n)
{
	const ac_session_summary *const *list;
	size_t got;

	list = ac_session_index_list(index, &got);
	assert_int_equal(got, n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(list[i]->id, rows[i].id);
		assert_string_equal(list[i]->created_at, rows[i].created);
	}
}

static void test_order_is_strcmp_order(void **state)
{
	/* Times that tie, that differ only past the keys' 24 bytes, that are
	 * short, empty, absent, or hold bytes above 0x7F; ids that share
	 * their first eight bytes or are shorter than eight. */
	static const char *const times[] = {
		"2025-12-28T23:59:53.879Z", "2025-12-28T23:59:53.879Z", "2025-12-28T23:59:53.87",
		"2025-12-28T23:59:53.879Z+later", "2025-12-28T23:59:53.879Z+early", "2025",
		"", "2025-12-28T23:59:53.879Zz", "\xc3\xa9t\xc3\xa9", "2025-12-28T23:59:53.880Z",
		"2026-01-01T00:00:00.000Z", "1999-12-31T23:59:59.999Z",
	};
	static const char *const ids[] = {"a", "b1", "sessionA", "sessionA1", "sessionA2",
					  "sessionB", "sessionA0", "zz", "x-1", "x-10"};
	fixture *f = *state;
	expected_row rows[64];
	ac_session_index *index;
	size_t n = 0, parsed;
	uint64_t seed = 7;

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		for (size_t j = 0; j < 4; j++) {
			const char *created;

			seed = seed * 6364136223846793005u + 1442695040888963407u;
			created = times[(seed >> 33) % (sizeof(times) / sizeof(times[0]))];
			snprintf(rows[n].id, sizeof(rows[n].id), "%s%s", ids[i],
				 (const char *[]){"", "-2", "-3", "-30"}[j]);
			/* One in twelve has no createdAt: "" in the listing. */
			snprintf(rows[n].created, sizeof(rows[n].created), "%s",
				 (seed >> 40) % 12 ? created : "");
			write_session(f, rows[n].id, (seed >> 40) % 12 ? created : NULL, "t");
			n++;
		}
	qsort(rows, n, sizeof(rows[0]), newest_first);
	past_the_racy_window();
	index = listed(f, true, &parsed);
	assert_int_equal(parsed, n);
	assert_order(index, rows, n);
	assert_int_equal(ac_session_index_save_cache(index), 0);
	/* The names sorted as strcmp() sorts them: a second look, and a new
	 * process from the cache, read nothing and list the same. */
	assert_int_equal(ac_session_index_refresh(index, NULL, NULL, &parsed), 0);
	assert_int_equal(parsed, 0);
	assert_order(index, rows, n);
	ac_session_index_free(index);
	index = listed(f, true, &parsed);
	assert_int_equal(parsed, 0);
	assert_order(index, rows, n);
	ac_session_index_free(index);
}

/* Summaries from the cache file, then a torn file, torn again, whole
 * again: the stale row keeps the cache's strings until they are replaced,
 * and every string is freed once, by the index or with the cache. */
static void test_summaries_from_the_cache_are_kept_and_let_go(void **state)
{
	fixture *f = *state;
	const ac_session_summary *const *list;
	ac_session_index *index;
	ac_session_index_change change;
	size_t n, parsed;
	char *path = tu_path(f->dir, "s1.json");

	write_session(f, "s1", "2025-01-01T00:00:00.000Z", "first task");
	write_session(f, "s2", "2025-01-02T00:00:00.000Z", "second task");
	past_the_racy_window();
	index = listed(f, true, NULL);
	assert_int_equal(ac_session_index_save_cache(index), 0);
	ac_session_index_free(index);

	assert_int_equal(ac_session_index_new(&index, f->dir), 0);
	assert_int_equal(ac_session_index_use_cache(index), 0);
	ac_session_index_keep_last_good(index, true);
	assert_int_equal(ac_session_index_refresh(index, NULL, NULL, &parsed), 0);
	assert_int_equal(parsed, 0); /* both from the cache */
	/* Torn: the cache's summary stays, stale. */
	tu_write_file(path, "{\"id\":\"s1\",\"ta", 14);
	assert_int_equal(ac_session_index_refresh(index, NULL, NULL, &parsed), 0);
	assert_int_equal(parsed, 1);
	list = ac_session_index_list(index, &n);
	assert_int_equal(n, 2);
	assert_string_equal(list[1]->task, "first task");
	assert_true(list[1]->stale);
	/* Torn again, as the watcher names it: still that summary. */
	tu_write_file(path, "{\"id\":", 6);
	assert_int_equal(ac_session_index_refresh_file(index, "s1.json", NULL, NULL, &change), 0);
	list = ac_session_index_list(index, &n);
	assert_string_equal(list[1]->task, "first task");
	assert_true(list[1]->stale);
	/* Whole again: read afresh, the cache's strings let go. */
	write_session(f, "s1", "2025-01-01T00:00:00.000Z", "mended task");
	assert_int_equal(ac_session_index_refresh(index, NULL, NULL, &parsed), 0);
	list = ac_session_index_list(index, &n);
	assert_string_equal(list[1]->task, "mended task");
	assert_false(list[1]->stale);
	assert_string_equal(list[0]->task, "second task"); /* still the cache's */
	/* The other removed and the cache written again from this index. */
	assert_int_equal(ac_session_index_save_cache(index), 0);
	ac_session_index_free(index);
	free(path);
}

/* A summary's task length: task_len when a NUL ends the task there (a
 * task may hold \u0000), strlen() when the writer left it 0 or short. */
static void test_task_length(void **state)
{
	ac_session_summary s = {0};

	(void)state;
	s.task = "fix\0typo";
	s.task_len = 8;
	assert_int_equal(ac_session_summary_task_len(&s), 8);
	s.task_len = 0;
	assert_int_equal(ac_session_summary_task_len(&s), 3);
	s.task = "longer than said";
	s.task_len = 4;
	assert_int_equal(ac_session_summary_task_len(&s), 16);
	s.task_len = 16;
	assert_int_equal(ac_session_summary_task_len(&s), 16);
}

/* A sort key is the eight bytes from at, big-endian, zeros past the end:
 * by one load when all eight are there, byte by byte otherwise; the two
 * agree, and keys order as strcmp() orders the texts. */
static void test_sort_keys(void **state)
{
	static const char text[] = "2025-12-28T23:59:53.879Z\xc3\xa9\x7f\x80\xff!";
	size_t n = sizeof(text) - 1;

	(void)state;
	for (size_t len = 0; len <= n; len++)
		for (size_t at = 0; at <= len + 1; at++) {
			uint64_t want = 0;

			for (size_t b = 0; b < 8; b++)
				want = want << 8 | (at + b < len ? (unsigned char)text[at + b] : 0);
			assert_true(ac_sort_key8(text, len, at) == want);
		}
	/* A byte above 0x7F orders after every byte below it, as in strcmp(). */
	assert_true(ac_sort_key8("\x80" "aaaaaaa", 8, 0) >
		    ac_sort_key8("\x7f\xff\xff\xff\xff\xff\xff\xff", 8, 0));
	assert_true(ac_sort_key8("2025-12-\xc3", 9, 8) == UINT64_C(0xc3) << 56);
	assert_int_equal(ac_sort_key_cmp(1, 2), -1);
	assert_int_equal(ac_sort_key_cmp(2, 2), 0);
	assert_int_equal(ac_sort_key_cmp(UINT64_MAX, 0), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order_is_strcmp_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summaries_from_the_cache_are_kept_and_let_go,
						setup, teardown),
		cmocka_unit_test(test_task_length),
		cmocka_unit_test(test_sort_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
