/* Codex rollouts as current codex-rs writes them
 * (tests/fixtures/sources-current, README-codex.md): a fork's copy of its
 * parent is not the fork's, a sub-agent names its parent, compaction
 * summaries and aborted turns are markers, a rollback takes its turns
 * back, injected context is never a prompt, unknown record types are
 * counted, archived and zstd-compressed rollouts are read, titles come
 * from session_index.jsonl; every summary's count is its conversation's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_buf.h"
#include "ac_compact.h"
#include "ac_error.h"
#include "ac_messages.h"
#include "ac_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WS "/work/fixture-project"
#define P "01a1f82f-1e80-7101-8101-000000000101"
#define F "01a1f866-0d00-7201-8201-000000000201"
#define S "01a1f832-c800-7301-8301-000000000301"
#define O "01a1fd1e-8c00-7401-8401-000000000401"
#define A "01a1961f-5c00-7501-8501-000000000501"
#define Z "01a15853-0c00-7601-8601-000000000601"
#define DAY "/.codex/sessions/2026/11/20/"
#define F_PATH DAY "rollout-2026-11-20T10-00-00-" F ".jsonl"
#define O_PATH "/.codex/sessions/2026/11/21/rollout-2026-11-21T08-00-00-" O ".jsonl"
#define Z_PATH "/.codex/archived_sessions/rollout-2026-10-20T08-00-00-" Z ".jsonl.zst"

typedef tu_sources fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	tu_sources_open(f, "sources-current/home", WS);
	tu_sources_dir(f, AC_SOURCE_CODEX, "/.codex/sessions");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	tu_sources_close(*state);
	free(*state);
	return 0;
}

/* s's conversation, checked to be as many messages as its summary says. */
static json_t *conversation(const ac_source_session *s)
{
	json_t *conv = NULL;

	assert_int_equal(ac_source_session_conversation(&conv, s), 0);
	assert_int_equal(ac_messages_check(conv, "conversation"), 0);
	assert_int_equal(json_array_size(conv), s->messages);
	return conv;
}

static const char *text_of(const json_t *conv, size_t i)
{
	return json_string_value(json_object_get(json_array_get(conv, i), "content"));
}

static const char *role_of(const json_t *conv, size_t i)
{
	return json_string_value(json_object_get(json_array_get(conv, i), "role"));
}

static bool conv_has(const json_t *conv, const char *needle)
{
	ac_buf text = AC_BUF_INIT;
	const json_t *msg;
	size_t i;
	bool found = false;

	json_array_foreach(conv, i, msg) {
		ac_buf_clear(&text);
		ac_message_text(&text, msg);
		if (text.data && strstr(text.data, needle))
			found = true;
	}
	ac_buf_free(&text);
	return found;
}

/* The example: the fork's rollout holds the parent's two turns
 * (and its session_meta) before its own; the fork is its own first
 * session_meta, a fork of the parent, with its own turn only. */
static void test_fork_is_not_its_parent(void **state)
{
	fixture *f = *state;
	ac_source_session *s = tu_sources_find(f, F), *parent;
	json_t *conv;

	assert_non_null(s);
	assert_string_equal(s->id, F);
	assert_int_equal(s->relation, AC_SOURCE_FORK);
	assert_string_equal(s->parent_id, P);
	assert_string_equal(s->task, "Now add a --quiet flag too");
	assert_int_equal(s->messages, 4); /* prompt, call, output, answer */
	conv = conversation(s);
	assert_string_equal(text_of(conv, 0), "Now add a --quiet flag too");
	assert_false(conv_has(conv, "--verbose"));
	json_decref(conv);
	parent = ac_source_index_find(f->index, P);
	assert_non_null(parent);
	assert_int_equal(parent->relation, AC_SOURCE_TOP);
	assert_null(parent->parent_id);
	assert_int_equal(parent->messages, 6);
	json_decref(conversation(parent));
}

/* Read while Codex still writes the copy: the boundary is carried from
 * one read to the next. */
static void test_fork_copy_read_in_parts(void **state)
{
	fixture *f = *state;
	char *path = tu_path(f->home, F_PATH), *text;
	size_t len, cut;
	ac_source_session *s;

	text = tu_read_file(path, &len);
	/* Up to the middle of the copy: the parent's first task_started. */
	cut = (size_t)(strstr(text, "\"task_started\"") - text);
	cut = (size_t)(memchr(text + cut, '\n', len - cut) - (void *)text) + 1;
	tu_write_file(path, text, cut);
	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_CODEX, path), 0);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_int_equal(s->messages, 0);
	assert_null(s->task);
	tu_append_file(path, text + cut, len - cut);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_int_equal(s->messages, 4);
	assert_string_equal(s->task, "Now add a --quiet flag too");
	ac_source_session_free(s);
	free(text);
	free(path);
}

static void test_subagent_names_its_parent(void **state)
{
	fixture *f = *state;
	ac_source_session *s = tu_sources_find(f, S);

	assert_non_null(s);
	assert_int_equal(s->relation, AC_SOURCE_SUBAGENT);
	assert_string_equal(s->parent_id, P);
	assert_string_equal(s->task, "Find where the flags are parsed");
	json_decref(conversation(s));
}

/* Compaction, a rollback and an aborted turn: the summary is kept and
 * labelled, the rolled-back turn is gone, the abort is a marker, the
 * injected context (environment, AGENTS.md, <turn_aborted>) is no
 * prompt and no task. */
static void test_compaction_rollback_abort(void **state)
{
	fixture *f = *state;
	ac_source_session *s = tu_sources_find(f, O);
	json_t *conv;

	assert_non_null(s);
	assert_string_equal(s->task, "Refactor the parser");
	assert_int_equal(s->messages, 5);
	conv = conversation(s);
	assert_string_equal(role_of(conv, 0), "user");
	assert_string_equal(text_of(conv, 0), "Refactor the parser");
	assert_string_equal(role_of(conv, 2), "system");
	assert_int_equal(strncmp(text_of(conv, 2), AC_SUMMARY_PREFIX, strlen(AC_SUMMARY_PREFIX)), 0);
	assert_non_null(strstr(text_of(conv, 2), "the parser now lives in parse.c"));
	assert_string_equal(text_of(conv, 3), "Delete the old tests");
	assert_string_equal(role_of(conv, 4), "system");
	assert_string_equal(text_of(conv, 4), "[turn aborted] interrupted");
	assert_false(conv_has(conv, "Rename parse.c"));
	assert_false(conv_has(conv, "<environment_context>"));
	assert_false(conv_has(conv, "# AGENTS.md"));
	assert_false(conv_has(conv, "<turn_aborted>"));
	json_decref(conv);
}

/* The rollback arrives in a later read: the count is made again. */
static void test_rollback_read_later(void **state)
{
	fixture *f = *state;
	char *path = tu_path(f->home, O_PATH), *text;
	size_t len, cut;
	ac_source_session *s;

	text = tu_read_file(path, &len);
	cut = (size_t)(strstr(text, "\"thread_rolled_back\"") - text);
	while (cut && text[cut - 1] != '\n')
		cut--;
	tu_write_file(path, text, cut);
	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_CODEX, path), 0);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_int_equal(s->messages, 5); /* 2, the summary, the renaming turn's 2 */
	tu_append_file(path, text + cut, len - cut);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_int_equal(s->messages, 5); /* 3 kept, then the aborted turn's 2 */
	json_decref(conversation(s));
	ac_source_session_free(s);
	free(text);
	free(path);
}

/* A record type no Codex this reader knows writes is counted by name;
 * the known ones it does not show (world_state) are not. */
static void test_unknown_types_counted(void **state)
{
	fixture *f = *state;
	ac_source_session *s = tu_sources_find(f, O);
	size_t future = 0, event = 0;

	assert_non_null(s);
	assert_int_equal(s->nunknown, 2);
	for (size_t i = 0; i < s->nunknown; i++) {
		if (!strcmp(s->unknown[i].type, "future_record"))
			future = s->unknown[i].count;
		if (!strcmp(s->unknown[i].type, "event_msg/brand_new_event"))
			event = s->unknown[i].count;
	}
	assert_int_equal(future, 1);
	assert_int_equal(event, 1);
	assert_int_equal(tu_sources_find(f, P)->nunknown, 0);
}

/* archived_sessions/ is listed; a .jsonl.zst is read through libzstd,
 * and gives way to a plain sibling. */
static void test_archived_and_compressed(void **state)
{
	fixture *f = *state;
	ac_source_session *s = tu_sources_find(f, Z), *a = ac_source_index_find(f->index, A);
	ac_source_session *const *list;
	char *zst = tu_path(f->home, Z_PATH), *plain = strndup(zst, strlen(zst) - 4);
	size_t n, seen = 0;
	json_t *conv, *doc = NULL;
	static const char line[] =
		"{\"timestamp\":\"2026-10-20T08:00:00.000Z\",\"type\":\"session_meta\",\"payload\":"
		"{\"id\":\"" Z "\",\"cwd\":\"" WS "\"}}\n";

	assert_non_null(s);
	assert_non_null(a);
	assert_true(ac_source_session_archived(s));
	assert_true(ac_source_session_archived(a));
	assert_false(ac_source_session_archived(ac_source_index_find(f->index, P)));
	assert_string_equal(s->task, "Explain the compressed rollout marker");
	assert_int_equal(s->messages, 2);
	conv = conversation(s);
	assert_true(conv_has(conv, "The zstd-compressed answer."));
	json_decref(conv);
	assert_int_equal(ac_source_session_document(&doc, s), 0);
	assert_string_equal(json_string_value(json_object_get(doc, "status")),
			    "codex transcript (archived, read-only)");
	json_decref(doc);
	/* Unchanged: not decompressed again. */
	{
		uint64_t parsed = s->bytes_parsed;

		tu_sources_find(f, Z);
		assert_int_equal(s->bytes_parsed, parsed);
	}
	tu_write_file(plain, line, strlen(line));
	s = tu_sources_find(f, Z);
	list = ac_source_index_list(f->index, &n);
	for (size_t i = 0; i < n; i++)
		seen += !strcmp(list[i]->id, Z);
	assert_int_equal(seen, 1);
	assert_null(strstr(s->path, ".zst"));
	assert_int_equal(s->messages, 0);
	free(zst);
	free(plain);
}

/* A compressed rollout cut short is an error naming it, not a crash. */
static void test_truncated_zstd_is_an_error(void **state)
{
	fixture *f = *state;
	char *zst = tu_path(f->home, Z_PATH), *text;
	size_t len;
	ac_source_session *s;

	text = tu_read_file(zst, &len);
	tu_write_file(zst, text, len / 2);
	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_CODEX, zst), 0);
	assert_int_equal(ac_source_session_read(s, NULL), AC_ECORRUPT);
	assert_non_null(strstr(ac_error_last(), zst));
	ac_source_session_free(s);
	free(text);
	free(zst);
}

/* Titles: the last name for an id wins, a blank one is none, a rename
 * appended later is seen by the next refresh. */
static void test_titles_from_session_index(void **state)
{
	fixture *f = *state;
	char *index = tu_path(f->home, "/.codex/session_index.jsonl");
	static const char rename[] =
		"{\"id\":\"" O "\",\"thread_name\":\"Parser rewrite\",\"updated_at\":\"2026-11-22T00:00:00Z\"}\n";

	assert_string_equal(tu_sources_find(f, P)->title, "CLI flags");
	assert_null(ac_source_index_find(f->index, F)->title);
	assert_string_equal(ac_source_index_find(f->index, O)->title, "Parser work");
	tu_append_file(index, rename, strlen(rename));
	assert_string_equal(tu_sources_find(f, O)->title, "Parser rewrite");
	free(index);
}

/* What the index cached (another process) keeps the fork and its parent;
 * an append after the cached offset is the fork's own. */
static void test_cache_keeps_relation(void **state)
{
	fixture *f = *state;
	char *cache = tu_make_temp_dir(), *path = tu_path(f->home, F_PATH);
	static const char more[] =
		"{\"timestamp\":\"2026-11-20T10:05:00.000Z\",\"type\":\"response_item\",\"payload\":"
		"{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\","
		"\"text\":\"One more thing\"}]}}\n";
	ac_source_session *s;
	size_t read = 99;

	f->opts.cache_dir = strdup(cache);
	assert_non_null(tu_sources_find(f, F));
	ac_source_index_free(f->index);
	f->index = NULL;
	assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
	assert_int_equal(ac_source_index_refresh(f->index, &read), 0);
	assert_int_equal(read, 0);
	s = ac_source_index_find(f->index, F);
	assert_int_equal(s->bytes_parsed, 0);
	assert_int_equal(s->relation, AC_SOURCE_FORK);
	assert_string_equal(s->parent_id, P);
	tu_append_file(path, more, strlen(more));
	assert_int_equal(ac_source_index_refresh(f->index, &read), 0);
	assert_int_equal(s->messages, 5);
	json_decref(conversation(s));
	tu_remove_tree(cache);
	free(cache);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fork_is_not_its_parent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_copy_read_in_parts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subagent_names_its_parent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compaction_rollback_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rollback_read_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_types_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_archived_and_compressed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_zstd_is_an_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_titles_from_session_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_keeps_relation, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
