/* Tests for undoing a compaction or a checkpoint rollback
 * (ac_restore_archive): the archived messages go back where they were,
 * byte for byte, once; a session an agent wrote since, or whose newest
 * compaction is another one, is refused and left byte-identical. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ac_archive.h"
#include "ac_compact.h"
#include "ac_error.h"
#include "ac_restore.h"
#include "ac_session.h"
#include "test_util.h"

#define ID "s1"

static json_t *chat(size_t n)
{
	json_t *messages = json_array();
	char text[400];

	for (size_t i = 0; i < n; i++) {
		snprintf(text, sizeof(text), "message %zu %0300d", i, 0);
		json_array_append_new(messages, json_pack("{s:s, s:s, s:{s:f}}", "role",
							  i % 2 ? "assistant" : "user", "content",
							  text, "extra", "n", 1.5));
	}
	return messages;
}

static json_t *history(const char *dir)
{
	ac_session *s = NULL;
	json_t *h;

	assert_int_equal(ac_session_load(&s, dir, ID), 0);
	h = json_deep_copy(ac_session_messages(s));
	ac_session_free(s);
	return h;
}

/* The history as the file holds it (numbers as plain JSON numbers). */
static json_t *file_history(const char *dir)
{
	char *path = tu_path(dir, ID ".json");
	json_t *root = json_load_file(path, 0, NULL), *h;

	assert_non_null(root);
	h = json_incref(json_object_get(root, "conversationHistory"));
	json_decref(root);
	free(path);
	return h;
}

static void make(const char *dir, json_t *messages)
{
	assert_int_equal(ac_session_create(NULL, dir, ID, "t", NULL, NULL, NULL), 0);
	assert_int_equal(ac_session_append_messages(NULL, dir, ID, messages), 0);
}

static void test_compaction_undone(void **state)
{
	char *dir = tu_make_temp_dir(), *path = tu_path(dir, ID ".json"), *before_text;
	json_t *messages = chat(10), *before, *now;
	ac_compact_options opts;
	ac_compact_result r = {0};
	size_t restored = 0;

	(void)state;
	make(dir, messages);
	before = history(dir);
	ac_compact_options_init(&opts);
	opts.force = true;
	assert_int_equal(ac_compact_session(&r, dir, ID, &opts), 0);
	assert_true(r.needed);
	assert_non_null(r.archive_path);

	/* Asked with the wrong length: refused, the file byte-identical. */
	before_text = tu_read_file(path, NULL);
	assert_int_equal(ac_restore_archive(NULL, dir, ID, r.archive_path, AC_RESTORE_COMPACTION,
					    r.messages_after + 1, NULL), AC_ECONFLICT);
	tu_assert_file(dir, ID ".json", before_text);
	free(before_text);

	assert_int_equal(ac_restore_archive(&restored, dir, ID, r.archive_path,
					    AC_RESTORE_COMPACTION, r.messages_after, NULL), 0);
	assert_int_equal(restored, r.summarized);
	now = history(dir);
	assert_true(json_equal(now, before));
	json_decref(now);
	/* Not twice: the second call finds it done. */
	assert_int_equal(ac_restore_archive(&restored, dir, ID, r.archive_path,
					    AC_RESTORE_COMPACTION, r.messages_after, NULL), 0);
	assert_int_equal(restored, 0);
	now = history(dir);
	assert_true(json_equal(now, before));
	json_decref(now);
	ac_compact_result_free(&r);
	json_decref(before);
	json_decref(messages);
	tu_remove_tree(dir);
	free(path);
	free(dir);
}

static void test_agent_wrote_since(void **state)
{
	char *dir = tu_make_temp_dir(), *path = tu_path(dir, ID ".json"), *before_text;
	json_t *messages = chat(10), *more = json_pack("[{s:s, s:s}]", "role", "user", "content", "new");
	ac_compact_options opts;
	ac_compact_result r = {0};

	(void)state;
	make(dir, messages);
	ac_compact_options_init(&opts);
	opts.force = true;
	assert_int_equal(ac_compact_session(&r, dir, ID, &opts), 0);
	assert_int_equal(ac_session_append_messages(NULL, dir, ID, more), 0);
	before_text = tu_read_file(path, NULL);
	assert_int_equal(ac_restore_archive(NULL, dir, ID, r.archive_path, AC_RESTORE_COMPACTION,
					    r.messages_after, NULL), AC_ECONFLICT);
	assert_non_null(strstr(ac_error_last(), "an agent wrote since"));
	tu_assert_file(dir, ID ".json", before_text);
	/* An archive outside the sessions folder is not one. */
	assert_int_equal(ac_restore_archive(NULL, dir, ID, "/etc/passwd", AC_RESTORE_COMPACTION,
					    r.messages_after + 1, NULL), AC_EINVAL);
	free(before_text);
	ac_compact_result_free(&r);
	json_decref(messages);
	json_decref(more);
	tu_remove_tree(dir);
	free(path);
	free(dir);
}

/* A rollback as ac_checkpoint_rollback() leaves it: the tail archived
 * under .rollbacks, the history cut, metadata.rollbacks naming it. */
static void test_rollback_undone(void **state)
{
	char *dir = tu_make_temp_dir(), *archive = NULL, *relative = NULL;
	json_t *messages = chat(8), *kept = json_array(), *tail = json_array(), *root, *now;
	size_t restored = 0;

	(void)state;
	for (size_t i = 0; i < 8; i++)
		json_array_append(i < 5 ? kept : tail, json_array_get(messages, i));
	assert_int_equal(ac_archive_write(&archive, &relative, dir, ".rollbacks", ID,
					  "2026-01-01T00:00:00.000Z", 1767225600000, tail, NULL), 0);
	root = json_pack("{s:s, s:s, s:s, s:s, s:s, s:O, s:{s:[{s:s}]}}", "id", ID, "createdAt",
			 "2026-01-01T00:00:00.000Z", "updatedAt", "2026-01-01T00:00:00.000Z", "task",
			 "t", "status", "running", "conversationHistory", kept, "metadata", "rollbacks",
			 "archive", relative);
	assert_non_null(root);
	{
		char *dumped = json_dumps(root, 0);

		tu_put(dir, ID ".json", dumped);
		free(dumped);
	}
	assert_int_equal(ac_restore_archive(NULL, dir, ID, archive, AC_RESTORE_ROLLBACK, 6, NULL),
			 AC_ECONFLICT);
	assert_int_equal(ac_restore_archive(&restored, dir, ID, archive, AC_RESTORE_ROLLBACK, 5,
					    NULL), 0);
	assert_int_equal(restored, 3);
	now = file_history(dir);
	if (!json_equal(now, messages)) {
		char *a = json_dumps(now, 0), *b = json_dumps(messages, 0);

		fail_msg("restored %zu %s\nwanted %zu %s", json_array_size(now), strstr(a, "message 4"), json_array_size(messages), strstr(b, "message 4"));
	}
	json_decref(now);
	json_decref(root);
	json_decref(kept);
	json_decref(tail);
	json_decref(messages);
	free(archive);
	free(relative);
	tu_remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compaction_undone),
		cmocka_unit_test(test_agent_wrote_since),
		cmocka_unit_test(test_rollback_undone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
