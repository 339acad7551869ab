/* ac_git against real repositories made with libgit2: first commits on an
 * unborn HEAD, what a commit changed, protected paths, a workspace inside
 * the repository, and rollbacks refused before anything changes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_error.h"
#include "ac_file.h"
#include "ac_git.h"

#include <git2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
	char *dir;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	git_repository *repo = NULL;

	f->dir = tu_make_temp_dir();
	git_libgit2_init();
	if (git_repository_init(&repo, f->dir, 0) != 0)
		fail_msg("git init %s", f->dir);
	git_repository_free(repo);
	git_libgit2_shutdown();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	tu_remove_tree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static void open_git(ac_git **g, const char *root, const ac_git_protect *protect)
{
	if (ac_git_open(g, root, protect) != 0)
		fail_msg("ac_git_open: %s", ac_error_last());
}

static void commit(ac_git *g, char hash[AC_GIT_HASH_LEN + 1], const char *message)
{
	if (ac_git_commit_workspace(hash, g, message) != 0)
		fail_msg("commit: %s", ac_error_last());
}

/* Whether HEAD's tree holds path. */
static bool in_head(const char *dir, const char *path)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	bool found = false;

	git_libgit2_init();
	if (git_repository_open(&repo, dir) == 0 &&
	    git_revparse_single(&obj, repo, "HEAD^{tree}") == 0) {
		tree = (git_tree *)obj;
		found = git_tree_entry_bypath(&entry, tree, path) == 0;
	}
	git_tree_entry_free(entry);
	git_object_free(obj);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return found;
}

static const ac_git_change *find_change(const ac_git_change *c, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].path, path))
			return &c[i];
	return NULL;
}

/* The first commit on an unborn HEAD, then what each commit changed. */
static void test_diff_stats(void **state)
{
	fixture *f = *state;
	char first[AC_GIT_HASH_LEN + 1], second[AC_GIT_HASH_LEN + 1];
	ac_git_change *changes = NULL;
	const ac_git_change *c;
	size_t n = 0;
	ac_git *g = NULL;
	char *gone = tu_path(f->dir, "gone.txt");

	tu_put(f->dir, "a.txt", "1\n2\n3\n");
	tu_put(f->dir, "gone.txt", "x\ny\n");
	open_git(&g, f->dir, NULL);
	commit(g, first, "first");
	assert_int_equal(ac_git_commit_changes(&changes, &n, g, first), 0);
	assert_int_equal(n, 2);
	c = find_change(changes, n, "a.txt");
	assert_non_null(c);
	assert_int_equal(c->status, 'A');
	assert_int_equal(c->additions, 3);
	assert_int_equal(c->deletions, 0);
	ac_git_changes_free(changes, n);

	tu_put(f->dir, "a.txt", "1\nTWO\n3\n4\n");
	unlink(gone);
	tu_put(f->dir, "new.txt", "n\n");
	commit(g, second, "second");
	assert_int_equal(ac_git_commit_changes(&changes, &n, g, second), 0);
	assert_int_equal(n, 3);
	c = find_change(changes, n, "a.txt");
	assert_int_equal(c->status, 'M');
	assert_int_equal(c->additions, 2);
	assert_int_equal(c->deletions, 1);
	c = find_change(changes, n, "gone.txt");
	assert_int_equal(c->status, 'D');
	assert_int_equal(c->deletions, 2);
	c = find_change(changes, n, "new.txt");
	assert_int_equal(c->status, 'A');
	ac_git_changes_free(changes, n);

	/* A short prefix works; an unknown hash is AC_ENOTFOUND. */
	first[10] = '\0';
	assert_int_equal(ac_git_commit_exists(g, first), 0);
	assert_int_equal(ac_git_commit_exists(g, "0123456789abcdef0123456789abcdef01234567"),
			 AC_ENOTFOUND);
	assert_int_equal(ac_git_commit_changes(&changes, &n, g, "zz-not-hex"), AC_ENOTFOUND);
	free(gone);
	ac_git_free(g);
}

/* Protected paths are never staged: folders, files and their locks, a
 * journal, its rotated files and their locks. */
static void test_protected_not_staged(void **state)
{
	fixture *f = *state;
	char hash[AC_GIT_HASH_LEN + 1];
	char *sessions = tu_path(f->dir, ".agent/sessions"), *ops = tu_path(f->dir, ".agent/operations.jsonl"),
	     *journal = tu_path(f->dir, "JOURNAL.jsonl");
	const char *folders[] = {sessions, NULL}, *files[] = {ops, NULL}, *journals[] = {journal, NULL};
	ac_git_protect protect = {folders, files, journals};
	ac_git *g = NULL;

	tu_put(f->dir, ".agent/sessions/s.json", "{}");
	tu_put(f->dir, ".agent/sessions/.compactions/s/x.json", "{}");
	tu_put(f->dir, ".agent/operations.jsonl", "{}\n");
	tu_put(f->dir, ".agent/operations.jsonl.lock", "1");
	tu_put(f->dir, ".agent/config.json", "{}");
	tu_put(f->dir, "JOURNAL.jsonl", "{}\n");
	tu_put(f->dir, "JOURNAL.jsonl.lock", "1");
	tu_put(f->dir, "JOURNAL-20250101T000000.000Z.jsonl", "{}\n");
	tu_put(f->dir, "JOURNAL-20250101T000000.000Z.jsonl.lock", "1");
	tu_put(f->dir, "JOURNALS.md", "not a journal");
	tu_put(f->dir, "src/JOURNAL.jsonl", "another folder");
	open_git(&g, f->dir, &protect);
	commit(g, hash, "c");
	assert_false(in_head(f->dir, ".agent/sessions/s.json"));
	assert_false(in_head(f->dir, ".agent/sessions/.compactions/s/x.json"));
	assert_false(in_head(f->dir, ".agent/operations.jsonl"));
	assert_false(in_head(f->dir, ".agent/operations.jsonl.lock"));
	assert_false(in_head(f->dir, "JOURNAL.jsonl"));
	assert_false(in_head(f->dir, "JOURNAL.jsonl.lock"));
	assert_false(in_head(f->dir, "JOURNAL-20250101T000000.000Z.jsonl"));
	assert_false(in_head(f->dir, "JOURNAL-20250101T000000.000Z.jsonl.lock"));
	assert_true(in_head(f->dir, ".agent/config.json"));
	assert_true(in_head(f->dir, "JOURNALS.md"));
	assert_true(in_head(f->dir, "src/JOURNAL.jsonl"));
	ac_git_free(g);
	free(sessions);
	free(ops);
	free(journal);
}

/* A workspace in a folder of the repository: only its files are staged
 * and rolled back, and paths are relative to the repository. */
static void test_subfolder_workspace(void **state)
{
	fixture *f = *state;
	char base[AC_GIT_HASH_LEN + 1], op[AC_GIT_HASH_LEN + 1];
	char *ws = tu_path(f->dir, "ws");
	ac_git_rollback_result r = {0};
	ac_git *whole = NULL, *g = NULL;

	tu_put(f->dir, "outside.txt", "1\n");
	tu_put(f->dir, "ws/a.txt", "1\n");
	open_git(&whole, f->dir, NULL);
	commit(whole, base, "base");
	ac_git_free(whole);

	tu_put(f->dir, "outside.txt", "2\n");
	tu_put(f->dir, "ws/a.txt", "2\n");
	tu_put(f->dir, "ws/sub/b.txt", "b\n");
	open_git(&g, ws, NULL);
	commit(g, op, "op");
	assert_true(in_head(f->dir, "ws/sub/b.txt"));
	assert_true(in_head(f->dir, "outside.txt")); /* from the base commit */

	assert_int_equal(ac_git_rollback(&r, g, op, "snap", "rollback", false), 0);
	tu_assert_file(f->dir, "ws/a.txt", "1\n");
	assert_false(tu_exists(f->dir, "ws/sub"));
	assert_true(tu_exists(f->dir, "ws")); /* the workspace itself is never pruned */
	tu_assert_file(f->dir, "outside.txt", "2\n");
	for (size_t i = 0; i < r.n; i++)
		assert_int_equal(strncmp(r.items[i].path, "ws/", 3), 0);
	ac_git_rollback_result_free(&r);
	ac_git_free(g);
	free(ws);
}

/* A symbolic link planted where a folder to restore stood is refused
 * before anything changes; nothing is written through it. */
static void test_symlink_refused(void **state)
{
	fixture *f = *state;
	char c1[AC_GIT_HASH_LEN + 1], c2[AC_GIT_HASH_LEN + 1], before[AC_GIT_HASH_LEN + 1];
	char *outside = tu_make_temp_dir(), *dir = tu_path(f->dir, "d"), *planted;
	ac_git_rollback_result r = {0};
	ac_git *g = NULL;
	git_repository *repo = NULL;
	git_oid oid;

	tu_put(f->dir, "d/f.txt", "keep\n");
	open_git(&g, f->dir, NULL);
	commit(g, c1, "one");
	tu_put(f->dir, "d/f.txt", "changed\n");
	commit(g, c2, "two");
	/* Replace the folder with a link to somewhere else. */
	tu_remove_tree(dir);
	assert_int_equal(symlink(outside, dir), 0);
	git_repository_open(&repo, f->dir);
	git_reference_name_to_id(&oid, repo, "HEAD");
	git_oid_tostr(before, sizeof(before), &oid);
	git_repository_free(repo);

	assert_int_equal(ac_git_rollback(&r, g, c2, "snap", "rollback", false), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "symbolic link"));
	planted = tu_path(outside, "f.txt");
	assert_false(access(planted, F_OK) == 0);
	git_repository_open(&repo, f->dir);
	git_reference_name_to_id(&oid, repo, "HEAD");
	assert_string_equal(git_oid_tostr_s(&oid), before);
	git_repository_free(repo);
	ac_git_free(g);
	tu_remove_tree(outside);
	free(outside);
	free(planted);
	free(dir);
}

/* A root commit rolls back to the empty tree; outside a repository and
 * with an unknown hash nothing changes. */
static void test_root_commit_and_errors(void **state)
{
	fixture *f = *state;
	char c1[AC_GIT_HASH_LEN + 1];
	char *plain = tu_make_temp_dir();
	ac_git_rollback_result r = {0};
	ac_git *g = NULL;

	tu_put(f->dir, "a.txt", "a\n");
	open_git(&g, f->dir, NULL);
	commit(g, c1, "one");
	assert_int_equal(ac_git_rollback(&r, g, "0123456789abcdef0123456789abcdef01234567", "s", "m",
					 false), AC_ENOTFOUND);
	assert_true(tu_exists(f->dir, "a.txt"));
	assert_int_equal(ac_git_rollback(&r, g, c1, "s", "m", true), 0);
	assert_string_equal(r.target, "");
	assert_int_equal(r.removed, 1);
	assert_true(tu_exists(f->dir, "a.txt"));
	ac_git_rollback_result_free(&r);
	assert_int_equal(ac_git_rollback(&r, g, c1, "s", "m", false), 0);
	assert_false(tu_exists(f->dir, "a.txt"));
	ac_git_rollback_result_free(&r);
	ac_git_free(g);

	assert_int_equal(ac_git_open(&g, plain, NULL), AC_ENOTFOUND);
	assert_null(g);
	assert_non_null(strstr(ac_error_last(), plain));
	tu_remove_tree(plain);
	free(plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_diff_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protected_not_staged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subfolder_workspace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_commit_and_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
