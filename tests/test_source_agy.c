/* The Antigravity CLI (agy) adapter (core/ac_source_agy.c) over
 * tests/fixtures/agy, written as agy writes its brain transcripts
 * (tests/fixtures/agy/README.md cites the public readers it follows):
 * discovery, the workspace from history.jsonl, the prompt without the
 * blocks agy appends, tool calls and their outputs, one message count
 * everywhere, incremental reads, the unknown-type canary, the search and
 * the resume command. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_buf.h"
#include "ac_config.h"
#include "ac_error.h"
#include "ac_messages.h"
#include "ac_source.h"
#include "ac_source_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WS "/work/agy-project"
#define ROOT "/.gemini/antigravity-cli"
#define A "7b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8" /* WS, answered */
#define B "0c9d8e7f-6a5b-4c3d-8e2f-1a0b9c8d7e6f" /* another project, a call open */
#define D "d0d0d0d0-1111-4222-8333-444455556666" /* in no history row */
#define LOGS "/.system_generated/logs/transcript.jsonl"

typedef tu_sources fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	tu_sources_open(f, "agy/home", WS);
	tu_sources_dir(f, AC_SOURCE_AGY, ROOT);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	tu_sources_close(*state);
	free(*state);
	return 0;
}

static char *transcript_of(const fixture *f, const char *id)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s%s/brain/%s%s", f->home, ROOT, id, LOGS);
	return strdup(path);
}

static void test_summary_in_the_workspace(void **state)
{
	fixture *f = *state;
	ac_source_session *s = tu_sources_find(f, A), *const *list;
	size_t n;

	assert_non_null(s);
	assert_int_equal(s->kind, AC_SOURCE_AGY);
	assert_string_equal(ac_source_name(s->kind), "antigravity");
	assert_string_equal(ac_source_key(s->kind), "agy");
	assert_string_equal(s->id, A);
	/* From history.jsonl: the transcript names no folder. */
	assert_string_equal(s->cwd, WS);
	/* The user's words, without <ADDITIONAL_METADATA> and
	 * <USER_SETTINGS_CHANGE>. */
	assert_string_equal(s->task, "list the files and explain main.c");
	assert_string_equal(s->started, "2026-06-19T05:23:33Z");
	assert_string_equal(s->updated, "2026-06-19T05:25:09Z");
	/* 2 prompts, 4 model turns, 2 tool outputs; bookkeeping steps are
	 * none. */
	assert_int_equal(s->messages, 8);
	assert_int_equal(s->malformed, 1);
	assert_int_equal(s->npending, 0);
	assert_int_equal(s->turn, AC_TURN_USER);
	assert_int_equal(s->relation, AC_SOURCE_TOP);
	/* The canary: a SYSTEM step of a type not known. */
	assert_int_equal(s->nunknown, 1);
	assert_string_equal(s->unknown[0].type, "WORLD_STATE");
	assert_int_equal(s->unknown[0].count, 1);
	/* Another project's and one no history names are not the workspace's;
	 * a folder with artifacts but no transcript is no session. */
	list = ac_source_index_list(f->index, &n);
	assert_int_equal(n, 1);
	assert_string_equal(list[0]->id, A);
}

static void test_all_projects(void **state)
{
	fixture *f = *state;
	ac_source_session *b, *d, *const *list;
	size_t n;

	f->opts.all_projects = true;
	b = tu_sources_find(f, B);
	d = ac_source_index_find(f->index, D);
	list = ac_source_index_list(f->index, &n);
	assert_int_equal(n, 3);
	assert_string_equal(list[0]->id, B); /* newest first */
	assert_non_null(b);
	assert_string_equal(b->cwd, "/work/other-project");
	assert_string_equal(b->task, "run the tests");
	/* run_command asked, no output yet: the agent works (or waits). */
	assert_int_equal(b->messages, 2);
	assert_int_equal(b->npending, 1);
	assert_int_equal(b->turn, AC_TURN_AGENT);
	assert_int_equal(b->nunknown, 0);
	assert_non_null(d);
	assert_null(d->cwd);
	assert_string_equal(d->task, "say hello");
	assert_int_equal(d->messages, 2);
}

static const json_t *block(const json_t *conv, size_t m, size_t b)
{
	return json_array_get(json_object_get(json_array_get(conv, m), "content"), b);
}

static const char *member(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void test_conversation(void **state)
{
	fixture *f = *state;
	ac_source_session *s = tu_sources_find(f, A);
	json_t *conv = NULL;
	ac_buf text = AC_BUF_INIT;

	assert_int_equal(ac_source_session_conversation(&conv, s), 0);
	assert_int_equal(json_array_size(conv), s->messages);
	assert_string_equal(ac_message_role(json_array_get(conv, 0)), "user");
	assert_string_equal(member(json_array_get(conv, 0), "content"),
			    "list the files and explain main.c");
	/* The call, under its step and position. */
	assert_string_equal(ac_message_role(json_array_get(conv, 1)), "assistant");
	assert_string_equal(member(block(conv, 1, 0), "type"), "tool_use");
	assert_string_equal(member(block(conv, 1, 0), "name"), "list_dir");
	assert_string_equal(member(block(conv, 1, 0), "id"), "2.0");
	assert_string_equal(member(json_object_get(block(conv, 1, 0), "input"), "DirectoryPath"),
			    WS);
	/* Its output, under its own step and type (it names no call). */
	assert_string_equal(ac_message_role(json_array_get(conv, 2)), "user");
	assert_string_equal(member(block(conv, 2, 0), "type"), "tool_result");
	assert_string_equal(member(block(conv, 2, 0), "tool_use_id"), "3 LIST_DIRECTORY");
	assert_non_null(strstr(member(block(conv, 2, 0), "content"), "\"name\":\"main.c\""));
	/* Reasoning, then the answer. */
	assert_string_equal(member(block(conv, 5, 0), "type"), "thinking");
	assert_string_equal(member(block(conv, 5, 1), "type"), "text");
	assert_non_null(strstr(member(block(conv, 5, 1), "text"), "prints the word quokka"));
	assert_string_equal(member(json_array_get(conv, 6), "content"), "now add a test");
	assert_int_equal(ac_message_text(&text, json_array_get(conv, 7)), 0);
	assert_non_null(strstr(text.data, "Added test_main.sh"));
	ac_buf_free(&text);
	json_decref(conv);
}

/* Every listed session: `session show` gives as many messages as the
 * list says, and a search finds each message under that number. */
static void test_counts_and_search_agree(void **state)
{
	fixture *f = *state;
	ac_source_session *const *list;
	size_t n, hits_found = 0;

	f->opts.all_projects = true;
	tu_sources_find(f, A);
	list = ac_source_index_list(f->index, &n);
	for (size_t i = 0; i < n; i++) {
		json_t *conv = NULL;

		assert_int_equal(ac_source_session_conversation(&conv, list[i]), 0);
		assert_int_equal(json_array_size(conv), list[i]->messages);
		json_decref(conv);
	}
	{
		ac_source_session *s = ac_source_index_find(f->index, A);
		const ac_search_provider *p = ac_source_search_provider(AC_SOURCE_AGY);
		ac_search_item item = {.id = s->id, .source = p->name, .path = s->path,
				       .updated_at = "", .provider = p};
		ac_search_results r;
		/* The file output (4), the answer (5), the last reply (7). */
		static const size_t want[] = {4, 5, 7};

		assert_string_equal(p->name, "antigravity");
		assert_int_equal(ac_session_search(&r, &item, 1, "quokka", 6, 0, false, NULL, NULL),
				 0);
		assert_int_equal(r.n, 3);
		for (size_t h = 0; h < r.n; h++, hits_found++)
			assert_int_equal(r.hits[h].message, want[h]);
		assert_string_equal(r.hits[0].role, "user");
		assert_string_equal(r.hits[1].role, "assistant");
		ac_search_results_free(&r);
		/* The metadata agy appends to a prompt is not the user's. */
		assert_int_equal(ac_session_search(&r, &item, 1, "current local time", 18, 0, false,
						   NULL, NULL), 0);
		assert_int_equal(r.n, 0);
		ac_search_results_free(&r);
	}
	assert_int_equal(hits_found, 3);
}

/* Steps appended since the last read are read, and only they; a torn
 * last line waits. */
static void test_incremental(void **state)
{
	fixture *f = *state;
	ac_source_session *b;
	char *path = transcript_of(f, B);
	uint64_t before;
	static const char output[] =
		"{\"step_index\":3,\"source\":\"MODEL\",\"type\":\"RUN_COMMAND\",\"status\":\"DONE\","
		"\"created_at\":\"2026-06-19T06:10:20Z\",\"content\":\"ok 3 tests\"}\n";
	static const char torn[] = "{\"step_index\":4,\"source\":\"MODEL\",\"type\":\"PLANNER_RE";
	static const char rest[] =
		"SPONSE\",\"status\":\"DONE\",\"created_at\":\"2026-06-19T06:10:25Z\","
		"\"content\":\"All 3 tests pass.\"}\n";

	f->opts.all_projects = true;
	b = tu_sources_find(f, B);
	assert_int_equal(b->npending, 1);
	before = b->bytes_parsed;
	tu_append_file(path, output, strlen(output));
	tu_append_file(path, torn, strlen(torn));
	b = tu_sources_find(f, B);
	assert_int_equal(b->messages, 3);
	assert_int_equal(b->npending, 0);
	assert_int_equal(b->turn, AC_TURN_AGENT); /* the output is the model's to read */
	assert_int_equal(b->bytes_parsed - before, strlen(output) - 1);
	tu_append_file(path, rest, strlen(rest));
	b = tu_sources_find(f, B);
	assert_int_equal(b->messages, 4);
	assert_int_equal(b->turn, AC_TURN_USER);
	assert_string_equal(b->updated, "2026-06-19T06:10:25Z");
	free(path);
}

/* A conversation history.jsonl names only from a later prompt on gets
 * its folder at that prompt. */
static void test_cwd_from_a_later_prompt(void **state)
{
	fixture *f = *state;
	char *path = transcript_of(f, D), history[4096];
	ac_source_session *d;
	static const char row[] = "{\"display\":\"and again\",\"timestamp\":1781812900000,"
				  "\"workspace\":\"" WS "/sub\",\"conversationId\":\"" D "\"}\n";
	static const char prompt[] =
		"{\"step_index\":2,\"source\":\"USER_EXPLICIT\",\"type\":\"USER_INPUT\",\"status\":"
		"\"DONE\",\"created_at\":\"2026-06-18T20:01:40Z\",\"content\":\"<USER_REQUEST>\\nand "
		"again\\n</USER_REQUEST>\"}\n";

	assert_null(tu_sources_find(f, D));
	snprintf(history, sizeof(history), "%s%s/history.jsonl", f->home, ROOT);
	tu_append_file(history, row, strlen(row));
	tu_append_file(path, prompt, strlen(prompt));
	/* A sub-folder of the workspace is the workspace's. */
	d = tu_sources_find(f, D);
	assert_non_null(d);
	assert_string_equal(d->cwd, WS "/sub");
	assert_string_equal(d->task, "say hello");
	assert_int_equal(d->messages, 3);
	free(path);
}

/* A history.jsonl replaced by a shorter one (agy rewrote it) is read
 * again whole: rows of the old file no longer place a conversation. */
static void test_history_replaced(void **state)
{
	fixture *f = *state;
	char *path = transcript_of(f, D), history[4096], fresh[4096];
	static const char rows[] = "{\"display\":\"x\",\"timestamp\":1,\"workspace\":\"" WS
				   "\",\"conversationId\":\"" D "\"}\n";
	static const char prompt[] =
		"{\"step_index\":2,\"source\":\"USER_EXPLICIT\",\"type\":\"USER_INPUT\",\"status\":"
		"\"DONE\",\"created_at\":\"2026-06-18T20:01:40Z\",\"content\":\"again\"}\n";
	ac_source_session *d;

	assert_non_null(tu_sources_find(f, A));
	snprintf(history, sizeof(history), "%s%s/history.jsonl", f->home, ROOT);
	snprintf(fresh, sizeof(fresh), "%s%s/history.new", f->home, ROOT);
	tu_write_file(fresh, rows, strlen(rows));
	assert_int_equal(rename(fresh, history), 0);
	tu_append_file(path, prompt, strlen(prompt));
	d = tu_sources_find(f, D);
	assert_non_null(d);
	assert_string_equal(d->cwd, WS);
	free(path);
}

/* A link in brain/ is not followed: the reader stays in agy's tree. */
static void test_links_not_followed(void **state)
{
	fixture *f = *state;
	char link[4096], target[4096];
	size_t n;

	f->opts.all_projects = true;
	snprintf(target, sizeof(target), "%s%s/brain/%s", f->home, ROOT, A);
	snprintf(link, sizeof(link), "%s%s/brain/e0e0e0e0-0000-4000-8000-000000000000", f->home,
		 ROOT);
	assert_int_equal(symlink(target, link), 0);
	tu_sources_find(f, A);
	ac_source_index_list(f->index, &n);
	assert_int_equal(n, 3);
	assert_null(ac_source_index_find(f->index, "e0e0e0e0-0000-4000-8000-000000000000"));
}

/* Conversations kept only as a .db or .pb (no brain transcript) are
 * counted for `sources check`; one with a transcript is read, not
 * counted. */
static void test_unread_conversations(void **state)
{
	fixture *f = *state;
	char root[4096];

	snprintf(root, sizeof(root), "%s%s", f->home, ROOT);
	assert_int_equal(ac_source_agy_unread(root), 0);
	tu_put(root, "conversations/" A ".db", "SQLite format 3");
	tu_put(root, "conversations/" A ".db-wal", "");
	tu_put(root, "conversations/notes.txt", "");
	assert_int_equal(ac_source_agy_unread(root), 0);
	tu_put(root, "conversations/11111111-2222-4333-8444-555555555555.db", "SQLite format 3");
	tu_put(root, "conversations/66666666-7777-4888-8999-000000000000.pb", "\x53\xd1");
	tu_put(root, "implicit/aaaaaaaa-2222-4333-8444-555555555555.pb", "\x53\xd1");
	assert_int_equal(ac_source_agy_unread(root), 3);
	assert_int_equal(ac_source_agy_unread(f->home), 0);
	assert_int_equal(ac_source_agy_unread(NULL), 0);
}

static void test_resume_command(void **state)
{
	char *ws = tu_make_temp_dir(), *xdg = tu_make_temp_dir();
	const char **argv = NULL;
	ac_config *c = NULL;

	(void)state;
	setenv("XDG_CONFIG_HOME", xdg, 1);
	assert_int_equal(ac_config_load(&c, ws), 0);
	assert_int_equal(ac_source_resume_command(&argv, c, AC_SOURCE_AGY), 0);
	assert_string_equal(argv[0], "agy");
	assert_string_equal(argv[1], "--conversation");
	assert_string_equal(argv[2], "{id}");
	assert_null(argv[3]);
	free(argv);
	ac_config_free(c);
	/* Its folder, as every source's, is the operator's to set. */
	tu_put(ws, ".agent/config.json", "{\"sources\": {\"agy\": {\"dir\": \"/etc\"}}}");
	assert_int_equal(ac_config_load(&c, ws), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "sources.agy.dir may not be set by a project file"));
	unsetenv("XDG_CONFIG_HOME");
	tu_remove_tree(ws);
	tu_remove_tree(xdg);
	free(ws);
	free(xdg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_summary_in_the_workspace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_projects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conversation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counts_and_search_agree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incremental, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cwd_from_a_later_prompt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_history_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unread_conversations, setup, teardown),
		cmocka_unit_test(test_resume_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
