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
#include "ac_git_paths.h"

#include <git2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
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
	tu_put(f->dir, "JOURNAL.jsonl.1", "{}\n"); /* logrotate's archives (issue 26) */
	tu_put(f->dir, "JOURNAL.jsonl.2.gz", "gz");
	tu_put(f->dir, "JOURNAL.jsonl-20250903", "{}\n");
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
	assert_false(in_head(f->dir, "JOURNAL.jsonl.1"));
	assert_false(in_head(f->dir, "JOURNAL.jsonl.2.gz"));
	assert_false(in_head(f->dir, "JOURNAL.jsonl-20250903"));
	/* Everything under .agent/ is agent state, configured or not. */
	assert_false(in_head(f->dir, ".agent/config.json"));
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

/* ac_git_init() makes a repository ac_git_open() opens, in a folder it
 * makes; a second time keeps it; a file in the way is refused, named. */
static void test_init(void **state)
{
	char *dir = tu_make_temp_dir();
	char *inner = tu_path(dir, "new/ws"), *file = tu_path(dir, "file");
	ac_git *g = NULL;

	(void)state;
	assert_int_equal(ac_git_open(&g, inner, NULL), AC_ENOTFOUND);
	assert_int_equal(ac_git_init(inner), 0);
	assert_true(tu_exists(dir, "new/ws/.git/HEAD"));
	assert_int_equal(ac_git_init(inner), 0);
	assert_int_equal(ac_git_open(&g, inner, NULL), 0);
	ac_git_free(g);
	tu_put(dir, "file", "not a folder\n");
	assert_int_equal(ac_git_init(file), AC_EIO);
	assert_non_null(strstr(ac_error_last(), "git init in "));
	assert_non_null(strstr(ac_error_last(), file));
	free(inner);
	free(file);
	tu_remove_tree(dir);
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

/* Undo options of another version are refused, naming the struct, before
 * anything is planned or touched; AC_GIT_UNDO_OPTIONS_INIT's are taken. */
static void test_undo_options_version(void **state)
{
	fixture *f = *state;
	char c1[AC_GIT_HASH_LEN + 1];
	ac_git_rollback_result r = {0};
	ac_git_undo_options old = {.dry_run = true};
	ac_git_undo_options cur = AC_GIT_UNDO_OPTIONS_INIT;
	ac_git *g = NULL;

	tu_put(f->dir, "a.txt", "a\n");
	open_git(&g, f->dir, NULL);
	commit(g, c1, "one");
	assert_int_equal(ac_git_undo(&r, g, c1, "s", "m", &old), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_git_undo_options version 0"));
	assert_non_null(strstr(ac_error_last(), "AC_GIT_UNDO_OPTIONS_INIT"));
	ac_git_rollback_result_free(&r);
	cur.dry_run = true;
	assert_int_equal(ac_git_undo(&r, g, c1, "s", "m", &cur), 0);
	assert_int_equal(r.removed, 1);
	assert_true(tu_exists(f->dir, "a.txt"));
	ac_git_rollback_result_free(&r);
	ac_git_free(g);
}

/* A tree written object by object, as a hostile agent can: names git's
 * own tools refuse to create. */
typedef struct {
	const char *name;
	unsigned mode;
	const git_oid *oid;
} raw_entry;

static void raw_tree(git_oid *out, git_repository *repo, const raw_entry *e, size_t n)
{
	unsigned char buf[4096];
	size_t len = 0;
	git_odb *odb = NULL;

	for (size_t i = 0; i < n; i++) {
		len += (size_t)snprintf((char *)buf + len, sizeof(buf) - len, "%o %s", e[i].mode,
					e[i].name) + 1;
		memcpy(buf + len, e[i].oid->id, GIT_OID_RAWSZ);
		len += GIT_OID_RAWSZ;
	}
	assert_int_equal(git_repository_odb(&odb, repo), 0);
	assert_int_equal(git_odb_write(out, odb, buf, len, GIT_OBJECT_TREE), 0);
	git_odb_free(odb);
}

/* A commit whose parent holds tree (so rolling back to before it puts
 * tree back), not on any branch. */
static void commit_on_top_of(char out[AC_GIT_HASH_LEN + 1], git_repository *repo,
			     const git_oid *tree_oid)
{
	git_signature *sig = NULL;
	git_tree *tree = NULL, *empty = NULL;
	git_treebuilder *tb = NULL;
	git_commit *parent = NULL;
	git_oid parent_oid, oid, empty_oid;
	const git_commit *parents[1];

	assert_int_equal(git_signature_now(&sig, "t", "t@example.com"), 0);
	assert_int_equal(git_tree_lookup(&tree, repo, tree_oid), 0);
	assert_int_equal(git_commit_create(&parent_oid, repo, NULL, sig, sig, NULL, "hostile", tree,
					   0, NULL), 0);
	assert_int_equal(git_commit_lookup(&parent, repo, &parent_oid), 0);
	assert_int_equal(git_treebuilder_new(&tb, repo, NULL), 0);
	assert_int_equal(git_treebuilder_write(&empty_oid, tb), 0);
	assert_int_equal(git_tree_lookup(&empty, repo, &empty_oid), 0);
	parents[0] = parent;
	assert_int_equal(git_commit_create(&oid, repo, NULL, sig, sig, NULL, "op", empty, 1, parents),
			 0);
	git_oid_tostr(out, AC_GIT_HASH_LEN + 1, &oid);
	git_commit_free(parent);
	git_tree_free(tree);
	git_tree_free(empty);
	git_treebuilder_free(tb);
	git_signature_free(sig);
}

static void head_hash(char out[AC_GIT_HASH_LEN + 1], const char *dir)
{
	git_repository *repo = NULL;
	git_oid oid;

	assert_int_equal(git_repository_open(&repo, dir), 0);
	assert_int_equal(git_reference_name_to_id(&oid, repo, "HEAD"), 0);
	git_oid_tostr(out, AC_GIT_HASH_LEN + 1, &oid);
	git_repository_free(repo);
}

/* issue 11 item 1: every hostile name in the target tree refuses the
 * whole rollback, dry run included, naming the path; nothing is written
 * outside the workspace or into .git, HEAD does not move. */
static void test_hostile_tree_refused(void **state)
{
	static const struct {
		const char *top;   /* a top-level entry; a folder when sub is set */
		const char *sub;   /* the file inside it, or NULL */
		unsigned mode;     /* of the file (or top-level entry) */
		const char *blob;  /* contents (the link target for links) */
		const char *named; /* what the error must name */
	} cases[] = {
		{"..", "escape.txt", 0100644, "x\n", "../escape.txt"},
		{"../../escape.txt", NULL, 0100644, "x\n", "../../escape.txt"},
		{".git", "config", 0100644, "[core]\n\tfsmonitor = touch PWNED\n", ".git/config"},
		{".GIT", "config", 0100644, "x", ".GIT/config"},
		{".git.", "config", 0100644, "x", ".git./config"},
		{".git ", "config", 0100644, "x", ".git /config"},
		{"GIT~1", "config", 0100644, "x", "GIT~1/config"},
		{".git::$INDEX_ALLOCATION", "config", 0100644, "x", ".git::$INDEX_ALLOCATION"},
		{".g\xe2\x80\x8cit", "config", 0100644, "x", ".g\xe2\x80\x8cit/config"},
		{".", "x.txt", 0100644, "x", "./x.txt"},
		{"a\\b", NULL, 0100644, "x", "a\\b"},
		{"up", NULL, 0120000, "../../outside", "up"},
		{"abs", NULL, 0120000, "/etc/passwd", "abs"},
		{"intogit", NULL, 0120000, ".git/hooks", "intogit"},
		{".gitmodules", NULL, 0120000, "x", ".gitmodules"},
	};
	fixture *f = *state;
	char base[AC_GIT_HASH_LEN + 1], before[AC_GIT_HASH_LEN + 1], op[AC_GIT_HASH_LEN + 1];
	char *parent = strdup(f->dir), *escape, *config_path, *config;
	ac_git_rollback_result r = {0};
	git_repository *repo = NULL;
	ac_git *g = NULL;

	*strrchr(parent, '/') = '\0';
	escape = tu_path(parent, "escape.txt");
	tu_put(f->dir, "a.txt", "a\n");
	open_git(&g, f->dir, NULL);
	commit(g, base, "base");
	git_libgit2_init();
	assert_int_equal(git_repository_open(&repo, f->dir), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		git_oid blob, sub, root;
		raw_entry file = {cases[i].sub ? cases[i].sub : cases[i].top, cases[i].mode, &blob};
		raw_entry folder = {cases[i].top, 040000, &sub};

		assert_int_equal(git_blob_create_from_buffer(&blob, repo, cases[i].blob,
							     strlen(cases[i].blob)), 0);
		if (cases[i].sub) {
			raw_tree(&sub, repo, &file, 1);
			raw_tree(&root, repo, &folder, 1);
		} else {
			raw_tree(&root, repo, &file, 1);
		}
		commit_on_top_of(op, repo, &root);
		head_hash(before, f->dir);
		for (int dry = 1; dry >= 0; dry--) {
			if (ac_git_rollback(&r, g, op, "snap", "rollback", dry) != AC_EINVAL)
				fail_msg("case %zu (%s) dry=%d: not refused (%s)", i, cases[i].named, dry,
					 ac_error_last());
			if (!strstr(ac_error_last(), cases[i].named))
				fail_msg("case %zu: error does not name %s: %s", i, cases[i].named,
					 ac_error_last());
		}
		head_hash(op, f->dir);
		assert_string_equal(op, before);
	}
	assert_false(access(escape, F_OK) == 0);
	assert_false(tu_exists(f->dir, ".git/config.lock"));
	config_path = tu_path(f->dir, ".git/config");
	config = tu_read_file(config_path, NULL);
	assert_null(strstr(config, "fsmonitor"));
	free(config);
	free(config_path);
	tu_assert_file(f->dir, "a.txt", "a\n");
	git_repository_free(repo);
	git_libgit2_shutdown();
	ac_git_free(g);
	free(parent);
	free(escape);
}

/* A gitlink (submodule entry) in the target is never written: the
 * rollback goes ahead without creating anything at its path. */
static void test_gitlink_not_written(void **state)
{
	fixture *f = *state;
	char base[AC_GIT_HASH_LEN + 1], op[AC_GIT_HASH_LEN + 1];
	ac_git_rollback_result r = {0};
	git_repository *repo = NULL;
	git_oid blob, root;
	raw_entry entries[2];
	ac_git *g = NULL;

	tu_put(f->dir, "a.txt", "a\n");
	open_git(&g, f->dir, NULL);
	commit(g, base, "base");
	git_libgit2_init();
	assert_int_equal(git_repository_open(&repo, f->dir), 0);
	assert_int_equal(git_blob_create_from_buffer(&blob, repo, "old\n", 4), 0);
	entries[0] = (raw_entry){"a.txt", 0100644, &blob};
	entries[1] = (raw_entry){"sub", 0160000, &blob}; /* any id: never looked up */
	raw_tree(&root, repo, entries, 2);
	commit_on_top_of(op, repo, &root);
	assert_int_equal(ac_git_rollback(&r, g, op, "snap", "rollback", false), 0);
	tu_assert_file(f->dir, "a.txt", "old\n");
	assert_false(tu_exists(f->dir, "sub"));
	for (size_t i = 0; i < r.n; i++)
		assert_string_not_equal(r.items[i].path, "sub");
	ac_git_rollback_result_free(&r);
	git_repository_free(repo);
	git_libgit2_shutdown();
	ac_git_free(g);
}

/* The path rules on their own: what passes and what does not. */
static void test_path_problem(void **state)
{
	static const char *const bad[] = {
		"", "/abs", "a//b", "a/", ".", "..", "a/../b", "./a", ".git", ".GiT", "a/.git/x",
		".git.", ".git...", ".git . .", "git~1", "GIT~1/x", ".git:x", ".git::$INDEX_ALLOCATION",
		".\xe2\x80\x8cgit", ".gi\xef\xbb\xbft", ".g\xe2\x81\xaait", "a\\b", "a\tb", "x\x7f",
	};
	static const char *const good[] = {
		"a", "a/b.txt", ".gitignore", ".github/workflows/ci.yml", ".gitx", "git", "..a",
		"a..", "...", "git~2x", "caf\xc3\xa9",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!ac_git_path_problem(bad[i], AC_GIT_MODE_BLOB, NULL, 0))
			fail_msg("'%s' passed", bad[i]);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (ac_git_path_problem(good[i], AC_GIT_MODE_BLOB, NULL, 0))
			fail_msg("'%s' refused: %s", good[i],
				 ac_git_path_problem(good[i], AC_GIT_MODE_BLOB, NULL, 0));
	assert_null(ac_git_path_problem("d/l", AC_GIT_MODE_LINK, "../x", 4));
	assert_null(ac_git_path_problem("l", AC_GIT_MODE_LINK, "d/./e", 5));
	assert_non_null(ac_git_path_problem("d/l", AC_GIT_MODE_LINK, "../../x", 7));
	assert_non_null(ac_git_path_problem("l", AC_GIT_MODE_LINK, "d/../../x", 9));
	assert_non_null(ac_git_path_problem("l", AC_GIT_MODE_LINK, "/x", 2));
	assert_non_null(ac_git_path_problem("l", AC_GIT_MODE_LINK, "", 0));
	assert_non_null(ac_git_path_problem("l", AC_GIT_MODE_LINK, "a\0b", 3));
	assert_non_null(ac_git_path_problem("x/.GITMODULES", AC_GIT_MODE_LINK, "y", 1));
	assert_null(ac_git_path_problem(".gitmodules", AC_GIT_MODE_BLOB, NULL, 0));
	assert_null(ac_git_path_problem("vendor/lib", AC_GIT_MODE_GITLINK, NULL, 0));
	assert_non_null(ac_git_path_problem(".git", AC_GIT_MODE_GITLINK, NULL, 0));
	assert_non_null(ac_git_path_problem("a", 0100666, NULL, 0));
}

/* issue 10 item 3: the fixed agent-state rules hold without any
 * configuration, and configured places are added on top. */
static void test_agent_state_predicate(void **state)
{
	fixture *f = *state;
	char *elsewhere = tu_path(f->dir, "state/ops.log"), *sessions = tu_path(f->dir, "sess");
	const char *files[] = {elsewhere, NULL}, *folders[] = {sessions, NULL};
	ac_git_protect protect = {folders, files, NULL};
	ac_git *g = NULL;

	assert_true(ac_git_path_is_default_agent_state(".agent"));
	assert_true(ac_git_path_is_default_agent_state(".agent/artifacts/a.bin"));
	assert_true(ac_git_path_is_default_agent_state(".agent/some-future-folder/x"));
	assert_true(ac_git_path_is_default_agent_state("JOURNAL.jsonl"));
	assert_true(ac_git_path_is_default_agent_state("JOURNAL-2025-01.jsonl"));
	assert_true(ac_git_path_is_default_agent_state("JOURNAL.jsonl.lock"));
	assert_true(ac_git_path_is_default_agent_state("JOURNAL.jsonl.1"));
	assert_true(ac_git_path_is_default_agent_state("JOURNAL.jsonl.3.gz"));
	assert_true(ac_git_path_is_default_agent_state("JOURNAL.jsonl-20250903"));
	assert_false(ac_git_path_is_default_agent_state(".agentrc.json"));
	assert_false(ac_git_path_is_default_agent_state(".agents/x"));
	assert_false(ac_git_path_is_default_agent_state("JOURNAL.md"));
	assert_false(ac_git_path_is_default_agent_state("src/JOURNAL.jsonl"));
	open_git(&g, f->dir, &protect);
	assert_true(ac_git_is_agent_state(g, ".agent/memo/m.md"));
	assert_true(ac_git_is_agent_state(g, "state/ops.log"));
	assert_true(ac_git_is_agent_state(g, "state/ops.log.lock"));
	assert_true(ac_git_is_agent_state(g, "sess/a.json"));
	assert_false(ac_git_is_agent_state(g, "state/other"));
	assert_false(ac_git_is_agent_state(g, "src/main.c"));
	ac_git_free(g);
	free(elsewhere);
	free(sessions);
}

/* issue 10 item 4: a commit writes the marked block into
 * .git/info/exclude, keeps the user's lines, writes it once however often
 * it runs; agent state git already tracks is listed. */
static void test_exclude_block(void **state)
{
	fixture *f = *state;
	char hash[AC_GIT_HASH_LEN + 1];
	char *exclude = tu_path(f->dir, ".git/info/exclude"), *first, *second, **tracked = NULL;
	char *journal = tu_path(f->dir, "logs/J.jsonl");
	const char *journals[] = {journal, NULL};
	ac_git_protect protect = {NULL, NULL, journals};
	size_t n = 0;
	git_repository *repo = NULL;
	git_index *index = NULL;
	ac_git *g = NULL;

	tu_write_file(exclude, "# mine\n*.swp", 13);
	tu_put(f->dir, ".agent/memo/m.md", "memo");
	tu_put(f->dir, "a.txt", "a");
	/* Tracked before agentctl came: the exclude file cannot hide it. */
	git_libgit2_init();
	assert_int_equal(git_repository_open(&repo, f->dir), 0);
	assert_int_equal(git_repository_index(&index, repo), 0);
	assert_int_equal(git_index_add_bypath(index, ".agent/memo/m.md"), 0);
	assert_int_equal(git_index_write(index), 0);
	git_index_free(index);
	git_repository_free(repo);
	git_libgit2_shutdown();

	open_git(&g, f->dir, &protect);
	commit(g, hash, "one");
	first = tu_read_file(exclude, NULL);
	assert_int_equal(strncmp(first, "# mine\n*.swp\n", 13), 0);
	assert_non_null(strstr(first, "\n/.agent/\n"));
	assert_non_null(strstr(first, "\n/JOURNAL*.jsonl\n"));
	assert_non_null(strstr(first, "\n/logs/J.jsonl\n"));
	assert_non_null(strstr(first, "\n/logs/J-*.jsonl\n"));
	commit(g, hash, "two");
	second = tu_read_file(exclude, NULL);
	assert_string_equal(first, second);
	assert_int_equal(ac_git_tracked_agent_state(&tracked, &n, g), 0);
	assert_int_equal(n, 1);
	assert_string_equal(tracked[0], ".agent");
	ac_git_paths_free(tracked, n);
	ac_git_free(g);
	free(first);
	free(second);
	free(exclude);
	free(journal);
}

/* issue 11 item 7: an untracked clone inside the workspace neither stops
 * a commit nor a rollback, and nothing inside it is touched. */
static void test_embedded_repository(void **state)
{
	fixture *f = *state;
	char c1[AC_GIT_HASH_LEN + 1], c2[AC_GIT_HASH_LEN + 1];
	char *vendor = tu_path(f->dir, "vendor/lib");
	ac_git_rollback_result r = {0};
	git_repository *inner = NULL;
	ac_git *g = NULL;

	tu_put(f->dir, "a.txt", "1\n");
	tu_put(f->dir, "vendor/lib/lib.c", "int x;\n");
	git_libgit2_init();
	assert_int_equal(git_repository_init(&inner, vendor, 0), 0);
	git_repository_free(inner);
	git_libgit2_shutdown();
	open_git(&g, f->dir, NULL);
	commit(g, c1, "one");
	tu_put(f->dir, "a.txt", "2\n");
	commit(g, c2, "two");
	assert_false(in_head(f->dir, "vendor/lib/lib.c"));
	assert_int_equal(ac_git_rollback(&r, g, c2, "snap", "rollback", false), 0);
	tu_assert_file(f->dir, "a.txt", "1\n");
	tu_assert_file(f->dir, "vendor/lib/lib.c", "int x;\n");
	ac_git_rollback_result_free(&r);
	ac_git_free(g);
	free(vendor);
}

/* issue 11 item 5: no rollback while a merge is in progress or the index
 * has conflicts; the conflict stages and MERGE_HEAD stay. */
static void test_refused_mid_merge(void **state)
{
	fixture *f = *state;
	char c1[AC_GIT_HASH_LEN + 1], c2[AC_GIT_HASH_LEN + 1];
	char *merge_head = tu_path(f->dir, ".git/MERGE_HEAD");
	ac_git_rollback_result r = {0};
	git_repository *repo = NULL;
	git_index *index = NULL;
	git_index_entry ours;
	ac_git *g = NULL;

	tu_put(f->dir, "a.txt", "1\n");
	open_git(&g, f->dir, NULL);
	commit(g, c1, "one");
	tu_put(f->dir, "a.txt", "2\n");
	commit(g, c2, "two");
	tu_write_file(merge_head, c1, AC_GIT_HASH_LEN);
	assert_int_equal(ac_git_rollback(&r, g, c2, "s", "m", true), AC_ECONFLICT);
	assert_non_null(strstr(ac_error_last(), "a merge is in progress"));
	assert_int_equal(ac_git_rollback(&r, g, c2, "s", "m", false), AC_ECONFLICT);
	assert_true(tu_exists(f->dir, ".git/MERGE_HEAD"));
	unlink(merge_head);

	/* Unmerged index entries, no merge state. */
	git_libgit2_init();
	assert_int_equal(git_repository_open(&repo, f->dir), 0);
	assert_int_equal(git_repository_index(&index, repo), 0);
	memset(&ours, 0, sizeof(ours));
	ours.path = "a.txt";
	ours.mode = GIT_FILEMODE_BLOB;
	assert_int_equal(git_blob_create_from_buffer(&ours.id, repo, "x", 1), 0);
	assert_int_equal(git_index_conflict_add(index, NULL, &ours, &ours), 0);
	assert_int_equal(git_index_write(index), 0);
	git_index_free(index);
	git_repository_free(repo);
	git_libgit2_shutdown();
	assert_int_equal(ac_git_rollback(&r, g, c2, "s", "m", false), AC_ECONFLICT);
	assert_non_null(strstr(ac_error_last(), "conflicts"));
	tu_assert_file(f->dir, "a.txt", "2\n");
	ac_git_free(g);
	free(merge_head);
}

/* issue 11 item 16: a repository owned by someone else is named with
 * git's reason, not "not in a git repository" (needs root to chown). */
static void test_foreign_owner(void **state)
{
	fixture *f = *state;
	ac_git *g = NULL;

	if (geteuid() != 0) {
		skip();
		return;
	}
	char *sub = tu_path(f->dir, "sub"), *ws = tu_path(sub, "ws");

	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkdir(ws, 0755), 0);
	assert_int_equal(chown(f->dir, 4242, 4242), 0);
	assert_int_equal(ac_git_open(&g, f->dir, NULL), AC_EIO);
	assert_null(strstr(ac_error_last(), "not in a git repository"));
	assert_non_null(strstr(ac_error_last(), "dubious ownership"));
	/* From a folder inside it too: the nearest .git above is looked at
	 * (only the workspace's own folder was, which then said "not in a
	 * git repository"). */
	assert_int_equal(ac_git_open(&g, ws, NULL), AC_EIO);
	assert_non_null(strstr(ac_error_last(), "dubious ownership"));
	assert_int_equal(chown(f->dir, 0, 0), 0);
	free(ws);
	free(sub);
}

/* What HEAD~n's tree holds at path, or NULL. Allocated. */
static char *blob_at(const char *dir, const char *rev, const char *path)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	char *text = NULL, spec[256];

	snprintf(spec, sizeof(spec), "%s:%s", rev, path);
	git_libgit2_init();
	if (git_repository_open(&repo, dir) == 0 && git_revparse_single(&obj, repo, spec) == 0 &&
	    git_object_type(obj) == GIT_OBJECT_BLOB)
		text = strndup(git_blob_rawcontent((git_blob *)obj),
			       (size_t)git_blob_rawsize((git_blob *)obj));
	git_object_free(obj);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return text;
}

static void untrack(const char *dir, const char *path)
{
	git_repository *repo = NULL;
	git_index *index = NULL;

	git_libgit2_init();
	assert_int_equal(git_repository_open(&repo, dir), 0);
	assert_int_equal(git_repository_index(&index, repo), 0);
	assert_int_equal(git_index_remove_bypath(index, path), 0);
	assert_int_equal(git_index_write(index), 0);
	git_index_free(index);
	git_repository_free(repo);
	git_libgit2_shutdown();
}

/* issue 11 item 4: an ignored, uncommitted file the rollback overwrites
 * with an older committed version is kept in the snapshot commit. */
static void test_ignored_file_kept_in_snapshot(void **state)
{
	fixture *f = *state;
	char c1[AC_GIT_HASH_LEN + 1], c2[AC_GIT_HASH_LEN + 1];
	ac_git_rollback_result r = {0};
	ac_git *g = NULL;
	char *kept;

	tu_put(f->dir, "config.local", "committed long ago\n");
	tu_put(f->dir, "a.txt", "1\n");
	open_git(&g, f->dir, NULL);
	commit(g, c1, "one");
	untrack(f->dir, "config.local");
	tu_put(f->dir, ".gitignore", "config.local\n");
	tu_put(f->dir, "config.local", "the user's own, never committed\n");
	tu_put(f->dir, "a.txt", "2\n");
	commit(g, c2, "two");
	assert_false(in_head(f->dir, "config.local"));

	assert_int_equal(ac_git_rollback(&r, g, c2, "snap", "rollback", true), 0);
	assert_int_equal(r.kept, 1);
	ac_git_rollback_result_free(&r);
	assert_false(in_head(f->dir, "config.local")); /* the dry run changed nothing */
	assert_int_equal(ac_git_rollback(&r, g, c2, "snap", "rollback", false), 0);
	tu_assert_file(f->dir, "config.local", "committed long ago\n");
	kept = blob_at(f->dir, r.snapshot, "config.local");
	assert_non_null(kept);
	assert_string_equal(kept, "the user's own, never committed\n");
	free(kept);
	ac_git_rollback_result_free(&r);
	ac_git_free(g);
}

/* issue 11 item 6: a folder holding an ignored file where the target has
 * a file is found before anything changes: no snapshot, no removal. */
static void test_type_conflict_found_first(void **state)
{
	fixture *f = *state;
	char c1[AC_GIT_HASH_LEN + 1], c2[AC_GIT_HASH_LEN + 1], before[AC_GIT_HASH_LEN + 1];
	char after[AC_GIT_HASH_LEN + 1];
	char *d = tu_path(f->dir, "d");
	ac_git_rollback_result r = {0};
	ac_git *g = NULL;

	tu_put(f->dir, ".gitignore", "*.log\n");
	tu_put(f->dir, "d", "a file\n");
	open_git(&g, f->dir, NULL);
	commit(g, c1, "one");
	unlink(d);
	tu_put(f->dir, "d/x.txt", "x\n");
	tu_put(f->dir, "d/debug.log", "ignored\n");
	commit(g, c2, "two");
	head_hash(before, f->dir);
	assert_int_equal(ac_git_rollback(&r, g, c2, "snap", "rollback", true), AC_ECONFLICT);
	assert_non_null(strstr(ac_error_last(), "d/debug.log"));
	assert_int_equal(ac_git_rollback(&r, g, c2, "snap", "rollback", false), AC_ECONFLICT);
	head_hash(after, f->dir);
	assert_string_equal(before, after);
	tu_assert_file(f->dir, "d/x.txt", "x\n");
	tu_assert_file(f->dir, "d/debug.log", "ignored\n");
	ac_git_free(g);
	free(d);
}

/* A folder that a later commit replaced with a file comes back: the file
 * is in the way only until the plan removes it. */
static void test_file_becomes_folder_again(void **state)
{
	fixture *f = *state;
	char c1[AC_GIT_HASH_LEN + 1], c2[AC_GIT_HASH_LEN + 1];
	char *d = tu_path(f->dir, "d");
	ac_git_rollback_result r = {0};
	ac_git *g = NULL;

	tu_put(f->dir, "d/x.txt", "x\n");
	open_git(&g, f->dir, NULL);
	commit(g, c1, "one");
	tu_remove_tree(d);
	tu_put(f->dir, "d", "now a file\n");
	commit(g, c2, "two");
	assert_int_equal(ac_git_rollback(&r, g, c2, "snap", "rollback", false), 0);
	tu_assert_file(f->dir, "d/x.txt", "x\n");
	ac_git_rollback_result_free(&r);
	ac_git_free(g);
	free(d);
}

/* issue 11 item 6: a write that fails midway (here: the file-size limit,
 * standing in for a full disk) puts every path back from the snapshot and
 * says so; HEAD names the snapshot, the index matches it. */
static void test_midway_failure_put_back(void **state)
{
	fixture *f = *state;
	char c1[AC_GIT_HASH_LEN + 1], c2[AC_GIT_HASH_LEN + 1], head[AC_GIT_HASH_LEN + 1];
	static char big[200000];
	char *big_path = tu_path(f->dir, "z.bin");
	struct rlimit old_limit, limit;
	ac_git_rollback_result r = {0};
	git_repository *repo = NULL;
	git_status_list *status = NULL;
	git_status_options opts;
	void (*old_handler)(int);
	ac_git *g = NULL;
	int rc;

	memset(big, 'b', sizeof(big));
	tu_put(f->dir, "small.txt", "s1\n");
	tu_write_file(big_path, big, sizeof(big));
	open_git(&g, f->dir, NULL);
	commit(g, c1, "one");
	tu_put(f->dir, "small.txt", "s2\n");
	unlink(big_path);
	tu_put(f->dir, "new.txt", "new\n");
	commit(g, c2, "two");
	tu_put(f->dir, "small.txt", "s3, uncommitted\n");

	getrlimit(RLIMIT_FSIZE, &old_limit);
	limit = old_limit;
	limit.rlim_cur = 64 * 1024;
	old_handler = signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &limit);
	rc = ac_git_rollback(&r, g, c2, "snap", "rollback", false);
	setrlimit(RLIMIT_FSIZE, &old_limit);
	signal(SIGXFSZ, old_handler);

	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(ac_error_last(), "z.bin"));
	assert_non_null(strstr(ac_error_last(), "put back as it was"));
	tu_assert_file(f->dir, "small.txt", "s3, uncommitted\n");
	tu_assert_file(f->dir, "new.txt", "new\n");
	assert_false(tu_exists(f->dir, "z.bin"));
	head_hash(head, f->dir);
	head[12] = '\0';
	assert_non_null(strstr(ac_error_last(), head));
	/* Worktree and index match HEAD (the snapshot) exactly. */
	git_libgit2_init();
	assert_int_equal(git_repository_open(&repo, f->dir), 0);
	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED;
	assert_int_equal(git_status_list_new(&status, repo, &opts), 0);
	assert_int_equal(git_status_list_entrycount(status), 0);
	git_status_list_free(status);
	git_repository_free(repo);
	git_libgit2_shutdown();
	ac_git_free(g);
	free(big_path);
}

/* The patch of a commit: git's format against its parent, the protected
 * paths left out; an unknown commit is AC_ENOTFOUND. */
static void test_commit_patch(void **state)
{
	fixture *f = *state;
	const char *const folders[] = {".agent", NULL};
	ac_git_protect protect = {.folders = folders};
	char first[AC_GIT_HASH_LEN + 1], second[AC_GIT_HASH_LEN + 1];
	ac_buf patch = AC_BUF_INIT;
	char *agent = tu_path(f->dir, ".agent");
	ac_git *g = NULL;

	mkdir(agent, 0755);
	tu_put(f->dir, "a.txt", "1\n2\n3\n");
	open_git(&g, f->dir, &protect);
	commit(g, first, "first");
	tu_put(f->dir, "a.txt", "1\nTWO\n3\n");
	tu_put(f->dir, ".agent/state.json", "{}\n");
	commit(g, second, "second");
	assert_int_equal(ac_git_commit_patch(&patch, g, second), 0);
	assert_non_null(patch.data);
	assert_non_null(strstr(patch.data, "diff --git a/a.txt b/a.txt\n"));
	assert_non_null(strstr(patch.data, "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+TWO\n 3\n"));
	assert_null(strstr(patch.data, ".agent"));
	ac_buf_clear(&patch);
	/* A root commit is against the empty tree. */
	assert_int_equal(ac_git_commit_patch(&patch, g, first), 0);
	assert_non_null(strstr(patch.data, "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,3 @@\n"));
	ac_buf_clear(&patch);
	assert_int_equal(ac_git_commit_patch(&patch, g, "0123456789abcdef0123456789abcdef01234567"),
			 AC_ENOTFOUND);
	ac_buf_free(&patch);
	free(agent);
	ac_git_free(g);
}

/* A revert undoes one commit and keeps the later ones; a later change of
 * the same lines is refused naming the path, with nothing changed. */
static void test_revert_keeps_later(void **state)
{
	fixture *f = *state;
	char c0[AC_GIT_HASH_LEN + 1], c1[AC_GIT_HASH_LEN + 1], c2[AC_GIT_HASH_LEN + 1],
		c3[AC_GIT_HASH_LEN + 1], head[AC_GIT_HASH_LEN + 1], after[AC_GIT_HASH_LEN + 1];
	ac_git_rollback_result r;
	ac_git *g = NULL;

	tu_put(f->dir, "a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
	open_git(&g, f->dir, NULL);
	commit(g, c0, "base");
	tu_put(f->dir, "a.txt", "1\nTWO\n3\n4\n5\n6\n7\n8\n9\n");
	commit(g, c1, "line 2");
	tu_put(f->dir, "a.txt", "1\nTWO\n3\n4\n5\n6\n7\n8\nNINE\n");
	tu_put(f->dir, "b.txt", "b\n");
	commit(g, c2, "line 9 and b");

	/* The dry run plans one change and touches nothing. */
	head_hash(head, f->dir);
	assert_int_equal(ac_git_revert(&r, g, c1, "snap", "revert", true), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.changed, 1);
	assert_string_equal(r.items[0].path, "a.txt");
	assert_string_equal(r.commit, "");
	ac_git_rollback_result_free(&r);
	head_hash(after, f->dir);
	assert_string_equal(head, after);
	tu_assert_file(f->dir, "a.txt", "1\nTWO\n3\n4\n5\n6\n7\n8\nNINE\n");

	assert_int_equal(ac_git_revert(&r, g, c1, "snap", "revert", false), 0);
	assert_int_equal(strlen(r.commit), AC_GIT_HASH_LEN);
	ac_git_rollback_result_free(&r);
	tu_assert_file(f->dir, "a.txt", "1\n2\n3\n4\n5\n6\n7\n8\nNINE\n");
	tu_assert_file(f->dir, "b.txt", "b\n");
	assert_true(in_head(f->dir, "b.txt"));

	/* Line 9 changes again: reverting c2 now collides on a.txt. */
	tu_put(f->dir, "a.txt", "1\n2\n3\n4\n5\n6\n7\n8\nnine!\n");
	commit(g, c3, "line 9 again");
	head_hash(head, f->dir);
	assert_int_equal(ac_git_revert(&r, g, c2, "snap", "revert", false), AC_ECONFLICT);
	assert_non_null(strstr(ac_error_last(), "'a.txt'"));
	assert_non_null(strstr(ac_error_last(), "nothing was changed"));
	ac_git_rollback_result_free(&r);
	head_hash(after, f->dir);
	assert_string_equal(head, after);
	tu_assert_file(f->dir, "a.txt", "1\n2\n3\n4\n5\n6\n7\n8\nnine!\n");
	tu_assert_file(f->dir, "b.txt", "b\n");
	ac_git_free(g);
}

/* A workspace inside the repository: a collision outside it (which no
 * revert touches) does not refuse the revert, and nothing outside, nor
 * agent state, changes. */
static void test_revert_subfolder_ignores_outside(void **state)
{
	fixture *f = *state;
	const char *const folders[] = {"ws/.agent", NULL};
	ac_git_protect protect = {.folders = folders};
	char base[AC_GIT_HASH_LEN + 1], op[AC_GIT_HASH_LEN + 1], later[AC_GIT_HASH_LEN + 1];
	char *ws = tu_path(f->dir, "ws");
	ac_git_rollback_result r = {0};
	ac_git *whole = NULL, *g = NULL;

	tu_put(f->dir, "outside.txt", "1\n");
	tu_put(f->dir, "ws/a.txt", "1\n");
	tu_put(f->dir, "ws/.agent/state", "1\n");
	open_git(&whole, f->dir, NULL);
	commit(whole, base, "base");
	tu_put(f->dir, "outside.txt", "2\n");
	tu_put(f->dir, "ws/a.txt", "2\n");
	tu_put(f->dir, "ws/.agent/state", "2\n");
	commit(whole, op, "op: everything");
	tu_put(f->dir, "outside.txt", "3\n");
	tu_put(f->dir, "ws/.agent/state", "3\n");
	commit(whole, later, "later: outside and agent state again");
	ac_git_free(whole);

	open_git(&g, ws, &protect);
	assert_int_equal(ac_git_revert(&r, g, op, "snap", "revert", false), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.items[0].path, "ws/a.txt");
	tu_assert_file(f->dir, "ws/a.txt", "1\n");
	tu_assert_file(f->dir, "outside.txt", "3\n");
	tu_assert_file(f->dir, "ws/.agent/state", "3\n");
	ac_git_rollback_result_free(&r);
	ac_git_free(g);
	free(ws);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_diff_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protected_not_staged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subfolder_workspace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_commit_and_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo_options_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_tree_refused, setup, teardown),
		cmocka_unit_test(test_path_problem),
		cmocka_unit_test(test_init),
		cmocka_unit_test_setup_teardown(test_gitlink_not_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_agent_state_predicate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exclude_block, setup, teardown),
		cmocka_unit_test_setup_teardown(test_embedded_repository, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_mid_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ignored_file_kept_in_snapshot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_type_conflict_found_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_becomes_folder_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_midway_failure_put_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_patch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_keeps_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_subfolder_ignores_outside, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
