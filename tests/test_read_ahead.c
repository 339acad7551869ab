/* Tests for core/ac_read_ahead.c: helpers that read files ahead of a scan
 * start only when there is enough to read, never hold up the scan, end
 * when stopped halfway, and leave alone what they cannot open. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ac_read_ahead.h"
#include "test_util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILES 6
#define FILE_BYTES (4u << 20)

typedef struct {
	char *dir;
	char *paths[FILES + 1];
	ac_read_ahead_file files[FILES + 1];
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	char *block = malloc(FILE_BYTES);

	memset(block, 'x', FILE_BYTES);
	f->dir = tu_make_temp_dir();
	for (int i = 0; i < FILES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "t%d.jsonl", i);
		f->paths[i] = tu_path(f->dir, name);
		tu_write_file(f->paths[i], block, FILE_BYTES);
		f->files[i] = (ac_read_ahead_file){f->paths[i], 0, FILE_BYTES};
	}
	/* A FIFO planted where a transcript was: opened without blocking,
	 * then left alone. */
	f->paths[FILES] = tu_path(f->dir, "fifo.jsonl");
	assert_int_equal(mkfifo(f->paths[FILES], 0600), 0);
	f->files[FILES] = (ac_read_ahead_file){f->paths[FILES], 0, FILE_BYTES};
	free(block);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	for (int i = 0; i <= FILES; i++)
		free(f->paths[i]);
	tu_remove_tree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static void test_few_bytes_start_no_thread(void **state)
{
	fixture *f = *state;
	ac_read_ahead *ra = (ac_read_ahead *)1;

	ac_read_ahead_start(&ra, f->files, 2); /* 8 MiB */
	assert_null(ra);
	ac_read_ahead_at(ra, 1);
	ac_read_ahead_stop(ra);
}

static void test_a_scan_goes_through_and_stops(void **state)
{
	fixture *f = *state;
	ac_read_ahead *ra = NULL;

	ac_read_ahead_start(&ra, f->files, FILES + 1);
	assert_non_null(ra);
	for (size_t i = 0; i <= FILES; i++)
		ac_read_ahead_at(ra, i);
	ac_read_ahead_stop(ra);
}

/* A scan that stops at its first file (cancelled, or an error) does not
 * wait for the helpers to read the rest. */
static void test_stopped_at_the_start(void **state)
{
	fixture *f = *state;
	ac_read_ahead *ra = NULL;

	ac_read_ahead_start(&ra, f->files, FILES + 1);
	assert_non_null(ra);
	ac_read_ahead_stop(ra);
}

/* Files that are gone, or already read (from == to), are skipped. */
static void test_gone_and_unchanged_files_are_skipped(void **state)
{
	fixture *f = *state;
	ac_read_ahead_file files[FILES + 1];
	ac_read_ahead *ra = NULL;

	memcpy(files, f->files, sizeof(files));
	files[1].from = files[1].to;
	files[2].path = "/nonexistent/agentctl/read-ahead.jsonl";
	ac_read_ahead_start(&ra, files, FILES + 1);
	assert_non_null(ra);
	for (size_t i = 0; i <= FILES; i++)
		ac_read_ahead_at(ra, i);
	ac_read_ahead_stop(ra);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_few_bytes_start_no_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_scan_goes_through_and_stops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stopped_at_the_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gone_and_unchanged_files_are_skipped, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
