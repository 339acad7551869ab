/* Writing where renameat2's flags do not exist (the Linux NFS client, SMB,
 * most FUSE file systems answer EINVAL): this test binary stands in for
 * such a file system by answering renameat2 with flags the same way. What
 * must still hold: a new session never replaces one another host created
 * meanwhile; updates and saves still land whole. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_error.h"
#include "ac_session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool without_rename_flags;
static int flagged_renames;
/* When set: another host creates the target the moment we try to rename,
 * after any check we made that it did not exist. */
static const char *other_host_creates;

/* Interposes libc's renameat2 for the library linked into this binary. */
int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
	      unsigned int flags)
{
	if (without_rename_flags && flags != 0) {
		flagged_renames++;
		if (other_host_creates) {
			tu_write_file(newpath, other_host_creates, strlen(other_host_creates));
			other_host_creates = NULL;
		}
		errno = EINVAL;
		return -1;
	}
	return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}

static int setup(void **state)
{
	without_rename_flags = true;
	flagged_renames = 0;
	other_host_creates = NULL;
	*state = tu_make_temp_dir();
	return 0;
}

static int teardown(void **state)
{
	without_rename_flags = false;
	tu_remove_tree(*state);
	free(*state);
	return 0;
}

static void test_create_never_replaces_an_existing_session(void **state)
{
	const char *dir = *state;
	char *before, *after, *path = tu_path(dir, "s1.json");

	assert_int_equal(ac_session_create(NULL, dir, "s1", "first", NULL, NULL, NULL), 0);
	assert_true(flagged_renames > 0); /* the flagged rename was tried and refused */
	before = tu_read_file(path, NULL);
	assert_int_equal(ac_session_create(NULL, dir, "s1", "second", NULL, NULL, NULL), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "exists already"));
	after = tu_read_file(path, NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(path);
}

/* The race a check-then-rename loses: the other host's session survives. */
static void test_create_loses_to_a_session_created_meanwhile(void **state)
{
	const char *dir = *state;
	const char *theirs = "{\"id\":\"s1\",\"task\":\"theirs\",\"status\":\"running\","
			     "\"conversationHistory\":[],\"metadata\":{}}";
	char *after, *path = tu_path(dir, "s1.json");

	other_host_creates = theirs;
	assert_int_equal(ac_session_create(NULL, dir, "s1", "ours", NULL, NULL, NULL), AC_EINVAL);
	after = tu_read_file(path, NULL);
	assert_string_equal(after, theirs);
	free(after);
	free(path);
}

static void test_no_temporary_file_is_left_behind(void **state)
{
	const char *dir = *state;
	struct dirent *entry;
	int entries = 0;
	DIR *folder;

	assert_int_equal(ac_session_create(NULL, dir, "s1", "first", NULL, NULL, NULL), 0);
	assert_int_equal(ac_session_create(NULL, dir, "s1", "again", NULL, NULL, NULL), AC_EINVAL);
	assert_non_null(folder = opendir(dir));
	while ((entry = readdir(folder)))
		if (entry->d_name[0] != '.')
			entries++;
	closedir(folder);
	assert_int_equal(entries, 1);
}

static void test_status_change_still_lands(void **state)
{
	const char *dir = *state;
	ac_session *s = NULL;

	assert_int_equal(ac_session_create(NULL, dir, "s1", "task", NULL, NULL, NULL), 0);
	assert_int_equal(ac_session_set_status(NULL, dir, "s1", "paused"), 0);
	assert_int_equal(ac_session_load(&s, dir, "s1"), 0);
	assert_string_equal(ac_session_status(s), "paused");
	ac_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_never_replaces_an_existing_session, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_create_loses_to_a_session_created_meanwhile, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_temporary_file_is_left_behind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_change_still_lands, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
