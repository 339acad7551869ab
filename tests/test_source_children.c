/* Claude Code sub-agents as children of their session (ac_source.h:
 * relation, parent_id) over tests/fixtures/sources/children: both layouts
 * found, the meta's title, the sidechain entries read as the child's own
 * (summary, conversation, search counts), the compaction worker left out,
 * and the relation kept by the cache. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_error.h"
#include "ac_session_search.h"
#include "ac_source.h"
#include "ac_source_claude_impl.h"
#include "ac_source_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WS "/work/fixture-project"
#define P "7d0c5e2a-4b1f-4c3e-8a9d-1e2f3a4b5c6d"
#define A "agent-a3f9c1e27b5d84e06"
#define B "agent-0c1d2e3f"
#define N "agent-b7e1d2c3f4a5b6c7d"

typedef tu_sources fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	tu_sources_open(f, "sources/children/home", WS);
	tu_sources_dir(f, AC_SOURCE_CLAUDE, "/.claude/projects");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	tu_sources_close(*state);
	free(*state);
	return 0;
}

static void test_both_layouts_are_children(void **state)
{
	fixture *f = *state;
	ac_source_session *p = tu_sources_find(f, P), *a = ac_source_index_find(f->index, A),
			  *b = ac_source_index_find(f->index, B), *const *list;
	size_t n;

	assert_non_null(p);
	assert_int_equal(p->relation, AC_SOURCE_TOP);
	assert_null(p->parent_id);
	assert_int_equal(p->messages, 4);
	/* subagents/agent-*.jsonl: the folder names the parent, the meta the title. */
	assert_non_null(a);
	assert_int_equal(a->relation, AC_SOURCE_SUBAGENT);
	assert_string_equal(a->parent_id, P);
	assert_string_equal(a->title, "Explore: Map the API endpoints");
	assert_string_equal(ac_source_session_task(a), "Explore: Map the API endpoints");
	assert_string_equal(a->task, "List every HTTP endpoint under src/api and what it returns.");
	assert_string_equal(a->cwd, WS);
	assert_string_equal(a->model, "claude-haiku-4-5-20251001");
	assert_int_equal(a->messages, 5);
	/* Its own calls' tokens, the streamed call (two lines, one id) once;
	 * its last tool call. The session counts only its own file's. */
	assert_int_equal(a->tokens, 900 + 30 + 1100 + 60);
	assert_string_equal(a->last_action, "Grep router\\.(get|post)");
	assert_int_equal(p->tokens, 1200 + 80 + 1500 + 40);
	assert_string_equal(p->last_action, "Task Map the API endpoints");
	assert_int_equal(a->npending, 0);
	assert_string_equal(ac_source_relation_name(a->relation), "subagent");
	/* The older agent-*.jsonl beside the sessions: sessionId names the
	 * parent; no meta, so its first prompt; a call still pending. */
	assert_non_null(b);
	assert_int_equal(b->relation, AC_SOURCE_SUBAGENT);
	assert_string_equal(b->parent_id, P);
	assert_null(b->title);
	assert_string_equal(ac_source_session_task(b), "Run the test suite and report failures.");
	assert_int_equal(b->messages, 2);
	assert_int_equal(b->npending, 1);
	assert_int_equal(b->tokens, 720);
	assert_string_equal(b->last_action, "Bash make test");
	/* Started by A (the meta's parentAgentId): A's child. */
	assert_non_null(ac_source_index_find(f->index, N));
	assert_string_equal(ac_source_index_find(f->index, N)->parent_id, A);
	assert_string_equal(ac_source_index_find(f->index, N)->title,
			    "general-purpose: Check the orders endpoint");
	/* Claude Code's compaction worker is no child anyone asked for. */
	list = ac_source_index_list(f->index, &n);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		assert_null(strstr(list[i]->id, "acompact"));
}

static bool has_text(const json_t *conv, const char *text)
{
	char *dump = json_dumps(conv, 0);
	bool found = dump && strstr(dump, text);

	free(dump);
	return found;
}

static void test_child_conversation_is_its_sidechain(void **state)
{
	fixture *f = *state;
	ac_source_session *a = tu_sources_find(f, A), *p = ac_source_index_find(f->index, P);
	json_t *conv = NULL;

	assert_non_null(a);
	assert_int_equal(ac_source_session_conversation(&conv, a), 0);
	/* One count everywhere: the summary's is the conversation's. */
	assert_int_equal(json_array_size(conv), a->messages);
	assert_true(has_text(conv, "the quokka route is gone"));
	json_decref(conv);
	/* The parent's own file holds none of it. */
	assert_int_equal(ac_source_session_conversation(&conv, p), 0);
	assert_int_equal(json_array_size(conv), p->messages);
	assert_false(has_text(conv, "the quokka route is gone"));
	json_decref(conv);
}

/* The search reads a child's file with the child's adapter: the
 * sidechain text is found, at the index `session show` numbers, under the
 * child's id; the parent's file has no such text. */
static void test_child_is_searchable(void **state)
{
	fixture *f = *state;
	ac_search_item *items = NULL;
	ac_search_results r;
	size_t n = 0;

	assert_non_null(tu_sources_find(f, A));
	assert_int_equal(ac_source_search_items(&items, &n, f->index), 0);
	assert_int_equal(ac_session_search(&r, items, n, "quokka", 6, 0, false, NULL, NULL), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(items[r.hits[0].item].id, A);
	assert_int_equal(r.hits[0].message, 4);
	ac_search_results_free(&r);
	free(items);
}

/* A new index restored from the cache knows the child without reading it. */
static void test_cache_keeps_the_relation(void **state)
{
	fixture *f = *state;
	char *cache = tu_make_temp_dir();
	ac_source_session *a;
	size_t read = 99;

	f->opts.cache_dir = strdup(cache);
	assert_non_null(tu_sources_find(f, A));
	ac_source_index_free(f->index); /* saves the cache */
	f->index = NULL;
	assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
	assert_int_equal(ac_source_index_refresh(f->index, &read), 0);
	assert_int_equal(read, 0);
	a = ac_source_index_find(f->index, A);
	assert_non_null(a);
	assert_int_equal(a->relation, AC_SOURCE_SUBAGENT);
	assert_string_equal(a->parent_id, P);
	assert_string_equal(a->title, "Explore: Map the API endpoints");
	assert_int_equal(a->tokens, 2090);
	assert_string_equal(a->last_action, "Grep router\\.(get|post)");
	tu_remove_tree(cache);
	free(cache);
}

/* The next entries appended to a child are read incrementally, still as
 * the child's. */
static void test_appended_child_entry(void **state)
{
	fixture *f = *state;
	ac_source_session *b = tu_sources_find(f, B);
	static const char more[] =
		"{\"isSidechain\":true,\"cwd\":\"" WS "\",\"sessionId\":\"" P "\",\"type\":\"user\","
		"\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
		"\"tool_use_id\":\"toolu_o1\",\"content\":\"ok\"}]},\"timestamp\":"
		"\"2025-10-02T09:01:09.000Z\"}\n";

	assert_non_null(b);
	tu_append_file(b->path, more, sizeof(more) - 1);
	b = tu_sources_find(f, B);
	assert_non_null(b);
	assert_int_equal(b->messages, 3);
	assert_int_equal(b->npending, 0);
	assert_int_equal(b->relation, AC_SOURCE_SUBAGENT);
	assert_string_equal(b->updated, "2025-10-02T09:01:09.000Z");
}

/* The jansson reader (for the lines the scanner refuses) counts the
 * calls and names the last action as the scanner does, line for line. */
static void test_both_readers_agree(void **state)
{
	fixture *f = *state;
	ac_source_session *const *list, *copy;
	size_t n;

	assert_non_null(tu_sources_find(f, A));
	list = ac_source_index_list(f->index, &n);
	for (size_t i = 0; i < n; i++) {
		size_t len = 0;
		char *text = tu_read_file(list[i]->path, &len), *line = text, *nl;

		assert_int_equal(ac_source_session_new(&copy, AC_SOURCE_CLAUDE, list[i]->path), 0);
		while ((nl = memchr(line, '\n', len - (size_t)(line - text)))) {
			json_t *e = json_loadb(line, (size_t)(nl - line), 0, NULL);
			const json_t *msg = json_object_get(e, "message"), *block;
			size_t k;

			if (!strcmp(json_string_value(json_object_get(e, "type")), "assistant")) {
				assert_int_equal(ac_source_claude_note_call_json(copy, msg), 0);
				json_array_foreach(json_object_get(msg, "content"), k, block)
					if (!strcmp(json_string_value(json_object_get(block, "type")),
						    "tool_use"))
						assert_int_equal(ac_source_claude_note_tool_json(copy, block), 0);
			}
			json_decref(e);
			line = nl + 1;
		}
		assert_int_equal(copy->tokens, list[i]->tokens);
		assert_string_equal(copy->last_action ? copy->last_action : "-",
				    list[i]->last_action ? list[i]->last_action : "-");
		ac_source_session_free(copy);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_both_layouts_are_children, setup, teardown),
		cmocka_unit_test_setup_teardown(test_child_conversation_is_its_sidechain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_child_is_searchable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_keeps_the_relation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_appended_child_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_both_readers_agree, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
