/* Rolling the workspace back to the state before a commit: the plan (what
 * differs, every path checked before anything is touched), the snapshot
 * commit that keeps the current state, and the rollback commit on top;
 * a write that fails midway puts the snapshot back. The writes themselves
 * and the checks on the worktree are ac_git_apply.c's. */
#include "ac_git.h"
#include "ac_git_impl.h"
#include "ac_git_paths.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_libgit2.h"
#include "ac_mutation.h"
#include "ac_struct_version.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *ac_git_action_name(ac_git_action action)
{
	switch (action) {
	case AC_GIT_REMOVE:
		return "remove";
	case AC_GIT_RESTORE:
		return "restore";
	case AC_GIT_CHANGE:
		return "change";
	}
	return "?";
}

void ac_git_rollback_result_free(ac_git_rollback_result *r)
{
	for (size_t i = 0; r->items && i < r->n; i++)
		free(r->items[i].path);
	free(r->items);
	r->items = NULL;
	r->n = 0;
}

static bool is_known(git_tree *head_tree, git_index *known, const char *path)
{
	git_tree_entry *e = NULL;

	if (known && sym_git_index_get_bypath(known, path, 0))
		return true;
	if (head_tree && sym_git_tree_entry_bypath(&e, head_tree, path) == 0) {
		sym_git_tree_entry_free(e);
		return true;
	}
	return false;
}

/* Refuses a path of the plan that git itself would never write: the
 * target tree (written by whoever could write objects) may name "..",
 * ".git" in some alias, or a link that points away. */
static int check_delta(ac_git *g, const git_diff_delta *d)
{
	const char *paths[2] = {d->new_file.path, d->old_file.path};
	uint32_t modes[2] = {d->status == GIT_DELTA_DELETED ? 0 : d->new_file.mode, 0};
	int rc = 0;

	for (int i = 0; i < 2 && rc == 0; i++) {
		git_blob *blob = NULL;
		const char *why;

		if (!paths[i] || (i == 1 && paths[0] && !strcmp(paths[0], paths[1])))
			continue;
		if (modes[i] == GIT_FILEMODE_LINK) {
			if (sym_git_blob_lookup(&blob, g->repo, &d->new_file.id) != 0)
				return ac_git_fail(paths[i]);
			why = ac_git_path_problem(paths[i], modes[i], sym_git_blob_rawcontent(blob),
						  (size_t)sym_git_blob_rawsize(blob));
		} else {
			why = ac_git_path_problem(paths[i], modes[i], NULL, 0);
		}
		if (why)
			rc = ac_error_set(AC_EINVAL, "'%s': unsafe path in the %s state (%s); refusing "
					  "the whole rollback, nothing was changed", paths[i],
					  i == 0 ? "target" : "current", why);
		sym_git_blob_free(blob);
	}
	return rc;
}

/* The files to touch: what differs between the current state and the
 * target, inside the workspace, outside the agent's own state, and (for
 * removals) known to git before the snapshot. */
/* What the target state holds at a path the plan writes. */
typedef struct {
	git_oid id;
	git_filemode_t mode;
} target_entry;

/* out, and in *out_entries (the caller frees it) what the target holds at
 * each planned path, so the writes need not look each one up again. */
static int make_plan(ac_git_rollback_result *out, target_entry **out_entries, ac_git *g,
		     git_tree *current, git_tree *target, git_tree *head_tree, git_index *known)
{
	git_diff_options opts;
	git_diff *diff = NULL;
	size_t count;
	int rc = 0;

	sym_git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags |= GIT_DIFF_INCLUDE_TYPECHANGE;
	if (sym_git_diff_tree_to_tree(&diff, g->repo, current, target, &opts) != 0)
		return ac_git_fail("comparing with the target state");
	count = sym_git_diff_num_deltas(diff);
	if (!(out->items = calloc(count + 1, sizeof(*out->items))) ||
	    !(*out_entries = calloc(count + 1, sizeof(**out_entries)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	/* Every path is checked before any is planned, so one bad entry
	 * refuses the whole rollback, the dry run included. */
	for (size_t i = 0; i < count; i++)
		if ((rc = check_delta(g, sym_git_diff_get_delta(diff, i))))
			goto done;
	for (size_t i = 0; i < count; i++) {
		const git_diff_delta *d = sym_git_diff_get_delta(diff, i);
		const char *path = d->new_file.path ? d->new_file.path : d->old_file.path;
		ac_git_action action;

		if (!ac_git_in_workspace(g, path) || ac_git_is_agent_state(g, path) ||
		    d->old_file.mode == GIT_FILEMODE_COMMIT || d->new_file.mode == GIT_FILEMODE_COMMIT)
			continue;
		if (d->status == GIT_DELTA_ADDED) {
			action = AC_GIT_RESTORE;
			out->restored++;
		} else if (d->status == GIT_DELTA_DELETED) {
			if (!is_known(head_tree, known, path))
				continue; /* untracked before the snapshot: left alone */
			action = AC_GIT_REMOVE;
			out->removed++;
		} else {
			action = AC_GIT_CHANGE;
			out->changed++;
		}
		out->items[out->n].action = action;
		(*out_entries)[out->n].id = d->new_file.id;
		(*out_entries)[out->n].mode = d->new_file.mode;
		if (!(out->items[out->n++].path = strdup(path))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
done:
	sym_git_diff_free(diff);
	return rc;
}

static int open_known_index(git_index **out, git_repository *repo)
{
	ac_buf path = AC_BUF_INIT;
	int rc = 0;

	*out = NULL;
	if (ac_buf_printf(&path, "%sindex", sym_git_repository_path(repo)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (access(path.data, F_OK) == 0 && sym_git_index_open(out, path.data) != 0)
		rc = ac_git_fail(path.data);
	ac_buf_free(&path);
	return rc;
}

/* A write failed after the snapshot: the worktree and index are put back
 * to the snapshot (HEAD), and the error says exactly what the worktree now
 * is. Returns rc. */
static int fail_midway(ac_git *g, git_index *index, git_commit *snapshot,
		       const ac_git_rollback_result *plan, int rc, const ac_git_undo_options *opts)
{
	char *why = strdup(ac_error_last());
	ac_buf failed = AC_BUF_INIT;
	git_tree *tree = NULL;

	if (sym_git_commit_tree(&tree, snapshot) != 0)
		ac_buf_printf(&failed, "the snapshot's tree (%s)", sym_git_error_last() ?
			      sym_git_error_last()->message : "libgit2 error");
	else
		ac_git_put_back(g, index, tree, plan, &failed);
	if (failed.len)
		ac_error_set(rc, "%s; putting the snapshot back failed too at %s: the worktree is "
			     "partly rolled back; commit %.12s (HEAD) holds the state before",
			     why ? why : "rollback failed", failed.data, plan->snapshot);
	else
		ac_error_set(rc, "%s; the worktree was put back as it was (snapshot commit %.12s, "
			     "now HEAD); nothing is rolled back", why ? why : "rollback failed",
			     plan->snapshot);
	if (!failed.len && opts && opts->put_back)
		opts->put_back(opts->ctx);
	sym_git_tree_free(tree);
	ac_buf_free(&failed);
	free(why);
	return rc;
}

/* Refuses while git is in the middle of something a rollback would
 * silently break: a merge, rebase, cherry-pick, revert, bisect or `git am`
 * in progress, or an index with conflicts. */
static int check_repository_idle(ac_git *g, git_index *index)
{
	const char *what = NULL;

	switch (sym_git_repository_state(g->repo)) {
	case GIT_REPOSITORY_STATE_NONE:
		break;
	case GIT_REPOSITORY_STATE_MERGE:
		what = "a merge";
		break;
	case GIT_REPOSITORY_STATE_REVERT:
	case GIT_REPOSITORY_STATE_REVERT_SEQUENCE:
		what = "a revert";
		break;
	case GIT_REPOSITORY_STATE_CHERRYPICK:
	case GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE:
		what = "a cherry-pick";
		break;
	case GIT_REPOSITORY_STATE_BISECT:
		what = "a bisect";
		break;
	case GIT_REPOSITORY_STATE_REBASE:
	case GIT_REPOSITORY_STATE_REBASE_INTERACTIVE:
	case GIT_REPOSITORY_STATE_REBASE_MERGE:
		what = "a rebase";
		break;
	default:
		what = "a `git am` or another multi-step git command";
		break;
	}
	if (what)
		return ac_error_set(AC_ECONFLICT, "%s: %s is in progress; finish or abort it first "
				    "(nothing was changed)", g->workdir, what);
	if (sym_git_index_has_conflicts(index))
		return ac_error_set(AC_ECONFLICT, "%s: the index has unresolved conflicts; resolve them "
				    "first (nothing was changed)", g->workdir);
	return 0;
}

/* What one rollback holds while it runs; release_rollback() frees it. */
typedef struct {
	git_commit *commit;   /* the commit rolled back */
	git_commit *parent;   /* its first parent; NULL for a root commit */
	git_commit *head;     /* HEAD before; NULL when unborn (or taken as snapshot) */
	git_commit *snapshot; /* the commit holding the state before the rollback */
	git_tree *target;     /* the state put back; NULL: the empty tree */
	git_tree *head_tree;
	/* What git knew before the snapshot, for removals: HEAD's tree, or
	 * the one below this same rollback's snapshots when HEAD is one (a
	 * run stopped after it: it holds the user's untracked files). */
	git_tree *known_tree;
	git_tree *current;    /* the current state, as the snapshot holds it */
	target_entry *entries; /* what target holds at each planned path */
	git_index *index;     /* the repository's index */
	git_index *known;     /* the index file as it was before staging, or NULL */
	git_oid tree_oid;     /* the tree index holds */
	bool staged;          /* index differs from the file: read it back at the end */
	bool revert;          /* undo the commit alone (ac_git_revert()) */
} rollback;

/* Whether c is a snapshot this same rollback made (snapshot_message on
 * one parent): a run stopped after it, or undone with it left as HEAD.
 * Its tree and the index saved with it hold what was untracked before,
 * which a rollback leaves alone. */
static bool own_snapshot(git_commit *c, const char *snapshot_message)
{
	const char *message = c ? sym_git_commit_message(c) : NULL;

	return message && sym_git_commit_parentcount(c) == 1 && !strcmp(message, snapshot_message);
}

/* What git knew before this rollback's snapshots: the tree of the first
 * commit below head that is not one of them (a stopped run again, after
 * another edit, stacks a second on the first), into r->known_tree. */
static int load_known_before_snapshots(rollback *r, const char *snapshot_message)
{
	git_commit *c = NULL, *parent = NULL;
	int rc = 0;

	if (sym_git_commit_parent(&c, r->head, 0) != 0)
		return ac_git_fail("HEAD's parent");
	while (rc == 0 && own_snapshot(c, snapshot_message)) {
		if (sym_git_commit_parent(&parent, c, 0) != 0)
			rc = ac_git_fail("a snapshot's parent");
		sym_git_commit_free(c);
		c = parent;
		parent = NULL;
	}
	if (rc == 0 && sym_git_commit_tree(&r->known_tree, c) != 0)
		rc = ac_git_fail("the commit before the snapshot");
	sym_git_commit_free(c);
	return rc;
}

/* The commit, the state before it, HEAD and the indexes; refuses while
 * git is in the middle of something. */
static int load_states(rollback *r, ac_git_rollback_result *out, ac_git *g, const char *hash,
		       const char *snapshot_message)
{
	int rc;

	if ((rc = ac_git_lookup_commit(&r->commit, g, hash)) ||
	    (rc = ac_git_parent_tree(&r->target, &r->parent, r->commit)) ||
	    (rc = ac_git_head_commit(&r->head, g->repo)))
		return rc;
	if (r->parent)
		sym_git_oid_tostr(out->target, sizeof(out->target), sym_git_commit_id(r->parent));
	if (r->head && sym_git_commit_tree(&r->head_tree, r->head) != 0)
		return ac_git_fail("HEAD");
	/* Planted bug (the simulator's ops scenario, found item 9): a
	 * stopped run's snapshot taken for what git knew. */
	if (own_snapshot(r->head, snapshot_message) &&
	    !AC_MUTATION("rerun_trusts_stopped_snapshot")) {
		/* The index was saved with the snapshot: not what git knew. */
		if ((rc = load_known_before_snapshots(r, snapshot_message)))
			return rc;
	} else {
		if (r->head_tree &&
		    sym_git_tree_lookup(&r->known_tree, g->repo, sym_git_tree_id(r->head_tree)) != 0)
			return ac_git_fail("HEAD");
		if ((rc = open_known_index(&r->known, g->repo)))
			return rc;
	}
	if (sym_git_repository_index(&r->index, g->repo) != 0 || sym_git_index_read(r->index, 1) != 0)
		return ac_git_fail("reading the index");
	return check_repository_idle(g, r->index);
}

/* Stages the current state and plans against it, all checked: out gets
 * the plan, r->tree_oid the snapshot's tree (kept files included). */
static int plan_rollback(rollback *r, ac_git_rollback_result *out, ac_git *g)
{
	int rc;

	/* The current state, as the snapshot would hold it. */
	r->staged = true;
	if ((rc = ac_git_stage(g, r->index)))
		return rc;
	errno = 0;
	if (sym_git_index_write_tree(&r->tree_oid, r->index) != 0 ||
	    sym_git_tree_lookup(&r->current, g->repo, &r->tree_oid) != 0)
		return ac_git_fail_writing("writing the snapshot tree", ac_git_repo_file(g, "objects"),
					   errno);
	if (r->revert) {
		/* Not the parent's state: the current one without the commit. */
		git_tree *merged = NULL;

		if ((rc = ac_git_revert_target(&merged, g, r->commit, r->target, r->current)))
			return rc;
		sym_git_tree_free(r->target);
		r->target = merged;
	}
	if ((rc = make_plan(out, &r->entries, g, r->current, r->target, r->known_tree, r->known)) ||
	    (rc = ac_git_preflight(g, r->index, out, &out->kept)))
		return rc;
	errno = 0;
	if (out->kept && sym_git_index_write_tree(&r->tree_oid, r->index) != 0)
		return ac_git_fail_writing("writing the snapshot tree", ac_git_repo_file(g, "objects"),
					   errno);
	return 0;
}

/* Commits the current state on HEAD with message, unless HEAD already
 * holds exactly that; out->snapshot names the commit. */
static int take_snapshot(rollback *r, ac_git_rollback_result *out, ac_git *g,
			 const char *message)
{
	git_oid oid;
	int rc;

	if (r->head && sym_git_oid_equal(&r->tree_oid, sym_git_tree_id(r->head_tree))) {
		r->snapshot = r->head;
		r->head = NULL;
	} else {
		/* The commit before the index: a run stopped between the two
		 * would leave the user's untracked files staged, and the next
		 * run would take them for known to git (and remove them). */
		if ((rc = ac_git_make_commit(&oid, g, &r->tree_oid, r->head, message)) ||
		    (rc = ac_git_index_save(g, r->index, NULL)))
			return rc;
		if (sym_git_commit_lookup(&r->snapshot, g->repo, &oid) != 0)
			return ac_git_fail("the snapshot commit");
	}
	r->staged = false;
	sym_git_oid_tostr(out->snapshot, sizeof(out->snapshot), sym_git_commit_id(r->snapshot));
	/* On disk before the worktree changes: after a power cut midway the
	 * snapshot is there to go back to. */
	return ac_git_sync(g);
}

/* The tree r->index holds, into r->tree_oid, without libgit2 checking
 * that each of its blobs exists: every entry is one of the snapshot's
 * (staged and written a moment ago) or one the target tree named and
 * ac_git_write_path() just read. That check looks up every blob of every
 * folder the rollback touched (a tenth of a 1,000-file rollback). */
static int write_known_tree(rollback *r)
{
	int rc;

	sym_git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0);
	rc = sym_git_index_write_tree(&r->tree_oid, r->index);
	sym_git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 1);
	return rc;
}

/* Test seam: AGENTCTL_TEST_KILL_AFTER_FILES=N ends the process with
 * SIGKILL once the rollback has written or removed N files, so a test can
 * check what a crash midway leaves (tests/e2e/ops_interrupted.sh). Read
 * here only; unset, it costs one getenv per rollback. */
static long kill_after_files(void)
{
	const char *env = getenv("AGENTCTL_TEST_KILL_AFTER_FILES");

	return env ? strtol(env, NULL, 10) : 0;
}

static void count_file(long *left)
{
	if (*left > 0 && --*left == 0)
		raise(SIGKILL);
}

/* Removes, restores and changes the plan's files in the worktree and the
 * index, syncs them all at once and commits the result on the snapshot
 * with message; a failure puts the snapshot back (fail_midway). */
static int apply_plan(rollback *r, ac_git_rollback_result *out, ac_git *g, const char *message,
		      const ac_git_undo_options *opts)
{
	long kill_after = kill_after_files();
	git_oid oid;
	int rc = 0;

	for (size_t i = 0; i < out->n && rc == 0; i++)
		if (out->items[i].action == AC_GIT_REMOVE) {
			rc = ac_git_remove_path(g, r->index, out->items[i].path);
			count_file(&kill_after);
		}
	for (size_t i = 0; i < out->n && rc == 0; i++)
		if (out->items[i].action != AC_GIT_REMOVE) {
			rc = ac_git_write_blob(g, r->index, out->items[i].path, &r->entries[i].id,
					       r->entries[i].mode);
			count_file(&kill_after);
		}
	/* Planted bug (the simulator's ops scenario): the intent recorded
	 * only once the files are written, so a kill among them leaves a mix
	 * that nothing names. */
	if (rc == 0 && AC_MUTATION("ops_intent_after_files") && opts && opts->before_apply)
		rc = opts->before_apply(out, opts->ctx);
	if (rc == 0 && !(rc = ac_git_index_save(g, r->index, NULL))) {
		errno = 0;
		if (write_known_tree(r))
			rc = ac_git_fail_writing("saving the rolled-back tree",
						 ac_git_repo_file(g, "objects"), errno);
	}
	/* Before the commit, so a failed sync still finds HEAD at the
	 * snapshot for the put-back; the commit itself is not synced (libgit2
	 * does not fsync; nor did it before). */
	if (rc == 0)
		rc = ac_git_sync(g);
	if (rc == 0)
		rc = ac_git_make_commit(&oid, g, &r->tree_oid, r->snapshot, message);
	if (rc != 0)
		return fail_midway(g, r->index, r->snapshot, out, rc, opts);
	sym_git_oid_tostr(out->commit, sizeof(out->commit), &oid);
	return 0;
}

static void release_rollback(rollback *r)
{
	/* A dry run, or a failure before the snapshot, leaves the index on
	 * disk as it was. */
	if (r->staged && r->index)
		sym_git_index_read(r->index, 1);
	sym_git_index_free(r->known);
	sym_git_index_free(r->index);
	free(r->entries);
	sym_git_tree_free(r->current);
	sym_git_tree_free(r->known_tree);
	sym_git_tree_free(r->head_tree);
	sym_git_tree_free(r->target);
	sym_git_commit_free(r->snapshot);
	sym_git_commit_free(r->head);
	sym_git_commit_free(r->parent);
	sym_git_commit_free(r->commit);
}

int ac_git_undo(ac_git_rollback_result *out, ac_git *g, const char *hash,
		const char *snapshot_message, const char *message, const ac_git_undo_options *opts)
{
	rollback r = {.revert = opts->revert};
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_struct_version_check("ac_git_undo_options", opts->version,
					  AC_GIT_UNDO_OPTIONS_VERSION, "AC_GIT_UNDO_OPTIONS_INIT")))
		return rc;
	if ((rc = load_states(&r, out, g, hash, snapshot_message)) ||
	    (rc = plan_rollback(&r, out, g)))
		goto done;
	if (r.target)
		sym_git_oid_tostr(out->target_tree, sizeof(out->target_tree), sym_git_tree_id(r.target));
	if (opts->dry_run || (rc = ac_git_exclude_agent_state(g)))
		goto done;
	/* From here on the worktree changes; the snapshot comes first so that
	 * nothing is lost whatever happens next, and the caller's record of
	 * what is about to happen before the first file. */
	if ((rc = take_snapshot(&r, out, g, snapshot_message)) ||
	    (opts->before_apply && !AC_MUTATION("ops_intent_after_files") &&
	     (rc = opts->before_apply(out, opts->ctx))))
		goto done;
	rc = apply_plan(&r, out, g, message, opts);
done:
	if (rc != 0)
		ac_git_rollback_result_free(out);
	release_rollback(&r);
	return rc;
}

int ac_git_rollback(ac_git_rollback_result *out, ac_git *g, const char *hash,
		    const char *snapshot_message, const char *message, bool dry_run)
{
	ac_git_undo_options opts = AC_GIT_UNDO_OPTIONS_INIT;

	opts.dry_run = dry_run;

	return ac_git_undo(out, g, hash, snapshot_message, message, &opts);
}

int ac_git_revert(ac_git_rollback_result *out, ac_git *g, const char *hash,
		  const char *snapshot_message, const char *message, bool dry_run)
{
	ac_git_undo_options opts = AC_GIT_UNDO_OPTIONS_INIT;

	opts.revert = true;
	opts.dry_run = dry_run;

	return ac_git_undo(out, g, hash, snapshot_message, message, &opts);
}
