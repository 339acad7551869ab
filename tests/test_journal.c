/* Journal appends, the lock file, torn tails, rotation and many writers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_error.h"
#include "ac_event.h"
#include "ac_journal.h"
#include "ac_time.h"
#include "ac_journal_reader.h"
#include "ac_journal_scan.h"
#include "ac_journal_split.h"
#include "ac_journal_store.h"
#include "ac_json_scan.h"
#include "ac_lock.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
	char *dir;
	char *journal;
	char *lock;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_make_temp_dir();
	f->journal = tu_path(f->dir, "JOURNAL.jsonl");
	f->lock = tu_path(f->dir, "JOURNAL.jsonl.lock");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	tu_remove_tree(f->dir);
	free(f->dir);
	free(f->journal);
	free(f->lock);
	free(f);
	return 0;
}

static void append_ok(const char *journal, const char *line)
{
	int rc = ac_journal_append(NULL, journal, line, strlen(line), NULL);

	if (rc != 0)
		fail_msg("append failed: %s", ac_error_last());
}

static void test_append_creates_and_appends_lines(void **state)
{
	fixture *f = *state;
	char *first = strdup(tu_event_line("Claude", "one"));
	char *contents, *expected;
	ac_journal_append_info info;

	append_ok(f->journal, first);
	assert_int_equal(ac_journal_append(&info, f->journal, "{\"x\":1}", 7, NULL), 0);
	assert_int_equal(info.offset, strlen(first) + 1);
	assert_false(info.repaired_torn_tail);
	assert_null(info.rotated_to);
	contents = tu_read_file(f->journal, NULL);
	expected = malloc(strlen(first) + 16);
	sprintf(expected, "%s\n{\"x\":1}\n", first);
	assert_string_equal(contents, expected);
	assert_int_equal(access(f->lock, F_OK), -1); /* the lock is gone */
	free(first);
	free(contents);
	free(expected);
}

static void test_append_refuses_multiline_record(void **state)
{
	fixture *f = *state;

	assert_int_equal(ac_journal_append(NULL, f->journal, "{}\n{}", 5, NULL), AC_EINVAL);
	assert_int_equal(access(f->journal, F_OK), -1);
}

static void test_torn_tail_starts_a_fresh_line(void **state)
{
	fixture *f = *state;
	const char *torn = "{\"id\":\"evt_2025";
	char *good = strdup(tu_event_line("Codex", "after the crash"));
	ac_journal_append_info info;
	ac_journal_reader *reader;
	ac_journal_line line;
	char *contents;

	size_t before;

	append_ok(f->journal, tu_event_line("Claude", "before"));
	free(tu_read_file(f->journal, &before));
	tu_append_file(f->journal, torn, strlen(torn));
	assert_int_equal(ac_journal_append(&info, f->journal, good, strlen(good), NULL), 0);
	assert_true(info.repaired_torn_tail);
	assert_int_equal(info.torn_offset, before);
	assert_int_equal(info.offset, before + strlen(torn) + 1);
	contents = tu_read_file(f->journal, NULL);
	assert_non_null(strstr(contents, "{\"id\":\"evt_2025\n{"));

	/* Readers see the torn fragment as its own line, never glued. */
	assert_int_equal(ac_journal_reader_open(&reader, f->journal, 0, UINT64_MAX, 1), 0);
	assert_int_equal(ac_journal_reader_next(reader, &line), 1);
	assert_int_equal(ac_journal_reader_next(reader, &line), 1);
	assert_int_equal(line.number, 2);
	assert_int_equal(line.len, strlen(torn));
	assert_int_equal(ac_journal_reader_next(reader, &line), 1);
	assert_int_equal(line.len, strlen(good));
	assert_memory_equal(line.text, good, line.len);
	assert_int_equal(ac_journal_reader_next(reader, &line), 0);
	ac_journal_reader_free(reader);
	free(contents);
	free(good);
}

static void test_reader_holds_back_unterminated_tail(void **state)
{
	fixture *f = *state;
	ac_journal_reader *reader;
	ac_journal_line line;
	uint64_t tail_offset;

	tu_write_file(f->journal, "{\"a\":1}\n{\"b\":", 13);
	assert_int_equal(ac_journal_reader_open(&reader, f->journal, 0, UINT64_MAX, 1), 0);
	assert_int_equal(ac_journal_reader_next(reader, &line), 1);
	assert_int_equal(ac_journal_reader_next(reader, &line), 0);
	assert_int_equal(ac_journal_reader_offset(reader), 8);
	assert_int_equal(ac_journal_reader_tail(reader, &tail_offset), 5);
	assert_int_equal(tail_offset, 8);
	ac_journal_reader_free(reader);

	/* Resuming at the offset once the line is complete yields it once. */
	tu_append_file(f->journal, "2}\n", 3);
	assert_int_equal(ac_journal_reader_open(&reader, f->journal, 8, UINT64_MAX, 2), 0);
	assert_int_equal(ac_journal_reader_next(reader, &line), 1);
	assert_int_equal(line.number, 2);
	assert_memory_equal(line.text, "{\"b\":2}", 7);
	assert_int_equal(ac_journal_reader_next(reader, &line), 0);
	assert_int_equal(ac_journal_reader_offset(reader), 16);
	ac_journal_reader_free(reader);
}

static void test_reader_reports_overlong_line_and_goes_on(void **state)
{
	fixture *f = *state;
	size_t big = AC_JOURNAL_MAX_LINE + 100;
	char *data = malloc(big + 16);
	ac_journal_reader *reader;
	ac_journal_line line;

	memset(data, 'x', big);
	memcpy(data + big, "\n{\"ok\":1}\n", 10);
	tu_write_file(f->journal, data, big + 10);
	assert_int_equal(ac_journal_reader_open(&reader, f->journal, 0, UINT64_MAX, 1), 0);
	assert_int_equal(ac_journal_reader_next(reader, &line), 1);
	assert_true(line.overlong);
	assert_int_equal(ac_journal_reader_next(reader, &line), 1);
	assert_false(line.overlong);
	assert_int_equal(line.number, 2);
	assert_int_equal(line.offset, big + 1);
	assert_memory_equal(line.text, "{\"ok\":1}", 8);
	assert_int_equal(ac_journal_reader_next(reader, &line), 0);
	ac_journal_reader_free(reader);
	free(data);
}

/* Over-long is a verdict on the line's length alone: the same whether its
 * newline came in the read that passed the limit or in a later one (here
 * two lines first leave the buffer at its largest with the long line
 * starting near its front, so that the long line's newline arrives in the
 * read that passes the limit), and whichever line start the reader began
 * at. */
static void test_overlong_verdict_does_not_depend_on_where_reading_began(void **state)
{
	fixture *f = *state;
	size_t first = (64u << 20) - (100u << 10), second = 200001;
	size_t at = first + second, big = AC_JOURNAL_MAX_LINE + 10;
	char *data = malloc(at + big + 32);
	uint64_t starts[] = {0, at};
	ac_journal_reader *reader;
	ac_journal_line line;

	memset(data, 'w', at);
	data[first - 1] = data[at - 1] = '\n';
	memset(data + at, 'x', big);
	memcpy(data + at + big, "\n{\"b\":2}\n", 9);
	tu_write_file(f->journal, data, at + big + 9);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(ac_journal_reader_open(&reader, f->journal, starts[i], UINT64_MAX,
							 starts[i] ? 3 : 1), 0);
		for (int skip = 0; starts[i] == 0 && skip < 2; skip++) {
			assert_int_equal(ac_journal_reader_next(reader, &line), 1);
			assert_false(line.overlong);
		}
		assert_int_equal(ac_journal_reader_next(reader, &line), 1);
		assert_true(line.overlong);
		assert_int_equal(line.number, 3);
		assert_int_equal(line.offset, at);
		assert_int_equal(ac_journal_reader_next(reader, &line), 1);
		assert_false(line.overlong);
		assert_int_equal(line.number, 4);
		assert_memory_equal(line.text, "{\"b\":2}", 7);
		assert_int_equal(ac_journal_reader_next(reader, &line), 0);
		ac_journal_reader_free(reader);
	}
	free(data);
}

static int note_check(const char *path, uint64_t number, uint64_t offset, const char *reason,
		      void *ctx)
{
	(void)path;
	return ac_buf_printf(ctx, "%llu@%llu %s\n", (unsigned long long)number,
			     (unsigned long long)offset, reason);
}

/* journal check's report (every invalid line, in order) and counts. */
static char *check_report(const char *path, uint64_t *valid, uint64_t *invalid, size_t piece,
			  size_t threads)
{
	ac_buf report = AC_BUF_INIT;
	int rc;

	ac_split_set_limits(piece, 1, threads);
	rc = ac_journal_check(valid, invalid, path, NULL, note_check, &report);
	ac_split_set_limits(0, 0, 0);
	assert_int_equal(rc, 0);
	return report.data ? ac_buf_detach(&report) : strdup("");
}

static void put_mixed_lines(ac_buf *out, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (i % 13 == 4)
			ac_buf_printf(out, "{\"id\":\"evt_%u\"}\n", i);
		else if (i % 17 == 2)
			ac_buf_printf(out, "\n");
		else if (i % 19 == 3)
			ac_buf_printf(out, "%.*s{\n", (int)(i % 300), tu_event_line("Codex", "pad"));
		else
			ac_buf_printf(out, "%s\n", tu_event_line(i % 2 ? "Codex" : "Claude",
								  i % 3 ? "ok" : "a longer message"));
	}
}

/* A check on several threads reports what one thread reports: the same
 * lines, numbers, offsets and reasons, in the same order, the torn tail
 * and an over-long line included. */
static void test_check_on_threads_reports_what_one_thread_reports(void **state)
{
	fixture *f = *state;
	static const size_t pieces[] = {64, 999, 4096, 1 << 20};
	ac_buf content = AC_BUF_INIT;

	put_mixed_lines(&content, 2000);
	ac_buf_append(&content, "{\"id\":", 6);
	tu_write_file(f->journal, content.data, content.len);
	for (int round = 0; round < 2; round++) {
		uint64_t valid1, invalid1;
		char *want = check_report(f->journal, &valid1, &invalid1, 0, 1);

		assert_true(invalid1 > 300 && valid1 > 1000);
		for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
			for (size_t threads = 2; threads <= 3; threads++) {
				uint64_t valid, invalid;
				char *got;

				if (round == 1 && pieces[k] < 4096)
					continue; /* 64 MiB in tiny pieces: slow, and nothing new */
				got = check_report(f->journal, &valid, &invalid, pieces[k], threads);
				assert_string_equal(got, want);
				assert_int_equal(valid, valid1);
				assert_int_equal(invalid, invalid1);
				free(got);
			}
		}
		free(want);
		if (round == 0) {
			/* Again with an over-long line in the middle. */
			char *big = malloc(AC_JOURNAL_MAX_LINE + 5);

			content.len -= 6;
			memset(big, 'y', AC_JOURNAL_MAX_LINE + 5);
			big[AC_JOURNAL_MAX_LINE + 4] = '\n';
			ac_buf_append(&content, big, AC_JOURNAL_MAX_LINE + 5);
			put_mixed_lines(&content, 300);
			tu_write_file(f->journal, content.data, content.len);
			free(big);
		}
	}
	ac_buf_free(&content);
}

/* Issue 11 item 10: what the writer acknowledges, the reader reads whole;
 * one byte more is refused at the writer, naming the size and the limit. */
static void test_append_limit_is_the_readers_limit(void **state)
{
	fixture *f = *state;
	size_t longest = AC_JOURNAL_MAX_LINE - 1; /* plus its newline: the limit */
	char *data = malloc(longest + 1);
	ac_journal_reader *reader;
	ac_journal_line line;
	struct stat st;

	memset(data, 'x', longest + 1);
	assert_int_equal(ac_journal_append(NULL, f->journal, data, longest + 1, NULL), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "67108865 bytes"));
	assert_non_null(strstr(ac_error_last(), "limit of 67108864 bytes"));
	assert_int_equal(access(f->journal, F_OK), -1);
	append_ok(f->journal, "{\"a\":1}");
	assert_int_equal(ac_journal_append(NULL, f->journal, data, longest, NULL), 0);
	append_ok(f->journal, "{\"b\":2}");
	assert_int_equal(ac_journal_reader_open(&reader, f->journal, 0, UINT64_MAX, 1), 0);
	assert_int_equal(ac_journal_reader_next(reader, &line), 1);
	assert_int_equal(ac_journal_reader_next(reader, &line), 1);
	assert_false(line.overlong);
	assert_int_equal(line.len, longest);
	assert_int_equal(ac_journal_reader_next(reader, &line), 1);
	assert_memory_equal(line.text, "{\"b\":2}", 7);
	assert_int_equal(ac_journal_reader_next(reader, &line), 0);
	ac_journal_reader_free(reader);
	assert_int_equal(stat(f->journal, &st), 0);
	assert_int_equal(st.st_size, 8 + longest + 1 + 8);
	free(data);
}

/* Issue 11 item 14: looking back for a line start reads at most one line
 * limit's worth; a hole of a sparse file costs nothing. */
static void test_backward_search_is_bounded_by_the_line_limit(void **state)
{
	fixture *f = *state;
	size_t big = AC_JOURNAL_MAX_LINE + 4096;
	char *data = malloc(big);
	uint64_t start = 0, end = 0, size = 0;
	int fd;

	memcpy(data, "{\"a\":1}\n", 8);
	memset(data + 8, 'x', big - 8);
	tu_write_file(f->journal, data, big);
	assert_int_equal(ac_journal_line_start(&start, f->journal, big), AC_ECORRUPT);
	assert_non_null(strstr(ac_error_last(), "longer than the 64 MiB line limit"));
	assert_true(start > 8 && start < big);
	assert_int_equal(ac_journal_complete_end(&end, &size, f->journal), 0);
	assert_int_equal(size, big);
	assert_true(end > 8 && end < big); /* stopped inside the long line */
	/* 20 GiB of hole after one line: the newline is found at once. */
	tu_write_file(f->journal, "{\"a\":1}\n", 8);
	fd = open(f->journal, O_WRONLY);
	assert_int_equal(ftruncate(fd, (off_t)20 << 30), 0);
	close(fd);
	assert_int_equal(ac_journal_line_start(&start, f->journal, (uint64_t)20 << 30), 0);
	assert_int_equal(start, 8);
	assert_int_equal(ac_journal_complete_end(&end, &size, f->journal), 0);
	assert_int_equal(end, 8);
	free(data);
}

static void test_rotate_moves_journal_and_lists_files(void **state)
{
	fixture *f = *state;
	char *rotated = NULL, **files;
	size_t nfiles;

	assert_int_equal(ac_journal_rotate(NULL, f->journal, NULL), AC_ENOTFOUND);
	append_ok(f->journal, tu_event_line("Claude", "one"));
	assert_int_equal(ac_journal_rotate(&rotated, f->journal, NULL), 0);
	assert_non_null(strstr(rotated, "/JOURNAL-"));
	assert_int_equal(tu_count_lines(rotated), 1);
	assert_int_equal(tu_count_lines(f->journal), 0);
	append_ok(f->journal, tu_event_line("Claude", "two"));
	assert_int_equal(ac_journal_files(&files, &nfiles, f->journal), 0);
	assert_int_equal(nfiles, 2);
	assert_string_equal(files[0], rotated);
	assert_string_equal(files[1], f->journal);
	ac_journal_files_free(files, nfiles);
	free(rotated);
}

static void test_two_rotations_in_one_millisecond_keep_both(void **state)
{
	fixture *f = *state;
	char *a = NULL, *b = NULL;

	append_ok(f->journal, "{\"n\":1}");
	assert_int_equal(ac_journal_rotate(&a, f->journal, NULL), 0);
	append_ok(f->journal, "{\"n\":2}");
	assert_int_equal(ac_journal_rotate(&b, f->journal, NULL), 0);
	assert_string_not_equal(a, b);
	assert_int_equal(tu_count_lines(a), 1);
	assert_int_equal(tu_count_lines(b), 1);
	free(a);
	free(b);
}

/* journal.rotate "monthly": the first append of a month rotates a journal
 * started in an earlier month, judged by its first event's timestamp. */
static void test_monthly_rotation_by_first_event(void **state)
{
	fixture *f = *state;
	const char *old = "{\"id\":\"evt_20250115000000_00000000\",\"timestamp\":"
			  "\"2025-01-15T00:00:00.000Z\",\"agent\":\"Claude\"}\n";
	char now[AC_TIME_ISO_LEN + 1], line[128];
	ac_journal_options opts;
	ac_journal_append_info info;

	ac_time_format_iso(now, ac_time_now_ms());
	snprintf(line, sizeof(line), "{\"timestamp\":\"%s\",\"agent\":\"Gemini\"}", now);
	ac_journal_options_init(&opts);
	opts.rotate_monthly = true;
	tu_write_file(f->journal, old, strlen(old));
	assert_int_equal(ac_journal_append(&info, f->journal, line, strlen(line), &opts), 0);
	assert_non_null(info.rotated_to);
	assert_string_equal(info.rotated_by, "journal.rotate monthly");
	assert_int_equal(tu_count_lines(info.rotated_to), 1);
	assert_int_equal(tu_count_lines(f->journal), 1);
	free(info.rotated_to);
	/* Started this month now: the next append stays. */
	assert_int_equal(ac_journal_append(&info, f->journal, line, strlen(line), &opts), 0);
	assert_null(info.rotated_to);
	assert_int_equal(tu_count_lines(f->journal), 2);
}

/* Without a readable first timestamp, the last write's month decides. */
static void test_monthly_rotation_by_last_write(void **state)
{
	fixture *f = *state;
	const char *garbage = "not json at all\n";
	const char *line = tu_event_line("Gemini", "x");
	struct timespec times[2] = {{.tv_sec = 1577836800}, {.tv_sec = 1577836800}}; /* 2020-01-01 */
	ac_journal_options opts;
	ac_journal_append_info info;

	ac_journal_options_init(&opts);
	opts.rotate_monthly = true;
	tu_write_file(f->journal, garbage, strlen(garbage));
	assert_int_equal(ac_journal_append(&info, f->journal, line, strlen(line), &opts), 0);
	assert_null(info.rotated_to); /* written just now: this month */
	utimensat(AT_FDCWD, f->journal, times, 0);
	assert_int_equal(ac_journal_append(&info, f->journal, line, strlen(line), &opts), 0);
	assert_non_null(info.rotated_to);
	assert_int_equal(tu_count_lines(info.rotated_to), 2);
	free(info.rotated_to);
}

static void test_automatic_rotation_past_size(void **state)
{
	fixture *f = *state;
	ac_journal_options opts;
	ac_journal_append_info info;
	char **files;
	size_t nfiles, total = 0;
	int rotations = 0;

	ac_journal_options_init(&opts);
	opts.rotate_bytes = 1000;
	for (int i = 0; i < 20; i++) {
		const char *line = tu_event_line("Gemini", "rotating");

		assert_int_equal(ac_journal_append(&info, f->journal, line, strlen(line), &opts), 0);
		rotations += info.rotated_to != NULL;
		free(info.rotated_to);
	}
	assert_true(rotations >= 3);
	assert_int_equal(ac_journal_files(&files, &nfiles, f->journal), 0);
	assert_int_equal(nfiles, (size_t)rotations + 1);
	for (size_t i = 0; i < nfiles; i++) {
		struct stat st;

		assert_int_equal(stat(files[i], &st), 0);
		assert_true(st.st_size <= 1000);
		total += tu_count_lines(files[i]);
	}
	assert_int_equal(total, 20);
	ac_journal_files_free(files, nfiles);
}

static void test_fsync_always_appends(void **state)
{
	fixture *f = *state;
	ac_journal_options opts;

	ac_journal_options_init(&opts);
	opts.fsync = AC_FSYNC_ALWAYS;
	assert_int_equal(ac_journal_append(NULL, f->journal, "{}", 2, &opts), 0);
	assert_int_equal(tu_count_lines(f->journal), 1);
}

static void test_journal_symlink_is_refused(void **state)
{
	fixture *f = *state;
	char *target = tu_path(f->dir, "elsewhere"), *kept;

	tu_write_file(target, "keep\n", 5);
	assert_int_equal(symlink(target, f->journal), 0);
	assert_true(ac_journal_append(NULL, f->journal, "{}", 2, NULL) < 0);
	kept = tu_read_file(target, NULL);
	assert_string_equal(kept, "keep\n");
	free(kept);
	free(target);
}

/* A full disk, simulated with a file size limit: the write comes up short
 * and the journal must be exactly as before. Runs in a child so the limit
 * does not outlive the test. */
static void test_short_write_leaves_journal_intact(void **state)
{
	fixture *f = *state;
	char big[4000];
	size_t before_len, after_len;
	char *before, *after;
	pid_t pid;
	int status;

	append_ok(f->journal, tu_event_line("Claude", "kept"));
	before = tu_read_file(f->journal, &before_len);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	pid = fork();
	if (pid == 0) {
		struct rlimit limit = {before_len + 100, before_len + 100};
		char line[5000];
		int rc;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &limit);
		snprintf(line, sizeof(line), "{\"big\":\"%s\"}", big);
		rc = ac_journal_append(NULL, f->journal, line, strlen(line), NULL);
		_exit(rc < 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	after = tu_read_file(f->journal, &after_len);
	assert_int_equal(after_len, before_len);
	assert_memory_equal(after, before, before_len);
	assert_int_equal(access(f->lock, F_OK), -1);
	free(before);
	free(after);
}

/* --- the lock file --- */

static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void write_lock(const char *path, long pid, int age_seconds)
{
	char text[32];
	struct timespec times[2];

	snprintf(text, sizeof(text), "%ld\n", pid);
	tu_write_file(path, text, pid ? strlen(text) : 0);
	clock_gettime(CLOCK_REALTIME, &times[0]);
	times[0].tv_sec -= age_seconds;
	times[1] = times[0];
	utimensat(AT_FDCWD, path, times, 0);
}

/* A lock as agentctl on another machine (or in another container) writes
 * it: the pid, then who holds it. */
static void write_foreign_lock(const char *path, long pid, const char *host, int age_seconds)
{
	char text[256];
	struct timespec times[2];

	snprintf(text, sizeof(text), "%ld\nhost=%s\nboot=0f0e0d0c-0000-4000-8000-000000000001\n"
		 "pidns=4026531836\n", pid, host);
	tu_write_file(path, text, strlen(text));
	clock_gettime(CLOCK_REALTIME, &times[0]);
	times[0].tv_sec -= age_seconds;
	times[1] = times[0];
	utimensat(AT_FDCWD, path, times, 0);
}

static void test_lock_acquire_writes_pid_and_release_removes(void **state)
{
	fixture *f = *state;
	char host[256] = "", expected[300];
	ac_lock lock;
	char *text, *rest;

	assert_int_equal(ac_lock_acquire(&lock, f->lock, NULL), 0);
	text = tu_read_file(f->lock, NULL);
	/* The pid alone on the first line, as the spec's readers expect. */
	assert_int_equal(strtol(text, &rest, 10), getpid());
	assert_int_equal(*rest, '\n');
	gethostname(host, sizeof(host) - 1);
	snprintf(expected, sizeof(expected), "\nhost=%s\nboot=", host);
	assert_non_null(strstr(text, expected));
	assert_non_null(strstr(text, "\npidns="));
	ac_lock_release(&lock);
	ac_lock_release(&lock);
	assert_int_equal(access(f->lock, F_OK), -1);
	free(text);
}

static void test_stale_lock_of_dead_pid_is_broken(void **state)
{
	fixture *f = *state;
	ac_lock lock;

	write_lock(f->lock, dead_pid(), 0);
	assert_int_equal(ac_lock_acquire(&lock, f->lock, NULL), 0);
	assert_true(lock.broke_stale);
	ac_lock_release(&lock);
}

typedef struct {
	const char *lock;
	int calls;
	bool lock_still_there;
} break_probe;

static void probe_before_break(void *ctx)
{
	break_probe *p = ctx;

	p->calls++;
	p->lock_still_there = access(p->lock, F_OK) == 0;
}

/* The clean-up after a dead holder must run while its lock still keeps
 * other writers out (defect D1 of docs/RELIABILITY.md). */
static void test_before_break_runs_while_the_stale_lock_is_held(void **state)
{
	fixture *f = *state;
	break_probe probe = {f->lock, 0, false};
	ac_lock_options opts;
	ac_lock lock;

	ac_lock_options_init(&opts);
	opts.before_break = probe_before_break;
	opts.before_break_ctx = &probe;
	assert_int_equal(ac_lock_acquire(&lock, f->lock, &opts), 0); /* no lock: no call */
	ac_lock_release(&lock);
	assert_int_equal(probe.calls, 0);
	write_lock(f->lock, dead_pid(), 0);
	assert_int_equal(ac_lock_acquire(&lock, f->lock, &opts), 0);
	ac_lock_release(&lock);
	assert_int_equal(probe.calls, 1);
	assert_true(probe.lock_still_there);
}

/* A dead writer's torn line is ended before anyone else may append. */
static void test_dead_holders_torn_line_is_ended_before_the_break(void **state)
{
	fixture *f = *state;
	const char *torn = "{\"id\":\"evt_2025";
	char *good = strdup(tu_event_line("Gemini", "after"));
	ac_journal_append_info info;
	char *contents;

	tu_write_file(f->journal, torn, strlen(torn));
	write_lock(f->lock, dead_pid(), 0);
	assert_int_equal(ac_journal_append(&info, f->journal, good, strlen(good), NULL), 0);
	/* Ended under the stale lock, so this append found a whole last line. */
	assert_false(info.repaired_torn_tail);
	contents = tu_read_file(f->journal, NULL);
	assert_int_equal(strncmp(contents, torn, strlen(torn)), 0);
	assert_int_equal(contents[strlen(torn)], '\n');
	assert_string_equal(contents + strlen(torn) + 1 + strlen(good), "\n");
	free(contents);
	free(good);
}

/* The pid of a lock from another host means nothing here: a process of
 * that number being absent on this machine must not break it. */
static void test_foreign_lock_is_not_judged_by_pid(void **state)
{
	fixture *f = *state;
	ac_lock_options opts;
	ac_lock lock;

	ac_lock_options_init(&opts);
	opts.timeout_ms = 150;
	write_foreign_lock(f->lock, dead_pid(), "build-runner-7", 30);
	assert_int_equal(ac_lock_acquire(&lock, f->lock, &opts), AC_EBUSY);
	assert_non_null(strstr(ac_error_last(), "on host build-runner-7"));
	assert_non_null(strstr(ac_error_last(), "lock.foreignStaleMs"));
	assert_int_equal(access(f->lock, F_OK), 0);
}

/* A writer killed inside the one write of its holder text leaves it cut
 * short ("boot=" half written). Found by the simulator (seed 31 of
 * "journal"): such a lock read as another machine's and held every writer
 * off for lock.foreignStaleMs (2 minutes). It is judged as local: a dead
 * pid breaks it at once, and a second-old one breaks by age. */
static void test_torn_holder_text_is_not_foreign(void **state)
{
	fixture *f = *state;
	char text[256];
	ac_lock_options opts;
	ac_lock lock;

	ac_lock_options_init(&opts);
	opts.timeout_ms = 150;
	snprintf(text, sizeof(text), "%ld\nhost=build-runner-7\nboot=0f0e0d0c-0000-40", (long)dead_pid());
	tu_write_file(f->lock, text, strlen(text));
	assert_int_equal(ac_lock_acquire(&lock, f->lock, &opts), 0);
	assert_true(lock.broke_stale);
	ac_lock_release(&lock);
	/* A live pid, but the text a second old and cut short: broken too. */
	snprintf(text, sizeof(text), "%ld\nhost=build-runner-7\nboot=0f0e", (long)getpid());
	tu_write_file(f->lock, text, strlen(text));
	{
		struct timespec times[2];

		clock_gettime(CLOCK_REALTIME, &times[0]);
		times[0].tv_sec -= 5;
		times[1] = times[0];
		utimensat(AT_FDCWD, f->lock, times, 0);
	}
	assert_int_equal(ac_lock_acquire(&lock, f->lock, &opts), 0);
	assert_true(lock.broke_stale);
	ac_lock_release(&lock);
}

static void test_foreign_lock_older_than_its_bound_is_broken(void **state)
{
	fixture *f = *state;
	ac_lock_options opts;
	ac_lock lock;

	ac_lock_options_init(&opts);
	opts.timeout_ms = 2000;
	opts.foreign_stale_ms = 60000;
	write_foreign_lock(f->lock, getpid(), "build-runner-7", 61);
	assert_int_equal(ac_lock_acquire(&lock, f->lock, &opts), 0);
	assert_true(lock.broke_stale);
	ac_lock_release(&lock);
}

/* Same host name, another boot (a rebooted machine's leftover, or another
 * machine named alike) or pid namespace (a container): foreign too. */
static void test_lock_of_same_host_other_namespace_is_foreign(void **state)
{
	fixture *f = *state;
	char host[256] = "";
	ac_lock_options opts;
	ac_lock lock;

	ac_lock_options_init(&opts);
	opts.timeout_ms = 150;
	gethostname(host, sizeof(host) - 1);
	write_foreign_lock(f->lock, dead_pid(), host, 0);
	assert_int_equal(ac_lock_acquire(&lock, f->lock, &opts), AC_EBUSY);
	assert_int_equal(access(f->lock, F_OK), 0);
}

/* A hostile host field never reaches an error line raw. */
static void test_foreign_lock_host_is_shown_safely(void **state)
{
	fixture *f = *state;
	ac_lock_options opts;
	ac_lock lock;

	ac_lock_options_init(&opts);
	opts.timeout_ms = 50;
	write_foreign_lock(f->lock, 1, "evil\033]0;owned\007", 0);
	assert_int_equal(ac_lock_acquire(&lock, f->lock, &opts), AC_EBUSY);
	assert_null(strchr(ac_error_last(), '\033'));
	assert_non_null(strstr(ac_error_last(), "on host evil??0?owned? "));
}

/* Our own lock of a dead process is local: broken at once, as before. */
static void test_own_host_lock_of_dead_pid_is_broken(void **state)
{
	fixture *f = *state;
	ac_lock lock;
	char *text;
	pid_t pid = fork();

	if (pid == 0) {
		ac_lock child;

		if (ac_lock_acquire(&child, f->lock, NULL) != 0)
			_exit(1);
		_exit(0); /* dies holding it */
	}
	waitpid(pid, NULL, 0);
	text = tu_read_file(f->lock, NULL);
	assert_non_null(strstr(text, "host="));
	free(text);
	assert_int_equal(ac_lock_acquire(&lock, f->lock, NULL), 0);
	assert_true(lock.broke_stale);
	ac_lock_release(&lock);
}

static void test_live_lock_blocks_until_timeout(void **state)
{
	fixture *f = *state;
	ac_lock_options opts = {.version = AC_LOCK_OPTIONS_VERSION, .timeout_ms = 150, .stale_ms = 60000};
	ac_lock lock;

	write_lock(f->lock, getppid(), 0);
	assert_int_equal(ac_lock_acquire(&lock, f->lock, &opts), AC_EBUSY);
	assert_non_null(strstr(ac_error_last(), "held by pid"));
	assert_int_equal(access(f->lock, F_OK), 0); /* a live lock is left alone */
}

static void test_old_lock_of_live_pid_is_broken(void **state)
{
	fixture *f = *state;
	ac_lock_options opts = {.version = AC_LOCK_OPTIONS_VERSION, .timeout_ms = 2000, .stale_ms = 5000};
	ac_lock lock;

	write_lock(f->lock, getppid(), 60);
	assert_int_equal(ac_lock_acquire(&lock, f->lock, &opts), 0);
	assert_true(lock.broke_stale);
	ac_lock_release(&lock);
}

static void test_empty_old_lock_is_broken(void **state)
{
	fixture *f = *state;
	ac_lock lock;

	write_lock(f->lock, 0, 5);
	assert_int_equal(ac_lock_acquire(&lock, f->lock, NULL), 0);
	assert_true(lock.broke_stale);
	ac_lock_release(&lock);
}

static void test_symlink_planted_at_lock_path_is_not_followed(void **state)
{
	fixture *f = *state;
	char *victim = tu_path(f->dir, "victim");
	ac_lock lock;
	char *text;

	tu_write_file(victim, "precious\n", 9);
	assert_int_equal(symlink(victim, f->lock), 0);
	assert_int_equal(ac_lock_acquire(&lock, f->lock, NULL), 0);
	ac_lock_release(&lock);
	text = tu_read_file(victim, NULL);
	assert_string_equal(text, "precious\n");
	free(text);
	free(victim);
}

/* --- many writers at once --- */

#define WRITERS 8
#define EVENTS_PER_WRITER 400

/* A writer from another program: the spec's O_EXCL lock file and a plain
 * append, with no flock. */
static void foreign_append(const char *journal, const char *lock, const char *line)
{
	char pid_text[32];
	int fd;

	for (;;) {
		fd = open(lock, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd >= 0)
			break;
		usleep(100);
	}
	snprintf(pid_text, sizeof(pid_text), "%d", getpid());
	if (write(fd, pid_text, strlen(pid_text)) < 0)
		_exit(3);
	close(fd);
	fd = open(journal, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		_exit(4);
	close(fd);
	unlink(lock);
}

/* Sizes that straddle page and pipe-buffer boundaries on purpose. */
static size_t payload_size(int writer, int seq)
{
	static const size_t sizes[] = {10, 200, 4090, 4096, 4100, 9000, 65530, 65536, 70000};

	return (seq % 37 == 0) ? sizes[(writer + seq) % 9] : (size_t)(20 + (seq * 7 + writer) % 300);
}

static void run_writer(const char *journal, const char *lock, int writer)
{
	char *payload = malloc(70001), *line = malloc(72000);

	for (int seq = 0; seq < EVENTS_PER_WRITER; seq++) {
		size_t size = payload_size(writer, seq);

		memset(payload, 'a' + writer, size);
		payload[size] = '\0';
		snprintf(line, 72000,
			 "{\"id\":\"evt_20250903142510_%08x\",\"timestamp\":\"2025-09-03T14:25:10.000Z\","
			 "\"agent\":\"System\",\"status\":\"SUCCESS\",\"action\":{\"type\":\"ANALYSIS\","
			 "\"params\":{\"writer\":%d,\"seq\":%d,\"size\":%zu}},"
			 "\"result\":{\"message\":\"%s\"}}",
			 (unsigned)(writer << 16 | seq), writer, seq, size, payload);
		if (writer % 2 == 0) {
			if (ac_journal_append(NULL, journal, line, strlen(line), NULL) != 0)
				_exit(2);
		} else {
			strcat(line, "\n");
			foreign_append(journal, lock, line);
		}
	}
	_exit(0);
}

static void test_many_processes_lose_and_merge_nothing(void **state)
{
	fixture *f = *state;
	int next_seq[WRITERS] = {0};
	ac_journal_reader *reader;
	ac_journal_line line;
	ac_json_span fields[AC_EV_NFIELDS];
	pid_t pids[WRITERS];
	size_t total = 0;

	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		if (pids[w] == 0)
			run_writer(f->journal, f->lock, w);
	}
	for (int w = 0; w < WRITERS; w++) {
		int status;

		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(ac_journal_reader_open(&reader, f->journal, 0, UINT64_MAX, 1), 0);
	while (ac_journal_reader_next(reader, &line) == 1) {
		const char *params;
		int writer, seq;
		size_t size, msg;

		if (ac_event_parse(fields, line.text, line.len, NULL) != 0)
			fail_msg("line %llu does not parse: %s", (unsigned long long)line.number,
				 ac_error_last());
		params = fields[AC_EV_ACTION_PARAMS].start;
		assert_int_equal(sscanf(params, "{\"writer\":%d,\"seq\":%d,\"size\":%zu}",
					&writer, &seq, &size), 3);
		assert_true(writer >= 0 && writer < WRITERS);
		/* Each writer's events arrive once each, in its own order. */
		assert_int_equal(seq, next_seq[writer]);
		next_seq[writer]++;
		msg = fields[AC_EV_RESULT_MESSAGE].len - 2;
		assert_int_equal(msg, size);
		for (size_t i = 0; i < msg; i++)
			if (fields[AC_EV_RESULT_MESSAGE].start[1 + i] != 'a' + writer)
				fail_msg("line %llu: bytes of another writer inside",
					 (unsigned long long)line.number);
		total++;
	}
	ac_journal_reader_free(reader);
	assert_int_equal(total, WRITERS * EVENTS_PER_WRITER);
	for (int w = 0; w < WRITERS; w++)
		assert_int_equal(next_seq[w], EVENTS_PER_WRITER);
	assert_int_equal(access(f->lock, F_OK), -1);
}

/* The journal's and the lock's options carry their version: options not
 * started from their INIT macro (version 0, or a lock member of version 0)
 * are refused naming the struct, and nothing is written; the right ones
 * append and lock. */
static void test_options_version(void **state)
{
	fixture *f = *state;
	ac_journal_options opts = AC_JOURNAL_OPTIONS_INIT;
	ac_lock_options lock_opts = AC_LOCK_OPTIONS_INIT;
	ac_journal_store *store = NULL;
	ac_lock lock;

	opts.version = 0;
	assert_int_equal(ac_journal_append(NULL, f->journal, "{}", 2, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_journal_options version 0"));
	assert_non_null(strstr(ac_error_last(), "AC_JOURNAL_OPTIONS_INIT"));
	assert_false(tu_exists(f->dir, "JOURNAL.jsonl"));
	assert_int_equal(ac_journal_store_file_new(&store, f->journal, &opts, NULL), AC_EINVAL);
	assert_null(store);
	opts.version = AC_JOURNAL_OPTIONS_VERSION;
	opts.lock.version = 0;
	assert_int_equal(ac_journal_append(NULL, f->journal, "{}", 2, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_lock_options version 0"));
	assert_int_equal(ac_journal_rotate(NULL, f->journal, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_lock_options version 0"));
	assert_false(tu_exists(f->dir, "JOURNAL.jsonl"));
	opts.lock.version = AC_LOCK_OPTIONS_VERSION;
	assert_int_equal(ac_journal_append(NULL, f->journal, "{}", 2, &opts), 0);
	assert_int_equal(tu_count_lines(f->journal), 1);

	lock_opts.version = 0;
	assert_int_equal(ac_lock_acquire(&lock, f->lock, &lock_opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_lock_options version 0"));
	lock_opts.version = AC_LOCK_OPTIONS_VERSION;
	assert_int_equal(ac_lock_acquire(&lock, f->lock, &lock_opts), 0);
	ac_lock_release(&lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_append_creates_and_appends_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_options_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append_refuses_multiline_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_tail_starts_a_fresh_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_holds_back_unterminated_tail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_reports_overlong_line_and_goes_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append_limit_is_the_readers_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_overlong_verdict_does_not_depend_on_where_reading_began, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_check_on_threads_reports_what_one_thread_reports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backward_search_is_bounded_by_the_line_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rotate_moves_journal_and_lists_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_rotations_in_one_millisecond_keep_both, setup, teardown),
		cmocka_unit_test_setup_teardown(test_automatic_rotation_past_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_monthly_rotation_by_first_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_monthly_rotation_by_last_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fsync_always_appends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_symlink_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_write_leaves_journal_intact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_acquire_writes_pid_and_release_removes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_lock_of_dead_pid_is_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_before_break_runs_while_the_stale_lock_is_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_holders_torn_line_is_ended_before_the_break, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_lock_blocks_until_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_lock_is_not_judged_by_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_lock_older_than_its_bound_is_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_holder_text_is_not_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_of_same_host_other_namespace_is_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_lock_host_is_shown_safely, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_host_lock_of_dead_pid_is_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_lock_of_live_pid_is_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_old_lock_is_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_planted_at_lock_path_is_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_processes_lose_and_merge_nothing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
