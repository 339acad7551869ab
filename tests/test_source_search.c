/* The transcripts as providers of the conversation search
 * (ac_source_search.h): every hit's message number is the one
 * ac_source_session_conversation() (and so `session show`) gives, though
 * the lines that cannot match are only counted, never built; the source
 * travels with the item; a transcript is searched without being written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_messages.h"
#include "ac_session_fork.h"
#include "ac_source_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WS "/work/fixture-project"
#define S1 "6f1c2a9e-3b7d-4c1e-9a55-0d2e4f6a8b10"
#define C1 "0199a213-81c0-7800-8aa1-bbab2a035a53"

static bool has_fold(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++) {
		size_t k = 0;

		while (k < n && ((hay[i + k] | 0x20) == (needle[k] | 0x20) ||
				 hay[i + k] == needle[k]))
			k++;
		if (k == n)
			return true;
	}
	return false;
}

static void message_text(ac_buf *out, const json_t *conv, size_t k)
{
	ac_buf_clear(out);
	assert_int_equal(ac_message_text(out, json_array_get(conv, k)), 0);
}

/* For each message of s with some text, a search for a piece of it finds
 * that message by its number, and every hit is a message that holds it. */
static void check_numbers(const ac_source_session *s)
{
	const ac_search_provider *p = ac_source_search_provider(s->kind);
	ac_buf text = AC_BUF_INIT;
	json_t *conv = NULL;
	size_t checked = 0;

	assert_int_equal(ac_source_session_conversation(&conv, s), 0);
	assert_string_equal(p->name, ac_source_name(s->kind));
	for (size_t k = 0; k < json_array_size(conv); k++) {
		ac_search_item item = {.id = s->id, .source = p->name, .path = s->path,
				       .updated_at = "", .provider = p};
		ac_search_results r;
		char needle[25];
		size_t n;
		bool found = false;

		message_text(&text, conv, k);
		/* A run of plain ASCII words (valid UTF-8 as it is cut), past
		 * the "[tool_use " / "[tool_result " the rendering adds. */
		n = 0;
		for (size_t i = text.data && text.data[0] == '[' ? 1 : 0; i < text.len && n < 24; i++) {
			char c = text.data[i];
			bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				    (c >= '0' && c <= '9') || c == ' ';

			if (text.data[0] == '[' && i <= (size_t)(strchr(text.data, ' ') - text.data))
				continue;
			if (word && (n || c != ' '))
				needle[n++] = c;
			else if (n >= 4)
				break;
			else
				n = 0;
		}
		while (n && needle[n - 1] == ' ')
			n--;
		needle[n] = '\0';
		if (n < 4)
			continue;
		assert_int_equal(ac_session_search(&r, &item, 1, needle, n, 0, false, NULL, NULL), 0);
		for (size_t h = 0; h < r.n; h++) {
			found = found || r.hits[h].message == k;
			message_text(&text, conv, r.hits[h].message);
			assert_true(has_fold(text.data, text.len, needle));
			assert_string_equal(ac_message_role(json_array_get(conv, r.hits[h].message)),
					    r.hits[h].role);
		}
		if (!found)
			print_message("message %zu of %s: \"%s\" not found (%zu hits)\n", k, s->path, needle, r.n);
		assert_true(found);
		ac_search_results_free(&r);
		checked++;
	}
	assert_true(checked > 0);
	json_decref(conv);
	ac_buf_free(&text);
}

static ac_source_index *fixture_index(char **home, ac_source_options *opts)
{
	static const char *const dirs[AC_SOURCE_COUNT] = {"/.claude/projects", "/.codex/sessions",
							  "/.gemini/tmp", "/.gemini/antigravity-cli"};
	ac_source_index *index = NULL;

	*opts = (ac_source_options)AC_SOURCE_OPTIONS_INIT;
	*home = tu_copy_fixture("sources/home");
	for (int k = 0; k < AC_SOURCE_COUNT; k++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s%s", *home, dirs[k]);
		opts->dir[k] = strdup(path);
	}
	opts->workspace = strdup(WS);
	opts->all_projects = true;
	opts->limits = (ac_state_thresholds)AC_STATE_THRESHOLDS_DEFAULT;
	assert_int_equal(ac_source_index_new(&index, opts), 0);
	assert_int_equal(ac_source_index_refresh(index, NULL), 0);
	return index;
}

static void test_fixture_numbers_are_the_conversations(void **state)
{
	ac_source_options opts;
	char *home;
	ac_source_index *index = fixture_index(&home, &opts);
	ac_source_session *const *list;
	size_t n;
	bool kinds[AC_SOURCE_COUNT] = {0};

	(void)state;
	list = ac_source_index_list(index, &n);
	assert_true(n >= 4);
	for (size_t i = 0; i < n; i++) {
		check_numbers(list[i]);
		kinds[list[i]->kind] = true;
	}
	/* Antigravity's numbers are checked over its own fixture
	 * (test_source_agy.c). */
	for (int k = 0; k < AC_SOURCE_COUNT; k++)
		assert_true(kinds[k] || k == AC_SOURCE_AGY);
	ac_source_index_free(index);
	ac_source_options_free(&opts);
	tu_remove_tree(home);
	free(home);
}

/* Lines the scanner counts or leaves to jansson, in both JSONL formats:
 * sidechains, metas, a compaction's boundary and summary, a title,
 * records with no message, an escaped type (the
 * scanner does not decode: the line is built and counted), bare Codex
 * items, calls and their outputs, and a torn last line. */
static void test_counted_lines_keep_numbers(void **state)
{
	static const char claude[] =
		"{\"type\":\"summary\",\"summary\":\"t\"}\n"
		"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"alpha one\"}}\n"
		"{\"type\":\"user\",\"isSidechain\":true,\"message\":{\"role\":\"user\",\"content\":\"side\"}}\n"
		"{\"type\":\"system\",\"message\":null}\n"
		"{\"type\":\"user\",\"isMeta\":true,\"message\":{\"role\":\"user\",\"content\":\"meta kappa\"}}\n"
		"{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\"}\n"
		"{\"type\":\"user\",\"isCompactSummary\":true,\"message\":{\"role\":\"user\",\"content\":"
		"\"summary lambda\"}}\n"
		"{\"type\":\"ai-title\",\"aiTitle\":\"title mu\"}\n"
		"not json\n"
		"\n"
		"{\"type\":\"us\\u0065r\",\"message\":{\"role\":\"user\",\"content\":\"beta two\"}}\n"
		"{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":"
		"\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":{\"command\":\"gamma\"}}]}}\n"
		"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
		"\"tool_use_id\":\"t1\",\"content\":\"delta out\"}]}}\n"
		"{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":7}}\n"
		"{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":\"epsilon end\"}}\n"
		"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"torn zeta\"}}";
	static const char codex[] =
		"{\"id\":\"c-1\",\"timestamp\":\"2025-01-01T00:00:00Z\",\"instructions\":null}\n"
		"{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"alpha bare\"}]}\n"
		"{\"type\":\"reasoning\",\"summary\":[]}\n"
		"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"developer\",\"content\":\"x\"}}\n"
		"{\"timestamp\":\"t\",\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"beta ev\"}}\n"
		"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{\\\"cmd\\\":\\\"gamma\\\"}\",\"call_id\":\"k1\"}}\n"
		"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{}\"}}\n"
		"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"k1\",\"output\":\"delta out\"}}\n"
		"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"custom_tool_call\",\"name\":\"apply_patch\",\"input\":\"eps\",\"call_id\":\"k2\"}}\n"
		"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"epsilon end\"}]}}\n";
	char *dir = tu_make_temp_dir();
	char *claude_path = tu_path(dir, "c.jsonl"), *codex_path = tu_path(dir, "rollout-x.jsonl");
	ac_source_session *s;

	(void)state;
	tu_write_file(claude_path, claude, sizeof(claude) - 1);
	tu_write_file(codex_path, codex, sizeof(codex) - 1);
	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_CLAUDE, claude_path), 0);
	s->id = strdup("c");
	check_numbers(s);
	ac_source_session_free(s);
	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_CODEX, codex_path), 0);
	s->id = strdup("x");
	check_numbers(s);
	ac_source_session_free(s);
	tu_remove_tree(dir);
	free(dir);
	free(claude_path);
	free(codex_path);
}

/* A line past AC_SOURCE_LINE_MAX makes no message in the conversation
 * (`session show`): the search counted it, so every later hit was
 * numbered one past the message show gives (issue 23 item 10). Also one
 * that ends right after the limit, within a read block. */
static void test_overlong_line_keeps_numbers(void **state)
{
	static const char head[] = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"";
	static const char tail[] = "\"}}\n";
	static const size_t over[] = {AC_SOURCE_LINE_MAX + 2 * 1024 * 1024, AC_SOURCE_LINE_MAX + 1};
	char *dir = tu_make_temp_dir(), *path = tu_path(dir, "c.jsonl");
	char *fill = malloc(1024 * 1024);
	ac_source_session *s;

	(void)state;
	assert_non_null(fill);
	memset(fill, 'x', 1024 * 1024);
	for (size_t k = 0; k < sizeof(over) / sizeof(over[0]); k++) {
		FILE *f = fopen(path, "w");
		size_t body = over[k] - (sizeof(head) - 1) - (sizeof(tail) - 2);
		json_t *conv = NULL;

		assert_non_null(f);
		fputs("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"alpha one\"}}\n", f);
		fputs(head, f);
		for (size_t left = body; left;) {
			size_t n = left < 1024 * 1024 ? left : 1024 * 1024;

			assert_int_equal(fwrite(fill, 1, n, f), n);
			left -= n;
		}
		fputs(tail, f);
		fputs("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"omega last\"}}\n", f);
		assert_int_equal(fclose(f), 0);
		assert_int_equal(ac_source_session_new(&s, AC_SOURCE_CLAUDE, path), 0);
		s->id = strdup("c");
		assert_int_equal(ac_source_session_conversation(&conv, s), 0);
		assert_int_equal(json_array_size(conv), 2);
		json_decref(conv);
		check_numbers(s);
		ac_source_session_free(s);
	}
	free(fill);
	tu_remove_tree(dir);
	free(dir);
	free(path);
}

/* The items carry the source's name and the index's update, and a
 * search over them finds text in a tool result with its number. */
static void test_items_carry_source(void **state)
{
	ac_source_options opts;
	char *home;
	ac_source_index *index = fixture_index(&home, &opts);
	ac_search_item *items;
	ac_search_results r;
	size_t n;
	bool seen = false;

	(void)state;
	assert_int_equal(ac_source_search_items(&items, &n, index), 0);
	assert_true(n >= 4);
	assert_int_equal(ac_session_search(&r, items, n, "expected 0", 10, 0, false, NULL, NULL), 0);
	for (size_t h = 0; h < r.n; h++) {
		const ac_search_item *it = &items[r.hits[h].item];

		if (!strcmp(it->id, S1)) {
			seen = true;
			assert_string_equal(it->source, "claude-code");
			assert_true(strlen(it->updated_at) > 0);
			/* Made safe: the escape in the tool output shows as text. */
			assert_null(strchr(r.hits[h].snippet, '\x1b'));
		}
	}
	assert_true(seen);
	ac_search_results_free(&r);
	free(items);
	ac_source_index_free(index);
	ac_source_options_free(&opts);
	tu_remove_tree(home);
	free(home);
}

/* A fork of a transcript: a new paused session file with the first N
 * messages of the conversation and where they came from; the transcript
 * is not written; --at past the end and a checkpoint are refused. */
static void test_fork_of_a_transcript(void **state)
{
	ac_source_options opts;
	char *home, *dir = tu_make_temp_dir(), *before, *after;
	ac_source_index *index = fixture_index(&home, &opts);
	ac_source_session *s = ac_source_index_find(index, S1);
	ac_session_fork_options fork = {.version = AC_SESSION_FORK_OPTIONS_VERSION,
					.new_id = "child-1", .at = 2};
	ac_session *child = NULL;
	json_t *conv = NULL, *root, *parent;
	size_t len;

	(void)state;
	assert_non_null(s);
	before = tu_read_file(s->path, &len);
	assert_int_equal(ac_session_fork_transcript(&child, dir, s, &fork), 0);
	assert_int_equal(ac_source_session_conversation(&conv, s), 0);
	root = ac_session_root(child);
	assert_string_equal(json_string_value(json_object_get(root, "status")), "paused");
	assert_string_equal(json_string_value(json_object_get(root, "task")),
			    "Fix the failing test in parser.c");
	assert_int_equal(json_array_size(ac_session_messages(child)), 2);
	assert_true(json_equal(json_array_get(ac_session_messages(child), 1),
			       json_array_get(conv, 1)));
	parent = json_object_get(json_object_get(root, "metadata"), "parent");
	assert_string_equal(json_string_value(json_object_get(parent, "source")), "claude-code");
	assert_string_equal(json_string_value(json_object_get(parent, "sessionId")), S1);
	assert_int_equal(json_integer_value(json_object_get(parent, "atMessage")), 2);
	ac_session_free(child);
	child = NULL;
	fork.new_id = "child-2";
	fork.at = json_array_size(conv) + 1;
	assert_int_equal(ac_session_fork_transcript(&child, dir, s, &fork), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "--at"));
	fork.at = 0;
	fork.checkpoint_history = conv;
	fork.checkpoint_id = "c";
	assert_int_equal(ac_session_fork_transcript(&child, dir, s, &fork), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "no checkpoints"));
	after = tu_read_file(s->path, &len);
	assert_string_equal(before, after);
	free(before);
	free(after);
	json_decref(conv);
	ac_source_index_free(index);
	ac_source_options_free(&opts);
	tu_remove_tree(home);
	free(home);
	tu_remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_numbers_are_the_conversations),
		cmocka_unit_test(test_overlong_line_keeps_numbers),
		cmocka_unit_test(test_counted_lines_keep_numbers),
		cmocka_unit_test(test_items_carry_source),
		cmocka_unit_test(test_fork_of_a_transcript),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
