/* Codex usage as current codex-rs writes rollouts
 * (tests/fixtures/sources-current, README-codex.md): a fork's copy of its
 * parent's token_count events is not counted again and the fork's own
 * turns are booked to the fork (the example: parent 4,000/900,
 * fork 2,000/600 input/output, not 10,000/2,400 under the parent), a
 * sub-agent's to itself, archived and zstd-compressed rollouts counted,
 * a compressed one read again only when it changed. */
#include "ac_error.h"
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

#define OK(expr)                                                                   \
	do {                                                                           \
		int rc_ = (expr);                                                          \
		if (rc_ != 0)                                                              \
			fail_msg("%s: %d (%s)", #expr, rc_, ac_error_last());              \
	} while (0)

#define P "01a1f82f-1e80-7101-8101-000000000101"
#define F "01a1f866-0d00-7201-8201-000000000201"
#define S "01a1f832-c800-7301-8301-000000000301"
#define O "01a1fd1e-8c00-7401-8401-000000000401"
#define A "01a1961f-5c00-7501-8501-000000000501"
#define Z "01a15853-0c00-7601-8601-000000000601"
#define F_PATH ".codex/sessions/2026/11/20/rollout-2026-11-20T10-00-00-" F ".jsonl"

typedef struct {
	char *root, *index;
	ac_usage_set set;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->root = tu_copy_fixture("sources-current/home");
	f->index = tu_path(f->root, "cache/usage-index.bin");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ac_usage_set_free(&f->set);
	tu_remove_tree(f->root);
	free(f->root);
	free(f->index);
	free(f);
	return 0;
}

static void scan(fixture *f)
{
	char *codex = tu_path(f->root, ".codex/sessions");
	ac_usage_scan_options o = {.version = AC_USAGE_SCAN_OPTIONS_VERSION,
				   .codex_dir = codex, .index_path = f->index};

	ac_usage_set_free(&f->set);
	OK(ac_usage_scan(&f->set, &o));
	free(codex);
}

/* Input (without the cached part) and output booked to session id. */
static void booked(const fixture *f, const char *id, uint64_t *input, uint64_t *output)
{
	*input = *output = 0;
	for (size_t i = 0; i < f->set.n; i++)
		if (f->set.buckets[i].session_id && !strcmp(f->set.buckets[i].session_id, id)) {
			*input += f->set.buckets[i].counts.input;
			*output += f->set.buckets[i].counts.output;
		}
}

#define assert_booked(f, id, in, out)                                              \
	do {                                                                           \
		uint64_t i_, o_;                                                       \
		booked(f, id, &i_, &o_);                                               \
		assert_int_equal(i_, in);                                              \
		assert_int_equal(o_, out);                                             \
	} while (0)

static void test_fork_booked_to_itself(void **state)
{
	fixture *f = *state;

	scan(f);
	assert_booked(f, P, 4000, 900);
	assert_booked(f, F, 2000, 600);
	assert_booked(f, S, 300, 50);
	/* The rolled-back turn's tokens were spent: still counted. */
	assert_booked(f, O, 1000, 120);
}

static void test_archived_and_compressed_counted(void **state)
{
	fixture *f = *state;
	uint64_t read;

	scan(f);
	assert_booked(f, A, 100, 10);
	assert_booked(f, Z, 700, 100);
	/* A second scan reads nothing, the compressed rollout included. */
	read = f->set.bytes_read;
	assert_true(read > 0);
	scan(f);
	assert_int_equal(f->set.bytes_read, 0);
	assert_booked(f, Z, 700, 100);
}

/* The fork's rollout scanned while the copy was being written, then
 * after its own turn: the index carries the boundary between scans. */
static void test_fork_scanned_in_parts(void **state)
{
	fixture *f = *state;
	char *path = tu_path(f->root, F_PATH), *text;
	size_t len, cut;

	text = tu_read_file(path, &len);
	/* Up to the parent's second turn, inside the copy. */
	cut = (size_t)(strstr(text, "Document it in the README") - text);
	cut = (size_t)((char *)memchr(text + cut, '\n', len - cut) - text) + 1;
	tu_write_file(path, text, cut);
	scan(f);
	assert_booked(f, F, 0, 0);
	tu_append_file(path, text + cut, len - cut);
	scan(f);
	assert_booked(f, F, 2000, 600);
	assert_booked(f, P, 4000, 900);
	free(text);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fork_booked_to_itself, setup, teardown),
		cmocka_unit_test_setup_teardown(test_archived_and_compressed_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_scanned_in_parts, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
