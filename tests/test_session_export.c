/* Transcripts (Markdown, HTML) of sessions holding hostile text, and
 * forking a session (up to a message, from a checkpoint's history). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_error.h"
#include "ac_session.h"
#include "ac_session_export.h"
#include "ac_session_fork.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HOSTILE "</pre><script>alert(1)</script> & <b>x</b> \x1b]0;pwned\x07 \x1b[2J \xe2\x80\xae"

static json_t *hostile_session(void)
{
	json_t *root = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:[], s:{s:s, s:s}}", "id", "s1",
		"createdAt", "2026-01-01T00:00:00.000Z", "updatedAt", "2026-01-01T00:00:01.000Z",
		"task", "task " HOSTILE "\n# not a heading", "status", "running",
		"conversationHistory", "metadata", "tenantId", "t<1>", "userId", "u`1`");
	json_t *history = json_object_get(root, "conversationHistory");

	json_array_append_new(history, json_pack("{s:s, s:s}", "role", "user", "content",
						 "```\nbreak out\n````````\n" HOSTILE "\n```"));
	json_array_append_new(history, json_pack(
		"{s:s, s:[{s:s, s:s}, {s:s, s:s, s:s, s:{s:s}}]}", "role", "assistant", "content",
		"type", "text", "text", "calling",
		"type", "tool_use", "id", "t1", "name", "run_<script>", "input", "cmd", HOSTILE));
	json_array_append_new(history, json_pack(
		"{s:s, s:[{s:s, s:s, s:s}]}", "role", "user", "content",
		"type", "tool_result", "tool_use_id", "t1", "content", "result " HOSTILE));
	json_array_append_new(history, json_pack(
		"{s:s, s:n, s:[{s:s, s:{s:s, s:s}}]}", "role", "assistant", "content", "tool_calls",
		"id", "c2", "function", "name", "lookup", "arguments", "{\"q\":\"wx\"}"));
	json_array_append_new(history, json_pack("{s:s, s:s, s:s}", "role", "tool", "toolCallId",
						 "c2", "content", "sunny"));
	return root;
}

/* No byte that could drive a terminal: controls other than newline. */
static void assert_no_controls(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)text[i] < 0x20 && text[i] != '\n')
			fail_msg("control byte 0x%02x at %zu", (unsigned char)text[i], i);
	assert_null(strstr(text, "\xe2\x80\xae")); /* the bidi override is shown as <U+202E> */
}

/* Walks Markdown the way CommonMark closes fences: outside them, no raw
 * HTML can start; the number of fences opened and closed match. */
static void assert_markdown_contained(const char *md)
{
	size_t open_len = 0, fences = 0;
	const char *line = md;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line), ticks = 0;

		while (ticks < len && line[ticks] == '`')
			ticks++;
		if (open_len) {
			if (ticks >= open_len && ticks == len)
				open_len = 0;
		} else if (ticks >= 3) {
			open_len = ticks;
			fences++;
		} else {
			assert_null(memchr(line, '<', len));
		}
		line += len + (nl != NULL);
	}
	assert_int_equal(open_len, 0);
	assert_int_equal(fences, 6); /* text, text, tool input, result, call, result */
}

static void test_markdown(void **state)
{
	json_t *root = hostile_session();
	ac_buf out = AC_BUF_INIT;

	(void)state;
	assert_int_equal(ac_session_export(&out, root, AC_EXPORT_MARKDOWN), 0);
	assert_no_controls(out.data, out.len);
	assert_markdown_contained(out.data);
	/* The body holds a run of 8 backticks: its fence has 9. */
	assert_non_null(strstr(out.data, "\n`````````text\n"));
	assert_non_null(strstr(out.data, "- Task: task &lt;/pre&gt;&lt;script&gt;"));
	assert_non_null(strstr(out.data, "^J\\# not a heading"));
	assert_non_null(strstr(out.data, "- Tenant: t&lt;1&gt;"));
	assert_non_null(strstr(out.data, "- User: u\\`1\\`"));
	assert_non_null(strstr(out.data, "**Tool call** run\\_&lt;script&gt;\n\n```json\n{\n  \"cmd\""));
	assert_non_null(strstr(out.data, "**Tool result** t1\n"));
	assert_non_null(strstr(out.data, "**Tool call** lookup\n\n```json\n{\n  \"q\": \"wx\"\n}"));
	assert_non_null(strstr(out.data, "## 5. tool\n\n**Tool result** c2\n\n```text\nsunny\n```"));
	ac_buf_free(&out);
	json_decref(root);
}

static void test_html(void **state)
{
	json_t *root = hostile_session();
	ac_buf out = AC_BUF_INIT;

	(void)state;
	assert_int_equal(ac_session_export(&out, root, AC_EXPORT_HTML), 0);
	assert_no_controls(out.data, out.len);
	assert_null(strcasestr(out.data, "<script"));
	assert_null(strcasestr(out.data, "<b>"));
	assert_null(strstr(out.data, "://"));
	assert_null(strstr(out.data, " src="));
	assert_non_null(strstr(out.data, "Content-Security-Policy\" content=\"default-src 'none'"));
	assert_non_null(strstr(out.data, "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; "
					 "&lt;b&gt;x&lt;/b&gt; ^[]0;pwned^G ^[[2J &lt;U+202E&gt;"));
	assert_non_null(strstr(out.data, "<h3>Tool call run_&lt;script&gt;</h3>"));
	assert_non_null(strstr(out.data, "<tr><th>Tenant</th><td>t&lt;1&gt;</td></tr>"));
	ac_buf_free(&out);
	json_decref(root);
}

static void test_huge_line(void **state)
{
	size_t n = 1 << 20;
	char *text = malloc(n + 1);
	json_t *root = hostile_session();
	ac_buf out = AC_BUF_INIT;

	(void)state;
	memset(text, '`', n);
	text[n] = '\0';
	json_array_append_new(json_object_get(root, "conversationHistory"),
			      json_pack("{s:s, s:s}", "role", "user", "content", text));
	assert_int_equal(ac_session_export(&out, root, AC_EXPORT_MARKDOWN), 0);
	assert_true(out.len > n);
	ac_buf_free(&out);
	free(text);
	json_decref(root);
}

static void test_format_names(void **state)
{
	ac_export_format f;

	(void)state;
	assert_int_equal(ac_session_export_format(&f, "md"), 0);
	assert_int_equal(f, AC_EXPORT_MARKDOWN);
	assert_int_equal(ac_session_export_format(&f, "html"), 0);
	assert_int_equal(f, AC_EXPORT_HTML);
	assert_int_equal(ac_session_export_format(&f, "pdf"), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "pdf"));
}

static void test_fork(void **state)
{
	char *dir = tu_make_temp_dir();
	json_t *root = hostile_session(), *history;
	ac_session *parent = NULL, *child = NULL, *again = NULL;
	ac_session_fork_options opts = {.version = AC_SESSION_FORK_OPTIONS_VERSION,
					.new_id = "f1", .at = 2};
	json_t *p;

	(void)state;
	json_object_set_new(json_object_get(root, "metadata"), "usage",
			    json_pack("{s:i}", "turns", 3));
	assert_int_equal(ac_session_create_document(&parent, dir, root), 0);
	assert_int_equal(ac_session_create_document(NULL, dir, root), AC_EINVAL); /* exists */
	assert_int_equal(ac_session_fork(&child, dir, parent, &opts), 0);
	assert_int_equal(ac_session_load(&again, dir, "f1"), 0);
	assert_string_equal(ac_session_status(again), "paused");
	assert_string_equal(ac_session_task(again), ac_session_task(parent));
	assert_int_equal(json_array_size(ac_session_messages(again)), 2);
	assert_true(json_equal(json_array_get(ac_session_messages(again), 1),
			       json_array_get(ac_session_messages(parent), 1)));
	p = json_object_get(json_object_get(ac_session_root(again), "metadata"), "parent");
	assert_string_equal(json_string_value(json_object_get(p, "sessionId")), "s1");
	assert_int_equal(json_integer_value(json_object_get(p, "atMessage")), 2);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		ac_session_root(again), "metadata"), "tenantId")), "t<1>");
	assert_null(json_object_get(json_object_get(ac_session_root(again), "metadata"), "usage"));
	ac_session_free(child);
	ac_session_free(again);
	child = again = NULL;

	/* Past the end: refused, nothing written. */
	opts = (ac_session_fork_options){.version = AC_SESSION_FORK_OPTIONS_VERSION,
					 .new_id = "f2", .at = 6};
	assert_int_equal(ac_session_fork(&child, dir, parent, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "--at 6: session 's1' has 5 messages"));
	assert_false(tu_exists(dir, "f2.json"));
	/* The same id twice: refused, the first kept. */
	opts = (ac_session_fork_options){.version = AC_SESSION_FORK_OPTIONS_VERSION,
					 .new_id = "f1"};
	assert_int_equal(ac_session_fork(&child, dir, parent, &opts), AC_EINVAL);
	/* Options of another version: refused naming the struct, nothing written. */
	opts = (ac_session_fork_options){.new_id = "f3"};
	assert_int_equal(ac_session_fork(&child, dir, parent, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_session_fork_options version 0"));
	assert_false(tu_exists(dir, "f3.json"));

	/* From a checkpoint's history. */
	history = json_pack("[{s:s, s:s}]", "role", "user", "content", "from the checkpoint");
	opts = (ac_session_fork_options){.version = AC_SESSION_FORK_OPTIONS_VERSION,
					 .checkpoint_history = history, .checkpoint_id = "c9"};
	assert_int_equal(ac_session_fork(&child, dir, parent, &opts), 0);
	assert_int_equal(json_array_size(ac_session_messages(child)), 1);
	p = json_object_get(json_object_get(ac_session_root(child), "metadata"), "parent");
	assert_string_equal(json_string_value(json_object_get(p, "checkpointId")), "c9");
	assert_null(json_object_get(p, "atMessage"));
	ac_session_free(child);
	json_decref(history);
	ac_session_free(parent);
	json_decref(root);
	tu_remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_huge_line),
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_fork),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
