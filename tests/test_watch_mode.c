/* Choosing inotify or polling: the watch setting, and the file systems
 * whose other writers inotify cannot see. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_fs_remote.h"
#include "ac_watch_mode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_network_and_fuse_types_are_remote(void **state)
{
	(void)state;
	assert_string_equal(ac_fs_remote_name(0x6969), "nfs");
	assert_string_equal(ac_fs_remote_name(0x65735546), "fuse");
	assert_string_equal(ac_fs_remote_name(0xFF534D42L), "cifs");
	/* The same magic read through a signed 32-bit f_type. */
	assert_string_equal(ac_fs_remote_name((long)(int32_t)0xFE534D42u), "smb2");
	assert_string_equal(ac_fs_remote_name(0x01021997), "9p");
}

static void test_local_types_are_not_remote(void **state)
{
	(void)state;
	assert_null(ac_fs_remote_name(0xEF53));     /* ext4 */
	assert_null(ac_fs_remote_name(0x01021994)); /* tmpfs */
	assert_null(ac_fs_remote_name(0x9123683E)); /* btrfs */
	assert_null(ac_fs_remote_name(0x58465342)); /* xfs */
	assert_null(ac_fs_remote_name(0x794C7630)); /* overlayfs */
}

static void test_a_local_folder_is_followed_with_inotify(void **state)
{
	char *dir = tu_make_temp_dir();
	const char *name = "unset";
	ac_workspace ws = {.root = dir, .sessions_dir = dir, .checkpoints_dir = dir,
			   .journal_path = dir, .operations_path = dir};
	ac_watch_mode mode;

	(void)state;
	assert_false(ac_fs_is_remote(dir, &name));
	assert_null(name);
	ac_watch_mode_choose(&mode, &ws, "auto");
	assert_false(mode.poll);
	ac_watch_mode_choose(&mode, &ws, NULL);
	assert_false(mode.poll);
	tu_remove_tree(dir);
	free(dir);
}

static void test_the_setting_decides_first(void **state)
{
	char *dir = tu_make_temp_dir();
	ac_workspace ws = {.root = dir, .sessions_dir = dir, .checkpoints_dir = dir,
			   .journal_path = dir, .operations_path = dir};
	ac_watch_mode mode;

	(void)state;
	ac_watch_mode_choose(&mode, &ws, "poll");
	assert_true(mode.poll);
	assert_string_equal(mode.reason, "watch = poll");
	ac_watch_mode_choose(&mode, &ws, "inotify");
	assert_false(mode.poll);
	tu_remove_tree(dir);
	free(dir);
}

/* A folder not made yet is judged by its parent; nothing there at all is
 * not remote. */
static void test_missing_folders_are_not_remote(void **state)
{
	char root[] = "/nonexistent/a", sessions[] = "/nonexistent/a/b";
	char journal[] = "/nonexistent/j", operations[] = "/nonexistent/o";
	ac_workspace ws = {.root = root, .sessions_dir = sessions, .checkpoints_dir = NULL,
			   .journal_path = journal, .operations_path = operations};
	ac_watch_mode mode;

	(void)state;
	ac_watch_mode_choose(&mode, &ws, "auto");
	assert_false(mode.poll);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_network_and_fuse_types_are_remote),
		cmocka_unit_test(test_local_types_are_not_remote),
		cmocka_unit_test(test_a_local_folder_is_followed_with_inotify),
		cmocka_unit_test(test_the_setting_decides_first),
		cmocka_unit_test(test_missing_folders_are_not_remote),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
