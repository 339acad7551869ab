/* The session listing's cache file (core/ac_session_cache.c): what is
 * saved loads back the same; a file that is not to be believed loads
 * nothing, and a record that does not fit is dropped, the others kept. */
#include "test_util.h"

#include "ac_session_cache.h"
#include "ac_hash64.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#define DEV 7u
#define INO 42u

/* "id\0task\0status\0created\0updated\0tenant\0user\0agent\0", the task
 * holding a NUL. */
static const char strings_a[] = "a\0fix\0typo\0running\0c1\0u1\0t\0me\0ag";
static const char strings_b[] = "b\0task b\0paused\0c2\0u2\0t\0you\0ag";

static ac_session_cache_record record(const char *name, const char *strings, size_t len,
				      size_t task_len, uint64_t ino)
{
	ac_session_cache_record r = {.name = name, .ino = ino, .size = 100 + ino,
				     .mtime = {1000, 5}, .ctime = {1001, 6},
				     .strings = strings, .strings_len = len};

	r.summary.task_len = task_len;
	r.summary.messages = 3;
	r.summary.tokens = 12;
	r.summary.input_tokens = 5;
	r.summary.output_tokens = 7;
	r.summary.turns = 1;
	return r;
}

typedef struct {
	char names[4][32];
	char tasks[4][32];
	size_t task_lens[4];
	uint64_t inos[4];
	size_t n;
} loaded;

static int take(const ac_session_cache_record *r, void *ctx)
{
	loaded *l = ctx;

	if (l->n < 4) {
		snprintf(l->names[l->n], sizeof(l->names[0]), "%s", r->name);
		memcpy(l->tasks[l->n], r->summary.task, r->summary.task_len + 1);
		l->task_lens[l->n] = r->summary.task_len;
		l->inos[l->n] = r->ino;
		assert_string_equal(r->summary.agent, "ag");
		assert_int_equal(r->mtime.tv_nsec, 5);
		assert_int_equal(r->ctime.tv_sec, 1001);
	}
	l->n++;
	return 0;
}

static size_t load(const char *path, uint64_t dev, uint64_t ino, loaded *l)
{
	ac_session_cache *cache = NULL;

	memset(l, 0, sizeof(*l));
	assert_int_equal(ac_session_cache_load(&cache, path, dev, ino), 0);
	assert_int_equal(ac_session_cache_each(cache, take, l), 0);
	ac_session_cache_free(cache);
	return l->n;
}

static char *saved_cache(char *dir)
{
	ac_session_cache_record r[2] = {
		/* "fix\0typo" is a's task: 8 bytes, its NUL kept. */
		record("a.json", strings_a, sizeof(strings_a), 8, 1),
		record("b.json", strings_b, sizeof(strings_b), 6, 2),
	};
	char *path = tu_path(dir, "sub/sessions.bin");

	assert_int_equal(ac_session_cache_save(path, DEV, INO, r, 2), 0);
	return path;
}

static void test_saved_loads_back(void **state)
{
	char *dir = tu_make_temp_dir(), *path = saved_cache(dir);
	loaded l;

	(void)state;
	assert_int_equal(load(path, DEV, INO, &l), 2);
	assert_string_equal(l.names[0], "a.json");
	assert_int_equal(l.task_lens[0], 8);
	assert_memory_equal(l.tasks[0], "fix\0typo", 9);
	assert_string_equal(l.names[1], "b.json");
	assert_string_equal(l.tasks[1], "task b");
	assert_int_equal(l.inos[1], 2);
	/* Another folder (device or inode): not ours. */
	assert_int_equal(load(path, DEV + 1, INO, &l), 0);
	assert_int_equal(load(path, DEV, INO + 1, &l), 0);
	tu_remove_tree(dir);
	free(path);
	free(dir);
}

/* The bytes of path with byte at changed to value and the checksum made
 * right again: a forged file that only the record checks can refuse. */
static void forge(const char *path, size_t at, char value)
{
	size_t len;
	char *data = tu_read_file(path, &len);
	uint64_t sum;

	data[at] = value;
	sum = ac_hash64(UINT64_C(0x736573732d636163), data, len - 8);
	for (int i = 0; i < 8; i++)
		data[len - 8 + (size_t)i] = (char)(sum >> (8 * i));
	tu_write_file(path, data, len);
	free(data);
}

static void test_a_record_that_does_not_fit_is_dropped(void **state)
{
	char *dir = tu_make_temp_dir(), *path = saved_cache(dir);
	size_t len, a_name, b_name;
	char *data = tu_read_file(path, &len);
	loaded l;

	(void)state;
	assert_non_null(memmem(data, len, "b.json", 6));
	b_name = (size_t)((char *)memmem(data, len, "b.json", 6) - data);
	free(data);
	/* b's task_len (after name, ino, size, 4 times, 5 counts) past its
	 * strings: b is dropped, a kept. */
	forge(path, b_name + 6 + 11 * 8, 100);
	assert_int_equal(load(path, DEV, INO, &l), 1);
	assert_string_equal(l.names[0], "a.json");
	/* Saved again, a's name made "a/json": no session file's name. */
	free(path);
	path = saved_cache(dir);
	data = tu_read_file(path, &len);
	a_name = (size_t)((char *)memmem(data, len, "a.json", 6) - data);
	free(data);
	forge(path, a_name + 1, '/');
	assert_int_equal(load(path, DEV, INO, &l), 1);
	assert_string_equal(l.names[0], "b.json");
	tu_remove_tree(dir);
	free(path);
	free(dir);
}

static void test_a_file_not_to_be_believed_loads_nothing(void **state)
{
	char *dir = tu_make_temp_dir(), *path = saved_cache(dir), *link = tu_path(dir, "link.bin");
	size_t len;
	char *data = tu_read_file(path, &len);
	loaded l;

	(void)state;
	/* One byte damaged: the checksum says so. */
	data[len / 2] ^= 1;
	tu_write_file(path, data, len);
	assert_int_equal(load(path, DEV, INO, &l), 0);
	data[len / 2] ^= 1;
	/* Torn. */
	tu_write_file(path, data, len - 3);
	assert_int_equal(load(path, DEV, INO, &l), 0);
	tu_write_file(path, data, len);
	assert_int_equal(load(path, DEV, INO, &l), 2);
	/* Writable by others, or another user's. */
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(load(path, DEV, INO, &l), 0);
	assert_int_equal(chmod(path, 0620), 0);
	assert_int_equal(load(path, DEV, INO, &l), 0);
	assert_int_equal(chmod(path, 0644), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(load(path, DEV, INO, &l), 0);
		assert_int_equal(chown(path, 0, 0), 0);
	}
	/* A link to it. */
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(load(link, DEV, INO, &l), 0);
	/* Another version. */
	data[strlen("agentctl sessions cache ")] = '9';
	tu_write_file(path, data, len);
	assert_int_equal(load(path, DEV, INO, &l), 0);
	/* Missing: nothing, no error. */
	assert_int_equal(load("/nonexistent/x.bin", DEV, INO, &l), 0);
	tu_remove_tree(dir);
	free(data);
	free(link);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_saved_loads_back),
		cmocka_unit_test(test_a_record_that_does_not_fit_is_dropped),
		cmocka_unit_test(test_a_file_not_to_be_believed_loads_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
