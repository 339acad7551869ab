/* The little-endian record codec (core/ac_le.h) and the three caches
 * written with it: integers come out least significant byte first and
 * read back, a read past the end is caught; and a session listing cache,
 * a transcript cache and a usage index as main's code wrote them before
 * the codec was shared (tests/fixtures/le, written by agentctl at commit
 * 7036312) load and are written back byte for byte. The session cache's
 * fixture is that file moved to format 2 (its checksum ac_hash64, not
 * FNV-1a) by a separate Python port of the hash, so the C hash is checked
 * against a second implementation. */
#include "test_util.h"

#include "ac_le.h"
#include "ac_session_cache.h"
#include "ac_source.h"
#include "ac_source_cache.h"
#include "ac_usage_index.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void test_integers_least_significant_first(void **state)
{
	ac_buf b = AC_BUF_INIT;
	ac_le_reader r;
	unsigned char stored[4];

	(void)state;
	assert_int_equal(ac_le_put_u64(&b, UINT64_C(0x0102030405060708)), 0);
	assert_int_equal(ac_le_put_u32(&b, 0xA0B0C0D0u), 0);
	assert_int_equal(b.len, 12);
	assert_memory_equal(b.data, "\x08\x07\x06\x05\x04\x03\x02\x01\xD0\xC0\xB0\xA0", 12);
	ac_le_store_u32(stored, 0x11223344u);
	assert_memory_equal(stored, "\x44\x33\x22\x11", 4);
	assert_int_equal(ac_le_load_u32(stored), 0x11223344u);
	r = ac_le_reader_of(b.data, b.len);
	assert_true(ac_le_get_u64(&r) == UINT64_C(0x0102030405060708));
	assert_int_equal(ac_le_left(&r), 4);
	assert_int_equal(ac_le_get_u32(&r), 0xA0B0C0D0u);
	assert_false(r.bad);
	assert_int_equal(ac_le_left(&r), 0);
	ac_buf_free(&b);
}

static void test_a_read_past_the_end_is_bad(void **state)
{
	static const unsigned char bytes[] = {1, 2, 3, 4, 5, 6, 7};
	ac_le_reader r = ac_le_reader_of(bytes, sizeof(bytes));

	(void)state;
	assert_int_equal(ac_le_get_u32(&r), 0x04030201u);
	assert_true(ac_le_get_u64(&r) == 0); /* 3 bytes left, not 8 */
	assert_true(r.bad);
	/* Once bad, nothing more is read, even what would fit. */
	assert_null(ac_le_get_bytes(&r, 1));
	assert_int_equal(ac_le_get_u32(&r), 0);
	r = ac_le_reader_of(bytes, sizeof(bytes));
	assert_ptr_equal(ac_le_get_bytes(&r, 7), bytes);
	assert_null(ac_le_get_bytes(&r, 1));
	assert_true(r.bad);
}

/* ---- main's files, read and written back ---- */

typedef struct {
	ac_session_cache_record records[8];
	size_t n;
} session_records;

static int take_session(const ac_session_cache_record *r, void *ctx)
{
	session_records *l = ctx;

	assert_true(l->n < 8);
	l->records[l->n++] = *r;
	return 0;
}

static void assert_same_file(const char *path, const char *expected_path)
{
	size_t len = 0, expected_len = 0;
	char *got = tu_read_file(path, &len), *expected = tu_read_file(expected_path, &expected_len);

	assert_int_equal(len, expected_len);
	assert_memory_equal(got, expected, len);
	free(got);
	free(expected);
}

static void test_session_cache_as_main_wrote_it(void **state)
{
	char *dir = tu_copy_fixture("le");
	char *path = tu_path(dir, "sessions.bin"), *again = tu_path(dir, "sessions-again.bin");
	size_t len = 0;
	char *bytes = tu_read_file(path, &len);
	session_records l = {0};
	/* The folder it was made for, as its head says (magic, dev, inode). */
	ac_le_reader head = ac_le_reader_of(bytes + 26, len - 26);
	uint64_t dev = ac_le_get_u64(&head), ino = ac_le_get_u64(&head);
	ac_session_cache *cache = NULL;

	(void)state;
	assert_memory_equal(bytes, "agentctl sessions cache 2\n", 26);
	assert_int_equal(ac_session_cache_load(&cache, path, dev, ino), 0);
	assert_int_equal(ac_session_cache_each(cache, take_session, &l), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.records[0].name, "s1.json");
	assert_string_equal(l.records[2].summary.task, "task \xc3\xa9 3");
	assert_int_equal(l.records[1].summary.input_tokens, 2);
	assert_int_equal(ac_session_cache_save(again, dev, ino, l.records, l.n), 0);
	assert_same_file(again, path);
	ac_session_cache_free(cache);
	free(bytes);
	free(path);
	free(again);
	tu_remove_tree(dir);
	free(dir);
}

typedef struct {
	ac_source_session *list[16];
	size_t n;
} source_list;

static int take_source(ac_source_session *s, void *ctx)
{
	source_list *l = ctx;

	assert_true(l->n < 16);
	l->list[l->n++] = s;
	return 0;
}

static void test_source_cache_as_main_wrote_it(void **state)
{
	char *dir = tu_copy_fixture("le");
	char *path = tu_path(dir, "sources.bin"), *again = tu_path(dir, "sources-again.bin");
	source_list l = {0};

	(void)state;
	assert_int_equal(ac_source_cache_load(path, take_source, &l), 0);
	assert_true(l.n >= 2);
	assert_int_equal(ac_source_cache_save(again, l.list, l.n), 0);
	assert_same_file(again, path);
	for (size_t i = 0; i < l.n; i++)
		ac_source_session_free(l.list[i]);
	free(path);
	free(again);
	tu_remove_tree(dir);
	free(dir);
}

static void test_usage_index_as_main_wrote_it(void **state)
{
	char *dir = tu_copy_fixture("le");
	char *path = tu_path(dir, "usage-index.bin"), *again = tu_path(dir, "usage-again.bin");
	ac_usage_index *index = NULL;
	bool rebuilt = true;

	(void)state;
	assert_int_equal(ac_usage_index_load(&index, &rebuilt, path), 0);
	assert_false(rebuilt);
	assert_true(index->n >= 2);
	assert_int_equal(ac_usage_index_save(index, again), 0);
	assert_same_file(again, path);
	ac_usage_index_free(index);
	free(path);
	free(again);
	tu_remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers_least_significant_first),
		cmocka_unit_test(test_a_read_past_the_end_is_bad),
		cmocka_unit_test(test_session_cache_as_main_wrote_it),
		cmocka_unit_test(test_source_cache_as_main_wrote_it),
		cmocka_unit_test(test_usage_index_as_main_wrote_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
