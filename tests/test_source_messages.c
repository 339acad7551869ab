/* One message count everywhere, and what Claude Code writes around its
 * commands and compactions.
 *
 * The rule: a transcript's summary count (what `session list` and the
 * dashboard show) is the number of messages its conversation has (what
 * `session show` lists), for every fixture transcript of every source
 * under tests/fixtures/sources*: the adapters are held to it together.
 * Then Claude Code's current writing (tests/fixtures/sources-current):
 * /clear, /compact's boundary and summary, titles, injected text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_buf.h"
#include "ac_messages.h"
#include "ac_source.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WS "/work/fixture-project"
#define CL "11111111-aaaa-4aaa-8aaa-000000000005"
#define CP "11111111-aaaa-4aaa-8aaa-000000000006"

/* Where each source keeps its transcripts under a home. */
static const char *const source_dirs[AC_SOURCE_COUNT] = {
	[AC_SOURCE_CLAUDE] = "/.claude/projects",
	[AC_SOURCE_CODEX] = "/.codex/sessions",
	[AC_SOURCE_GEMINI] = "/.gemini/tmp",
	[AC_SOURCE_AGY] = "/.gemini/antigravity-cli",
};

/* The sources held to the rule here: all of them. */
static const bool held[AC_SOURCE_COUNT] = {[AC_SOURCE_CLAUDE] = true, [AC_SOURCE_CODEX] = true, [AC_SOURCE_GEMINI] = true,
					      [AC_SOURCE_AGY] = true};

static ac_source_index *index_of(ac_source_options *opts, const char *home, ac_source_kind only)
{
	ac_source_index *index = NULL;

	*opts = (ac_source_options)AC_SOURCE_OPTIONS_INIT;
	for (int k = 0; k < AC_SOURCE_COUNT; k++)
		if (source_dirs[k] && (only == AC_SOURCE_COUNT || (int)only == k))
			opts->dir[k] = tu_path(home, source_dirs[k]);
	opts->workspace = strdup(WS);
	opts->all_projects = true;
	opts->limits = (ac_state_thresholds)AC_STATE_THRESHOLDS_DEFAULT;
	assert_int_equal(ac_source_index_new(&index, opts), 0);
	assert_int_equal(ac_source_index_refresh(index, NULL), 0);
	return index;
}

/* Every transcript of every source under home: listed count = shown. */
static void check_home(const char *home, size_t *checked)
{
	for (int k = 0; k < AC_SOURCE_COUNT; k++) {
		ac_source_options opts;
		ac_source_index *index;
		ac_source_session *const *list;
		size_t n;

		if (!held[k])
			continue;
		index = index_of(&opts, home, (ac_source_kind)k);
		list = ac_source_index_list(index, &n);
		for (size_t i = 0; i < n; i++) {
			json_t *conv = NULL;

			assert_int_equal(ac_source_session_conversation(&conv, list[i]), 0);
			if (json_array_size(conv) != list[i]->messages)
				print_message("%s: %zu messages counted, %zu in its conversation\n",
					      list[i]->path, list[i]->messages, json_array_size(conv));
			assert_int_equal(json_array_size(conv), list[i]->messages);
			json_decref(conv);
			checked[k]++;
		}
		ac_source_index_free(index);
		ac_source_options_free(&opts);
	}
}

static void test_every_fixture_counts_its_conversation(void **state)
{
	/* Fixture homes that sit one level down (a source's own set). */
	static const char *const nested[] = {"sources/gemini/home"};
	DIR *dir = opendir(AC_FIXTURES);
	struct dirent *d;
	size_t checked[AC_SOURCE_COUNT] = {0};

	(void)state;
	assert_non_null(dir);
	while ((d = readdir(dir))) {
		char *home, *folder;

		if (strncmp(d->d_name, "sources", 7) && strcmp(d->d_name, "agy"))
			continue;
		home = tu_path(AC_FIXTURES, d->d_name);
		folder = tu_path(home, "/home");
		check_home(folder, checked);
		free(folder);
		free(home);
	}
	closedir(dir);
	for (size_t i = 0; i < sizeof(nested) / sizeof(nested[0]); i++) {
		char *home = tu_path(AC_FIXTURES "/", nested[i]);

		check_home(home, checked);
		free(home);
	}
	for (int k = 0; k < AC_SOURCE_COUNT; k++)
		if (held[k])
			assert_true(checked[k] > 0);
}

static ac_source_session *current(ac_source_index **index, ac_source_options *opts,
				  const char *id)
{
	char *home = tu_path(AC_FIXTURES, "/sources-current/home");

	*index = index_of(opts, home, AC_SOURCE_CLAUDE);
	free(home);
	return ac_source_index_find(*index, id);
}

static ac_session_state state_at(const ac_source_session *s, int64_t quiet_ms)
{
	ac_state_inputs in;

	ac_source_session_inputs(&in, s, s->mtime_ms + quiet_ms);
	return ac_session_state_derive(&in, NULL);
}

static void test_clear_leaves_the_turn_to_the_user(void **state)
{
	ac_source_options opts;
	ac_source_index *index;
	ac_source_session *s = current(&index, &opts, CL);

	(void)state;
	assert_non_null(s);
	/* /clear ran no model: the user's turn, never "running". */
	assert_int_equal(s->turn, AC_TURN_USER);
	assert_int_equal(state_at(s, 1000), AC_STATE_WAITING);
	assert_int_equal(state_at(s, 10 * 60 * 1000), AC_STATE_IDLE);
	/* Its records are no task; the caveat (isMeta) is no message. */
	assert_null(s->task);
	assert_int_equal(s->messages, 2);
	ac_source_index_free(index);
	ac_source_options_free(&opts);
}

static const char *text_of(const json_t *message, ac_buf *buf)
{
	ac_buf_clear(buf);
	assert_int_equal(ac_message_text(buf, message), 0);
	return buf->data ? buf->data : "";
}

static void test_compaction_marker_summary_and_title(void **state)
{
	ac_source_options opts;
	ac_source_index *index;
	ac_source_session *s = current(&index, &opts, CP);
	ac_buf text = AC_BUF_INIT;
	json_t *conv = NULL, *m;
	size_t i, boundary = 0, summary = 0;

	(void)state;
	assert_non_null(s);
	/* The first prompt past the IDE's reminder; not the summary, not
	 * the task notification. */
	assert_string_equal(s->task, "Port the scheduler to C11");
	/* The latest ai-title, over the older summary line. */
	assert_string_equal(s->title, "Scheduler port to C11 and its tests");
	assert_int_equal(ac_source_session_conversation(&conv, s), 0);
	assert_int_equal(json_array_size(conv), s->messages);
	json_array_foreach(conv, i, m) {
		const char *t = text_of(m, &text);

		if (strstr(t, "[compact boundary] Conversation compacted (manual, 48211 tokens)")) {
			boundary = i;
			assert_string_equal(ac_message_role(m), "system");
		}
		if (strstr(t, "being continued from a previous conversation")) {
			summary = i;
			/* Labelled, and not the user's words. */
			assert_string_equal(ac_message_role(m), "system");
			assert_int_equal(strncmp(t, "[compact summary]", 17), 0);
		}
		/* The skill's text (isMeta) is context, not a message. */
		assert_null(strstr(t, "Base directory for this skill"));
	}
	assert_true(boundary > 0);
	assert_int_equal(summary, boundary + 1);
	/* After /compact's output and a new prompt's answer: the user's turn. */
	assert_int_equal(s->turn, AC_TURN_USER);
	json_decref(conv);
	ac_buf_free(&text);
	ac_source_index_free(index);
	ac_source_options_free(&opts);
}

/* Titles: the user's rename over the tool's, over an old summary line,
 * whatever their order; the task is still the first prompt. */
static void test_title_ranks(void **state)
{
	char *home = tu_make_temp_dir(), *path;
	static const char lines[] =
		"{\"type\":\"custom-title\",\"customTitle\":\"mine\",\"sessionId\":\"t\"}\n"
		"{\"type\":\"ai-title\",\"aiTitle\":\"the tool's\",\"sessionId\":\"t\"}\n"
		"{\"type\":\"summary\",\"summary\":\"old\",\"leafUuid\":\"x\"}\n"
		"{\"type\":\"user\",\"cwd\":\"/w\",\"timestamp\":\"2026-11-20T09:00:00.000Z\",\"message\":"
		"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"<system-reminder>r</system-"
		"reminder>\"},{\"type\":\"text\",\"text\":\"do it\"}]}}\n"
		"{\"type\":\"world_state\",\"x\":1}\n";
	ac_source_session *s;

	(void)state;
	path = tu_path(home, "/t.jsonl");
	tu_write_file(path, lines, strlen(lines));
	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_CLAUDE, path), 0);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_string_equal(s->title, "mine");
	assert_string_equal(s->task, "do it");
	/* A record type Claude Code did not write before: counted. */
	assert_int_equal(s->nunknown, 1);
	assert_string_equal(s->unknown[0].type, "world_state");
	ac_source_session_free(s);
	free(path);
	tu_remove_tree(home);
	free(home);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_fixture_counts_its_conversation),
		cmocka_unit_test(test_clear_leaves_the_turn_to_the_user),
		cmocka_unit_test(test_compaction_marker_summary_and_title),
		cmocka_unit_test(test_title_ranks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
