/* What ac_git.c and ac_git_state.c share about an open repository; not a
 * public header. */
#ifndef AC_GIT_IMPL_H
#define AC_GIT_IMPL_H

#include "ac_buf.h"
#include "ac_git.h"

#include <git2.h>

#include <stdbool.h>
#include <stddef.h>

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
};

/* True when path (workdir-relative) lies in the workspace. */
bool ac_git_in_workspace(const ac_git *g, const char *path);

/* libgit2's last error as AC_EIO "<what>: <reason>". */
int ac_git_fail(const char *what);

/* Walks the folders on the way to path (workdir-relative), refusing a
 * symbolic link, a file or another repository's folder among them, except
 * a regular file that plan (may be NULL) removes before path is written;
 * with create, makes missing ones. */
int ac_git_check_parents(const ac_git *g, const char *path, bool create,
			 const ac_git_rollback_result *plan);

/* Removes path from the worktree and index (then its emptied folders). */
int ac_git_remove_path(ac_git *g, git_index *index, const char *path);

/* Writes path as tree holds it (file, executable or link) and stages it. */
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
 * index back to snapshot. 0, or AC_EIO with the first path that could not
 * be put back (and why) appended to failed. */
int ac_git_put_back(ac_git *g, git_index *index, git_tree *snapshot,
		    const ac_git_rollback_result *plan, ac_buf *failed);

#endif
