/* A Claude Code message streamed over several lines (same message.id and
 * requestId, output_tokens 25 on the first line and 250 on the last) is
 * counted once with its final counts: read whole, read in two parts (the
 * second in a later scan, from the persisted index), and when its lines
 * are in two files (a resumed session), whichever is read first; and the
 * tokens a session row shows (ac_source) follow the same rule.
 * Fixture: tests/fixtures/usage-stream (README cites the sources). */
#include "ac_error.h"
#include "ac_source.h"
#include "ac_usage_index.h"
#include "ac_usage_record.h"
#include "ac_usage_report.h"

#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OK(expr)                                                                   \
	do {                                                                           \
		int rc_ = (expr);                                                          \
		if (rc_ != 0)                                                              \
			fail_msg("%s: %d (%s)", #expr, rc_, ac_error_last());              \
	} while (0)

#define SESSION ".claude/projects/-ws/5a5a5a5a-0000-4000-8000-000000000001.jsonl"

typedef struct {
	char *root, *home, *index, *path, *text;
	size_t len;
	ac_usage_set set;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->root = tu_copy_fixture("usage-stream");
	f->home = tu_path(f->root, "home");
	f->index = tu_path(f->root, "cache/usage-index.bin");
	f->path = tu_path(f->home, SESSION);
	f->text = tu_read_file(f->path, &f->len);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ac_usage_set_free(&f->set);
	tu_remove_tree(f->root);
	free(f->root);
	free(f->home);
	free(f->index);
	free(f->path);
	free(f->text);
	free(f);
	return 0;
}

static void scan(fixture *f)
{
	char *claude = tu_path(f->home, ".claude/projects");
	ac_usage_scan_options o = {.version = AC_USAGE_SCAN_OPTIONS_VERSION,
				   .claude_dir = claude, .index_path = f->index};

	ac_usage_set_free(&f->set);
	OK(ac_usage_scan(&f->set, &o));
	free(claude);
}

static ac_usage_counts sum(const fixture *f, uint64_t *calls)
{
	ac_usage_counts c = {0};

	*calls = 0;
	for (size_t i = 0; i < f->set.n; i++) {
		c.input += f->set.buckets[i].counts.input;
		c.output += f->set.buckets[i].counts.output;
		c.cache_create += f->set.buckets[i].counts.cache_create;
		c.cache_read += f->set.buckets[i].counts.cache_read;
		*calls += f->set.buckets[i].calls;
	}
	return c;
}

/* Both messages, msg_stream_1 with its final counts, each once. */
static void assert_final(const fixture *f)
{
	uint64_t calls;
	ac_usage_counts c = sum(f, &calls);

	assert_int_equal(calls, 2);
	assert_int_equal(c.output, 250 + 9);
	assert_int_equal(c.input, 3 + 5);
	assert_int_equal(c.cache_create, 200);
	assert_int_equal(c.cache_read, 4000 + 4200);
}

/* The first n lines of the fixture's text (n whole lines). */
static size_t lines(const fixture *f, int n)
{
	const char *p = f->text;

	while (n-- > 0)
		p = strchr(p, '\n') + 1;
	return (size_t)(p - f->text);
}

static void test_whole_read(void **state)
{
	fixture *f = *state;

	scan(f);
	assert_final(f);
	/* Warm: nothing read, the same. */
	scan(f);
	assert_int_equal(f->set.files_read, 0);
	assert_final(f);
}

/* The first line of the message in one scan, the rest appended before the
 * next: the next scan (the index loaded from disk, as a new process does)
 * reads only the new bytes and replaces 25 by 250, adding no call. */
static void test_split_across_scans(void **state)
{
	fixture *f = *state;
	size_t two = lines(f, 2);
	uint64_t calls;

	tu_write_file(f->path, f->text, two);
	scan(f);
	assert_int_equal(sum(f, &calls).output, 25);
	assert_int_equal(calls, 1);
	tu_append_file(f->path, f->text + two, f->len - two);
	scan(f);
	assert_false(f->set.index_rebuilt);
	assert_int_equal(f->set.files_reread, 0);
	assert_int_equal(f->set.bytes_read, f->len - two);
	assert_final(f);
	/* A third run, nothing new: the same. */
	scan(f);
	assert_final(f);
}

/* The extractor alone, the text in two reads with its state carried: the
 * message's record comes again with its larger counts and the same key
 * (the receiver replaces), a repeat no larger does not come. */
typedef struct {
	uint64_t key[8], output[8];
	size_t n;
} seen;

static int collect(const ac_usage_record *r, void *ctx)
{
	seen *s = ctx;

	if (s->n == 8)
		return -1;
	s->key[s->n] = r->key;
	s->output[s->n++] = r->counts.output;
	return 0;
}

static void test_extract_in_two_reads(void **state)
{
	fixture *f = *state;
	ac_usage_file_state st = {0};
	seen s = {0};
	size_t two = lines(f, 2), skipped = 0;

	OK(ac_usage_claude_extract(&st, f->text, two, "x", collect, &s, &skipped));
	OK(ac_usage_claude_extract(&st, f->text + two, f->len - two, "x", collect, &s, &skipped));
	assert_int_equal(skipped, 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.output[0], 25);
	assert_int_equal(s.output[1], 250);
	assert_true(s.key[0] == s.key[1] && s.key[0] != 0);
	assert_int_equal(s.output[2], 9);
	/* The first line again (a resumed copy): smaller, nothing. */
	OK(ac_usage_claude_extract(&st, f->text, two, "x", collect, &s, &skipped));
	assert_int_equal(s.n, 3);
	ac_usage_file_state_free(&st);
}

/* A line without requestId (Claude Code 2.x may leave it out): the
 * message id alone is the key, so the streamed lines still make one
 * message. */
static void test_no_request_id(void **state)
{
	static const char text[] =
		"{\"type\":\"assistant\",\"timestamp\":\"2026-11-20T10:00:01.000Z\",\"message\":"
		"{\"id\":\"msg_n\",\"usage\":{\"input_tokens\":3,\"output_tokens\":25}}}\n"
		"{\"type\":\"assistant\",\"timestamp\":\"2026-11-20T10:00:02.000Z\",\"message\":"
		"{\"id\":\"msg_n\",\"usage\":{\"input_tokens\":3,\"output_tokens\":25}}}\n"
		"{\"type\":\"assistant\",\"timestamp\":\"2026-11-20T10:00:03.000Z\",\"message\":"
		"{\"id\":\"msg_n\",\"usage\":{\"input_tokens\":3,\"output_tokens\":250}}}\n";
	ac_usage_file_state st = {0};
	seen s = {0};
	size_t skipped = 0;

	(void)state;
	OK(ac_usage_claude_extract(&st, text, strlen(text), "x", collect, &s, &skipped));
	assert_int_equal(s.n, 2);
	assert_true(s.key[0] != 0 && s.key[0] == s.key[1]);
	assert_int_equal(s.output[1], 250);
	ac_usage_file_state_free(&st);
}

/* The message's lines in two files (a resumed session's new file repeats
 * them): one booking over both, raised to the larger, whichever file is
 * read first and whether the second comes in a later scan. */
static void test_lines_in_two_files(void **state)
{
	fixture *f = *state;
	size_t two = lines(f, 2);
	/* "0…" sorts before "5…": read first in one scan. */
	char *before = tu_path(f->home, ".claude/projects/-ws/0b0b0b0b-resumed.jsonl");

	tu_write_file(f->path, f->text, two);
	scan(f);
	tu_write_file(before, f->text + two, f->len - two);
	scan(f);
	assert_int_equal(f->set.files_read, 1);
	assert_final(f);
	/* Cold: the file with the final line is read first, the smaller
	 * line later adds nothing. */
	unlink(f->index);
	scan(f);
	assert_true(f->set.index_rebuilt);
	assert_final(f);
	/* The first file gets its own final line later: no second count. */
	tu_append_file(f->path, f->text + two, lines(f, 3) - two);
	scan(f);
	assert_final(f);
	free(before);
}

static uint64_t fnv(const unsigned char *p, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

/* The transcripts moved (a file renamed, a projects folder moved): the
 * index's entries of the old names own no message any more, so the files
 * under their new names book them all, in this run and the next. */
static void test_renamed_file_counted(void **state)
{
	fixture *f = *state;
	char *moved = tu_path(f->home, ".claude/projects/-ws/moved.jsonl");

	scan(f);
	assert_final(f);
	assert_int_equal(rename(f->path, moved), 0);
	scan(f);
	assert_final(f);
	scan(f);
	assert_int_equal(f->set.files_read, 0);
	assert_final(f);
	free(moved);
}

/* A resumed session's file repeats the earlier one's messages; the
 * earlier file is then deleted (Claude Code's cleanup of old transcripts):
 * its messages stay counted, from the file that still holds them. */
static void test_original_deleted(void **state)
{
	fixture *f = *state;
	char *copy = tu_path(f->home, ".claude/projects/-ws/9c9c9c9c-resumed.jsonl");

	tu_write_file(copy, f->text, f->len);
	scan(f);
	assert_final(f);
	assert_int_equal(unlink(f->path), 0);
	scan(f);
	assert_int_equal(f->set.files, 1);
	assert_final(f);
	scan(f);
	assert_int_equal(f->set.files_read, 0);
	assert_final(f);
	free(copy);
}

/* A forged index (valid checksum) whose booking names a bucket the entry
 * does not have: not believed, rebuilt, the same totals. */
static void test_forged_booking_rebuilt(void **state)
{
	fixture *f = *state;
	uint64_t key = ac_usage_key_hash("msg_stream_1", "req_stream_1"), sum;
	unsigned char *bytes, *at = NULL;
	size_t len;

	scan(f);
	bytes = (unsigned char *)tu_read_file(f->index, &len);
	for (size_t i = 0; i + 16 <= len && !at; i++)
		if (!memcmp(bytes + i, &key, 8)) /* little-endian, as the index */
			at = bytes + i;
	assert_non_null(at);
	if (!at) /* tells the compiler too: cmocka's fail is not noreturn */
		return;
	memset(at + 8, 0, 8);
	at[8] = 7; /* bucket 7 of 1 */
	sum = fnv(bytes, len - 8);
	memcpy(bytes + len - 8, &sum, 8);
	tu_write_file(f->index, (const char *)bytes, len);
	free(bytes);
	scan(f);
	assert_true(f->set.index_rebuilt);
	assert_final(f);
}

/* The session row's tokens: the streamed call once, with its final
 * counts, read whole and read in two parts (the source resumes at its
 * offset). */
static void test_session_row_tokens(void **state)
{
	fixture *f = *state;
	const uint64_t final = 3 + 200 + 4000 + 250 + 5 + 4200 + 9;
	ac_source_session *s = NULL;
	size_t two = lines(f, 2);

	OK(ac_source_session_new(&s, AC_SOURCE_CLAUDE, f->path));
	OK(ac_source_session_read(s, NULL));
	assert_int_equal(s->tokens, final);
	ac_source_session_free(s);
	s = NULL;
	tu_write_file(f->path, f->text, two);
	OK(ac_source_session_new(&s, AC_SOURCE_CLAUDE, f->path));
	OK(ac_source_session_read(s, NULL));
	assert_int_equal(s->tokens, 3 + 200 + 4000 + 25);
	tu_append_file(f->path, f->text + two, f->len - two);
	OK(ac_source_session_read(s, NULL));
	assert_int_equal(s->offset, f->len);
	assert_int_equal(s->tokens, final);
	ac_source_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_whole_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_across_scans, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extract_in_two_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lines_in_two_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_renamed_file_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_original_deleted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forged_booking_rebuilt, setup, teardown),
		cmocka_unit_test(test_no_request_id),
		cmocka_unit_test_setup_teardown(test_session_row_tokens, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
