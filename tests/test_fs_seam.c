/* The file-system seam (agentctl/sys/ac_fs.h): a table of another version
 * or with a hole is refused with one clear error; an installed table sees
 * the core's file protocols' calls (a journal append's lock, write and
 * fsync all pass through it); NULL puts the kernel back. The simulator
 * (tests/sim/) is built on this. */
#include "test_util.h"

#include "ac_archive.h"
#include "ac_backend.h"
#include "ac_backend_fs.h"
#include "ac_error.h"
#include "ac_fs.h"
#include "ac_journal.h"
#include "ac_session.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

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

/* A file store with its sessions in dir/sessions and its data in data. */
static void open_fs_store(ac_backend *b, const char *dir, const char *data)
{
	char *sessions = tu_path(dir, "sessions");
	ac_backend_fs_options opts = AC_BACKEND_FS_OPTIONS_INIT;

	opts.sessions_dir = sessions;
	opts.data_dir = data;
	assert_int_equal(ac_backend_fs_init(b, &opts), 0);
	free(sessions);
}

/* A tool result moved to an artifact in folders it creates: each folder's
 * name is synced in its parent up to the data folder, or a power cut takes
 * the artifact while the session naming it survives (found by the
 * simulator, seed 1 of "compact" once compaction moved tool results). */
static void test_an_artifact_folder_is_made_durable(void **state)
{
	char *dir = tu_make_temp_dir();
	char *data = tu_path(dir, "data"), *artifacts = tu_path(data, "artifacts");
	char *tenant = tu_path(artifacts, "t1"), *own = tu_path(tenant, "s1");
	ac_backend b = {0};

	(void)state;
	open_fs_store(&b, dir, data);
	tu_fsync_record();
	assert_int_equal(b.artifact.write(b.impl, "t1", "s1", "call_1", "tool output", 11), 0);
	tu_fsync_restore();
	assert_true(tu_fsync_was_synced(own));       /* names the artifact */
	assert_true(tu_fsync_was_synced(tenant));    /* names s1/ */
	assert_true(tu_fsync_was_synced(artifacts)); /* names t1/ */
	assert_true(tu_fsync_was_synced(data));      /* names artifacts/ */
	ac_backend_close(&b);
	tu_remove_tree(dir);
	free(own);
	free(tenant);
	free(artifacts);
	free(data);
	free(dir);
}

/* A memory document appended to or written in folders the call makes:
 * the appended bytes are synced before the append returns, the new
 * document's name in its folder, and each folder's name in its parent up
 * to the data folder (before, an append was never synced and the folders
 * were made as ac_file_mkdirs() makes them: a power cut took an
 * acknowledged note). */
static void test_a_memo_is_made_durable(void **state)
{
	char *dir = tu_make_temp_dir();
	char *data = tu_path(dir, "data"), *memo = tu_path(data, "memo");
	char *tenant = tu_path(memo, "t1"), *owner = tu_path(tenant, "o1");
	char *scope = tu_path(owner, "session"), *notes = tu_path(scope, "notes");
	char *other = tu_path(tenant, "o2"), *other_scope = tu_path(other, "agent");
	ac_backend b = {0};

	(void)state;
	open_fs_store(&b, dir, data);
	tu_fsync_record();
	assert_int_equal(b.memo.append(b.impl, "t1", "o1", "session", "notes", "first\n", 6), 0);
	tu_fsync_restore();
	assert_true(tu_fsync_was_synced(notes));  /* the bytes */
	assert_true(tu_fsync_was_synced(scope));  /* names notes */
	assert_true(tu_fsync_was_synced(owner));  /* names session/ */
	assert_true(tu_fsync_was_synced(tenant)); /* names o1/ */
	assert_true(tu_fsync_was_synced(memo));   /* names t1/ */
	assert_true(tu_fsync_was_synced(data));   /* names memo/ */

	/* A second append syncs its bytes too. */
	tu_fsync_record();
	assert_int_equal(b.memo.append(b.impl, "t1", "o1", "session", "notes", "second\n", 7), 0);
	tu_fsync_restore();
	assert_true(tu_fsync_was_synced(notes));

	tu_fsync_record();
	assert_int_equal(b.memo.write(b.impl, "t1", "o2", "agent", "plan", "p", 1), 0);
	tu_fsync_restore();
	assert_true(tu_fsync_was_synced(other_scope)); /* names plan */
	assert_true(tu_fsync_was_synced(other));       /* names agent/ */
	assert_true(tu_fsync_was_synced(tenant));      /* names o2/ */
	ac_backend_close(&b);
	tu_remove_tree(dir);
	free(other_scope);
	free(other);
	free(notes);
	free(scope);
	free(owner);
	free(tenant);
	free(memo);
	free(data);
	free(dir);
}

/* A disk that refuses a folder's sync (EIO): fsync on a folder fails,
 * everything else is the kernel's. */
static int folder_syncs_failed, folder_sync_errno = EIO;

static int fsync_folders_fail(void *ctx, int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		folder_syncs_failed++;
		errno = folder_sync_errno;
		return -1;
	}
	return ac_fs_real()->fsync(ctx, fd);
}

/* A change whose folder could not be synced is not acknowledged: the new
 * name may not survive a power cut (found by the simulator with faults:
 * seed 17 of "sessions" with --faults 0.003 acknowledged a message whose
 * swap was lost with the power). The error names the folder. */
static void test_a_failed_folder_sync_is_not_acknowledged(void **state)
{
	char *dir = tu_make_temp_dir(), *sessions = tu_path(dir, "sessions");
	char *session = tu_path(sessions, "s1.json"), *journal = tu_path(dir, "JOURNAL.jsonl");
	const char *doc = "{\"id\":\"s1\",\"task\":\"t\",\"status\":\"running\","
			  "\"conversationHistory\":[]}";
	json_t *messages = json_pack("[{s:s, s:s}]", "role", "user", "content", "hello");
	ac_journal_options opts;
	ac_fs table = *ac_fs_real();
	int fd;

	(void)state;
	assert_int_equal(mkdir(sessions, 0755), 0);
	fd = open(session, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, doc, strlen(doc)), (ssize_t)strlen(doc));
	close(fd);
	table.fsync = fsync_folders_fail;
	ac_journal_options_init(&opts);
	opts.fsync = AC_FSYNC_ALWAYS;
	assert_int_equal(ac_fs_use(&table), 0);
	assert_int_equal(ac_session_append_messages(NULL, sessions, "s1", messages), AC_EIO);
	assert_non_null(strstr(ac_error_last(), sessions));
	assert_non_null(strstr(ac_error_last(), "power cut"));
	assert_int_equal(ac_journal_append(NULL, journal, "{\"id\":\"a\"}", 10, &opts), AC_EIO);
	assert_non_null(strstr(ac_error_last(), "power cut"));
	assert_true(folder_syncs_failed >= 2);
	/* A file system that cannot sync folders at all (EINVAL) is not a
	 * failure: there is nothing more to do there. */
	folder_sync_errno = EINVAL;
	assert_int_equal(ac_session_append_messages(NULL, sessions, "s1", messages), 0);
	assert_int_equal(ac_journal_append(NULL, journal, "{\"id\":\"b\"}", 10, &opts), 0);
	assert_int_equal(ac_fs_use(NULL), 0);
	json_decref(messages);
	tu_remove_tree(dir);
	free(journal);
	free(session);
	free(sessions);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refuses_another_version_or_a_hole),
		cmocka_unit_test(test_a_journal_append_goes_through_the_table),
		cmocka_unit_test(test_an_archive_folder_is_made_durable),
		cmocka_unit_test(test_an_artifact_folder_is_made_durable),
		cmocka_unit_test(test_a_memo_is_made_durable),
		cmocka_unit_test(test_a_failed_folder_sync_is_not_acknowledged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
