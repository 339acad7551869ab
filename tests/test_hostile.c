/* Named hostile inputs (issue: proof under hostile input). Each test is one
 * case a file written by another program may hold, checked where it would
 * do harm: on the terminal, in a reader, or in a path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_event.h"
#include "ac_file.h"
#include "ac_journal_scan.h"
#include "ac_proc.h"
#include "ac_session.h"
#include "ac_session_index.h"
#include "ac_source.h"
#include "ac_text.h"
#include "ac_turn_usage.h"
#include "ac_usage_report.h"

#include <dirent.h>
#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

/* What a terminal would receive: no byte below 0x20 but none at all, no
 * DEL, no C1 (UTF-8 C2 80..9F), no bidi override or isolate. */
static void assert_terminal_safe(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c < 0x20 || c == 0x7f)
			fail_msg("control byte 0x%02x at %zu", c, i);
		if (c == 0xc2 && i + 1 < len && (unsigned char)text[i + 1] >= 0x80 &&
		    (unsigned char)text[i + 1] <= 0x9f)
			fail_msg("C1 control at %zu", i);
		if (c == 0xe2 && i + 2 < len && (unsigned char)text[i + 1] == 0x80 &&
		    (unsigned char)text[i + 2] >= 0xaa && (unsigned char)text[i + 2] <= 0xae)
			fail_msg("bidi embedding/override at %zu", i);
		if (c == 0xe2 && i + 2 < len && (unsigned char)text[i + 1] == 0x81 &&
		    (unsigned char)text[i + 2] >= 0xa6 && (unsigned char)text[i + 2] <= 0xa9)
			fail_msg("bidi isolate at %zu", i);
		if (c == 0xe2 && i + 2 < len && (unsigned char)text[i + 1] == 0x80 &&
		    ((unsigned char)text[i + 2] == 0xa8 || (unsigned char)text[i + 2] == 0xa9))
			fail_msg("line or paragraph separator at %zu", i);
		if (c == 0xf3 && i + 1 < len && (unsigned char)text[i + 1] == 0xa0)
			fail_msg("tag character or variation selector supplement at %zu", i);
		if ((c == 0xc2 && i + 1 < len && (unsigned char)text[i + 1] == 0xad) ||
		    (c == 0xcd && i + 1 < len && (unsigned char)text[i + 1] == 0x8f))
			fail_msg("soft hyphen or combining grapheme joiner at %zu", i);
	}
}

static char *sanitized(const char *text, size_t len)
{
	ac_buf out = AC_BUF_INIT;

	assert_int_equal(ac_text_sanitize(&out, text, len), 0);
	assert_terminal_safe(out.data, out.len);
	return ac_buf_detach(&out);
}

static void expect_shown_as(const char *hostile, size_t len, const char *shown)
{
	char *got = sanitized(hostile, len);

	assert_string_equal(got, shown);
	free(got);
}

#define EXPECT(hostile, shown) expect_shown_as(hostile, sizeof(hostile) - 1, shown)

static void test_csi_sequences(void **state)
{
	(void)state;
	EXPECT("\x1b[2J\x1b[31mred", "^[[2J^[[31mred");
	EXPECT("\x1b[6n", "^[[6n"); /* a device status query would make the terminal answer */
}

static void test_osc_title_hyperlink_clipboard(void **state)
{
	(void)state;
	EXPECT("\x1b]0;owned\x07", "^[]0;owned^G");
	EXPECT("\x1b]8;;http://evil/\x1b\\click\x1b]8;;\x1b\\", "^[]8;;http://evil/^[\\click^[]8;;^[\\");
	EXPECT("\x1b]52;c;cm0gLXJmIH4=\x07", "^[]52;c;cm0gLXJmIH4=^G");
}

static void test_dcs_and_unterminated(void **state)
{
	(void)state;
	EXPECT("\x1bP1$qm\x1b\\", "^[P1$qm^[\\");
	EXPECT("\x1b]0;never ends", "^[]0;never ends");
	EXPECT("\x1b", "^[");
}

static void test_eight_bit_c1(void **state)
{
	(void)state;
	EXPECT("\xc2\x9b" "31m", "<U+009B>31m"); /* 8-bit CSI */
	EXPECT("\xc2\x9d" "0;t\xc2\x9c", "<U+009D>0;t<U+009C>");
	EXPECT("\x9b", "\\x9B"); /* a lone C1 byte is not UTF-8 */
}

static void test_carriage_return_and_backspace(void **state)
{
	(void)state;
	EXPECT("safe\rEVIL", "safe^MEVIL");
	EXPECT("rm -rf /\b\b\b\b\b\b\b\bls", "rm -rf /^H^H^H^H^H^H^H^Hls");
}

static void test_bidi_overrides(void **state)
{
	(void)state;
	EXPECT("\xe2\x80\xae" "txt.exe", "<U+202E>txt.exe");
	EXPECT("\xe2\x81\xa6" "a\xe2\x81\xa9", "<U+2066>a<U+2069>");
	EXPECT("zero\xe2\x80\x8bwidth", "zero<U+200B>width");
}

/* Issue 11 item 13: characters that draw nothing or break the line. */
static void test_invisible_format_characters(void **state)
{
	(void)state;
	EXPECT("hi\xf3\xa0\x81\x81\xf3\xa0\x81\xbf", "hi<U+E0041><U+E007F>"); /* tags */
	EXPECT("a\xe2\x80\xa8" "b\xe2\x80\xa9", "a<U+2028>b<U+2029>");
	EXPECT("soft\xc2\xadhyphen", "soft<U+00AD>hyphen");
	EXPECT("e\xcd\x8f", "e<U+034F>");
	EXPECT("\xe2\x81\xa0\xe2\x81\xa4\xef\xbb\xbf", "<U+2060><U+2064><U+FEFF>");
	EXPECT("\xe2\x80\x8e\xe2\x80\x8f", "<U+200E><U+200F>");
	EXPECT("x\xef\xb8\x80", "x<U+FE00>");
	/* Emoji presentation stays: it is in ordinary text everywhere. */
	EXPECT("\xe2\x9d\xa4\xef\xb8\x8f", "\xe2\x9d\xa4\xef\xb8\x8f");
}

/* --json output: DEL and the same characters as \u escapes (a surrogate
 * pair beyond U+FFFF), so the JSON means the same and shows them. */
static void test_json_output_escapes_del_and_invisible(void **state)
{
	static const char json[] = "{\"m\":\"a\x7f" "b\xf3\xa0\x81\x81\xe2\x80\xa8\xc2\xad\"}";
	ac_buf out = AC_BUF_INIT;

	(void)state;
	assert_int_equal(ac_text_json_safe(&out, json, sizeof(json) - 1), 0);
	assert_string_equal(out.data, "{\"m\":\"a\\u007fb\\udb40\\udc41\\u2028\\u00ad\"}");
	ac_buf_free(&out);
}

static void test_invalid_utf8_and_nul(void **state)
{
	(void)state;
	expect_shown_as("a\0b", 3, "a^@b");
	EXPECT("\xff\xfe", "\\xFF\\xFE");
	EXPECT("\xc0\xaf", "\\xC0\\xAF");        /* overlong '/' */
	/* An encoded surrogate, as a lone one read from JSON is held: its
	 * escape, the code unit the text holds. */
	EXPECT("\xed\xa0\x80", "\\ud800");
	EXPECT("\xe6\x97", "\\xE6\\x97");        /* cut short */
	EXPECT("한국어 日本語 😀", "한국어 日本語 😀");
	/* What is shown escaped above is exactly what is not UTF-8 (and so
	 * cannot name a transcript or stand in a JSON report). */
	assert_false(ac_text_is_utf8("\xff\xfe", 2));
	assert_false(ac_text_is_utf8("\xc0\xaf", 2));
	assert_false(ac_text_is_utf8("\xed\xa0\x80", 3));
	assert_false(ac_text_is_utf8("\xe6\x97", 2));
	assert_false(ac_text_is_utf8("\xf4\x90\x80\x80", 4)); /* past U+10FFFF */
	assert_true(ac_text_is_utf8("a\0b", 3));
	assert_true(ac_text_is_utf8("한국어 日本語 😀", strlen("한국어 日本語 😀")));
	assert_true(ac_text_is_utf8("", 0));
}

static int counter(const ac_scan_match *m, void *ctx)
{
	(void)m;
	(*(int *)ctx)++;
	return 0;
}

/* A journal holding a 10 MB line, a deeply nested one and a NUL: readers
 * skip them, count them, and go on to the good events. */
static void test_journal_with_huge_nested_and_nul_lines(void **state)
{
	char *dir = tu_make_temp_dir(), *path = tu_path(dir, "JOURNAL.jsonl");
	size_t big = 10u << 20, deep = 100000;
	char *line = malloc(big + 2);
	ac_scan_stats stats = {0};
	ac_query *all;
	int count = 0;

	(void)state;
	tu_append_file(path, tu_event_line("Claude", "first"), strlen(tu_event_line("Claude", "first")));
	tu_append_file(path, "\n", 1);
	memset(line, 'x', big);
	memcpy(line, "{\"a\":\"", 6);
	line[big] = '\n';
	tu_append_file(path, line, big + 1);
	memset(line, '[', deep);
	line[deep] = '\n';
	tu_append_file(path, line, deep + 1);
	tu_append_file(path, "{\"nul\":\"a\0b\"}\n", 14);
	tu_append_file(path, tu_event_line("Codex", "last"), strlen(tu_event_line("Codex", "last")));
	tu_append_file(path, "\n", 1);
	assert_int_equal(ac_query_parse(&all, NULL, 0), 0);
	{
		const char *paths[] = {path};

		assert_int_equal(ac_journal_scan(&stats, paths, 1, all, 0, NULL, counter, &count), 0);
	}
	assert_int_equal(count, 2);
	assert_int_equal(stats.invalid, 3);
	ac_query_free(all);
	free(line);
	tu_remove_tree(dir);
	free(dir);
	free(path);
}

static void test_ids_that_climb_out(void **state)
{
	/* Control bytes do not climb out: a session file may be named with
	 * them (test_session.c test_ids_are_checked_before_any_path). */
	const char *bad[] = {"../x", "..", "a/../../etc/passwd", "/etc/passwd", ".hidden"};
	char *dir = tu_make_temp_dir();
	ac_session *s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ac_session_load(&s, dir, bad[i]), AC_EINVAL);
		assert_int_equal(ac_session_create(NULL, dir, bad[i], "t", NULL, NULL, NULL), AC_EINVAL);
		assert_int_equal(ac_session_set_status(NULL, dir, bad[i], "paused"), AC_EINVAL);
	}
	tu_remove_tree(dir);
	free(dir);
}

/* A symlink planted where a temp file might go, and at the target: the
 * write never follows either, and nothing outside changes. */
static void test_symlinks_planted_at_paths(void **state)
{
	char *dir = tu_make_temp_dir(), *victim = tu_path(dir, "victim"), *target, *text;

	(void)state;
	tu_write_file(victim, "precious", 8);
	/* Temp names carry a random part, so plant every name a writer of this
	 * process could guess and check the real file still gets written. */
	target = tu_path(dir, "s.json");
	assert_int_equal(symlink(victim, target), 0);
	assert_int_equal(ac_session_create(NULL, dir, "s", "t", NULL, NULL, NULL), AC_EINVAL);
	unlink(target);
	assert_int_equal(ac_atomic_write(target, "new", 3, NULL, NULL), 0);
	text = tu_read_file(victim, NULL);
	assert_string_equal(text, "precious");
	free(text);
	text = tu_read_file(target, NULL);
	assert_string_equal(text, "new");
	free(text);
	tu_remove_tree(dir);
	free(dir);
	free(victim);
	free(target);
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* The rollback's write (no fsync; a swap when a file stands there): it
 * replaces a file, or a link itself (never what the link names), creates
 * a missing one, refuses a folder, and leaves no temp file in any case. */
static void test_unsynced_write_replaces_only_files(void **state)
{
	char *dir = tu_make_temp_dir(), *file = tu_path(dir, "file"), *link = tu_path(dir, "link"),
	     *victim = tu_path(dir, "victim"), *folder = tu_path(dir, "folder"),
	     *fresh = tu_path(dir, "fresh"), *missing = tu_path(dir, "missing/x");
	struct stat st;

	(void)state;
	tu_write_file(file, "old", 3);
	tu_write_file(victim, "precious", 8);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(mkdir(folder, 0755), 0);
	tu_put(folder, "child", "kept");

	assert_int_equal(ac_atomic_write_unsynced(file, "new", 3), 0);
	tu_assert_file(dir, "file", "new");
	assert_int_equal(ac_atomic_write_unsynced(link, "data", 4), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	tu_assert_file(dir, "link", "data");
	tu_assert_file(dir, "victim", "precious");
	assert_int_not_equal(ac_atomic_write_unsynced(folder, "x", 1), 0);
	tu_assert_file(folder, "child", "kept");
	assert_int_equal(ac_atomic_write_unsynced(fresh, "", 0), 0);
	tu_assert_file(dir, "fresh", "");
	assert_int_not_equal(ac_atomic_write_unsynced(missing, "x", 1), 0);
	assert_int_equal(count_entries(dir), 5); /* file link victim folder fresh */

	assert_int_equal(ac_file_sync_fs(dir), 0);
	assert_int_equal(ac_file_sync_fs(missing), AC_ENOTFOUND);
	assert_non_null(strstr(ac_error_last(), "missing/x"));
	tu_remove_tree(dir);
	free(dir);
	free(file);
	free(link);
	free(victim);
	free(folder);
	free(fresh);
	free(missing);
}

static void test_session_file_that_is_a_folder_or_fifo(void **state)
{
	char *dir = tu_make_temp_dir(), *path;
	ac_session_index *index;
	ac_session *s;
	size_t n;

	(void)state;
	path = tu_path(dir, "d.json");
	mkdir(path, 0755);
	free(path);
	path = tu_path(dir, "f.json");
	assert_int_equal(mkfifo(path, 0644), 0);
	free(path);
	/* Neither blocks (a FIFO with no writer would hang a naive open). */
	assert_int_equal(ac_session_load(&s, dir, "d"), AC_ECORRUPT);
	assert_int_equal(ac_session_load(&s, dir, "f"), AC_ECORRUPT);
	assert_int_equal(ac_session_index_new(&index, dir), 0);
	assert_int_equal(ac_session_index_refresh(index, NULL, NULL, NULL), 0);
	ac_session_index_list(index, &n);
	assert_int_equal(n, 0);
	assert_int_equal(ac_session_index_problems(index), 2);
	ac_session_index_free(index);
	tu_remove_tree(dir);
	free(dir);
}

/* Issue 11 item 11: JSON that JSON.parse reads loads, and a rewrite keeps
 * the values jansson cannot hold byte for byte. */
static void test_session_with_nul_and_numbers_jansson_cannot_hold(void **state)
{
	static const char doc[] =
		"{\n  \"id\": \"n\",\n  \"status\": \"running\",\n  \"task\": \"t\",\n"
		"  \"conversationHistory\": [\n    {\n      \"role\": \"user\",\n"
		"      \"content\": \"a\\u0000b\",\n      \"big\": 1e999,\n"
		"      \"huge\": 123456789012345678901234567890,\n"
		"      \"neg\": -123456789012345678901234567890.5E-7,\n"
		"      \"tenth\": 0.1,\n      \"zero\": -0,\n      \"n\": [1e999, -1e999, 7]\n    }\n  ],\n"
		"  \"metadata\": {}\n}";
	static const char *const kept[] = {
		"\"a\\u0000b\"", "\"big\": 1e999,", "\"huge\": 123456789012345678901234567890,",
		"\"neg\": -123456789012345678901234567890.5E-7,", "\"tenth\": 0.1,",
		"\"zero\": -0,", "1e999,\n", "-1e999,\n", "7\n",
	};
	char *dir = tu_make_temp_dir(), *path = tu_path(dir, "n.json"), *text;
	ac_session *s = NULL;
	json_t *content;

	(void)state;
	tu_write_file(path, doc, sizeof(doc) - 1);
	if (ac_session_load(&s, dir, "n") != 0)
		fail_msg("load: %s", ac_error_last());
	content = json_object_get(json_array_get(ac_session_messages(s), 0), "content");
	assert_int_equal(json_string_length(content), 3);
	ac_session_free(s);
	if (ac_session_set_status(NULL, dir, "n", "paused") != 0)
		fail_msg("pause: %s", ac_error_last());
	text = tu_read_file(path, NULL);
	assert_non_null(strstr(text, "\"status\": \"paused\""));
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (!strstr(text, kept[i]))
			fail_msg("'%s' not kept in:\n%s", kept[i], text);
	assert_null(strstr(text, "ac-number-"));
	free(text);
	/* A broken file is still named with its line and column. */
	tu_write_file(path, "{\n \"big\": 1e999,\n \"x\": tru }", 28);
	assert_int_equal(ac_session_load(&s, dir, "n"), AC_ECORRUPT);
	assert_non_null(strstr(ac_error_last(), "line 3 column"));
	tu_remove_tree(dir);
	free(dir);
	free(path);
}

/* Issue 11 item 12: an id is accepted exactly when its file can be
 * written; a longer one is refused with the limit, and a file named with one
 * is reported by the listing rather than listed and then unwritable. */
static void test_ids_too_long_to_write(void **state)
{
	char *dir = tu_make_temp_dir(), longest[AC_SESSION_ID_MAX + 1], over[AC_SESSION_ID_MAX + 2];
	char over_name[AC_SESSION_ID_MAX + 8], *path;
	const ac_session_summary *const *list;
	ac_session_index *index;
	size_t n;

	(void)state;
	assert_int_equal(AC_SESSION_ID_MAX, 228);
	memset(longest, 'a', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	memset(over, 'b', sizeof(over) - 1);
	over[sizeof(over) - 1] = '\0';
	if (ac_session_create(NULL, dir, longest, "t", NULL, NULL, NULL) != 0)
		fail_msg("create: %s", ac_error_last());
	if (ac_session_set_status(NULL, dir, longest, "paused") != 0)
		fail_msg("pause: %s", ac_error_last());
	assert_int_equal(ac_session_create(NULL, dir, over, "t", NULL, NULL, NULL), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "longer than 228 bytes"));
	/* Another program wrote one anyway. */
	snprintf(over_name, sizeof(over_name), "%s.json", over);
	path = tu_path(dir, over_name);
	tu_write_file(path, "{\"id\":\"b\",\"status\":\"running\"}", 29);
	assert_int_equal(ac_session_index_new(&index, dir), 0);
	assert_int_equal(ac_session_index_refresh(index, NULL, NULL, NULL), 0);
	list = ac_session_index_list(index, &n);
	assert_int_equal(n, 1);
	assert_string_equal(list[0]->id, longest);
	assert_int_equal(ac_session_index_problems(index), 1);
	ac_session_index_free(index);
	tu_remove_tree(dir);
	free(dir);
	free(path);
}

/* A FIFO planted as a session's per-turn usage sidecar
 * (.agent/sessions/.usage/<id>.jsonl): a plain open() waits for a writer
 * forever, and `usage`, `session show` and the dashboard with it. A link
 * is not followed; a sparse file of 600 MB is refused, not read whole. The
 * alarm only turns that hang into a failure; nothing here is timed. */
static void test_turn_usage_sidecar_fifo_or_link(void **state)
{
	char *dir = tu_make_temp_dir(), *usage_dir, *path;
	json_t *loaded = NULL;

	(void)state;
	usage_dir = tu_path(dir, ".usage");
	assert_int_equal(mkdir(usage_dir, 0755), 0);
	path = tu_path(usage_dir, "s1.jsonl");
	assert_int_equal(mkfifo(path, 0644), 0);
	alarm(20);
	assert_int_equal(ac_turn_usage_load(&loaded, dir, "s1", NULL), AC_ECORRUPT);
	assert_non_null(strstr(ac_error_last(), "s1.jsonl"));
	assert_null(loaded);
	free(path);
	/* A link to a file outside is not followed. */
	path = tu_path(usage_dir, "s2.jsonl");
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(ac_turn_usage_load(&loaded, dir, "s2", NULL), AC_ECORRUPT);
	assert_non_null(strstr(ac_error_last(), "symbolic link"));
	/* A sparse file far past any session's rows: refused, not read. */
	free(path);
	path = tu_path(usage_dir, "s4.jsonl");
	tu_write_file(path, "{\"turn\":1,\"usage\":{}}\n", 23);
	assert_int_equal(truncate(path, (off_t)600 * 1024 * 1024), 0);
	assert_int_equal(ac_turn_usage_load(&loaded, dir, "s4", NULL), AC_ECORRUPT);
	assert_non_null(strstr(ac_error_last(), "s4.jsonl: larger than"));
	alarm(0);
	/* Absent: no rows, not an error. */
	assert_int_equal(ac_turn_usage_load(&loaded, dir, "s3", NULL), 0);
	assert_int_equal(json_array_size(json_object_get(loaded, "turns")), 0);
	json_decref(loaded);
	free(path);
	free(usage_dir);
	tu_remove_tree(dir);
	free(dir);
}

/* A transcript's id (a Claude Code file name, a Codex session_meta id, a
 * Gemini sessionId, or the sources cache) becomes the argument of
 * `claude --resume {id}`: a whole argument still reads as an option. */
static void test_transcript_ids_that_read_as_options(void **state)
{
	static const char *const bad[] = {
		"--dangerously-skip-permissions", "-c", "", "a b", "../x", "x/y", "a;rm -rf ~",
		"$(id)", "\x1b]0;t\x07", "id\n--yolo", "caf\xc3\xa9",
	};
	char longest[130];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (ac_source_id_check(bad[i]) != AC_EINVAL)
			fail_msg("accepted id #%zu", i);
		assert_non_null(strstr(ac_error_last(), "not resumed"));
		assert_terminal_safe(ac_error_last(), strlen(ac_error_last()));
	}
	assert_int_equal(ac_source_id_check(NULL), AC_EINVAL);
	assert_int_equal(ac_source_id_check("c1a0de00-1111-4222-8333-444455556666"), 0);
	assert_int_equal(ac_source_id_check("rollout_2025.x-1"), 0);
	memset(longest, 'a', sizeof(longest));
	longest[128] = '\0';
	assert_int_equal(ac_source_id_check(longest), 0);
	longest[128] = 'a';
	longest[129] = '\0';
	assert_int_equal(ac_source_id_check(longest), AC_EINVAL);
}

/* Rows another program wrote with costs that sum past a double's range:
 * the totals (and every record-turn after them) failed as "out of
 * memory", since JSON holds no infinity. Such a cost is unknown. */
static void test_turn_usage_rows_whose_costs_overflow(void **state)
{
	static const char rows[] =
		"{\"turn\":1,\"usage\":{\"inputTokens\":1,\"costUsd\":1e308}}\n"
		"{\"turn\":2,\"usage\":{\"inputTokens\":2,\"costUsd\":1e308}}\n"
		"{\"turn\":3,\"usage\":{\"inputTokens\":4,\"costUsd\":-1}}\n";
	char *dir = tu_make_temp_dir();
	json_t *loaded = NULL, *totals;

	(void)state;
	tu_put(dir, ".usage/s1.jsonl", rows);
	if (ac_turn_usage_load(&loaded, dir, "s1", NULL) != 0)
		fail_msg("load: %s", ac_error_last());
	totals = json_object_get(loaded, "totals");
	assert_int_equal(json_integer_value(json_object_get(totals, "inputTokens")), 7);
	assert_null(json_object_get(totals, "costUsd"));
	json_decref(loaded);
	tu_remove_tree(dir);
	free(dir);
}

/* A transcript with a line far longer than any tool writes (here 80 MB
 * of a sparse file's zeros, as `truncate -s 1G` leaves): it was held whole
 * and handed to the parser (1 GB of memory and seconds for a 1 GB file,
 * at each start); now it is skipped to its end, counted, and the lines
 * around it read, in one read or across two. */
static void test_transcript_line_past_the_limit(void **state)
{
	char *dir = tu_make_temp_dir(), *path, line[512];
	ac_source_session *s = NULL;
	json_t *messages = NULL;
	FILE *f;

	(void)state;
	path = tu_path(dir, "c1a0de00-1111-4222-8333-444455556666.jsonl");
	snprintf(line, sizeof(line),
		 "{\"cwd\":\"%s\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":"
		 "\"before\"},\"uuid\":\"u1\",\"timestamp\":\"2025-10-01T10:00:00.000Z\"}\n", dir);
	tu_write_file(path, line, strlen(line));
	assert_int_equal(truncate(path, (off_t)strlen(line) + 80 * 1024 * 1024), 0);
	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_CLAUDE, path), 0);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_int_equal(s->messages, 1);
	assert_int_equal(s->malformed, 1);
	assert_true(s->bytes_parsed < 4096);
	/* The line ends, and one more follows. */
	assert_non_null(f = fopen(path, "a"));
	fputs("\n{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":\"after\"},"
	      "\"uuid\":\"u2\",\"timestamp\":\"2025-10-01T10:00:01.000Z\"}\n", f);
	fclose(f);
	assert_int_equal(ac_source_session_read(s, NULL), 0);
	assert_int_equal(s->messages, 2);
	assert_int_equal(s->malformed, 1);
	assert_true(s->bytes_parsed < 4096);
	assert_int_equal(ac_source_session_conversation(&messages, s), 0);
	assert_int_equal(json_array_size(messages), 2);
	json_decref(messages);
	ac_source_session_free(s);
	free(path);
	tu_remove_tree(dir);
	free(dir);
}

/* The .usage folder itself a link to a folder outside the workspace:
 * rows were written (and read) there, O_NOFOLLOW guarding only the file's
 * own name. */
static void test_turn_usage_folder_that_is_a_link(void **state)
{
	char *dir = tu_make_temp_dir(), *outside = tu_make_temp_dir(), *link;
	json_t *loaded = NULL;

	(void)state;
	link = tu_path(dir, ".usage");
	assert_int_equal(symlink(outside, link), 0);
	tu_put(outside, "s1.jsonl", "{\"turn\":1,\"usage\":{\"inputTokens\":5}}\n");
	assert_int_equal(ac_turn_usage_load(&loaded, dir, "s1", NULL), AC_ECORRUPT);
	assert_non_null(strstr(ac_error_last(), ".usage: is a symbolic link"));
	assert_null(loaded);
	tu_remove_tree(dir);
	tu_remove_tree(outside);
	free(dir);
	free(outside);
	free(link);
}

/* pricing may come from a project file: 1e308 per million tokens made
 * every cost infinite, and `usage` failed as "out of memory". */
static void test_pricing_past_any_model(void **state)
{
	json_t *huge = json_pack("{s:{s:f}}", "m", "input", 1e308);
	json_t *dear = json_pack("{s:{s:f, s:f}}", "m", "input", 1e6, "output", 75.0);

	(void)state;
	assert_int_equal(ac_usage_pricing_check(huge), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "pricing.m.input"));
	assert_int_equal(ac_usage_pricing_check(dear), 0);
	json_decref(huge);
	json_decref(dear);
}

/* An agent names its session file "--dangerously-skip-permissions.json":
 * the operator's resumeCommand ["claude", "--resume", "{id}"] (or a hook's
 * "{id}") would hand the tool an option, however whole an argument. */
static void test_placeholder_values_that_read_as_options(void **state)
{
	static const char *const names[] = AC_PROC_PLACEHOLDERS;
	const char *const template[] = {"claude", "--resume", "{id}", NULL};
	const char *values[] = {"--dangerously-skip-permissions", NULL};
	char **argv = NULL;

	(void)state;
	assert_int_equal(ac_proc_expand_argv(&argv, template, names, values), AC_EINVAL);
	assert_null(argv);
	assert_non_null(strstr(ac_error_last(), "starts with '-'"));
	values[0] = "s-1";
	assert_int_equal(ac_proc_expand_argv(&argv, template, names, values), 0);
	assert_string_equal(argv[2], "s-1");
	ac_proc_argv_free(argv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unsynced_write_replaces_only_files),
		cmocka_unit_test(test_csi_sequences),
		cmocka_unit_test(test_osc_title_hyperlink_clipboard),
		cmocka_unit_test(test_dcs_and_unterminated),
		cmocka_unit_test(test_eight_bit_c1),
		cmocka_unit_test(test_carriage_return_and_backspace),
		cmocka_unit_test(test_bidi_overrides),
		cmocka_unit_test(test_invisible_format_characters),
		cmocka_unit_test(test_json_output_escapes_del_and_invisible),
		cmocka_unit_test(test_invalid_utf8_and_nul),
		cmocka_unit_test(test_journal_with_huge_nested_and_nul_lines),
		cmocka_unit_test(test_ids_that_climb_out),
		cmocka_unit_test(test_symlinks_planted_at_paths),
		cmocka_unit_test(test_session_file_that_is_a_folder_or_fifo),
		cmocka_unit_test(test_session_with_nul_and_numbers_jansson_cannot_hold),
		cmocka_unit_test(test_ids_too_long_to_write),
		cmocka_unit_test(test_turn_usage_sidecar_fifo_or_link),
		cmocka_unit_test(test_transcript_ids_that_read_as_options),
		cmocka_unit_test(test_turn_usage_rows_whose_costs_overflow),
		cmocka_unit_test(test_transcript_line_past_the_limit),
		cmocka_unit_test(test_turn_usage_folder_that_is_a_link),
		cmocka_unit_test(test_pricing_past_any_model),
		cmocka_unit_test(test_placeholder_values_that_read_as_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
