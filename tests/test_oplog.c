/* The operation log: reading (torn and corrupt lines), recording with
 * commits, concurrent writers, and rolling back real git repositories made
 * with libgit2 (never a shell). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_config.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_fs.h"
#include "ac_oplog.h"
#include "ac_oplog_impl.h"
#include "ac_oplog_intent.h"
#include "ac_workspace.h"

#include <git2.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
	char *dir;
	ac_config *config;
	ac_workspace ws;
} fixture;

static void load_ws(fixture *f)
{
	if (ac_config_load(&f->config, f->dir) != 0 || ac_workspace_init(&f->ws, f->config) != 0)
		fail_msg("workspace: %s", ac_error_last());
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_make_temp_dir();
	load_ws(f);
	*state = f;
	return 0;
}

static void init_repo(const char *dir)
{
	git_repository *repo = NULL;

	git_libgit2_init();
	if (git_repository_init(&repo, dir, 0) != 0)
		fail_msg("git init %s", dir);
	git_repository_free(repo);
	git_libgit2_shutdown();
}

static int setup_repo(void **state)
{
	fixture *f;

	setup(state);
	f = *state;
	init_repo(f->dir);
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ac_workspace_free(&f->ws);
	ac_config_free(f->config);
	tu_remove_tree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static void rm(const char *dir, const char *rel)
{
	char *path = tu_path(dir, rel);

	assert_int_equal(unlink(path), 0);
	free(path);
}

/* Records an operation; returns its id (caller frees). */
static char *record(fixture *f, const char *type, const char *path)
{
	json_t *details = json_pack("{s:s}", "path", path);
	ac_op *op = NULL;
	char *id;
	int rc = ac_oplog_record(&op, &f->ws, "sess-1", type, details);

	json_decref(details);
	if (rc != 0)
		fail_msg("record: %s", ac_error_last());
	if (strcmp(type, "command_run"))
		assert_non_null(op->commit);
	id = strdup(op->id);
	ac_op_free(op);
	return id;
}

/* Every file below dir except .git, as "path mode\ncontents\n" in path
 * order: two calls compare equal exactly when the worktree is unchanged. */
static ac_buf walk_out;
static char **walk_paths;
static size_t walk_n;

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (strstr(path, "/.git/") || (strlen(path) > 5 && !strcmp(path + strlen(path) - 5, "/.git")))
		return 0;
	if (flag == FTW_F || flag == FTW_SL || flag == FTW_D) {
		walk_paths = realloc(walk_paths, (walk_n + 1) * sizeof(char *));
		walk_paths[walk_n++] = strdup(path);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *tree_state(const char *dir)
{
	walk_n = 0;
	walk_paths = NULL;
	memset(&walk_out, 0, sizeof(walk_out));
	nftw(dir, walk_one, 16, FTW_PHYS);
	qsort(walk_paths, walk_n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < walk_n; i++) {
		struct stat st;

		lstat(walk_paths[i], &st);
		ac_buf_printf(&walk_out, "%s %o\n", walk_paths[i] + strlen(dir), (unsigned)st.st_mode);
		if (S_ISREG(st.st_mode)) {
			size_t len;
			char *text = tu_read_file(walk_paths[i], &len);

			ac_buf_append(&walk_out, text, len);
			ac_buf_putc(&walk_out, '\n');
			free(text);
		}
		free(walk_paths[i]);
	}
	free(walk_paths);
	return ac_buf_detach(&walk_out);
}

static char *head_hash(const char *dir)
{
	git_repository *repo = NULL;
	git_oid oid;
	char hex[GIT_OID_HEXSZ + 1] = "";

	git_libgit2_init();
	if (git_repository_open(&repo, dir) == 0 &&
	    git_reference_name_to_id(&oid, repo, "HEAD") == 0)
		git_oid_tostr(hex, sizeof(hex), &oid);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return strdup(hex);
}

static char *head_message(const char *dir)
{
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_oid oid;
	char *msg = NULL;

	git_libgit2_init();
	if (git_repository_open(&repo, dir) == 0 &&
	    git_reference_name_to_id(&oid, repo, "HEAD") == 0 &&
	    git_commit_lookup(&c, repo, &oid) == 0)
		msg = strdup(git_commit_message(c));
	git_commit_free(c);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return msg ? msg : strdup("");
}

/* Commits every file (agent state included) with message, the index
 * written first. */
static void commit_everything_as(const char *dir, const char *message)
{
	git_repository *repo = NULL;
	git_index *index = NULL;
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_commit *parent = NULL;
	git_oid tree_oid, oid, head;
	const git_commit *parents[1];
	int nparents = 0;

	git_libgit2_init();
	assert_int_equal(git_repository_open(&repo, dir), 0);
	assert_int_equal(git_repository_index(&index, repo), 0);
	assert_int_equal(git_index_add_all(index, NULL, 0, NULL, NULL), 0);
	assert_int_equal(git_index_write(index), 0);
	assert_int_equal(git_index_write_tree(&tree_oid, index), 0);
	assert_int_equal(git_tree_lookup(&tree, repo, &tree_oid), 0);
	assert_int_equal(git_signature_now(&sig, "t", "t@example.com"), 0);
	if (git_reference_name_to_id(&head, repo, "HEAD") == 0) {
		assert_int_equal(git_commit_lookup(&parent, repo, &head), 0);
		parents[0] = parent;
		nparents = 1;
	}
	assert_int_equal(git_commit_create(&oid, repo, "HEAD", sig, sig, NULL, message, tree,
					   (size_t)nparents, parents), 0);
	git_commit_free(parent);
	git_tree_free(tree);
	git_signature_free(sig);
	git_index_free(index);
	git_repository_free(repo);
	git_libgit2_shutdown();
}

/* Commits every file (agent state included) as another tool would. */
static void commit_everything(const char *dir)
{
	commit_everything_as(dir, "by hand");
}

static size_t count_action(const ac_git_rollback_result *r, ac_git_action a, const char *path)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->items[i].action == a && (!path || !strcmp(r->items[i].path, path)))
			n++;
	return n;
}

/* A history of several operations; rolling back the middle one puts back
 * the files as they were before it, and removes what came after. */
static void test_rollback_middle(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0};
	ac_op_list list = {0};
	char *op1, *op2, *op3, *before_dry, *after_dry, *msg, *expect;
	const ac_op *last;

	tu_put(f->dir, "a.txt", "one\n");
	tu_put(f->dir, "b.txt", "bee\n");
	op1 = record(f, "file_write", "a.txt");
	tu_put(f->dir, "a.txt", "two\n");
	rm(f->dir, "b.txt");
	tu_put(f->dir, "c.txt", "sea\n");
	tu_put(f->dir, "deep/dir/d.txt", "dee\n");
	op2 = record(f, "file_write", "a.txt");
	tu_put(f->dir, "a.txt", "three\n");
	tu_put(f->dir, "e.txt", "ee\n");
	op3 = record(f, "file_write", "e.txt");

	/* The dry run lists the exact sets and changes nothing. */
	before_dry = tree_state(f->dir);
	assert_int_equal(ac_oplog_rollback(&r, &f->ws, op2, true, NULL), 0);
	after_dry = tree_state(f->dir);
	assert_string_equal(before_dry, after_dry);
	assert_null(r.op);
	assert_int_equal(r.git.removed, 3);
	assert_int_equal(r.git.restored, 1);
	assert_int_equal(r.git.changed, 1);
	assert_int_equal(count_action(&r.git, AC_GIT_REMOVE, "c.txt"), 1);
	assert_int_equal(count_action(&r.git, AC_GIT_REMOVE, "deep/dir/d.txt"), 1);
	assert_int_equal(count_action(&r.git, AC_GIT_REMOVE, "e.txt"), 1);
	assert_int_equal(count_action(&r.git, AC_GIT_RESTORE, "b.txt"), 1);
	assert_int_equal(count_action(&r.git, AC_GIT_CHANGE, "a.txt"), 1);
	assert_string_equal(r.git.commit, "");
	ac_oplog_rollback_result_free(&r);

	assert_int_equal(ac_oplog_rollback(&r, &f->ws, op2, false, NULL), 0);
	tu_assert_file(f->dir, "a.txt", "one\n");
	tu_assert_file(f->dir, "b.txt", "bee\n");
	assert_false(tu_exists(f->dir, "c.txt"));
	assert_false(tu_exists(f->dir, "e.txt"));
	assert_false(tu_exists(f->dir, "deep")); /* emptied folders are pruned */
	assert_int_equal(strlen(r.git.commit), 40);
	msg = head_message(f->dir);
	assert_non_null(strstr(msg, "[agent] rollback to before "));
	assert_non_null(strstr(msg, op2));
	free(msg);
	assert_non_null(r.op);

	/* Recorded as an operation and as a journal event. */
	assert_int_equal(ac_oplog_read(&list, f->ws.operations_path, 0, 1, NULL, NULL), 0);
	assert_int_equal(list.n, 4);
	last = &list.ops[3];
	/* The operator's, with its own type: not an agent's file_write. */
	assert_string_equal(last->type, "rollback");
	assert_string_equal(json_string_value(json_object_get(last->details, "agent")), "Human");
	assert_string_equal(json_string_value(json_object_get(last->details, "rollbackOf")), op2);
	assert_string_equal(json_string_value(json_object_get(last->details, "snapshot")),
			    r.git.snapshot);
	assert_string_equal(last->commit, r.git.commit);
	ac_op_list_free(&list);
	expect = tu_read_file(f->ws.journal_path, NULL);
	assert_non_null(strstr(expect, "\"ROLLBACK\""));
	assert_non_null(strstr(expect, "\"Human\""));
	free(expect);

	ac_oplog_rollback_result_free(&r);
	free(before_dry);
	free(after_dry);
	free(op1);
	free(op2);
	free(op3);
}

/* An uncommitted edit survives as the snapshot, and rolling back the
 * rollback brings it back. */
static void test_dirty_tree(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0}, undo = {0};
	char *op1, *op2, *rollback_id;

	tu_put(f->dir, "a.txt", "one\n");
	op1 = record(f, "file_write", "a.txt");
	tu_put(f->dir, "a.txt", "two\n");
	op2 = record(f, "file_write", "a.txt");
	tu_put(f->dir, "a.txt", "dirty edit\n");
	tu_put(f->dir, "fresh.txt", "never seen\n");

	assert_int_equal(ac_oplog_rollback(&r, &f->ws, op2, false, NULL), 0);
	tu_assert_file(f->dir, "a.txt", "one\n");
	tu_assert_file(f->dir, "fresh.txt", "never seen\n"); /* untracked: left alone */
	rollback_id = strdup(r.op->id);

	assert_int_equal(ac_oplog_rollback(&undo, &f->ws, rollback_id, false, NULL), 0);
	tu_assert_file(f->dir, "a.txt", "dirty edit\n");
	tu_assert_file(f->dir, "fresh.txt", "never seen\n");
	ac_oplog_rollback_result_free(&undo);
	ac_oplog_rollback_result_free(&r);
	free(rollback_id);
	free(op1);
	free(op2);
}

/* The operator's own edits: files that differ from HEAD which no
 * operation names; an agent's recorded file is not one, even when dirty
 * again, nor is agent state. */
static void test_operator_edits(void **state)
{
	fixture *f = *state;
	char **edits = NULL, *op;
	size_t n = 0;

	tu_put(f->dir, "agent.txt", "one\n");
	tu_put(f->dir, "mine.txt", "mine\n");
	op = record(f, "file_write", "agent.txt");
	assert_int_equal(ac_oplog_operator_edits(&edits, &n, &f->ws), 0);
	assert_int_equal(n, 0);
	ac_git_paths_free(edits, n);

	tu_put(f->dir, "agent.txt", "two\n");         /* the agent again, not recorded yet */
	tu_put(f->dir, "mine.txt", "mine, edited\n"); /* the operator */
	tu_put(f->dir, "draft/new.txt", "new\n");     /* the operator, untracked */
	tu_put(f->dir, ".agent/sessions/x.json", "{}"); /* agent state */
	assert_int_equal(ac_oplog_operator_edits(&edits, &n, &f->ws), 0);
	assert_int_equal(n, 2);
	assert_null(edits[2]);
	assert_true((!strcmp(edits[0], "mine.txt") && !strcmp(edits[1], "draft/new.txt")) ||
		    (!strcmp(edits[1], "mine.txt") && !strcmp(edits[0], "draft/new.txt")));
	ac_git_paths_free(edits, n);
	free(op);
}

/* Outside a repository there is nothing git could tell. */
static void test_operator_edits_no_repository(void **state)
{
	fixture *f = *state;
	char **edits = NULL;
	size_t n = 0;

	assert_int_equal(ac_oplog_operator_edits(&edits, &n, &f->ws), AC_ENOTFOUND);
	assert_null(edits);
	assert_int_equal(n, 0);
}

/* Undoing a rollback on a clean tree gives back exactly the files. */
/* A rollback killed just after its snapshot commit, before its intent
 * (the snapshot then holds the user's untracked file, and the index its
 * entry): run again, it plans anew, and must leave the untracked file
 * alone as the first run would have; it removed it, taking the stopped
 * run's snapshot for what git knew before (found by the simulator, the
 * ops scenario's seed 20). */
static void test_rerun_after_snapshot_keeps_untracked(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0};
	char *op1, *op2, message[200];

	tu_put(f->dir, "a.txt", "one\n");
	op1 = record(f, "file_write", "a.txt");
	tu_put(f->dir, "b.txt", "bee\n");
	op2 = record(f, "file_write", "b.txt");
	tu_put(f->dir, "notes/mine.txt", "the user's\n");
	/* What the killed run left: its snapshot on HEAD, the index saved. */
	snprintf(message, sizeof(message), "[agent] snapshot before rollback to before %s", op2);
	commit_everything_as(f->dir, message);

	assert_int_equal(ac_oplog_rollback(&r, &f->ws, op2, false, NULL), 0);
	assert_false(tu_exists(f->dir, "b.txt"));
	tu_assert_file(f->dir, "a.txt", "one\n");
	tu_assert_file(f->dir, "notes/mine.txt", "the user's\n");
	assert_int_equal(count_action(&r.git, AC_GIT_REMOVE, "notes/mine.txt"), 0);
	ac_oplog_rollback_result_free(&r);
	free(op1);
	free(op2);
}

/* The same after two stops: the user edited a file between them, so the
 * second run made a snapshot of its own on the first's. What git knew is
 * below both (the first's tree holds the untracked file too; seed 1108
 * of the ops scenario). */
static void test_rerun_after_two_snapshots_keeps_untracked(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0};
	char *op1, *op2, message[200];

	tu_put(f->dir, "a.txt", "one\n");
	op1 = record(f, "file_write", "a.txt");
	tu_put(f->dir, "b.txt", "bee\n");
	op2 = record(f, "file_write", "b.txt");
	tu_put(f->dir, "notes/mine.txt", "the user's\n");
	snprintf(message, sizeof(message), "[agent] snapshot before rollback to before %s", op2);
	commit_everything_as(f->dir, message);
	tu_put(f->dir, "b.txt", "the user's bee\n");
	commit_everything_as(f->dir, message);

	assert_int_equal(ac_oplog_rollback(&r, &f->ws, op2, false, NULL), 0);
	assert_false(tu_exists(f->dir, "b.txt"));
	tu_assert_file(f->dir, "notes/mine.txt", "the user's\n");
	ac_oplog_rollback_result_free(&r);
	free(op1);
	free(op2);
}

/* a.txt "one" (op1), then "two" with b.txt "bee" (op2), rolled back to
 * before op2, and its intent written again: as the rollback stands when
 * killed after its commit. *op1, *op2 (allocated) name the operations,
 * *r the rollback. */
static void rollback_stopped_after_commit(fixture *f, ac_oplog_rollback_result *r, char **op1,
					  char **op2)
{
	ac_op_list list = {0};
	const ac_op *target;
	char message[200];

	tu_put(f->dir, "a.txt", "one\n");
	*op1 = record(f, "file_write", "a.txt");
	tu_put(f->dir, "a.txt", "two\n");
	tu_put(f->dir, "b.txt", "bee\n");
	*op2 = record(f, "file_write", "b.txt");
	assert_int_equal(ac_oplog_rollback(r, &f->ws, *op2, false, NULL), 0);
	assert_int_equal(ac_oplog_read(&list, f->ws.operations_path, 0, 1, NULL, NULL), 0);
	assert_int_equal(ac_op_list_find_unique(&target, &list, *op2, f->ws.operations_path), 0);
	snprintf(message, sizeof(message), "[agent] rollback to before %s", *op2);
	assert_int_equal(ac_oplog_intent_write(&f->ws, target, false, message, &r->git), 0);
	ac_op_list_free(&list);
}

/* A rollback stood stopped (its intent there) while something wrote one
 * of the files it plans: finishing it, or undoing it, would write over
 * that edit with no trace. Both refuse, naming the file, and change
 * nothing; once the edit is moved aside they run (before, both wrote
 * over it). */
static void test_stopped_rollback_keeps_an_edit_made_meanwhile(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0}, again = {0};
	char *op1, *op2, *mine, *aside;

	rollback_stopped_after_commit(f, &r, &op1, &op2);
	/* An agent's write while it stands stopped: neither "one" nor "two". */
	tu_put(f->dir, "a.txt", "an agent's line\n");

	assert_int_equal(ac_oplog_finish_interrupted(&again, &f->ws, false, NULL), AC_ECONFLICT);
	assert_non_null(strstr(ac_error_last(), "'a.txt'"));
	assert_non_null(strstr(ac_error_last(), "nothing was changed"));
	tu_assert_file(f->dir, "a.txt", "an agent's line\n");
	ac_oplog_rollback_result_free(&again);
	assert_int_equal(ac_oplog_undo_interrupted(&again, &f->ws, false), AC_ECONFLICT);
	assert_non_null(strstr(ac_error_last(), "'a.txt'"));
	tu_assert_file(f->dir, "a.txt", "an agent's line\n");
	ac_oplog_rollback_result_free(&again);

	/* Moved aside, the rollback finishes. */
	mine = tu_path(f->dir, "a.txt");
	aside = tu_path(f->dir, "a.txt.mine");
	assert_int_equal(rename(mine, aside), 0);
	assert_int_equal(ac_oplog_finish_interrupted(&again, &f->ws, false, NULL), 0);
	tu_assert_file(f->dir, "a.txt", "one\n");
	tu_assert_file(f->dir, "a.txt.mine", "an agent's line\n");
	ac_oplog_rollback_result_free(&again);
	ac_oplog_rollback_result_free(&r);
	free(aside);
	free(mine);
	free(op1);
	free(op2);
}

/* A rollback stopped after its commit (HEAD is it, the intent still
 * there), then an undo stopped after putting the snapshot's files back,
 * before its own commit: finishing the rollback must write its files
 * again. It took HEAD being the rollback's commit for the files being
 * there, logged the rollback and removed the intent over a worktree of
 * the state before: HEAD's tree and the worktree apart, with nothing to
 * say so (found by the simulator, the ops scenario's seed 102). */
static void test_finish_after_stopped_undo_writes_files(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0}, finished = {0};
	char *op1, *op2;

	rollback_stopped_after_commit(f, &r, &op1, &op2);
	/* An undo's writes, stopped before its commit: the snapshot's files. */
	tu_put(f->dir, "a.txt", "two\n");
	tu_put(f->dir, "b.txt", "bee\n");

	assert_int_equal(ac_oplog_finish_interrupted(&finished, &f->ws, false, NULL), 0);
	tu_assert_file(f->dir, "a.txt", "one\n");
	assert_false(tu_exists(f->dir, "b.txt"));
	assert_string_equal(finished.git.commit, r.git.commit);
	ac_oplog_rollback_result_free(&finished);
	ac_oplog_rollback_result_free(&r);
	free(op1);
	free(op2);
}

/* The mode of each file a rollback renames into place, as the rename
 * found it (seen through the file-system seam). */
static mode_t renamed_run_mode;

static int note_renamed_mode(void *ctx, int from_dir, const char *from, int to_dir,
			     const char *to, unsigned int flags)
{
	struct stat st;
	size_t n = strlen(to);

	if (n >= 7 && strcmp(to + n - 7, "/run.sh") == 0 && fstatat(from_dir, from, &st, 0) == 0)
		renamed_run_mode = st.st_mode & 0777;
	return ac_fs_real()->renameat2(ctx, from_dir, from, to_dir, to, flags);
}

/* A file restored as executable is so from the moment its name appears:
 * a kill just after the rename leaves no old mode (the mode was set after
 * it once). */
static void test_a_restored_file_has_its_mode_when_it_appears(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0};
	ac_fs table = *ac_fs_real();
	char *op1, *op2, *run = tu_path(f->dir, "run.sh");
	mode_t mask = umask(077);

	tu_put(f->dir, "run.sh", "#!/bin/sh\n");
	chmod(run, 0755);
	op1 = record(f, "file_write", "run.sh");
	rm(f->dir, "run.sh");
	tu_put(f->dir, "a.txt", "two\n");
	op2 = record(f, "file_write", "a.txt");
	table.renameat2 = note_renamed_mode;
	renamed_run_mode = 0;
	assert_int_equal(ac_fs_use(&table), 0);
	assert_int_equal(ac_oplog_rollback(&r, &f->ws, op2, false, NULL), 0);
	assert_int_equal(ac_fs_use(NULL), 0);
	umask(mask);
	assert_int_equal(renamed_run_mode, 0755);
	ac_oplog_rollback_result_free(&r);
	free(run);
	free(op1);
	free(op2);
}

static void test_undo_rollback(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0}, undo = {0};
	char *op1, *op2, *before, *after, *rollback_id, *run;
	struct stat st;

	tu_put(f->dir, "a.txt", "one\n");
	tu_put(f->dir, "run.sh", "#!/bin/sh\n");
	run = tu_path(f->dir, "run.sh");
	chmod(run, 0755);
	op1 = record(f, "file_write", "a.txt");
	tu_put(f->dir, "b/new.txt", "new\n");
	rm(f->dir, "run.sh");
	tu_put(f->dir, "a.txt", "two\n");
	op2 = record(f, "file_write", "b/new.txt");
	before = tree_state(f->dir);
	assert_int_equal(ac_oplog_rollback(&r, &f->ws, op2, false, NULL), 0);
	assert_true(tu_exists(f->dir, "run.sh"));
	assert_int_equal(stat(run, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0755); /* the executable bit comes back */
	assert_false(tu_exists(f->dir, "b"));
	rollback_id = strdup(r.op->id);
	assert_int_equal(ac_oplog_rollback(&undo, &f->ws, rollback_id, false, NULL), 0);
	after = tree_state(f->dir);
	/* Everything but the agent's own files (two more log lines) matches. */
	*strstr(before, "/.agent") = '\0';
	*strstr(after, "/.agent") = '\0';
	assert_string_equal(before, after);
	assert_false(tu_exists(f->dir, "run.sh"));
	tu_assert_file(f->dir, "b/new.txt", "new\n");
	ac_oplog_rollback_result_free(&undo);
	ac_oplog_rollback_result_free(&r);
	free(before);
	free(after);
	free(rollback_id);
	free(run);
	free(op1);
	free(op2);
}

/* Session files and journals are never rewound, even when git tracks them,
 * and recording never stages them. */
static void test_agent_state_left_alone(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0};
	char *op1, *journal;

	tu_put(f->dir, ".agent/sessions/x.json", "{\"v\":1}\n");
	tu_put(f->dir, "JOURNAL.jsonl", "first\n");
	tu_put(f->dir, "JOURNAL-20250101T000000.000Z.jsonl", "rotated\n");
	tu_put(f->dir, ".agent/checkpoints/s/c.json", "{}\n");
	commit_everything(f->dir);
	tu_put(f->dir, "a.txt", "one\n");
	op1 = record(f, "file_write", "a.txt");
	tu_put(f->dir, ".agent/sessions/x.json", "{\"v\":2}\n");
	tu_put(f->dir, ".agent/sessions/y.json", "{\"v\":3}\n");
	tu_put(f->dir, "JOURNAL.jsonl", "first\nsecond\n");
	rm(f->dir, "JOURNAL-20250101T000000.000Z.jsonl");
	rm(f->dir, ".agent/checkpoints/s/c.json");
	tu_put(f->dir, "b.txt", "bee\n");
	free(record(f, "file_write", "b.txt"));

	assert_int_equal(ac_oplog_rollback(&r, &f->ws, op1, false, NULL), 0);
	assert_false(tu_exists(f->dir, "a.txt"));
	assert_false(tu_exists(f->dir, "b.txt"));
	tu_assert_file(f->dir, ".agent/sessions/x.json", "{\"v\":2}\n");
	tu_assert_file(f->dir, ".agent/sessions/y.json", "{\"v\":3}\n");
	assert_false(tu_exists(f->dir, "JOURNAL-20250101T000000.000Z.jsonl"));
	assert_false(tu_exists(f->dir, ".agent/checkpoints/s/c.json"));
	journal = tu_read_file(f->ws.journal_path, NULL);
	assert_memory_equal(journal, "first\nsecond\n", 13);
	free(journal);
	assert_true(tu_exists(f->dir, ".agent/operations.jsonl"));
	for (size_t i = 0; i < r.git.n; i++)
		assert_null(strstr(r.git.items[i].path, "JOURNAL"));
	ac_oplog_rollback_result_free(&r);
	free(op1);
}

static void append_line(fixture *f, const char *line)
{
	tu_append_file(f->ws.operations_path, line, strlen(line));
}

/* issue 10 item 3: everything under .agent/ is agent state, tracked by
 * git or not: a compacted session's artifact, memos, traces,
 * orchestration, logs and folders no one has named yet survive a
 * rollback, and the tracked ones are reported with the command that
 * untracks them. */
static void test_compacted_artifact_survives_rollback(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0};
	ac_buf notes = AC_BUF_INIT;
	char *op1;

	tu_put(f->dir, ".agent/memo/m.md", "memo v1\n");
	tu_put(f->dir, ".agent/traces/t.json", "{}\n");
	tu_put(f->dir, ".agent/config.json", "{}\n");
	commit_everything(f->dir);
	tu_put(f->dir, "a.txt", "one\n");
	op1 = record(f, "file_write", "a.txt");
	/* After op1: a compaction archives into an artifact the session
	 * points at; other agent state changes. */
	tu_put(f->dir, ".agent/artifacts/summary-1.md", "3,000 messages summarised\n");
	tu_put(f->dir, ".agent/sessions/s.json", "{\"metadata\":{\"artifact\":"
		"\".agent/artifacts/summary-1.md\"}}\n");
	tu_put(f->dir, ".agent/memo/m.md", "memo v2\n");
	rm(f->dir, ".agent/traces/t.json");
	tu_put(f->dir, ".agent/orchestration/plan.json", "{}\n");
	tu_put(f->dir, ".agent/logs/run.log", "log\n");
	tu_put(f->dir, ".agent/future-folder/x", "x\n");
	tu_put(f->dir, "b.txt", "bee\n");
	free(record(f, "file_write", "b.txt"));

	assert_int_equal(ac_oplog_rollback(&r, &f->ws, op1, false, &notes), 0);
	assert_false(tu_exists(f->dir, "b.txt"));
	tu_assert_file(f->dir, ".agent/artifacts/summary-1.md", "3,000 messages summarised\n");
	tu_assert_file(f->dir, ".agent/memo/m.md", "memo v2\n");
	assert_false(tu_exists(f->dir, ".agent/traces/t.json"));
	tu_assert_file(f->dir, ".agent/orchestration/plan.json", "{}\n");
	tu_assert_file(f->dir, ".agent/logs/run.log", "log\n");
	tu_assert_file(f->dir, ".agent/future-folder/x", "x\n");
	for (size_t i = 0; i < r.git.n; i++)
		assert_int_equal(strncmp(r.git.items[i].path, ".agent", 6) != 0, 1);
	assert_non_null(notes.data);
	assert_non_null(strstr(notes.data, "rm --cached -r -- .agent"));
	ac_oplog_rollback_result_free(&r);
	ac_buf_free(&notes);
	free(op1);
}

/* issue 11 item 8: two lines with one id: rollback (the core call the
 * dashboard makes) refuses, naming the id and both lines. */
static void test_ambiguous_id_refused(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0};
	ac_op_list list = {0};
	const ac_op *op = NULL;
	ac_buf line = AC_BUF_INIT;
	ac_op *first = NULL;
	json_t *details = json_pack("{s:s}", "path", "a.txt");

	tu_put(f->dir, "a.txt", "one\n");
	assert_int_equal(ac_oplog_record(&first, &f->ws, "s", "file_write", details), 0);
	tu_put(f->dir, "a.txt", "two\n");
	free(record(f, "file_write", "a.txt"));
	ac_buf_printf(&line, "{\"id\":\"%s\",\"sessionId\":\"other\",\"type\":\"file_write\","
		      "\"details\":{},\"gitCommitHash\":\"%s\"}\n", first->id, first->commit);
	append_line(f, line.data);
	assert_int_equal(ac_oplog_rollback(&r, &f->ws, first->id, true, NULL), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), first->id));
	assert_non_null(strstr(ac_error_last(), "ambiguous"));
	assert_non_null(strstr(ac_error_last(), "lines 1, 3"));
	assert_int_equal(ac_oplog_rollback(&r, &f->ws, first->id, false, NULL), AC_EINVAL);
	tu_assert_file(f->dir, "a.txt", "two\n");
	assert_int_equal(ac_oplog_read(&list, f->ws.operations_path, 0, 1, NULL, NULL), 0);
	assert_int_equal(ac_op_list_find_unique(&op, &list, first->id, "ops"), AC_EINVAL);
	assert_null(op);
	assert_int_equal(ac_op_list_find_unique(&op, &list, "nope", "ops"), AC_ENOTFOUND);
	ac_op_list_free(&list);
	ac_buf_free(&line);
	ac_op_free(first);
	json_decref(details);
}

/* issue 11 item 16: a rollback whose record could not be written is a
 * failure that says the files did change, not a quiet success. */
static void test_unrecorded_rollback_is_error(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0};
	char *op1;

	tu_put(f->dir, "a.txt", "one\n");
	op1 = record(f, "file_write", "a.txt");
	tu_put(f->dir, "blocker", "a file where the journal's folder must be\n");
	free(f->ws.journal_path);
	f->ws.journal_path = tu_path(f->dir, "blocker/JOURNAL.jsonl");
	assert_int_not_equal(ac_oplog_rollback(&r, &f->ws, op1, false, NULL), 0);
	assert_non_null(strstr(ac_error_last(), "the files were rolled back"));
	assert_non_null(strstr(ac_error_last(), "journal was not written"));
	assert_true(r.git.commit[0] != '\0');
	assert_false(tu_exists(f->dir, "a.txt"));
	ac_oplog_rollback_result_free(&r);
	free(op1);
}

/* Files git ignores and files it never saw are not touched. */
static void test_untracked_untouched(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0};
	char *op1;

	tu_put(f->dir, ".gitignore", "*.log\n");
	commit_everything(f->dir);
	tu_put(f->dir, "a.txt", "one\n");
	free(record(f, "file_write", "a.txt"));
	tu_put(f->dir, "b.txt", "bee\n");
	op1 = record(f, "file_write", "b.txt");
	tu_put(f->dir, "debug.log", "ignored\n");
	tu_put(f->dir, "notes/todo.txt", "never seen\n");

	assert_int_equal(ac_oplog_rollback(&r, &f->ws, op1, true, NULL), 0);
	assert_int_equal(r.git.n, 1);
	assert_int_equal(count_action(&r.git, AC_GIT_REMOVE, "b.txt"), 1);
	ac_oplog_rollback_result_free(&r);
	assert_int_equal(ac_oplog_rollback(&r, &f->ws, op1, false, NULL), 0);
	assert_false(tu_exists(f->dir, "b.txt"));
	tu_assert_file(f->dir, "a.txt", "one\n");
	tu_assert_file(f->dir, "debug.log", "ignored\n");
	tu_assert_file(f->dir, "notes/todo.txt", "never seen\n");
	ac_oplog_rollback_result_free(&r);
	free(op1);
}

/* Each refusal leaves the worktree and HEAD exactly as they were. */
static void test_errors_change_nothing(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0};
	char *op1, *before, *after, *head_before, *head_after;

	tu_put(f->dir, "a.txt", "one\n");
	op1 = record(f, "file_write", "a.txt");
	tu_put(f->dir, "a.txt", "dirty\n");
	append_line(f, "{\"id\":\"cmd\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"sessionId\":\"s\","
		       "\"type\":\"command_run\",\"details\":{\"command\":\"make\"}}\n");
	append_line(f, "{\"id\":\"gone\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"sessionId\":\"s\","
		       "\"type\":\"file_write\",\"details\":{},"
		       "\"gitCommitHash\":\"0123456789abcdef0123456789abcdef01234567\"}\n");
	before = tree_state(f->dir);
	head_before = head_hash(f->dir);

	assert_int_equal(ac_oplog_rollback(&r, &f->ws, "no-such-op", false, NULL), AC_ENOTFOUND);
	assert_non_null(strstr(ac_error_last(), "no-such-op"));
	assert_int_equal(ac_oplog_rollback(&r, &f->ws, "cmd", false, NULL), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "not reversible"));
	assert_int_equal(ac_oplog_rollback(&r, &f->ws, "gone", false, NULL), AC_ENOTFOUND);
	assert_non_null(strstr(ac_error_last(), "0123456789abcdef"));
	assert_int_equal(ac_oplog_rollback(&r, &f->ws, "gone", true, NULL), AC_ENOTFOUND);

	after = tree_state(f->dir);
	head_after = head_hash(f->dir);
	assert_string_equal(before, after);
	assert_string_equal(head_before, head_after);
	free(before);
	free(after);
	free(head_before);
	free(head_after);
	free(op1);
}

/* Outside any repository: records go without a commit, and a rollback of a
 * hashed line is refused without touching anything. */
static void test_not_a_repository(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0};
	ac_op *op = NULL;
	char *before, *after;

	tu_put(f->dir, "a.txt", "one\n");
	assert_int_equal(ac_oplog_record(&op, &f->ws, "s", "file_write", NULL), 0);
	assert_null(op->commit);
	ac_op_free(op);
	append_line(f, "{\"id\":\"h\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"sessionId\":\"s\","
		       "\"type\":\"file_write\",\"details\":{},"
		       "\"gitCommitHash\":\"0123456789abcdef0123456789abcdef01234567\"}\n");
	before = tree_state(f->dir);
	assert_int_equal(ac_oplog_rollback(&r, &f->ws, "h", false, NULL), AC_ENOTFOUND);
	assert_non_null(strstr(ac_error_last(), "not in a git repository"));
	after = tree_state(f->dir);
	assert_string_equal(before, after);
	free(before);
	free(after);
	assert_int_equal(ac_oplog_record(NULL, &f->ws, "s", "file_move", NULL), AC_EINVAL);
}

typedef struct {
	uint64_t lines[8];
	size_t n;
} problems;

static void collect(const char *path, uint64_t line, const char *reason, void *ctx)
{
	problems *p = ctx;

	(void)path;
	(void)reason;
	if (p->n < 8)
		p->lines[p->n++] = line;
}

/* A corrupt line is reported by number and skipped, a torn tail is not
 * delivered, unknown keys are kept, and the next append starts afresh. */
static void test_torn_and_corrupt(void **state)
{
	fixture *f = *state;
	ac_op_list list = {0};
	problems p = {0};

	tu_put(f->dir, ".agent/operations.jsonl",
	    "{\"id\":\"1\",\"timestamp\":\"t\",\"sessionId\":\"s\",\"type\":\"command_run\","
	    "\"details\":{\"command\":\"ls\"},\"extra\":{\"kept\":true}}\n"
	    "{\"id\":\"2\",\"type\":\n"
	    "[1,2]\n"
	    "{\"id\":\"3\",\"sessionId\":\"s\",\"type\":\"file_write\",\"details\":{},\"gitCommitHash\":null}\n"
	    "{\"id\":\"4\",\"sessionId\":\"s\",\"ty");
	assert_int_equal(ac_oplog_read(&list, f->ws.operations_path, 0, 1, collect, &p), 0);
	assert_int_equal(list.n, 2);
	assert_string_equal(list.ops[0].id, "1");
	assert_true(json_is_true(json_object_get(json_object_get(list.ops[0].raw, "extra"), "kept")));
	assert_string_equal(list.ops[1].id, "3");
	assert_null(list.ops[1].commit);
	assert_int_equal(list.ops[1].line, 4);
	assert_int_equal(list.skipped, 2);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.lines[0], 2);
	assert_int_equal(p.lines[1], 3);
	assert_true(list.torn);
	ac_op_list_free(&list);

	assert_int_equal(ac_oplog_record(NULL, &f->ws, "s", "command_run", NULL), 0);
	p.n = 0;
	assert_int_equal(ac_oplog_read(&list, f->ws.operations_path, 0, 1, collect, &p), 0);
	assert_int_equal(list.n, 3);
	assert_string_equal(list.ops[2].type, "command_run");
	assert_int_equal(list.ops[2].line, 6);
	assert_false(list.torn);
	assert_int_equal(p.n, 3); /* the torn line, now ended, is corrupt */
	ac_op_list_free(&list);
}

#define WRITERS 4
#define EACH 6

/* Four processes record at once: every line arrives whole, and every
 * commit is a distinct point in one linear history. */
static void test_concurrent_record(void **state)
{
	fixture *f = *state;
	ac_op_list list = {0};
	pid_t pids[WRITERS];

	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			int bad = 0;

			for (int i = 0; i < EACH; i++) {
				char name[64], *path;

				snprintf(name, sizeof(name), "w%d-%d.txt", w, i);
				path = tu_path(f->dir, name);
				tu_write_file(path, name, strlen(name));
				free(path);
				json_t *d = json_pack("{s:s}", "path", name);
				if (ac_oplog_record(NULL, &f->ws, name, i % 2 ? "command_run" : "file_write",
						    d) != 0) {
					fprintf(stderr, "writer %d: %s\n", w, ac_error_last());
					bad = 1;
				}
				json_decref(d);
			}
			_exit(bad);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int status;

		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(ac_oplog_read(&list, f->ws.operations_path, 0, 1, NULL, NULL), 0);
	assert_int_equal(list.n, WRITERS * EACH);
	assert_int_equal(list.skipped, 0);
	assert_false(list.torn);
	for (size_t i = 0; i < list.n; i++)
		for (size_t j = i + 1; j < list.n; j++) {
			assert_string_not_equal(list.ops[i].id, list.ops[j].id);
			if (list.ops[i].commit && list.ops[j].commit)
				assert_string_not_equal(list.ops[i].commit, list.ops[j].commit);
		}
	/* The log's last commit is HEAD: lines were written in commit order. */
	for (size_t i = list.n; i-- > 0;)
		if (list.ops[i].commit) {
			char *head = head_hash(f->dir);

			assert_string_equal(list.ops[i].commit, head);
			free(head);
			break;
		}
	ac_op_list_free(&list);
}

static void test_summary(void **state)
{
	ac_buf out = AC_BUF_INIT;
	json_t *d = json_pack("{s:s}", "command", "make all");

	(void)state;
	assert_int_equal(ac_oplog_summary(&out, d, 80), 0);
	assert_string_equal(out.data, "make all");
	json_decref(d);
	ac_buf_clear(&out);
	d = json_pack("{s:s}", "note", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	assert_int_equal(ac_oplog_summary(&out, d, 12), 0);
	assert_true(out.len <= 12);
	assert_non_null(strstr(out.data, "..."));
	json_decref(d);
	ac_buf_free(&out);
}

/* An operation of session, recorded; its id (caller frees). */
static char *record_as(fixture *f, const char *session, const char *path)
{
	json_t *details = json_pack("{s:s}", "path", path);
	ac_op *op = NULL;
	char *id;

	if (ac_oplog_record(&op, &f->ws, session, "file_write", details) != 0)
		fail_msg("record: %s", ac_error_last());
	json_decref(details);
	id = strdup(op->id);
	ac_op_free(op);
	return id;
}

/* Revert undoes one operation and keeps later ones, recorded and
 * journaled; a rollback names every session it undoes, a revert only the
 * operation's; a collision changes nothing. */
static void test_revert_one_operation(void **state)
{
	fixture *f = *state;
	ac_oplog_rollback_result r = {0};
	ac_op_list list = {0};
	char *op1, *op2, *op3, *before, *after, *journal;

	tu_put(f->dir, "login.js", "a\nb\nc\nd\ne\nf\ng\nh\n");
	free(record_as(f, "s0", "login.js"));
	tu_put(f->dir, "login.js", "a\nB\nc\nd\ne\nf\ng\nh\n");
	op1 = record_as(f, "s1", "login.js");
	tu_put(f->dir, "login.js", "a\nB\nc\nd\ne\nf\ng\nH\n");
	tu_put(f->dir, "other.txt", "o\n");
	op2 = record_as(f, "s2", "other.txt");
	tu_put(f->dir, "x.txt", "x\n");
	op3 = record_as(f, "s1", "x.txt");

	assert_int_equal(ac_oplog_rollback(&r, &f->ws, op1, true, NULL), 0);
	assert_int_equal(r.n_sessions, 2);
	assert_string_equal(r.sessions[0], "s1");
	assert_string_equal(r.sessions[1], "s2");
	ac_oplog_rollback_result_free(&r);

	before = tree_state(f->dir);
	assert_int_equal(ac_oplog_revert(&r, &f->ws, op1, true, NULL), 0);
	assert_int_equal(r.n_sessions, 1);
	assert_string_equal(r.sessions[0], "s1");
	assert_int_equal(r.git.changed, 1);
	assert_null(r.op);
	ac_oplog_rollback_result_free(&r);
	after = tree_state(f->dir);
	assert_string_equal(before, after);
	free(before);
	free(after);

	assert_int_equal(ac_oplog_revert(&r, &f->ws, op1, false, NULL), 0);
	tu_assert_file(f->dir, "login.js", "a\nb\nc\nd\ne\nf\ng\nH\n");
	tu_assert_file(f->dir, "other.txt", "o\n");
	tu_assert_file(f->dir, "x.txt", "x\n");
	assert_non_null(r.op);
	assert_int_equal(ac_oplog_read(&list, f->ws.operations_path, 0, 1, NULL, NULL), 0);
	assert_string_equal(json_string_value(json_object_get(list.ops[list.n - 1].details,
								 "revertOf")), op1);
	assert_string_equal(list.ops[list.n - 1].session_id, "s1");
	assert_string_equal(list.ops[list.n - 1].type, "revert");
	ac_op_list_free(&list);
	journal = tu_read_file(f->ws.journal_path, NULL);
	assert_non_null(strstr(journal, "\"revert\":true"));
	free(journal);
	ac_oplog_rollback_result_free(&r);

	/* Line 8 changes again after op2: reverting op2 collides on login.js. */
	tu_put(f->dir, "login.js", "a\nb\nc\nd\ne\nf\ng\nHH\n");
	free(record_as(f, "s3", "login.js"));
	before = tree_state(f->dir);
	assert_int_equal(ac_oplog_revert(&r, &f->ws, op2, false, NULL), AC_ECONFLICT);
	assert_non_null(strstr(ac_error_last(), "'login.js'"));
	ac_oplog_rollback_result_free(&r);
	after = tree_state(f->dir);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(op1);
	free(op2);
	free(op3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rollback_middle, setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_dirty_tree, setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_rerun_after_snapshot_keeps_untracked, setup_repo,
						teardown),
		cmocka_unit_test_setup_teardown(test_rerun_after_two_snapshots_keeps_untracked,
						setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_stopped_rollback_keeps_an_edit_made_meanwhile,
						setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_finish_after_stopped_undo_writes_files, setup_repo,
						teardown),
		cmocka_unit_test_setup_teardown(test_undo_rollback, setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_a_restored_file_has_its_mode_when_it_appears,
						setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_agent_state_left_alone, setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_untracked_untouched, setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_compacted_artifact_survives_rollback, setup_repo,
						teardown),
		cmocka_unit_test_setup_teardown(test_ambiguous_id_refused, setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_unrecorded_rollback_is_error, setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_errors_change_nothing, setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_repository, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_and_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_record, setup_repo, teardown),
		cmocka_unit_test(test_summary),
		cmocka_unit_test_setup_teardown(test_revert_one_operation, setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_operator_edits, setup_repo, teardown),
		cmocka_unit_test_setup_teardown(test_operator_edits_no_repository, setup, teardown),
	};

	/* No user configuration from the machine running the tests. */
	setenv("XDG_CONFIG_HOME", "/nonexistent-agentctl-test", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
