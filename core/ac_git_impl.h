/* What the git layer's files share about an open repository (ac_git.c:
 * open, commit, changes; ac_git_rollback.c: the rollback; ac_git_apply.c:
 * its writes; ac_git_state.c: agent state); not a public header. */
#ifndef AC_GIT_IMPL_H
#define AC_GIT_IMPL_H

#include "ac_buf.h"
#include "ac_git.h"

#include "ac_libgit2.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* A journal family: "<dir><stem>.jsonl", "<dir><stem>-*.jsonl", ".lock"s. */
typedef struct {
	char *dir; /* workdir-relative, "" or ending in '/' */
	char *stem;
} ac_git_journal_rule;

struct ac_git {
	git_repository *repo;
	char *workdir; /* real path, ending in '/' */
	char *prefix;  /* the workspace inside workdir: "" or "sub/dir/" */
	char **folders;
	size_t nfolders;
	char **files;
	size_t nfiles;
	ac_git_journal_rule *journals;
	size_t njournals;
	ac_buf staging; /* the path ac_git_stage() let libgit2 add last, for its errors */
};

/* True when path (workdir-relative) lies in the workspace. */
bool ac_git_in_workspace(const ac_git *g, const char *path);

/* The nearest "<folder>/.git" at or above root (any type; lstat() into
 * *out_st): 0 and its path in out, AC_ENOTFOUND when there is none. */
int ac_git_nearest_dotgit(ac_buf *out, struct stat *out_st, const char *root);

/* libgit2's last error as AC_EIO "<what>: <reason>". */
int ac_git_fail(const char *what);

/* libgit2's last error for a call that writes file (a path in the git
 * folder), saved_errno being errno as the call left it (the caller
 * cleared it before). When the file system was full, over quota or
 * read-only (errno, libgit2's text, or no free block left on file's file
 * system says so): AC_ENOSPACE or AC_EIO "<what>: writing <file>:
 * <strerror>", whatever libgit2 said (it may say "failed to read file
 * into stream", or only "... callback returned -1"). Else as
 * ac_git_fail(), with the errno text when libgit2 lost its reason. */
int ac_git_fail_writing(const char *what, const char *file, int saved_errno);

/* "<git folder>objects" or "<git folder>index" of g's repository, in a
 * buffer of the calling thread (one at a time), for ac_git_fail_writing(). */
const char *ac_git_repo_file(const ac_git *g, const char *name);

/* The commit HEAD points at; *out NULL when HEAD is unborn. Free *out with
 * sym_git_commit_free(). */
int ac_git_head_commit(git_commit **out, git_repository *repo);

/* The commit hash (4 to 40 hex digits) names; AC_ENOTFOUND when it names
 * none. Free *out with sym_git_commit_free(). */
int ac_git_lookup_commit(git_commit **out, ac_git *g, const char *hash);

/* The tree of c's first parent, and that parent when out_parent is not
 * NULL; *out NULL (the empty tree) for a root commit. The caller frees
 * both. */
int ac_git_parent_tree(git_tree **out, git_commit **out_parent, git_commit *c);

/* What commit hash changed: the diff of its parent's tree (empty for a
 * root commit) to its own, type changes included. *out is the caller's to
 * free (sym_git_diff_free()); NULL on an error. */
int ac_git_commit_diff(git_diff **out, ac_git *g, const char *hash);

/* Brings index to what `git add -A` would make of the workspace, agent
 * state left out; retried while files change under it. */
int ac_git_stage(ac_git *g, git_index *index);

/* Writes index to its file, then (out_tree not NULL) its tree into the
 * object store; errors name the file (ac_git_fail_writing()). */
int ac_git_index_save(ac_git *g, git_index *index, git_oid *out_tree);

/* Commits tree_oid on HEAD with parent (NULL: a root commit) and message;
 * *out receives the commit's id. */
int ac_git_make_commit(git_oid *out, ac_git *g, const git_oid *tree_oid, git_commit *parent,
		       const char *message);

/* Walks the folders on the way to path (workdir-relative), refusing a
 * symbolic link, a file or another repository's folder among them, except
 * a regular file that plan (may be NULL) removes before path is written;
 * with create, makes missing ones. */
int ac_git_check_parents(const ac_git *g, const char *path, bool create,
			 const ac_git_rollback_result *plan);

/* Makes every write so far durable: one sync of the worktree's file
 * system (and of the git folder's, when another). The rollback's writes
 * below are not synced one by one; see docs/RELIABILITY.md. */
int ac_git_sync(ac_git *g);

/* Removes path from the worktree and index (then its emptied folders). */
int ac_git_remove_path(ac_git *g, git_index *index, const char *path);

/* Writes path as blob id with mode (file, executable or link) and stages
 * it; durable only after ac_git_sync(). */
int ac_git_write_blob(ac_git *g, git_index *index, const char *path, const git_oid *id,
		      git_filemode_t mode);

/* ac_git_write_blob() of path as tree holds it. */
int ac_git_write_path(ac_git *g, git_index *index, git_tree *tree, const char *path);

/* Before anything is written: a folder standing where a file goes must
 * hold only files the plan removes (else AC_ECONFLICT naming one), no path
 * may lie behind a link or inside another repository (AC_EINVAL), and a
 * file the plan overwrites that the current state does not hold (ignored,
 * or never added) is added to index, so the snapshot keeps a copy;
 * *out_kept counts those. Nothing on disk changes. */
int ac_git_preflight(ac_git *g, git_index *index, const ac_git_rollback_result *plan,
		     size_t *out_kept);

/* After a failed write: every path of plan back as snapshot holds it, the
 * index back to snapshot, synced. 0, or AC_EIO with the first path that could not
 * be put back (and why) appended to failed. */
int ac_git_put_back(ac_git *g, git_index *index, git_tree *snapshot,
		    const ac_git_rollback_result *plan, ac_buf *failed);

/* The state a revert of commit puts back: the reverse of commit (against
 * parent_tree, NULL for the empty tree) merged onto current; *out is
 * freed by the caller. AC_ECONFLICT naming the paths where later changes
 * collide (in the workspace, not agent state; collisions elsewhere keep
 * current's side, which no rollback touches anyway). */
int ac_git_revert_target(git_tree **out, ac_git *g, git_commit *commit, git_tree *parent_tree,
			 git_tree *current);

#endif
