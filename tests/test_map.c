/* A journal cut short while a full pass reads it (issue 28 item 2): the
 * pass ends with the reader's one-line "file shrank" error naming the file,
 * on one thread and on several, and the process lives on (the pass reads
 * through a mapping, where a truncated file raises SIGBUS). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_journal_scan.h"
#include "ac_journal_split.h"
#include "ac_map.h"
#include "ac_query.h"

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
	char *dir;
	char *journal;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_make_temp_dir();
	f->journal = tu_path(f->dir, "JOURNAL.jsonl");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	tu_remove_tree(f->dir);
	free(f->dir);
	free(f->journal);
	free(f);
	return 0;
}

/* A journal past the size at which even one core reads it in pieces: an
 * invalid first line (so that journal check reports one at once), then
 * events, the first of them a Codex one. */
static void write_big_journal(const char *path)
{
	ac_buf out = AC_BUF_INIT;

	ac_buf_printf(&out, "not json\n");
	for (unsigned i = 0; out.len < (10u << 20); i++)
		ac_buf_printf(&out, "%s\n", tu_event_line(i % 2 ? "Claude" : "Codex", "a message"));
	tu_write_file(path, out.data, out.len);
	ac_buf_free(&out);
}

/* Cuts the file to nothing the first time it is called. */
typedef struct {
	const char *path;
	size_t calls;
} cutter;

static void cut_once(cutter *c)
{
	if (c->calls++ == 0)
		assert_int_equal(truncate(c->path, 0), 0);
}

static int cut_on_invalid(const char *path, uint64_t number, uint64_t offset,
			  const char *reason, void *ctx)
{
	(void)path, (void)number, (void)offset, (void)reason;
	cut_once(ctx);
	return 0;
}

static void assert_shrank(int rc, const char *path)
{
	char want[4096];

	assert_int_equal(rc, AC_EIO);
	snprintf(want, sizeof(want), "%s: the file shrank while being read (at byte ", path);
	if (strncmp(ac_error_last(), want, strlen(want)) != 0 || strchr(ac_error_last(), '\n'))
		fail_msg("error: %s", ac_error_last());
}

static void test_check_of_a_journal_cut_short_reports_it_shrank(void **state)
{
	fixture *f = *state;

	for (size_t k = 0; k < 6; k++) {
		size_t threads = 1 + k / 2;
		cutter c = {f->journal, 0};
		uint64_t valid = 0, invalid = 0;
		int rc;

		write_big_journal(f->journal);
		ac_split_set_limits(64 * 1024, 0, threads);
		ac_split_set_mapping(k % 2 == 0); /* and read with pread */
		rc = ac_journal_check(&valid, &invalid, f->journal, NULL, cut_on_invalid, &c);
		ac_split_set_mapping(true);
		ac_split_set_limits(0, 0, 0);
		if (c.calls != 1 || rc != AC_EIO)
			fail_msg("%zu threads: %zu calls, rc %d, %llu valid: %s", threads, c.calls, rc,
				 (unsigned long long)valid, ac_error_last());
		assert_shrank(rc, f->journal);
	}
}

static int format_line(ac_buf *out, ac_buf *scratch, const ac_scan_match *m, const void *ctx)
{
	(void)scratch, (void)ctx;
	return ac_buf_append(out, m->line, m->len);
}

static int cut_on_write(const char *data, size_t len, void *ctx)
{
	(void)data, (void)len;
	cut_once(ctx);
	return 0;
}

static void test_query_of_a_journal_cut_short_reports_it_shrank(void **state)
{
	fixture *f = *state;
	const char *terms[] = {"agent=Codex"};
	const char *path = f->journal;
	ac_query *q = NULL;

	assert_int_equal(ac_query_parse(&q, terms, 1), 0);
	for (size_t k = 0; k < 6; k++) {
		size_t threads = 1 + k / 2;
		cutter c = {f->journal, 0};
		ac_scan_stats stats;
		int rc;

		write_big_journal(f->journal);
		memset(&stats, 0, sizeof(stats));
		/* Each match handed over at once: the first write cuts. */
		ac_split_set_limits(64 * 1024, 1, threads);
		ac_split_set_mapping(k % 2 == 0);
		rc = ac_journal_scan_format(&stats, &path, 1, q, 0, NULL, format_line, NULL,
					    cut_on_write, &c);
		ac_split_set_mapping(true);
		ac_split_set_limits(0, 0, 0);
		assert_true(c.calls >= 1);
		assert_shrank(rc, f->journal);
	}
	ac_query_free(q);
}

static int note_check(const char *path, uint64_t number, uint64_t offset, const char *reason,
		      void *ctx)
{
	(void)path;
	return ac_buf_printf(ctx, "%llu@%llu %s\n", (unsigned long long)number,
			     (unsigned long long)offset, reason);
}

static int append_output(const char *data, size_t len, void *ctx)
{
	return ac_buf_append(ctx, data, len);
}

static int format_offset(ac_buf *out, ac_buf *scratch, const ac_scan_match *m, const void *ctx)
{
	(void)scratch, (void)ctx;
	return ac_buf_printf(out, "%llu %s\n", (unsigned long long)m->offset,
			     m->invalid ? m->invalid : "ok");
}

/* journal check's report and a query's output, with the given limits. */
static char *passes(const char *path, size_t piece, size_t threads, bool mapped)
{
	const char *terms[] = {"agent=Codex"};
	ac_buf out = AC_BUF_INIT;
	uint64_t valid = 0, invalid = 0;
	ac_scan_stats stats;
	ac_query *q = NULL;

	memset(&stats, 0, sizeof(stats));
	assert_int_equal(ac_query_parse(&q, terms, 1), 0);
	ac_split_set_limits(piece, 1, threads);
	ac_split_set_mapping(mapped);
	assert_int_equal(ac_journal_check(&valid, &invalid, path, NULL, note_check, &out), 0);
	ac_buf_printf(&out, "%llu valid, %llu invalid\n", (unsigned long long)valid,
		      (unsigned long long)invalid);
	assert_int_equal(ac_journal_scan_format(&stats, &path, 1, q, 0, NULL, format_offset,
						NULL, append_output, &out), 0);
	ac_buf_printf(&out, "%llu matched, %llu invalid\n", (unsigned long long)stats.matched,
		      (unsigned long long)stats.invalid);
	ac_split_set_mapping(true);
	ac_split_set_limits(0, 0, 0);
	ac_query_free(q);
	return ac_buf_detach(&out);
}

/* Read through the mapping or with pread, on one thread or several, a
 * pass reports the same: lines across piece edges, invalid lines, a hole
 * of a sparse file inside a line (so over-long) and a torn tail. */
static void test_mapped_and_read_passes_agree(void **state)
{
	fixture *f = *state;
	ac_buf head = AC_BUF_INIT, rest = AC_BUF_INIT;
	char *want;
	int fd;

	for (unsigned i = 0; i < 3000; i++) {
		ac_buf *b = i < 1500 ? &head : &rest;

		if (i % 13 == 4)
			ac_buf_printf(b, "{\"id\":\"evt_%u\"}\n", i);
		else if (i % 17 == 2)
			ac_buf_printf(b, "\n");
		else
			ac_buf_printf(b, "%s\n", tu_event_line(i % 2 ? "Codex" : "Claude", "m"));
	}
	ac_buf_printf(&head, "{\"id\":\"the hole follows\"");
	ac_buf_append(&rest, "{\"id\":", 6);
	fd = open(f->journal, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, head.data, head.len), (ssize_t)head.len);
	/* A hole past the line limit, then a newline ends the line it is in. */
	assert_int_equal(pwrite(fd, "\n", 1, (off_t)head.len + (65 << 20)), 1);
	assert_int_equal(write(fd, rest.data, rest.len), (ssize_t)rest.len);
	close(fd);
	want = passes(f->journal, 0, 2, false);
	assert_non_null(strstr(want, "line longer than"));
	for (size_t k = 0; k < 8; k++) {
		char *got = passes(f->journal, k < 4 ? 4096 : 0, 1 + k % 2, k / 2 % 2 == 0);

		assert_string_equal(got, want);
		free(got);
	}
	free(want);
	ac_buf_free(&head);
	ac_buf_free(&rest);
}

/* A bus error that is not on a guarded mapping still ends the process as
 * it would without the guard. */
static int touch_other_mapping(void *arg)
{
	return *(volatile const char *)arg;
}

static void test_sigbus_elsewhere_is_not_swallowed(void **state)
{
	fixture *f = *state;
	pid_t pid;
	int status;

	tu_write_file(f->journal, "x\n", 2);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(f->journal, O_RDWR);
		ac_map guarded, other;
		bool faulted = false;
		uint64_t at = 0;

		signal(SIGBUS, SIG_DFL); /* not cmocka's: the default, as in agentctl */
		if (fd < 0 || ac_map_file(&guarded, fd, 0, 2) != 0 ||
		    ac_map_file(&other, fd, 0, 2) != 0 || ac_map_guard_begin() != 0)
			_exit(3);
		if (ftruncate(fd, 0) != 0)
			_exit(4);
		ac_map_guarded(&guarded, touch_other_mapping, (void *)other.data, &faulted, &at);
		_exit(5); /* not reached: the fault on `other` kills */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGBUS);
}

/* The guard catches a fault on its own mapping and gives the offset. */
static int touch(void *arg)
{
	return *(volatile const char *)arg;
}

static void test_fault_on_guarded_mapping_is_caught(void **state)
{
	fixture *f = *state;
	ac_buf text = AC_BUF_INIT;
	ac_map m;
	bool faulted = false;
	uint64_t at = 0;
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	for (long i = 0; i < 3 * page; i++)
		ac_buf_putc(&text, 'a');
	tu_write_file(f->journal, text.data, text.len);
	ac_buf_free(&text);
	fd = open(f->journal, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(ac_map_file(&m, fd, 0, (uint64_t)(3 * page)), 0);
	assert_int_equal(ac_map_guard_begin(), 0);
	assert_int_equal(ftruncate(fd, page), 0);
	assert_int_equal(ac_map_guarded(&m, touch, (void *)(m.data + page + 5), &faulted, &at),
			 0);
	assert_true(faulted);
	assert_int_equal(at, (uint64_t)page + 5);
	/* Caught again: the handler stays, the thread's mask lets it in. */
	faulted = false;
	ac_map_guarded(&m, touch, (void *)(m.data + 2 * page), &faulted, &at);
	assert_true(faulted);
	assert_int_equal(ac_map_guarded(&m, touch, (void *)m.data, &faulted, &at), 'a');
	assert_false(faulted);
	ac_map_guard_end();
	ac_map_release(&m);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_check_of_a_journal_cut_short_reports_it_shrank,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_query_of_a_journal_cut_short_reports_it_shrank,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mapped_and_read_passes_agree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fault_on_guarded_mapping_is_caught, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sigbus_elsewhere_is_not_swallowed, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
