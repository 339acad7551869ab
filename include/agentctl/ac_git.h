/* The workspace's git repository, through libgit2 (never a shell): commit
 * the workspace, describe what a commit changed, and put the workspace's
 * files back as they were before a commit.
 *
 * The workspace may be the repository's root or a folder inside it; only
 * paths under the workspace are staged or touched. The agent's own state
 * (ac_git_is_agent_state(): everything under the workspace's ".agent/",
 * its root's JOURNAL*.jsonl and their locks, and the "protected" paths
 * given at open) is never staged and never rewound, even when git tracks
 * it. Paths this module reports are relative to the repository's working
 * directory. It knows nothing of the operation log (ac_oplog.h). */
#ifndef AC_GIT_H
#define AC_GIT_H

#include "ac_buf.h"

#include <stdbool.h>
#include <stddef.h>

#define AC_GIT_HASH_LEN 40

typedef struct ac_git ac_git;

/* What is never staged or rewound. Each array is NULL-terminated and may be
 * NULL; the strings are paths (absolute, or relative to the current
 * folder) and are only borrowed during ac_git_open(). */
typedef struct {
	const char *const *folders;  /* everything below these folders */
	const char *const *files;    /* these files and their "<file>.lock" */
	const char *const *journals; /* a journal "<stem>.jsonl", its rotated
				      * "<stem>-*.jsonl" and each one's ".lock" */
} ac_git_protect;

/* Makes the folder dir (made if need be) a new git repository with a
 * working tree, as `git init` does; a repository already there is left as
 * it is. For a program that sets a workspace up (the demo's). 0, or AC_EIO
 * "git init in <dir>: <libgit2's reason>", or AC_ENOTSUP when libgit2
 * cannot be loaded. */
int ac_git_init(const char *dir);

/* Opens the repository that holds the folder root. protect may be NULL.
 * Free with ac_git_free(). AC_ENOTFOUND (naming root) when root is in no
 * git repository or in a bare one; AC_EIO with libgit2's reason when git
 * refuses the repository (for example: owned by someone else). */
int ac_git_open(ac_git **out, const char *root, const ac_git_protect *protect);

void ac_git_free(ac_git *g);

/* The repository's working directory (with a trailing '/'). Borrowed. */
const char *ac_git_workdir(const ac_git *g);

/* The one predicate for agent state: true when path (relative to the
 * repository's working directory) is the agent's own and so never staged
 * by ac_git_commit_workspace() nor rewound by ac_git_rollback(). */
bool ac_git_is_agent_state(const ac_git *g, const char *path);

/* Writes the agent-state patterns as a marked block into the repository's
 * local exclude file (.git/info/exclude), so that `git add -A` run by
 * anyone leaves agent state alone. The user's own lines are kept; the
 * block is replaced, never duplicated; nothing is written when it is
 * already current; the file is replaced atomically. 0 or AC_E*. */
int ac_git_exclude_agent_state(ac_git *g);

/* For every first write of agent state into a workspace (journal log,
 * session create, ...): when the folder root is in a git repository,
 * makes sure its exclude file holds the block above, so that the agent
 * state is kept out of `git add -A` from the start, not from the first
 * commit on. Cheap: once per process and root (thread-safe), and a
 * repository whose exclude file holds the block already is only read
 * (libgit2 is not loaded). Nothing is touched in a repository whose .git
 * is not the caller's or is a symbolic link, or through a link in it.
 * 0 (also: no repository, or libgit2 cannot be loaded), or AC_E* when
 * the block could not be written. */
int ac_git_exclude_ensure(const char *root, const ac_git_protect *protect);

/* The agent-state paths git already tracks (the index holds them), which
 * the exclude file cannot hide: sorted, a tracked file under the
 * workspace's .agent folder reported as that folder. *out is a
 * NULL-terminated array freed with ac_git_paths_free(). */
int ac_git_tracked_agent_state(char ***out, size_t *out_n, ac_git *g);

void ac_git_paths_free(char **paths, size_t n);

/* The paths under the workspace whose content differs from HEAD's: tracked
 * files changed or deleted (in the worktree or the index) and untracked
 * files git does not ignore, never agent state. Relative to the
 * repository's working directory, in git's order. *out is a
 * NULL-terminated array freed with ac_git_paths_free(). */
int ac_git_dirty_paths(char ***out, size_t *out_n, ac_git *g);

/* Takes the lock that agentctl processes hold around a commit and the log
 * line that names it, so both happen in the same order for every writer.
 * *out_fd holds it until closed. 0, AC_EBUSY or AC_EIO. */
int ac_git_lock(int *out_fd, const ac_git *g, int timeout_ms);

/* Stages what `git add -A` would under the workspace (honouring
 * .gitignore), except protected paths, and commits it on HEAD (an unborn
 * HEAD gets the first commit) with message, even when nothing changed, so
 * every call yields a commit whose parent is the state before it. out_hash
 * receives the commit's full hex id. */
int ac_git_commit_workspace(char out_hash[AC_GIT_HASH_LEN + 1], ac_git *g, const char *message);

/* 0 when hash names a commit the repository has; AC_ENOTFOUND otherwise. */
int ac_git_commit_exists(ac_git *g, const char *hash);

/* One file a commit changed relative to its first parent (the empty tree
 * for a root commit). */
typedef struct {
	char status;      /* 'A' added, 'M' modified, 'D' deleted, 'T' type changed */
	char *path;       /* owned */
	size_t additions; /* lines */
	size_t deletions;
	bool binary;
} ac_git_change;

/* Lists the files commit hash changed. *out is an allocated array freed
 * with ac_git_changes_free(). */
int ac_git_commit_changes(ac_git_change **out, size_t *out_n, ac_git *g, const char *hash);

void ac_git_changes_free(ac_git_change *changes, size_t n);

/* Appends commit hash's subject (its message's first line, not
 * sanitised). 0, AC_ENOTFOUND for an unknown commit, AC_ENOMEM. */
int ac_git_commit_subject(ac_buf *out, ac_git *g, const char *hash);

typedef enum {
	AC_GIT_REMOVE,  /* added since the target state: removed */
	AC_GIT_RESTORE, /* deleted since: brought back */
	AC_GIT_CHANGE,  /* changed since: its old contents written back */
} ac_git_action;

typedef struct {
	ac_git_action action;
	char *path; /* owned */
} ac_git_plan_item;

typedef struct {
	ac_git_plan_item *items; /* owned, sorted by path */
	size_t n;
	size_t removed, restored, changed;
	size_t kept; /* files git did not hold (ignored, never added) that the
		      * rollback overwrites: the snapshot keeps a copy of each */
	char target[AC_GIT_HASH_LEN + 1];   /* the state put back: hash^, or "" for the empty tree */
	char snapshot[AC_GIT_HASH_LEN + 1]; /* the commit holding the state before rollback */
	char commit[AC_GIT_HASH_LEN + 1];   /* the rollback's own commit; "" on a dry run */
	char target_tree[AC_GIT_HASH_LEN + 1]; /* the tree the plan writes from (a revert's
						 * merged one); "" for the empty tree */
} ac_git_rollback_result;

/* Called by ac_git_undo() once the snapshot is committed and on disk and
 * before the first file of the plan is touched (out->snapshot and
 * out->target_tree are set), so that a caller can record durably what is
 * about to happen. A non-zero return stops the rollback with no file
 * touched (HEAD then names the snapshot) and is returned. */
typedef int (*ac_git_before_apply_fn)(const ac_git_rollback_result *plan, void *ctx);

/* Options start from AC_GIT_UNDO_OPTIONS_INIT (everything off);
 * ac_git_undo() refuses options of another version with AC_EINVAL naming
 * the struct. */
#define AC_GIT_UNDO_OPTIONS_VERSION 1
#define AC_GIT_UNDO_OPTIONS_INIT { .version = AC_GIT_UNDO_OPTIONS_VERSION }

typedef struct {
	unsigned int version; /* AC_GIT_UNDO_OPTIONS_VERSION */
	bool revert;  /* ac_git_revert()'s target, else ac_git_rollback()'s */
	bool dry_run;
	ac_git_before_apply_fn before_apply; /* may be NULL */
	/* Called (may be NULL) when a write failed midway and every path was
	 * put back from the snapshot: what before_apply recorded is void. */
	void (*put_back)(void *ctx);
	void *ctx;
} ac_git_undo_options;

/* ac_git_rollback() or ac_git_revert() as opts says, calling
 * opts->before_apply between the snapshot and the first write. */
int ac_git_undo(ac_git_rollback_result *out, ac_git *g, const char *hash,
		const char *snapshot_message, const char *message, const ac_git_undo_options *opts);

/* Finishes a rollback or revert that stopped (a crash, a kill) after its
 * snapshot: every path of plan (items, snapshot and target_tree as
 * ac_git_undo() gave them to before_apply) is written from target_tree or
 * removed, whichever of the two states the worktree holds there now, the
 * index is the snapshot's with those paths, and a commit with message is
 * made on the snapshot. A path that holds content neither state has (an
 * edit made while the rollback stood stopped) is AC_ECONFLICT naming it,
 * nothing changed; so for ac_git_restore_snapshot(). When HEAD is already that commit (the stop came after it),
 * the paths are written all the same (an undo stopped before its own
 * commit may have put the snapshot's files back under it) and the commit
 * is only named. out_commit receives the commit. AC_ECONFLICT, nothing
 * changed, when HEAD is neither the snapshot nor that commit (one that
 * puts the snapshot back on it, an undo stopped after committing, is
 * named as such: only --undo ends it). Callers serialise with
 * ac_git_lock(). */
int ac_git_finish(char out_commit[AC_GIT_HASH_LEN + 1], ac_git *g,
		  const ac_git_rollback_result *plan, const char *message);

/* Undoes such a stopped rollback or revert instead: every path of plan is
 * put back as the snapshot holds it (written, or removed when the snapshot
 * has none), the index is the snapshot's; when HEAD is the rollback's own
 * commit (the stop came after it), a commit with message holding the
 * snapshot's tree is made on it, so history only grows (out_commit gets
 * it; "" when none was needed). When HEAD is that commit already (an
 * undo killed after committing), nothing is done and out_commit gets it.
 * AC_ECONFLICT, nothing changed, when HEAD is none of these. */
int ac_git_restore_snapshot(char out_commit[AC_GIT_HASH_LEN + 1], ac_git *g,
			    const ac_git_rollback_result *plan, const char *rollback_message,
			    const char *message);

/* Puts the workspace's files back as they were just before commit hash
 * (its first parent; the empty tree for a root commit).
 *
 * Everything is checked before anything changes, and a dry run checks the
 * same: hash must be a commit the repository has (AC_ENOTFOUND otherwise);
 * no merge, rebase, cherry-pick, revert or bisect may be in progress and
 * the index must have no conflicts (AC_ECONFLICT); every path of the plan
 * must be one git would write (ac_git_path_problem(), AC_EINVAL naming
 * it); no path to be written may lie behind a symbolic link or inside
 * another repository's folder (AC_EINVAL); no folder holding files the
 * plan does not remove may stand where a file goes (AC_ECONFLICT). Then
 * the current state (tracked files, untracked ones git does not ignore,
 * and ignored files the rollback overwrites) is committed on HEAD with
 * snapshot_message, unless HEAD already holds exactly that; the affected
 * files are removed, restored or changed in the worktree and the index; and
 * a commit with message is made on top, so history only grows. Only paths
 * under the workspace that HEAD, the index or the target tracks are
 * touched, never protected ones; untracked files git never saw stay (they
 * are in the snapshot). If a write still fails midway, every path is put
 * back from the snapshot (which HEAD then names) and the error says what
 * the worktree now is. With dry_run only out->items and counts are filled
 * and nothing in the worktree, index or history changes. Callers serialise
 * with ac_git_lock(). Free out with ac_git_rollback_result_free(). */
int ac_git_rollback(ac_git_rollback_result *out, ac_git *g, const char *hash,
		    const char *snapshot_message, const char *message, bool dry_run);

void ac_git_rollback_result_free(ac_git_rollback_result *r);

/* Undoes commit hash alone, keeping what came after it: the reverse of its
 * change (against its first parent) merged line by line onto the current
 * state, with the same checks, snapshot, writes, put-back and commits as
 * ac_git_rollback() (out->target names hash's parent, as there). When a
 * later change touched the same lines of a file (or the file) as hash did,
 * AC_ECONFLICT names every such path and nothing changes, a dry run
 * included. Only paths in the workspace that are not agent state are
 * considered. Free out with ac_git_rollback_result_free(). */
int ac_git_revert(ac_git_rollback_result *out, ac_git *g, const char *hash,
		  const char *snapshot_message, const char *message, bool dry_run);

/* Appends to out the unified diff (git's patch format, 3 lines of
 * context) of what commit hash changed against its first parent (the
 * empty tree for a root commit), limited to paths in the workspace that
 * are not agent state; a binary file is one "Binary files ... differ"
 * line. The text is as the files hold it, not sanitised: the caller makes
 * it safe for where it goes. 0, AC_ENOTFOUND for an unknown commit,
 * AC_EIO, AC_ENOMEM. */
int ac_git_commit_patch(ac_buf *out, ac_git *g, const char *hash);

/* The action's name for people: "remove", "restore" or "change". */
const char *ac_git_action_name(ac_git_action action);

#endif
