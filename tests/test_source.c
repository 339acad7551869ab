/* The coding-agent transcript adapters (ac_source.h) over fixtures that
 * follow the tools' public examples: summaries, incremental reads, torn
 * and malformed lines, sidechains, pending calls, conversations, and a
 * tree they may not write to. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_buf.h"
#include "ac_config.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_messages.h"
#include "ac_source.h"
#include "ac_source_watch.h"

#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WS "/work/fixture-project"
#define S1 "6f1c2a9e-3b7d-4c1e-9a55-0d2e4f6a8b10"
#define S2 "a2b4c6d8-1e3f-4a5b-8c7d-9e0f1a2b3c4d"
#define C1 "0199a213-81c0-7800-8aa1-bbab2a035a53"
#define G1 "5e1f0c3a-7b2d-4e6f-9a1b-2c3d4e5f6a7b"
#define S2_PATH "/.claude/projects/-work-fixture-project-sub/" S2 ".jsonl"

typedef struct {
	char *home;
	ac_source_options opts;
	ac_source_index *index;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	/* Antigravity's own fixture is tests/fixtures/agy (test_source_agy.c). */
	static const char *const dirs[AC_SOURCE_COUNT] = {"/.claude/projects", "/.codex/sessions",
							  "/.gemini/tmp", "/.gemini/antigravity-cli"};

	f->opts = (ac_source_options)AC_SOURCE_OPTIONS_INIT;
	f->home = tu_copy_fixture("sources/home");
	for (int k = 0; k < AC_SOURCE_COUNT; k++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s%s", f->home, dirs[k]);
		f->opts.dir[k] = strdup(path);
	}
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
	chmod(f->home, 0755);
	tu_remove_tree(f->home);
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

static void test_claude_summary_and_discovery(void **state)
{
	fixture *f = *state;
	ac_source_session *s = refresh_find(f, S1), *const *list;
	size_t n;

	assert_non_null(s);
	assert_int_equal(s->kind, AC_SOURCE_CLAUDE);
	assert_string_equal(s->cwd, WS);
	/* The /clear wrapper is no prompt; the summary line does not win over one. */
	assert_string_equal(s->task, "Fix the failing test in parser.c");
	assert_string_equal(s->title, "Parser test fix");
	assert_string_equal(s->model, "claude-sonnet-4-5-20250929");
	assert_string_equal(s->started, "2025-10-01T09:59:59.000Z");
	assert_string_equal(s->updated, "2025-10-01T10:00:25.000Z");
	/* user and assistant entries of the main thread (the sidechain's two are not). */
	assert_int_equal(s->messages, 8);
	assert_int_equal(s->malformed, 1);
	assert_int_equal(s->npending, 0);
	assert_int_equal(s->turn, AC_TURN_USER);
	/* The workspace's sub-folder counts; another project and Codex's
	 * other cwd do not; the sub-agent file is S1's child
	 * (tests/test_source_children.c). */
	list = ac_source_index_list(f->index, &n);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++) {
		assert_string_not_equal(list[i]->id, "0b0b0b0b-0000-4000-8000-000000000002");
		assert_string_not_equal(list[i]->id, "0199a213-81c0-7800-8aa1-000000000099");
	}
	assert_string_equal(ac_source_index_find(f->index, "agent-1a2b3c4d")->parent_id, S1);
	/* Newest first. */
	assert_string_equal(list[0]->id, S2);
}

/* Options of another version are refused naming the struct, with no
 * index made; the options an index keeps are of this version. */
static void test_options_version(void **state)
{
	fixture *f = *state;
	ac_source_index *index = NULL;

	f->opts.version = 0;
	assert_int_equal(ac_source_index_new(&index, &f->opts), AC_EINVAL);
	assert_null(index);
	assert_non_null(strstr(ac_error_last(), "ac_source_options version 0"));
	assert_non_null(strstr(ac_error_last(), "AC_SOURCE_OPTIONS_INIT"));
	f->opts.version = AC_SOURCE_OPTIONS_VERSION;
	assert_non_null(refresh_find(f, S1));
	assert_int_equal(ac_source_index_options(f->index)->version, AC_SOURCE_OPTIONS_VERSION);
}

static void test_all_projects_lists_every_transcript(void **state)
{
	fixture *f = *state;
	size_t n;

	f->opts.all_projects = true;
	assert_non_null(refresh_find(f, "0b0b0b0b-0000-4000-8000-000000000002"));
	ac_source_index_list(f->index, &n);
	assert_int_equal(n, 7); /* S1's sub-agent among them */
}

static void test_claude_pending_call_and_torn_line(void **state)
{
	fixture *f = *state;
	ac_source_session *s = refresh_find(f, S2);
	ac_state_inputs in;
	struct stat st;
	char *path = tu_path(f->home, S2_PATH);

	assert_non_null(s);
	assert_string_equal(s->cwd, WS "/sub");
	assert_int_equal(s->npending, 1);
	assert_string_equal(s->pending[0], "toolu_09");
	assert_int_equal(s->malformed, 0);
	/* The torn last line is not consumed. */
	assert_int_equal(stat(path, &st), 0);
	assert_true(s->offset < (uint64_t)st.st_size);
	ac_source_session_inputs(&in, s, s->mtime_ms + 6000);
	assert_int_equal(ac_session_state_derive(&in, &f->opts.limits), AC_STATE_WAITING);
	ac_source_session_inputs(&in, s, s->mtime_ms + 1000);
	assert_int_equal(ac_session_state_derive(&in, &f->opts.limits), AC_STATE_RUNNING);
	free(path);
}

static void test_appended_bytes_only_are_parsed(void **state)
{
	fixture *f = *state;
	char *path = tu_path(f->home, S2_PATH);
	static const char rest[] = "sult\",\"content\":\"removed\"}]},\"uuid\":\"p-4\","
				   "\"cwd\":\"" WS "/sub\",\"timestamp\":\"2025-10-02T08:00:09.000Z\"}\n";
	static const char next[] = "{\"type\":\"assistant\",\"isSidechain\":false,\"message\":"
				   "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":"
				   "\"Done.\"}]},\"timestamp\":\"2025-10-02T08:00:10.000Z\"}\n";
	ac_source_session *s;
	uint64_t before, offset, torn;
	bool changed;
	struct stat st;

	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_CLAUDE, path), 0);
	assert_int_equal(ac_source_session_read(s, &changed), 0);
	assert_true(changed);
	before = s->bytes_parsed;
	offset = s->offset;
	assert_int_equal(stat(path, &st), 0);
	torn = (uint64_t)st.st_size - offset;
	/* Nothing new: nothing parsed. */
	assert_int_equal(ac_source_session_read(s, &changed), 0);
	assert_false(changed);
	assert_int_equal(s->bytes_parsed, before);
	/* The writer finishes its line: that line alone is parsed. */
	tu_append_file(path, rest, strlen(rest));
	assert_int_equal(ac_source_session_read(s, &changed), 0);
	assert_true(changed);
	assert_int_equal(s->bytes_parsed - before, torn + strlen(rest) - 1);
	assert_int_equal(s->npending, 0);
	assert_int_equal(s->turn, AC_TURN_AGENT);
	assert_int_equal(s->messages, 4);
	assert_string_equal(s->updated, "2025-10-02T08:00:09.000Z");
	before = s->bytes_parsed;
	tu_append_file(path, next, strlen(next));
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_int_equal(s->bytes_parsed - before, strlen(next) - 1);
	assert_int_equal(s->turn, AC_TURN_USER);
	assert_int_equal(s->messages, 5);
	/* Replaced by a shorter file: read again from the start. */
	tu_write_file(path, next, strlen(next));
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_int_equal(s->messages, 1);
	assert_null(s->task);
	ac_source_session_free(s);
	free(path);
}

static bool has_block(const json_t *messages, const char *type, const char *field,
		      const char *value)
{
	const json_t *msg, *block;
	size_t i, k;

	json_array_foreach(messages, i, msg)
		json_array_foreach(json_object_get(msg, "content"), k, block)
			if (!strcmp(json_string_value(json_object_get(block, "type")) ?: "", type) &&
			    !strcmp(json_string_value(json_object_get(block, field)) ?: "", value))
				return true;
	return false;
}

static void test_claude_conversation(void **state)
{
	fixture *f = *state;
	ac_source_session *s = refresh_find(f, S1);
	ac_buf text = AC_BUF_INIT;
	json_t *conv = NULL;

	assert_int_equal(ac_source_session_conversation(&conv, s), 0);
	/* 8 entries of the main thread; the sidechain's are left out. */
	assert_int_equal(json_array_size(conv), 8);
	assert_int_equal(ac_messages_check(conv, "conversation"), 0);
	assert_true(has_block(conv, "tool_use", "name", "Bash"));
	assert_true(has_block(conv, "tool_result", "tool_use_id", "toolu_01"));
	assert_false(has_block(conv, "tool_use", "name", "Grep"));
	ac_message_text(&text, json_array_get(conv, 3));
	assert_non_null(strstr(text.data, "[tool_use Bash"));
	ac_buf_free(&text);
	json_decref(conv);
}

static void test_codex_rollout(void **state)
{
	fixture *f = *state;
	ac_source_session *s = refresh_find(f, C1);
	json_t *conv = NULL;

	assert_non_null(s);
	assert_int_equal(s->kind, AC_SOURCE_CODEX);
	assert_string_equal(s->cwd, WS);
	assert_string_equal(s->task, "List the files and count the lines");
	assert_string_equal(s->model, "gpt-5-codex");
	assert_string_equal(s->started, "2025-10-01T11:00:00.000Z");
	/* The prompt, the call, its output, the answer and the compaction's
	 * summary; the environment context is not a message. One count: the
	 * conversation's. */
	assert_int_equal(s->messages, 5);
	assert_int_equal(s->npending, 0);
	assert_int_equal(s->turn, AC_TURN_USER);
	assert_int_equal(ac_source_session_conversation(&conv, s), 0);
	assert_int_equal(ac_messages_check(conv, "conversation"), 0);
	assert_int_equal(json_array_size(conv), 5);
	assert_true(has_block(conv, "tool_use", "name", "shell"));
	assert_true(has_block(conv, "tool_result", "tool_use_id", "call_abc123"));
	/* The call's arguments are JSON text: shown as the object. */
	assert_true(json_is_array(json_object_get(json_object_get(
		json_array_get(json_object_get(json_array_get(conv, 1), "content"), 0), "input"),
		"command")));
	json_decref(conv);
}

static void test_codex_pending_call_waits(void **state)
{
	fixture *f = *state;
	ac_source_session *s;
	char *path = tu_path(f->home, "/.codex/sessions/2025/10/01/rollout-x.jsonl");
	static const char lines[] =
		"{\"timestamp\":\"2025-10-01T11:00:00.000Z\",\"type\":\"session_meta\",\"payload\":"
		"{\"id\":\"c-2\",\"cwd\":\"" WS "\"}}\n"
		"{\"timestamp\":\"2025-10-01T11:00:01.000Z\",\"type\":\"response_item\",\"payload\":"
		"{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{}\",\"call_id\":\"k\"}}\n";

	tu_write_file(path, lines, strlen(lines));
	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_CODEX, path), 0);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_string_equal(s->id, "c-2");
	assert_int_equal(s->npending, 1);
	assert_int_equal(s->turn, AC_TURN_AGENT);
	ac_source_session_free(s);
	free(path);
}

static void test_gemini_chat(void **state)
{
	fixture *f = *state;
	ac_source_session *s = refresh_find(f, G1);
	json_t *conv = NULL;

	assert_non_null(s);
	assert_int_equal(s->kind, AC_SOURCE_GEMINI);
	/* The hash folder is the workspace's: that is the cwd. */
	assert_string_equal(s->cwd, WS);
	assert_string_equal(s->task, "Read README.md and summarise it");
	assert_string_equal(s->model, "gemini-2.5-pro");
	assert_string_equal(s->updated, "2025-10-01T13:00:09.000Z");
	/* m1; m2's call and its result; m3: the conversation's four. */
	assert_int_equal(s->messages, 4);
	assert_int_equal(s->npending, 0);
	assert_int_equal(s->turn, AC_TURN_USER);
	assert_int_equal(ac_source_session_conversation(&conv, s), 0);
	assert_int_equal(ac_messages_check(conv, "conversation"), 0);
	assert_int_equal(json_array_size(conv), 4);
	assert_true(has_block(conv, "tool_use", "name", "read_file"));
	assert_true(has_block(conv, "tool_result", "content", "# Fixture project\nA test."));
	json_decref(conv);
}

static void test_garbage_is_counted_never_fatal(void **state)
{
	fixture *f = *state;
	char *path = tu_path(f->home, "/.claude/projects/-work-fixture-project/junk.jsonl");
	static const char junk[] = "\x1b[2J not json\n[1,2]\n{\"type\":42}\n{\"type\":\"user\","
				   "\"message\":{\"content\":{\"weird\":true}}}\n\n{\"type\":\"assistant\","
				   "\"message\":{\"content\":[7,{\"type\":\"tool_use\"}]}}\n"
				   "{\"type\":\"user\",\"message\":{\"content\":[{\"tool_use_id\":\"t\"},"
				   "{\"type\":null,\"text\":5}]}}\n";
	ac_source_session *s;
	json_t *conv = NULL;

	tu_write_file(path, junk, strlen(junk));
	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_CLAUDE, path), 0);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_int_equal(s->malformed, 2);
	/* The object content is no message: counted as the conversation
	 * shows it, not once more. */
	assert_int_equal(s->messages, 2);
	assert_int_equal(ac_source_session_conversation(&conv, s), 0);
	assert_int_equal(json_array_size(conv), s->messages);
	json_decref(conv);
	assert_int_equal(s->npending, 0);
	ac_source_session_free(s);
	free(path);
}

/* Copies rel (a fixture file) to the new name dst under home. */
static void copy_as(const char *home, const char *rel, const char *dst)
{
	char *from = tu_path(home, rel), *to = tu_path(home, dst), *bytes;
	size_t len;

	bytes = tu_read_file(from, &len);
	tu_write_file(to, bytes, len);
	free(bytes);
	free(from);
	free(to);
}

#define G1_DIR "/.gemini/tmp/747424084ee33457bf25e37cb475c633f7c039d0929285912c1658a2b887d688/chats/"
#define C1_DIR "/.codex/sessions/2025/10/01/"

/* A file or folder name that is not UTF-8 (no tool writes one: a planted
 * file) is counted and named, escaped, and every other transcript still
 * lists: before, one such name failed the whole refresh as "out of memory"
 * and listed nothing. */
static void test_a_name_not_utf8_is_counted_not_fatal(void **state)
{
	fixture *f = *state;
	char *folder = tu_path(f->home, "/.claude/projects/-work-fixture-project-\xff");
	const char *first = NULL;
	size_t n;

	copy_as(f->home, "/.claude/projects/-work-fixture-project/" S1 ".jsonl",
		"/.claude/projects/-work-fixture-project/\xff\xfe.jsonl");
	assert_int_equal(mkdir(folder, 0755), 0);
	copy_as(f->home, S2_PATH, "/.claude/projects/-work-fixture-project-\xff/" S2 ".jsonl");
	copy_as(f->home, C1_DIR "rollout-2025-10-01T11-00-00-" C1 ".jsonl",
		C1_DIR "rollout-2025-10-01T11-00-00-\xc0\xaf.jsonl");
	copy_as(f->home, G1_DIR "session-2025-10-01T13-00-5e1f0c3a.json",
		G1_DIR "session-2025-10-01T13-00-\xed\xa0\x80.json");
	assert_non_null(refresh_find(f, S1));
	ac_source_index_list(f->index, &n);
	assert_int_equal(n, 5); /* S1's sub-agent among them */
	assert_int_equal(ac_source_index_unreadable(f->index, &first), 4);
	assert_non_null(first);
	assert_non_null(strstr(first, "\\xFF"));
	assert_non_null(strstr(first, ": the file name is not valid UTF-8"));
	assert_null(strchr(first, '\xff'));
	{
		size_t per_kind[AC_SOURCE_COUNT] = {0};
		ac_source_kind kind;

		for (size_t i = 0; ac_source_index_unreadable_at(f->index, i, &kind); i++)
			per_kind[kind]++;
		assert_int_equal(per_kind[AC_SOURCE_CLAUDE], 2);
		assert_int_equal(per_kind[AC_SOURCE_CODEX], 1);
		assert_int_equal(per_kind[AC_SOURCE_GEMINI], 1);
		assert_null(ac_source_index_unreadable_at(f->index, 4, NULL));
	}
	/* Every project's: the same four left out, the six others listed. */
	ac_source_index_free(f->index);
	f->index = NULL;
	f->opts.all_projects = true;
	assert_non_null(refresh_find(f, S1));
	ac_source_index_list(f->index, &n);
	assert_int_equal(n, 7); /* S1's sub-agent among them */
	assert_int_equal(ac_source_index_unreadable(f->index, NULL), 4);
	/* Gone: nothing left out any more. */
	tu_remove_tree(folder);
	assert_non_null(refresh_find(f, S1));
	assert_int_equal(ac_source_index_unreadable(f->index, NULL), 3);
	free(folder);
}

static void test_read_only_tree(void **state)
{
	fixture *f = *state;
	char cmd[8192];
	json_t *conv = NULL;
	ac_source_session *s;

	/* Every folder and file read-only: listing and reading still work,
	 * since nothing is ever opened for writing. */
	snprintf(cmd, sizeof(cmd), "chmod -R a-w '%s'", f->home);
	assert_int_equal(system(cmd), 0);
	s = refresh_find(f, S1);
	assert_non_null(s);
	assert_int_equal(ac_source_session_conversation(&conv, s), 0);
	json_decref(conv);
	snprintf(cmd, sizeof(cmd), "chmod -R u+w '%s'", f->home);
	assert_int_equal(system(cmd), 0);
}

static void test_a_removed_file_drops_out(void **state)
{
	fixture *f = *state;
	char *path = tu_path(f->home, S2_PATH);
	size_t n;

	assert_non_null(refresh_find(f, S2));
	assert_int_equal(unlink(path), 0);
	assert_null(refresh_find(f, S2));
	ac_source_index_list(f->index, &n);
	assert_int_equal(n, 4); /* S1's sub-agent among them */
	free(path);
}

/* A new index restores what the last one read: nothing is parsed again,
 * the summaries are the same, and an append is read from where it was. */
static void test_cache_spares_a_full_read(void **state)
{
	fixture *f = *state;
	char *cache = tu_make_temp_dir(), *path = tu_path(f->home, S2_PATH);
	static const char rest[] = "sult\",\"content\":\"ok\"}]},\"timestamp\":\"2025-10-02T08:00:09.000Z\"}\n";
	ac_source_session *s;
	size_t read = 99;

	f->opts.cache_dir = strdup(cache);
	assert_non_null(refresh_find(f, S1));
	ac_source_index_free(f->index);
	f->index = NULL;
	/* Another process: */
	assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
	assert_int_equal(ac_source_index_refresh(f->index, &read), 0);
	assert_int_equal(read, 0);
	s = ac_source_index_find(f->index, S1);
	assert_non_null(s);
	assert_int_equal(s->bytes_parsed, 0);
	assert_string_equal(s->task, "Fix the failing test in parser.c");
	assert_int_equal(s->messages, 8);
	assert_int_equal(s->malformed, 1);
	s = ac_source_index_find(f->index, S2);
	assert_int_equal(s->npending, 1);
	tu_append_file(path, rest, strlen(rest));
	assert_int_equal(ac_source_index_refresh(f->index, &read), 0);
	assert_int_equal(read, 1);
	s = ac_source_index_find(f->index, S2);
	assert_int_equal(s->npending, 0);
	assert_true(s->bytes_parsed < 400);
	tu_remove_tree(cache);
	free(cache);
	free(path);
}

/* The one cache file of folder, its bytes in *out_len. */
static char *the_cache_file(const char *folder)
{
	DIR *d = opendir(folder);
	struct dirent *e;
	char *file = NULL;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			free(file);
			file = tu_path(folder, e->d_name);
		}
	closedir(d);
	assert_non_null(file);
	return file;
}

static void put_many(const char *folder, const char *name, bool sidechain);

/* A cache of more than 4,096 records is read in two halves on two
 * threads from the offset its header names: every record restored
 * (nothing read again). An offset that is not where a record starts (a
 * forged header) or a file cut in its first half: the first half read on
 * alone, as one reader would, and what it did not restore read again. */
static void test_cache_in_two_halves(void **state)
{
	fixture *f = *state;
	char *cache = tu_make_temp_dir(), *folder = tu_path(f->home, "/.claude/projects/-work-fixture-project");
	char name[128], *file, *bytes;
	size_t n, len, read = 99, all;

	for (int i = 0; i < 4200; i++) {
		snprintf(name, sizeof(name), "%08x-3333-4000-8000-000000000000.jsonl", i * 7919u);
		put_many(folder, name, false);
	}
	f->opts.cache_dir = strdup(cache);
	assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
	assert_int_equal(ac_source_index_refresh(f->index, NULL), 0);
	ac_source_index_list(f->index, &all);
	assert_true(all > 4200);
	ac_source_index_free(f->index);
	file = the_cache_file(cache);
	bytes = tu_read_file(file, &len);
	for (int round = 0; round < 3; round++) {
		if (round == 1) /* the second half said to start one byte on */
			for (size_t b = 25; b < 33 && !++bytes[b]; b++)
				;
		if (round == 2) /* cut in its first half */
			len = len / 3;
		tu_write_file(file, bytes, len);
		assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
		assert_int_equal(ac_source_index_refresh(f->index, &read), 0);
		ac_source_index_list(f->index, &n);
		assert_int_equal(n, all);
		if (round < 2)
			assert_int_equal(read, 0);
		else
			assert_true(read > 2000 && read < 4200);
		ac_source_index_free(f->index);
		f->index = NULL;
	}
	free(bytes);
	free(file);
	tu_remove_tree(cache);
	free(cache);
	free(folder);
}

/* Sessions of one update are listed by path, as strcmp() orders them,
 * however many: more files in a folder than one batch of the walk (its
 * lstat on two threads), names that differ early and late, and a nested
 * folder whose name starts like a file's; the same from the cache. */
#define MANY 4500

static void put_many(const char *folder, const char *name, bool sidechain)
{
	char *path = tu_path(folder, name), line[512];
	int n = snprintf(line, sizeof(line),
			 "{\"type\":\"user\",\"isSidechain\":%s,\"cwd\":\"" WS "\",\"message\":{\"role\":\"user\","
			 "\"content\":\"hi\"},\"uuid\":\"u-1\",\"timestamp\":"
			 "\"2025-10-03T08:00:00.000Z\"}\n", sidechain ? "true" : "false");

	tu_write_file(path, line, (size_t)n);
	free(path);
}

static void assert_path_order(fixture *f)
{
	ac_source_session *const *list;
	size_t n, same = 0;

	assert_int_equal(ac_source_index_refresh(f->index, NULL), 0);
	list = ac_source_index_list(f->index, &n);
	for (size_t i = 0; i < n; i++) {
		if (!list[i]->updated || strcmp(list[i]->updated, "2025-10-03T08:00:00.000Z"))
			continue;
		if (same++)
			assert_true(strcmp(list[i - 1]->path, list[i]->path) < 0);
	}
	assert_int_equal(same, MANY + 1);
}

static void test_many_of_one_update_by_path(void **state)
{
	fixture *f = *state;
	char *cache = tu_make_temp_dir(), *folder = tu_path(f->home, "/.claude/projects/-work-fixture-project");
	char name[128];

	for (int i = 0; i < MANY; i++) {
		if (i % 2)
			snprintf(name, sizeof(name), "%08x-1111-4000-8000-000000000000.jsonl", i * 7919u);
		else
			snprintf(name, sizeof(name), "ffffffff-2222-4000-8000-%012x.jsonl", i);
		put_many(folder, name, false);
	}
	/* A sub-agent of a session whose name starts like other sessions': */
	snprintf(name, sizeof(name), "%s/ffffffff-2222-4000-8000-000000000002/subagents", folder);
	assert_int_equal(ac_file_mkdirs(name), 0);
	put_many(name, "agent-a1.jsonl", true);
	f->opts.cache_dir = strdup(cache);
	assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
	assert_path_order(f);
	ac_source_index_free(f->index);
	/* Another process, from the cache: */
	assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
	assert_path_order(f);
	tu_remove_tree(cache);
	free(cache);
	free(folder);
}

/* The cache is input: garbage, wrong types or bounds, or entries that
 * name another file's identity are dropped and the files read whole. */
static void test_a_corrupt_cache_is_rebuilt(void **state)
{
	fixture *f = *state;
	char *cache = tu_make_temp_dir();
	static const char *const bad[] = {
		"\x1b[31m not json",
		"{\"version\":1,\"files\":7}",
		"{\"version\":1,\"files\":[{\"path\":\"@\",\"kind\":0,\"offset\":99999999,"
		"\"size\":99999999,\"dev\":0,\"ino\":0}]}",
		"{\"version\":1,\"files\":[{\"path\":\"@\",\"kind\":0,\"turn\":9,\"id\":5,"
		"\"pending\":\"x\"}]}",
	};

	f->opts.cache_dir = strdup(cache);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char name[256], text[8192], *file, *target = tu_path(f->home, S2_PATH);
		ac_source_session *s;
		size_t read = 0;

		ac_source_index_free(f->index);
		f->index = NULL;
		assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
		/* Every cache file of the folder is replaced by the bad one. */
		tu_remove_tree(cache);
		assert_int_equal(mkdir(cache, 0700), 0);
		{
			/* "@" stands for the transcript's path. */
			const char *at = strchr(bad[i], '@');

			if (at)
				snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - bad[i]), bad[i],
					 target, at + 1);
			else
				snprintf(text, sizeof(text), "%s", bad[i]);
		}
		assert_non_null(refresh_find(f, S2));
		ac_source_index_free(f->index);
		f->index = NULL;
		{
			DIR *d = opendir(cache);
			struct dirent *e;

			while ((e = readdir(d)))
				if (e->d_name[0] != '.')
					snprintf(name, sizeof(name), "%s", e->d_name);
			closedir(d);
		}
		file = tu_path(cache, name);
		tu_write_file(file, text, strlen(text));
		assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
		assert_int_equal(ac_source_index_refresh(f->index, &read), 0);
		s = ac_source_index_find(f->index, S2);
		assert_non_null(s);
		assert_int_equal(s->npending, 1);
		assert_string_equal(s->task, "Delete the build folder");
		assert_true(s->bytes_parsed > 0);
		free(file);
		free(target);
	}
	tu_remove_tree(cache);
	free(cache);
}

/* A transcript is resumed with the user's command: the id its whole
 * argument and AGENT_SESSION_ID, in the folder given; a hostile id or an
 * untrusted command is refused before anything runs. */
static void test_resume_command_runs(void **state)
{
	char *ws = tu_make_temp_dir(), *xdg = tu_make_temp_dir();
	ac_source_resume *r = NULL;
	ac_config *c = NULL;
	int status = -1;

	(void)state;
	setenv("XDG_CONFIG_HOME", xdg, 1);
	tu_put(xdg, "agent/config.json",
	       "{\"sources\": {\"codex\": {\"resumeCommand\": [\"sh\", \"-c\", "
	       "\"[ \\\"$0\\\" = \\\"$AGENT_SESSION_ID\\\" ] && [ -f here ] && exit 7; exit 1\", "
	       "\"{id}\"]}}}");
	tu_put(ws, "here", "");
	assert_int_equal(ac_config_load(&c, ws), 0);
	assert_int_equal(ac_source_resume_new(&r, c, AC_SOURCE_CODEX, "--help"), AC_EINVAL);
	assert_null(r);
	assert_int_equal(ac_source_resume_new(&r, c, AC_SOURCE_CODEX, "rollout-1"), 0);
	assert_string_equal(ac_source_resume_program(r), "sh");
	assert_int_equal(ac_source_resume_run(&status, r, ws), 0);
	assert_int_equal(status, 7);
	ac_source_resume_free(r);
	ac_config_free(c);
	tu_put(ws, ".agent/config.json",
	       "{\"sources\": {\"claude\": {\"resumeCommand\": [\"sh\", \"-c\", \"x\"]}}}");
	assert_int_equal(ac_config_load(&c, ws), 0);
	r = NULL;
	assert_int_equal(ac_source_resume_new(&r, c, AC_SOURCE_CLAUDE, "abc"), AC_EDENIED);
	assert_null(r);
	ac_config_free(c);
	unsetenv("XDG_CONFIG_HOME");
	tu_remove_tree(ws);
	tu_remove_tree(xdg);
	free(ws);
	free(xdg);
}

/* The resume commands follow the trust rules; the folders may not come
 * from a project file at all. */
static void test_config_trust_rules(void **state)
{
	char *ws = tu_make_temp_dir(), *xdg = tu_make_temp_dir();
	const char **argv = NULL;
	ac_config *c = NULL;

	(void)state;
	setenv("XDG_CONFIG_HOME", xdg, 1);
	assert_int_equal(ac_config_load(&c, ws), 0);
	assert_int_equal(ac_source_resume_command(&argv, c, AC_SOURCE_CODEX), 0);
	assert_string_equal(argv[0], "codex");
	assert_string_equal(argv[1], "resume");
	assert_string_equal(argv[2], "{id}");
	assert_null(argv[3]);
	free(argv);
	ac_config_free(c);
	tu_put(ws, ".agent/config.json",
	       "{\"sources\": {\"claude\": {\"resumeCommand\": [\"sh\", \"-c\", \"x\"]}}}");
	assert_int_equal(ac_config_load(&c, ws), 0);
	assert_int_equal(ac_source_resume_command(&argv, c, AC_SOURCE_CLAUDE), AC_EDENIED);
	assert_null(argv);
	assert_non_null(strstr(ac_error_last(), "sources.claude.resumeCommand"));
	ac_config_free(c);
	tu_put(ws, ".agent/config.json", "{\"sources\": {\"codex\": {\"dir\": \"/etc\"}}}");
	assert_int_equal(ac_config_load(&c, ws), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "sources.codex.dir may not be set by a project file"));
	unsetenv("XDG_CONFIG_HOME");
	tu_remove_tree(ws);
	tu_remove_tree(xdg);
	free(ws);
	free(xdg);
}

/* The folders' watch fires on an append and on a new transcript in a
 * project folder that had none listed. */
static void test_watch_fires_on_writes(void **state)
{
	fixture *f = *state;
	char *path = tu_path(f->home, S2_PATH);
	char *fresh = tu_path(f->home, "/.claude/projects/-work-fixture-project-sub/new.jsonl");
	ac_source_watch *w;
	struct pollfd p;

	assert_non_null(refresh_find(f, S2));
	assert_int_equal(ac_source_watch_new(&w), 0);
	assert_true(ac_source_watch_fd(w) >= 0);
	ac_source_watch_update(w, f->index);
	assert_false(ac_source_watch_read(w));
	tu_append_file(path, "x", 1);
	p = (struct pollfd){ac_source_watch_fd(w), POLLIN, 0};
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_true(ac_source_watch_read(w));
	assert_false(ac_source_watch_read(w));
	tu_write_file(fresh, "{}\n", 3);
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_true(ac_source_watch_read(w));
	ac_source_watch_free(w);
	free(path);
	free(fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_claude_summary_and_discovery, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_projects_lists_every_transcript, setup, teardown),
		cmocka_unit_test_setup_teardown(test_options_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_claude_pending_call_and_torn_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_appended_bytes_only_are_parsed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_claude_conversation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_codex_rollout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_codex_pending_call_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gemini_chat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_is_counted_never_fatal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_name_not_utf8_is_counted_not_fatal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_only_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_removed_file_drops_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_spares_a_full_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_corrupt_cache_is_rebuilt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_in_two_halves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_of_one_update_by_path, setup, teardown),
		cmocka_unit_test(test_config_trust_rules),
		cmocka_unit_test(test_resume_command_runs),
		cmocka_unit_test_setup_teardown(test_watch_fires_on_writes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
