/* A rollback or revert that stopped after its snapshot (a crash, a kill):
 * finishing it from its recorded plan, or putting the snapshot back. The
 * plan comes from the record the caller wrote before the first file was
 * touched (ac_git_undo()'s before_apply); nothing here plans again, since
 * the worktree is half old, half new. */
#include "ac_git.h"
#include "ac_git_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_libgit2.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What HEAD is for a stopped rollback of plan with message: its snapshot,
 * its own commit (the stop came after the commit), or anything else. */
typedef enum { AT_SNAPSHOT, AT_COMMIT, AT_ELSEWHERE } head_place;

static int load_place(head_place *out, git_commit **out_head, git_commit **out_snapshot, ac_git *g,
		      const ac_git_rollback_result *plan, const char *message)
{
	git_commit *parent = NULL;
	int rc;

	*out = AT_ELSEWHERE;
	if ((rc = ac_git_lookup_commit(out_snapshot, g, plan->snapshot)) ||
	    (rc = ac_git_head_commit(out_head, g->repo)))
		return rc;
	if (!*out_head)
		return 0;
	if (sym_git_oid_equal(sym_git_commit_id(*out_head), sym_git_commit_id(*out_snapshot))) {
		*out = AT_SNAPSHOT;
	} else if (sym_git_commit_parentcount(*out_head) == 1 &&
		   sym_git_commit_parent(&parent, *out_head, 0) == 0 &&
		   sym_git_oid_equal(sym_git_commit_id(parent), sym_git_commit_id(*out_snapshot)) &&
		   sym_git_commit_message(*out_head) &&
		   !strcmp(sym_git_commit_message(*out_head), message)) {
		*out = AT_COMMIT;
	}
	sym_git_commit_free(parent);
	return 0;
}

static int moved(git_commit *head, const ac_git_rollback_result *plan)
{
	char hash[AC_GIT_HASH_LEN + 1] = "(none)";

	if (head)
		sym_git_oid_tostr(hash, sizeof(hash), sym_git_commit_id(head));
	return ac_error_set(AC_ECONFLICT, "HEAD is %.12s, neither the snapshot %.12s the stopped "
			    "rollback started from nor its own commit: something was committed "
			    "since; nothing was changed", hash, plan->snapshot);
}

/* Whether head puts the snapshot's tree back on the stopped rollback's own
 * commit (rollback_message, on the snapshot): what an undo of it commits
 * when the rollback had committed. */
static bool snapshot_put_back(git_commit *head, git_commit *snapshot, const char *rollback_message)
{
	git_commit *rollback = NULL, *before = NULL;
	git_tree *head_tree = NULL, *snapshot_tree = NULL;
	bool put_back = head && sym_git_commit_parentcount(head) == 1 &&
			sym_git_commit_parent(&rollback, head, 0) == 0 &&
			sym_git_commit_parentcount(rollback) == 1 &&
			sym_git_commit_message(rollback) &&
			!strcmp(sym_git_commit_message(rollback), rollback_message) &&
			sym_git_commit_parent(&before, rollback, 0) == 0 &&
			sym_git_oid_equal(sym_git_commit_id(before), sym_git_commit_id(snapshot)) &&
			sym_git_commit_tree(&head_tree, head) == 0 &&
			sym_git_commit_tree(&snapshot_tree, snapshot) == 0 &&
			sym_git_oid_equal(sym_git_tree_id(head_tree), sym_git_tree_id(snapshot_tree));

	sym_git_tree_free(snapshot_tree);
	sym_git_tree_free(head_tree);
	sym_git_commit_free(before);
	sym_git_commit_free(rollback);
	return put_back;
}

/* Whether head is the commit an undo with message made on the stopped
 * rollback's own commit (rollback_message, on the snapshot): the undo was
 * killed after committing, before the intent was removed, and re-running
 * it has nothing left to do. Without this, both the undo and the finish
 * refused that HEAD as "something was committed since" and the intent
 * could never be cleared. */
static bool own_undo(git_commit *head, git_commit *snapshot, const char *rollback_message,
		     const char *message)
{
	return head && sym_git_commit_message(head) && !strcmp(sym_git_commit_message(head), message) &&
	       snapshot_put_back(head, snapshot, rollback_message);
}

/* *same: whether the worktree file full (lstat st), a file or a link,
 * holds what tree has at path: the same bytes (a link: the same target);
 * false when tree lacks the path or holds a folder there. A file that
 * cannot be read is an error naming it, not a difference. */
static int holds(bool *same, ac_git *g, git_tree *tree, const char *path, const char *full,
		 const struct stat *st)
{
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	int rc = 0;

	*same = false;
	if (!tree || sym_git_tree_entry_bypath(&entry, tree, path) != 0)
		return 0;
	if (sym_git_tree_entry_filemode(entry) != GIT_FILEMODE_TREE &&
	    sym_git_blob_lookup(&blob, g->repo, sym_git_tree_entry_id(entry)) == 0) {
		size_t size = (size_t)sym_git_blob_rawsize(blob);
		const void *want = sym_git_blob_rawcontent(blob);

		if (S_ISLNK(st->st_mode)) {
			char target[4096];
			ssize_t n = readlink(full, target, sizeof(target));

			if (n < 0)
				rc = ac_error_errno(errno, "%s: cannot read the link to compare it",
						    full);
			*same = n >= 0 && (size_t)n == size && memcmp(target, want, size) == 0;
		} else if ((size_t)st->st_size == size) {
			char *text = NULL;
			size_t len = 0;

			/* Read only at the blob's size: bounded by the repository. */
			rc = ac_file_read(&text, &len, full);
			*same = rc == 0 && len == size && (size == 0 || memcmp(text, want, size) == 0);
			free(text);
		}
	}
	sym_git_blob_free(blob);
	sym_git_tree_entry_free(entry);
	return rc;
}

/* Before a stopped rollback is finished or undone: every path of its plan
 * holds what it held before the rollback (before) or what the rollback
 * writes (after), or nothing worth keeping (no file, an empty one, a
 * folder or a special file the write moves aside or reports). Anything
 * else was written while the rollback stood stopped, by an agent or the
 * user, and finishing or undoing would write over it unseen: AC_ECONFLICT
 * naming the path, nothing changed. doing: "finishing" or "undoing". */
static int check_no_new_edit(ac_git *g, const ac_git_rollback_result *plan, git_tree *before,
			     git_tree *after, const char *doing)
{
	ac_buf full = AC_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < plan->n && rc == 0; i++) {
		const char *path = plan->items[i].path;
		bool as_before = false, as_after = false;
		struct stat st;

		ac_buf_clear(&full);
		if (ac_buf_printf(&full, "%s%s", g->workdir, path)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		if (lstat(full.data, &st) != 0) {
			if (errno != ENOENT && errno != ENOTDIR)
				rc = ac_error_errno(errno, "%s", full.data);
			continue;
		}
		if (!S_ISLNK(st.st_mode) && (!S_ISREG(st.st_mode) || st.st_size == 0))
			continue;
		if ((rc = holds(&as_before, g, before, path, full.data, &st)) ||
		    (!as_before && (rc = holds(&as_after, g, after, path, full.data, &st)))) {
			char *why = strdup(ac_error_last());

			rc = ac_error_set(rc, "'%s' cannot be read to see whether it was written "
					  "while the rollback stood stopped (%s); nothing was changed",
					  path, why ? why : "out of memory");
			free(why);
			break;
		}
		if (!as_before && !as_after)
			rc = ac_error_set(AC_ECONFLICT,
					  "'%s' was written while the rollback stood stopped: it holds "
					  "neither its content before the rollback nor the rollback's, "
					  "and %s would write over it; nothing was changed (move it "
					  "aside, then run this again)", path, doing);
	}
	ac_buf_free(&full);
	return rc;
}

/* The tree the plan writes (*out NULL for the empty tree). */
static int target_of(git_tree **out, ac_git *g, const ac_git_rollback_result *plan)
{
	git_oid oid;

	*out = NULL;
	if (*plan->target_tree &&
	    (sym_git_oid_fromstrn(&oid, plan->target_tree, strlen(plan->target_tree)) != 0 ||
	     sym_git_tree_lookup(out, g->repo, &oid) != 0))
		return ac_git_fail(plan->target_tree);
	return 0;
}

/* The repository's index, holding tree. */
static int index_of(git_index **out, ac_git *g, git_tree *tree)
{
	if (sym_git_repository_index(out, g->repo) != 0 || sym_git_index_read_tree(*out, tree) != 0)
		return ac_git_fail("reading the index");
	return 0;
}

int ac_git_finish(char out_commit[AC_GIT_HASH_LEN + 1], ac_git *g,
		  const ac_git_rollback_result *plan, const char *message)
{
	git_commit *head = NULL, *snapshot = NULL;
	git_tree *target = NULL, *base = NULL, *before = NULL;
	git_index *index = NULL;
	head_place place;
	git_oid oid, tree_oid;
	int rc;

	*out_commit = '\0';
	if ((rc = load_place(&place, &head, &snapshot, g, plan, message)))
		goto done;
	/* An undo of this rollback committed, then stopped: the user chose
	 * to undo, and only --undo can end it (finishing now would undo the
	 * undo). Said so, not "something was committed since". */
	if (place == AT_ELSEWHERE && snapshot_put_back(head, snapshot, message)) {
		char hash[AC_GIT_HASH_LEN + 1];

		sym_git_oid_tostr(hash, sizeof(hash), sym_git_commit_id(head));
		rc = ac_error_set(AC_ECONFLICT, "HEAD %.12s is an undo of this stopped rollback, "
				  "committed before it was stopped: finish the undo (--undo), not "
				  "the rollback; nothing was changed", hash);
		goto done;
	}
	if (place == AT_ELSEWHERE) {
		rc = moved(head, plan);
		goto done;
	}
	if ((rc = target_of(&target, g, plan)))
		goto done;
	if (sym_git_commit_tree(&before, snapshot) != 0) {
		rc = ac_git_fail(plan->snapshot);
		goto done;
	}
	if ((rc = check_no_new_edit(g, plan, before, target, "finishing")))
		goto done;
	/* The index of the commit the files go on: the snapshot's, or the
	 * rollback's own when it was made (the stop came after it). */
	if (sym_git_commit_tree(&base, place == AT_COMMIT ? head : snapshot) != 0) {
		rc = ac_git_fail(plan->snapshot);
		goto done;
	}
	if ((rc = index_of(&index, g, base)))
		goto done;
	/* Every path of the plan is written again, whatever half of them the
	 * stopped run wrote, also when its commit was made: an undo stopped
	 * before its own commit may have put the snapshot's files back under
	 * it since. Removals first, as the run did: a file removed may stand
	 * where a folder of a written one goes. */
	for (size_t i = 0; i < plan->n && rc == 0; i++)
		if (plan->items[i].action == AC_GIT_REMOVE)
			rc = ac_git_remove_path(g, index, plan->items[i].path);
	for (size_t i = 0; i < plan->n && rc == 0; i++) {
		const char *path = plan->items[i].path;

		if (plan->items[i].action == AC_GIT_REMOVE)
			continue;
		if (!target)
			rc = ac_error_set(AC_ECORRUPT, "'%s': the plan writes it, but its target is the "
					  "empty tree", path);
		else
			rc = ac_git_write_path(g, index, target, path);
	}
	if (rc == 0 &&
	    (sym_git_index_write(index) != 0 || sym_git_index_write_tree(&tree_oid, index) != 0))
		rc = ac_git_fail("writing the index");
	if (rc == 0)
		rc = ac_git_sync(g);
	if (rc == 0 && place == AT_COMMIT)
		sym_git_oid_tostr(out_commit, AC_GIT_HASH_LEN + 1, sym_git_commit_id(head));
	else if (rc == 0 && (rc = ac_git_make_commit(&oid, g, &tree_oid, snapshot, message)) == 0)
		sym_git_oid_tostr(out_commit, AC_GIT_HASH_LEN + 1, &oid);
done:
	sym_git_index_free(index);
	sym_git_tree_free(before);
	sym_git_tree_free(base);
	sym_git_tree_free(target);
	sym_git_commit_free(snapshot);
	sym_git_commit_free(head);
	return rc;
}

int ac_git_restore_snapshot(char out_commit[AC_GIT_HASH_LEN + 1], ac_git *g,
			    const ac_git_rollback_result *plan, const char *rollback_message,
			    const char *message)
{
	git_commit *head = NULL, *snapshot = NULL;
	git_tree *tree = NULL, *target = NULL;
	git_index *index = NULL;
	ac_buf failed = AC_BUF_INIT;
	head_place place;
	git_oid oid;
	int rc;

	*out_commit = '\0';
	if ((rc = load_place(&place, &head, &snapshot, g, plan, rollback_message)))
		goto done;
	if (place == AT_ELSEWHERE && own_undo(head, snapshot, rollback_message, message)) {
		sym_git_oid_tostr(out_commit, AC_GIT_HASH_LEN + 1, sym_git_commit_id(head));
		goto done;
	}
	if (place == AT_ELSEWHERE) {
		rc = moved(head, plan);
		goto done;
	}
	if (sym_git_commit_tree(&tree, snapshot) != 0) {
		rc = ac_git_fail(plan->snapshot);
		goto done;
	}
	if ((rc = target_of(&target, g, plan)) ||
	    (rc = check_no_new_edit(g, plan, tree, target, "undoing")))
		goto done;
	if ((rc = index_of(&index, g, tree)))
		goto done;
	if (ac_git_put_back(g, index, tree, plan, &failed) != 0) {
		rc = ac_error_set(AC_EIO, "putting the snapshot %.12s back failed at %s; the worktree "
				  "is still partly rolled back", plan->snapshot,
				  failed.data ? failed.data : "?");
		goto done;
	}
	if (place == AT_COMMIT) {
		if ((rc = ac_git_make_commit(&oid, g, sym_git_tree_id(tree), head, message)))
			goto done;
		sym_git_oid_tostr(out_commit, AC_GIT_HASH_LEN + 1, &oid);
	}
done:
	ac_buf_free(&failed);
	sym_git_index_free(index);
	sym_git_tree_free(target);
	sym_git_tree_free(tree);
	sym_git_commit_free(snapshot);
	sym_git_commit_free(head);
	return rc;
}
