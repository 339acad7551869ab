/* The file-system seam (agentctl/sys/ac_fs.h): a table of another version
 * or with a hole is refused with one clear error; an installed table sees
 * the core's file protocols' calls (a journal append's lock, write and
 * fsync all pass through it); NULL puts the kernel back. The simulator
 * (tests/sim/) is built on this. */
#include "test_util.h"

#include "ac_archive.h"
#include "ac_error.h"
#include "ac_fs.h"
#include "ac_journal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

static int opens, writes, syncs, renames_or_links;

static int count_openat(void *ctx, int dirfd, const char *path, int flags, mode_t mode)
{
	opens++;
	return ac_fs_real()->openat(ctx, dirfd, path, flags, mode);
}

static ssize_t count_write(void *ctx, int fd, const void *buf, size_t len)
{
	writes++;
	return ac_fs_real()->write(ctx, fd, buf, len);
}

static int count_fsync(void *ctx, int fd)
{
	syncs++;
	return ac_fs_real()->fsync(ctx, fd);
}

static int count_unlinkat(void *ctx, int dirfd, const char *path, int flags)
{
	renames_or_links++;
	return ac_fs_real()->unlinkat(ctx, dirfd, path, flags);
}

static void test_refuses_another_version_or_a_hole(void **state)
{
	ac_fs table = *ac_fs_real();

	(void)state;
	table.version = 0;
	assert_int_equal(ac_fs_use(&table), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_fs: version 0"));
	table.version = AC_FS_VERSION;
	table.fsync = NULL;
	assert_int_equal(ac_fs_use(&table), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "missing"));
	assert_int_equal(ac_fs_use(NULL), 0);
}

static void test_a_journal_append_goes_through_the_table(void **state)
{
	char *dir = tu_make_temp_dir(), *journal = tu_path(dir, "JOURNAL.jsonl");
	ac_journal_options opts;
	ac_fs table = *ac_fs_real();
	int before;

	(void)state;
	table.openat = count_openat;
	table.write = count_write;
	table.fsync = count_fsync;
	table.unlinkat = count_unlinkat;
	ac_journal_options_init(&opts);
	opts.fsync = AC_FSYNC_ALWAYS;
	assert_int_equal(ac_fs_use(&table), 0);
	assert_int_equal(ac_journal_append(NULL, journal, "{\"id\":\"a\"}", 10, &opts), 0);
	assert_int_equal(ac_fs_use(NULL), 0);
	/* The lock file and the journal opened, the lock's pid and the line
	 * written, the journal and its folder synced, the lock removed. */
	assert_true(opens >= 2);
	assert_true(writes >= 2);
	assert_true(syncs >= 2);
	assert_true(renames_or_links >= 1);
	before = opens + writes + syncs;
	assert_int_equal(ac_journal_append(NULL, journal, "{\"id\":\"b\"}", 10, &opts), 0);
	assert_int_equal(opens + writes + syncs, before);
	/* An append to a journal another writer made (not empty): the folder
	 * is synced too, or a power cut can take the journal's name with the
	 * acknowledged line (found by the simulator, seed 6 of "journal"). */
	syncs = 0;
	assert_int_equal(ac_fs_use(&table), 0);
	assert_int_equal(ac_journal_append(NULL, journal, "{\"id\":\"c\"}", 10, &opts), 0);
	assert_int_equal(ac_fs_use(NULL), 0);
	assert_int_equal(syncs, 2);
	tu_remove_tree(dir);
	free(journal);
	free(dir);
}

/* A compaction's archive in a folder it creates: each new folder's name is
 * synced in its parent, or a power cut takes the folder and the archive
 * with it while the session naming the archive survives (found by the
 * simulator, seed 1 of "compact": the acknowledged messages summarised
 * were lost). */
static void test_an_archive_folder_is_made_durable(void **state)
{
	char *dir = tu_make_temp_dir(), *sessions = tu_path(dir, "sessions");
	char *compactions = tu_path(sessions, ".compactions");
	char *own = tu_path(compactions, "s1");
	char *path = NULL, *relative = NULL;
	json_t *messages = json_pack("[{s:s, s:s}]", "role", "user", "content", "hello");

	(void)state;
	assert_int_equal(mkdir(sessions, 0755), 0);
	tu_fsync_record();
	assert_int_equal(ac_archive_write(&path, &relative, sessions, ".compactions", "s1",
					  "2026-11-28T00:00:00.000Z", 1764288000000, messages, NULL),
			 0);
	tu_fsync_restore();
	assert_true(tu_fsync_was_synced(own));         /* names the archive */
	assert_true(tu_fsync_was_synced(compactions)); /* names s1/ */
	assert_true(tu_fsync_was_synced(sessions));    /* names .compactions/ */
	json_decref(messages);
	free(path);
	free(relative);
	tu_remove_tree(dir);
	free(own);
	free(compactions);
	free(sessions);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refuses_another_version_or_a_hole),
		cmocka_unit_test(test_a_journal_append_goes_through_the_table),
		cmocka_unit_test(test_an_archive_folder_is_made_durable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
