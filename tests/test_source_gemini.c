/* Gemini CLI chats as the current CLI writes them
 * (tests/fixtures/sources/gemini, generated after chatRecordingService.ts):
 * the listing over short, marker-only and hash project folders, the
 * loader's rules (last version of a message wins, $set, $rewindTo, the
 * $set messages sync), the summary right after every line read one at a
 * time, an append after a rewind, a sub-agent chat and its parent, the
 * older .json still read, record types not known counted, and the usage
 * each message adds (figures worked out by hand in the fixture's
 * README.md). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_error.h"
#include "ac_messages.h"
#include "ac_source.h"
#include "ac_usage_record.h"
#include "ac_usage_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WS "/work/gemini-project"
#define MAIN "3f2a9c1e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
#define AGENT "9c8b7a65-4321-4fed-8cba-987654321000"
#define TOOLS "7d6e5f40-1a2b-4c3d-8e9f-a0b1c2d3e4f5"
#define LEGACY "5e1f0c3a-7b2d-4e6f-9a1b-2c3d4e5f6a7b"
#define OTHER "11111111-2222-4333-8444-555555555555"
#define CHATS "/.gemini/tmp/gemini-project/chats/"
#define MAIN_PATH CHATS "session-2026-05-04T10-00-3f2a9c1e.jsonl"
#define LEGACY_HASH "67a721719c99e6b5637bac2bdb1dcec875f1b8438bb5cfcc6533efa7604dcdbb"
#define LEGACY_FILE "session-2025-10-01T13-00-5e1f0c3a"

typedef struct {
	char *root; /* the copied fixture folder */
	char *home;
	ac_source_options opts;
	ac_source_index *index;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->root = tu_copy_fixture("sources/gemini");
	f->home = tu_path(f->root, "home");
	f->opts = (ac_source_options)AC_SOURCE_OPTIONS_INIT;
	f->opts.dir[AC_SOURCE_GEMINI] = tu_path(f->home, ".gemini/tmp");
	f->opts.workspace = strdup(WS);
	f->opts.limits = (ac_state_thresholds)AC_STATE_THRESHOLDS_DEFAULT;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ac_source_index_free(f->index);
	ac_source_options_free(&f->opts);
	tu_remove_tree(f->root);
	free(f->root);
	free(f->home);
	free(f);
	return 0;
}

static ac_source_session *refresh_find(fixture *f, const char *id)
{
	if (!f->index)
		assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
	assert_int_equal(ac_source_index_refresh(f->index, NULL), 0);
	return ac_source_index_find(f->index, id);
}

/* The conversation, checked, and its length equal to the summary's count. */
static json_t *conversation_of(const ac_source_session *s)
{
	json_t *conv = NULL;

	assert_int_equal(ac_source_session_conversation(&conv, s), 0);
	assert_int_equal(ac_messages_check(conv, "conversation"), 0);
	assert_int_equal(json_array_size(conv), s->messages);
	return conv;
}

static bool says(const json_t *conv, const char *needle)
{
	char *text = json_dumps(conv, 0);
	bool yes = strstr(text, needle) != NULL;

	free(text);
	return yes;
}

static void test_lists_current_sessions(void **state)
{
	fixture *f = *state;
	ac_source_session *s = refresh_find(f, MAIN), *const *list;
	json_t *conv;
	size_t n;

	assert_non_null(s);
	assert_int_equal(s->kind, AC_SOURCE_GEMINI);
	assert_string_equal(s->cwd, WS);
	assert_int_equal(s->relation, AC_SOURCE_TOP);
	assert_null(s->parent_id);
	assert_string_equal(s->task, "Fix the typo in src/main.c");
	assert_string_equal(s->title, "Fix typo in main.c"); /* $set summary */
	assert_string_equal(s->model, "gemini-2.5-flash");
	assert_string_equal(s->started, "2026-05-04T10:00:01.000Z");
	assert_string_equal(s->updated, "2026-05-04T10:00:30.000Z"); /* the last $set lastUpdated */
	/* u-1; m-1 and its results; m-2 and its results; m-3; u-3; m-5. */
	assert_int_equal(s->messages, 8);
	assert_int_equal(s->npending, 0);
	assert_int_equal(s->turn, AC_TURN_USER);
	assert_int_equal(s->nunknown, 0);
	conv = conversation_of(s);
	assert_true(says(conv, "int mian(void) { return 0; }"));
	assert_true(says(conv, "Added tests/main_test.c."));
	/* Rewound: gone from the conversation. */
	assert_false(says(conv, "Now rename main to start"));
	assert_false(says(conv, "break the program entry point"));
	json_decref(conv);
	/* The sub-agent, the marker-only folder's chat, the older format: the
	 * other project's is not listed. */
	list = ac_source_index_list(f->index, &n);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		json_decref(conversation_of(list[i]));
	s = ac_source_index_find(f->index, TOOLS);
	assert_non_null(s);
	assert_string_equal(s->cwd, WS "/tools");
	assert_null(ac_source_index_find(f->index, OTHER));
	f->opts.all_projects = true;
	ac_source_index_free(f->index);
	f->index = NULL;
	assert_non_null(refresh_find(f, OTHER));
	ac_source_index_list(f->index, &n);
	assert_int_equal(n, 5);
}

static void test_subagent_chat_has_its_parent(void **state)
{
	fixture *f = *state;
	ac_source_session *s = refresh_find(f, AGENT);
	json_t *conv;

	assert_non_null(s);
	assert_int_equal(s->relation, AC_SOURCE_SUBAGENT);
	assert_string_equal(s->parent_id, MAIN);
	assert_string_equal(s->cwd, WS);
	assert_string_equal(s->task, "Find every caller of mian");
	assert_int_equal(s->messages, 2);
	conv = conversation_of(s);
	assert_true(says(conv, "No other caller."));
	json_decref(conv);
}

static void test_older_format_still_read(void **state)
{
	fixture *f = *state;
	ac_source_session *s = refresh_find(f, LEGACY);

	assert_non_null(s);
	/* The hash folder is the workspace's. */
	assert_string_equal(s->cwd, WS);
	assert_string_equal(s->task, "Read README.md and summarise it");
	assert_string_equal(s->updated, "2025-10-01T13:00:09.000Z");
	assert_int_equal(s->messages, 2);
	json_decref(conversation_of(s));
}

/* The chat fed one line at a time, read after each: the summary is the
 * one a whole read gives at every point (the count equal to the
 * conversation's), through re-appended messages, $set, the rewind and the
 * $set messages sync; only the new line is parsed each time. */
static void test_each_line_read_incrementally(void **state)
{
	fixture *f = *state;
	char *full = tu_path(f->home, MAIN_PATH), *path = tu_path(f->root, "growing.jsonl");
	size_t len, at = 0, lines = 0;
	char *bytes = tu_read_file(full, &len);
	size_t seen_at_rewind = 0, before_rewind = 0;
	ac_source_session *s;

	tu_write_file(path, "", 0);
	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_GEMINI, path), 0);
	while (at < len) {
		const char *nl = memchr(bytes + at, '\n', len - at);
		size_t n = (size_t)(nl - (bytes + at)) + 1;
		uint64_t parsed = s->bytes_parsed;
		ac_source_session *whole;

		tu_append_file(path, bytes + at, n);
		assert_int_equal(ac_source_session_read(s, NULL), 0);
		assert_int_equal(s->bytes_parsed - parsed, n - 1);
		assert_int_equal(ac_source_session_new(&whole, AC_SOURCE_GEMINI, path), 0);
		assert_int_equal(ac_source_session_read(whole, NULL), 0);
		assert_int_equal(s->messages, whole->messages);
		assert_int_equal(s->turn, whole->turn);
		json_decref(conversation_of(s));
		ac_source_session_free(whole);
		if (!strncmp(bytes + at, "{\"$rewindTo\"", 12)) {
			seen_at_rewind = s->messages;
		} else if (!seen_at_rewind) {
			before_rewind = s->messages;
		}
		/* A message appended again under its id replaces it. */
		if (!strncmp(bytes + at, "{\"id\":\"m-1\"", 11) && memmem(bytes + at, n, "toolCalls", 9))
			assert_int_equal(s->messages, 3);
		at += n;
		lines++;
	}
	/* u-2 and m-4 rewound: 8 -> 6, then u-3 and m-5. */
	assert_int_equal(before_rewind, 8);
	assert_int_equal(seen_at_rewind, 6);
	assert_int_equal(s->messages, 8);
	assert_string_equal(s->title, "Fix typo in main.c");
	assert_true(lines > 20);
	ac_source_session_free(s);
	free(bytes);
	free(full);
	free(path);
}

/* Read up to the sync after the rewind, then the CLI appends: only the
 * appended bytes are read, and the figures are those of the whole file. */
static void test_append_after_rewind(void **state)
{
	fixture *f = *state;
	char *before = tu_path(f->root, "main-before-append.jsonl"), *path = tu_path(f->home, MAIN_PATH);
	size_t len, full_len;
	char *head = tu_read_file(before, &len), *full = tu_read_file(path, &full_len);
	ac_source_session *s;
	uint64_t parsed;
	json_t *conv;

	assert_memory_equal(head, full, len);
	tu_write_file(path, head, len);
	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_GEMINI, path), 0);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_int_equal(s->messages, 6);
	assert_int_equal(s->turn, AC_TURN_USER);
	parsed = s->bytes_parsed;
	tu_append_file(path, full + len, full_len - len);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_true(s->bytes_parsed - parsed < full_len - len);
	assert_int_equal(s->messages, 8);
	assert_string_equal(s->model, "gemini-2.5-flash");
	conv = conversation_of(s);
	assert_true(says(conv, "Add a test for it"));
	json_decref(conv);
	ac_source_session_free(s);
	free(head);
	free(full);
	free(before);
	free(path);
}

/* What the adapter does not know is counted by name for the canary; the
 * rest still reads. A rewind to an unknown id drops every message, as the
 * CLI's loader does. */
static void test_unknown_records_counted(void **state)
{
	fixture *f = *state;
	char *path = tu_path(f->root, "odd.jsonl");
	static const char chat[] =
		"{\"sessionId\":\"odd-1\",\"projectHash\":\"x\",\"startTime\":\"2026-01-01T00:00:00.000Z\"}\n"
		"{\"id\":\"a\",\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"type\":\"user\",\"content\":\"hi\"}\n"
		"{\"$compact\":{\"upTo\":\"a\"}}\n"
		"{\"id\":\"b\",\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"type\":\"canvas\",\"content\":\"?\"}\n"
		"{\"$set\":{\"mood\":\"good\",\"summary\":\"Odd\"}}\n"
		"{\"id\":\"c\",\"timestamp\":\"2026-01-01T00:00:03.000Z\",\"type\":\"gemini\",\"content\":\"yo\"}\n";
	ac_source_session *s;
	json_t *conv;

	tu_write_file(path, chat, strlen(chat));
	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_GEMINI, path), 0);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_string_equal(s->id, "odd-1");
	assert_string_equal(s->title, "Odd");
	assert_int_equal(s->messages, 2);
	assert_int_equal(s->nunknown, 3);
	assert_string_equal(s->unknown[0].type, "$compact");
	assert_string_equal(s->unknown[1].type, "canvas");
	assert_string_equal(s->unknown[2].type, "$set.mood");
	conv = conversation_of(s);
	json_decref(conv);
	tu_append_file(path, "{\"$rewindTo\":\"nope\"}\n", 21);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_int_equal(s->messages, 0);
	assert_int_equal(s->turn, AC_TURN_NONE);
	json_decref(conversation_of(s));
	ac_source_session_free(s);
	free(path);
}

/* ---- usage ---- */

typedef struct {
	uint64_t input, output, cache_read, reasoning;
	size_t buckets;
} sums;

static sums usage_of(const ac_usage_set *set, const char *session)
{
	sums t = {0};

	for (size_t i = 0; i < set->n; i++) {
		const ac_usage_bucket *b = &set->buckets[i];

		if (b->source != AC_USAGE_GEMINI || (session && strcmp(b->session_id, session)))
			continue;
		t.input += b->counts.input;
		t.output += b->counts.output;
		t.cache_read += b->counts.cache_read;
		t.reasoning += b->counts.reasoning;
		t.buckets++;
	}
	return t;
}

static void scan(fixture *f, ac_usage_set *set)
{
	char *dir = tu_path(f->home, ".gemini/tmp"), *index = tu_path(f->root, "usage-index.bin");
	ac_usage_scan_options o = {.version = AC_USAGE_SCAN_OPTIONS_VERSION,
				   .gemini_dir = dir, .index_path = index};

	assert_int_equal(ac_usage_scan(set, &o), 0);
	free(dir);
	free(index);
}

static void test_usage_exact(void **state)
{
	fixture *f = *state;
	ac_usage_set set = {0};
	sums t;

	scan(f, &set);
	/* m-1 800/200/80/30, m-2 210/1000/40/0, m-3 200/1100/25/5, m-4
	 * 200/1200/30/0 (rewound: out of the conversation, still billed),
	 * m-5 200/1300/60/0; m-1 and m-2 appended three times. */
	t = usage_of(&set, MAIN);
	assert_int_equal(t.input, 1610);
	assert_int_equal(t.cache_read, 4800);
	assert_int_equal(t.output, 235);
	assert_int_equal(t.reasoning, 35);
	t = usage_of(&set, AGENT);
	assert_int_equal(t.input, 400);
	assert_int_equal(t.output, 10);
	/* The older format: 100 in, 10 + 5 thoughts out. */
	t = usage_of(&set, LEGACY);
	assert_int_equal(t.input, 100);
	assert_int_equal(t.output, 15);
	t = usage_of(&set, NULL);
	assert_int_equal(t.input, 2420);
	assert_int_equal(t.output, 267);
	assert_int_equal(t.cache_read, 4800);
	assert_int_equal(t.reasoning, 40);
	for (size_t i = 0; i < set.n; i++)
		if (!strcmp(set.buckets[i].session_id, MAIN))
			assert_string_equal(set.buckets[i].project, WS);
	ac_usage_set_free(&set);
	/* Warm: nothing read, the same sums. */
	scan(f, &set);
	assert_int_equal(set.files_read, 0);
	assert_int_equal(usage_of(&set, NULL).input, 2420);
	ac_usage_set_free(&set);
}

/* Up to the sync after the rewind, then the rest appended: the same sums
 * as a whole read. Then a rewind in an appended part: nothing is read
 * again and the rewound message still counts (its call was billed). */
static void test_usage_append_and_rewind(void **state)
{
	fixture *f = *state;
	char *before = tu_path(f->root, "main-before-append.jsonl"), *path = tu_path(f->home, MAIN_PATH);
	size_t len, full_len;
	char *head = tu_read_file(before, &len), *full = tu_read_file(path, &full_len);
	ac_usage_set set = {0};
	sums t;

	tu_write_file(path, head, len);
	scan(f, &set);
	t = usage_of(&set, MAIN);
	assert_int_equal(t.input, 1410);
	assert_int_equal(t.output, 175);
	ac_usage_set_free(&set);
	tu_append_file(path, full + len, full_len - len);
	scan(f, &set);
	assert_int_equal(set.files_reread, 0);
	t = usage_of(&set, MAIN);
	assert_int_equal(t.input, 1610);
	assert_int_equal(t.output, 235);
	assert_int_equal(t.cache_read, 4800);
	ac_usage_set_free(&set);
	/* The same message appended again: nothing added. */
	{
		const char *m5 = strstr(full, "{\"id\":\"m-5\"");
		const char *end = strchr(m5, '\n');

		tu_append_file(path, m5, (size_t)(end - m5) + 1);
	}
	scan(f, &set);
	assert_int_equal(usage_of(&set, MAIN).input, 1610);
	ac_usage_set_free(&set);
	/* u-3 and m-5 rewound: m-5's 200/60 still count, nothing read again. */
	tu_append_file(path, "{\"$rewindTo\":\"u-3\"}\n", 20);
	scan(f, &set);
	assert_int_equal(set.files_reread, 0);
	t = usage_of(&set, MAIN);
	assert_int_equal(t.input, 1610);
	assert_int_equal(t.output, 235);
	assert_int_equal(t.cache_read, 4800);
	ac_usage_set_free(&set);
	free(head);
	free(full);
	free(before);
	free(path);
}

/* A resumed chat of the older format: the CLI writes its records to the
 * same name + "l" and leaves the .json beside it (chatRecordingService.ts
 * initialize). The session is listed once, from the .jsonl, and its usage
 * counted once. */
static void test_migrated_chat_listed_once(void **state)
{
	fixture *f = *state;
	char *old = tu_path(f->home, "/.gemini/tmp/" LEGACY_HASH "/chats/" LEGACY_FILE ".json");
	char *moved = tu_path(f->home, CHATS LEGACY_FILE ".json");
	char *jsonl = tu_path(f->home, CHATS LEGACY_FILE ".jsonl");
	static const char records[] =
		"{\"sessionId\":\"" LEGACY "\",\"projectHash\":\"" LEGACY_HASH "\","
		"\"startTime\":\"2025-10-01T13:00:00.000Z\",\"lastUpdated\":\"2025-10-01T13:00:09.000Z\"}\n"
		"{\"id\":\"m1\",\"timestamp\":\"2025-10-01T13:00:00.000Z\",\"type\":\"user\","
		"\"content\":\"Read README.md and summarise it\"}\n"
		"{\"id\":\"m2\",\"timestamp\":\"2025-10-01T13:00:05.000Z\",\"type\":\"gemini\","
		"\"content\":\"README.md describes a fixture project.\",\"tokens\":{\"input\":100,"
		"\"output\":10,\"cached\":0,\"thoughts\":5,\"tool\":0,\"total\":115},"
		"\"model\":\"gemini-2.5-pro\"}\n"
		"{\"$set\":{\"sessionId\":\"" LEGACY "\"}}\n";
	ac_source_session *const *list;
	ac_usage_set set = {0};
	size_t n, found = 0;
	sums t;

	assert_int_equal(rename(old, moved), 0);
	tu_write_file(jsonl, records, strlen(records));
	assert_non_null(refresh_find(f, LEGACY));
	list = ac_source_index_list(f->index, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i]->id, LEGACY)) {
			found++;
			assert_non_null(strstr(list[i]->path, "/chats/" LEGACY_FILE ".jsonl"));
			assert_int_equal(list[i]->messages, 2);
		}
	assert_int_equal(found, 1);
	scan(f, &set);
	t = usage_of(&set, LEGACY);
	assert_int_equal(t.input, 100);
	assert_int_equal(t.output, 15);
	ac_usage_set_free(&set);
	free(old);
	free(moved);
	free(jsonl);
}

/* A new process takes the chats from the sources cache, the messages by
 * id with them: nothing read, the sub-agent still a sub-agent, and an
 * append after it (the messages after the rewind, then a rewind) read
 * alone, with the figures of a whole read. */
static void test_cache_keeps_messages_by_id(void **state)
{
	fixture *f = *state;
	char *cache = tu_make_temp_dir(), *path = tu_path(f->home, MAIN_PATH);
	char *before = tu_path(f->root, "main-before-append.jsonl");
	size_t len, full_len, read = 99;
	char *head = tu_read_file(before, &len), *full = tu_read_file(path, &full_len);
	ac_source_session *s;

	tu_write_file(path, head, len);
	f->opts.cache_dir = strdup(cache);
	assert_non_null(refresh_find(f, MAIN));
	ac_source_index_free(f->index);
	f->index = NULL;
	/* Another process: */
	assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
	assert_int_equal(ac_source_index_refresh(f->index, &read), 0);
	assert_int_equal(read, 0);
	s = ac_source_index_find(f->index, AGENT);
	assert_int_equal(s->bytes_parsed, 0);
	assert_int_equal(s->relation, AC_SOURCE_SUBAGENT);
	assert_string_equal(s->parent_id, MAIN);
	s = ac_source_index_find(f->index, MAIN);
	assert_int_equal(s->bytes_parsed, 0);
	assert_int_equal(s->messages, 6);
	tu_append_file(path, full + len, full_len - len);
	assert_int_equal(ac_source_index_refresh(f->index, &read), 0);
	assert_int_equal(read, 1);
	s = ac_source_index_find(f->index, MAIN);
	assert_true(s->bytes_parsed < full_len - len);
	assert_int_equal(s->messages, 8);
	tu_append_file(path, "{\"$rewindTo\":\"u-3\"}\n", 20);
	assert_int_equal(ac_source_index_refresh(f->index, NULL), 0);
	s = ac_source_index_find(f->index, MAIN);
	assert_int_equal(s->messages, 6);
	json_decref(conversation_of(s));
	/* A cache entry whose messages do not add up is not believed. */
	ac_source_index_free(f->index);
	f->index = NULL;
	{
		char *file = NULL, *text;
		char cmd[8192];
		size_t n;

		snprintf(cmd, sizeof(cmd), "ls %s/sources-*.bin", cache);
		{
			FILE *p = popen(cmd, "r");
			char name[4096] = "";

			assert_non_null(fgets(name, sizeof(name), p));
			pclose(p);
			name[strcspn(name, "\n")] = '\0';
			file = strdup(name);
		}
		text = tu_read_file(file, &n);
		/* m-3 said to make 2 messages: the count no longer adds up. */
		{
			char *at = memmem(text, n, "[\"m-3\",2,1,", 11);

			assert_non_null(at);
			at[9] = '2';
		}
		tu_write_file(file, text, n); /* the same length: the record still parses */
		free(text);
		free(file);
	}
	assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
	assert_int_equal(ac_source_index_refresh(f->index, &read), 0);
	s = ac_source_index_find(f->index, MAIN);
	assert_true(s->bytes_parsed > 0);
	assert_int_equal(s->messages, 6);
	tu_remove_tree(cache);
	free(cache);
	free(path);
	free(before);
	free(head);
	free(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lists_current_sessions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subagent_chat_has_its_parent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_older_format_still_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_each_line_read_incrementally, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append_after_rewind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_records_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage_append_and_rewind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrated_chat_listed_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_keeps_messages_by_id, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
