/* What one commit changed, as a unified diff (ac_git_commit_patch()), and
 * the state a revert of one commit puts back (ac_git_revert_target(): a
 * 3-way merge of the commit's reverse onto the current state). Both see
 * only paths in the workspace that are not agent state. The plan, the
 * snapshot and the writes of a revert are the rollback's
 * (ac_git_rollback.c, ac_git_apply.c). */
#include "ac_git.h"
#include "ac_git_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_libgit2.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A path the patch and the revert consider: in the workspace, not agent
 * state. NULL paths are ignored. */
static bool is_shown(const ac_git *g, const char *a, const char *b)
{
	for (int i = 0; i < 2; i++) {
		const char *p = i == 0 ? a : b;

		if (p && (!ac_git_in_workspace(g, p) || ac_git_is_agent_state(g, p)))
			return false;
	}
	return true;
}

int ac_git_commit_patch(ac_buf *out, ac_git *g, const char *hash)
{
	git_diff *diff = NULL;
	int rc;

	if ((rc = ac_git_commit_diff(&diff, g, hash)))
		goto done;
	for (size_t i = 0, count = sym_git_diff_num_deltas(diff); i < count && rc == 0; i++) {
		const git_diff_delta *d = sym_git_diff_get_delta(diff, i);
		git_patch *patch = NULL;
		git_buf text = {0};

		if (!is_shown(g, d->old_file.path, d->new_file.path) ||
		    d->old_file.mode == GIT_FILEMODE_COMMIT || d->new_file.mode == GIT_FILEMODE_COMMIT)
			continue;
		if (sym_git_patch_from_diff(&patch, diff, i) != 0 || sym_git_patch_to_buf(&text, patch) != 0)
			rc = ac_git_fail(hash);
		else if (ac_buf_append(out, text.ptr, text.size))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		sym_git_buf_dispose(&text);
		sym_git_patch_free(patch);
	}
done:
	sym_git_diff_free(diff);
	return rc;
}

static const char *conflict_path(const git_index_entry *const e[3])
{
	for (int i = 0; i < 3; i++)
		if (e[i])
			return e[i]->path;
	return NULL;
}

/* The merge's conflicts: those on paths the revert touches are collected
 * in paths (", "-separated, *out_n counted); the others (outside the
 * workspace, agent state) are settled as the current state has them. */
static int settle_conflicts(size_t *out_n, ac_buf *paths, ac_git *g, git_index *merged)
{
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *e[3];
	git_index_entry *keep = NULL;
	char **settle = NULL;
	size_t nsettle = 0, cap = 0;
	int rc = 0, err;

	*out_n = 0;
	if (sym_git_index_conflict_iterator_new(&it, merged) != 0)
		return ac_git_fail("listing the revert's conflicts");
	while ((err = sym_git_index_conflict_next(&e[0], &e[1], &e[2], it)) == 0) {
		const char *path = conflict_path(e);

		if (is_shown(g, e[0] ? e[0]->path : NULL, e[1] ? e[1]->path : NULL) &&
		    is_shown(g, e[2] ? e[2]->path : NULL, NULL)) {
			if (ac_buf_printf(paths, "%s'%s'", (*out_n)++ ? ", " : "", path))
				rc = ac_error_set(AC_ENOMEM, "out of memory");
			continue;
		}
		if (nsettle == cap) {
			char **more = realloc(settle, (cap = cap ? 2 * cap : 8) * sizeof(*settle));

			if (!more) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				break;
			}
			settle = more;
		}
		if (!(settle[nsettle] = strdup(path))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		nsettle++;
	}
	sym_git_index_conflict_iterator_free(it);
	if (rc == 0 && err != GIT_ITEROVER)
		rc = ac_git_fail("listing the revert's conflicts");
	/* Outside what the revert may touch, the current state stands. */
	for (size_t i = 0; i < nsettle && rc == 0; i++) {
		const git_index_entry *anc, *ours, *theirs;

		if (sym_git_index_conflict_get(&anc, &ours, &theirs, merged, settle[i]) != 0) {
			rc = ac_git_fail(settle[i]);
			break;
		}
		keep = NULL;
		if (ours && !(keep = malloc(sizeof(*keep)))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		if (ours) {
			*keep = *ours;
			keep->path = settle[i];
			keep->flags &= (uint16_t)~GIT_INDEX_ENTRY_STAGEMASK;
		}
		if (sym_git_index_conflict_remove(merged, settle[i]) != 0 ||
		    (keep && sym_git_index_add(merged, keep) != 0))
			rc = ac_git_fail(settle[i]);
		free(keep);
	}
	for (size_t i = 0; i < nsettle; i++)
		free(settle[i]);
	free(settle);
	return rc;
}

int ac_git_revert_target(git_tree **out, ac_git *g, git_commit *commit, git_tree *parent_tree,
			 git_tree *current)
{
	git_merge_options opts;
	git_index *merged = NULL;
	git_tree *mine = NULL;
	ac_buf paths = AC_BUF_INIT;
	git_oid oid;
	size_t n = 0;
	int rc = 0;

	*out = NULL;
	sym_git_merge_options_init(&opts, GIT_MERGE_OPTIONS_VERSION);
	opts.flags = 0; /* no rename detection: a path is a path */
	/* The commit's reverse onto the current state: its own tree is the
	 * common ancestor, its parent the side that undoes it. */
	if (sym_git_commit_tree(&mine, commit) != 0 ||
	    sym_git_merge_trees(&merged, g->repo, mine, current, parent_tree, &opts) != 0) {
		rc = ac_git_fail("merging the revert");
		goto done;
	}
	if ((rc = settle_conflicts(&n, &paths, g, merged)))
		goto done;
	if (n) {
		char hash[AC_GIT_HASH_LEN + 1];

		sym_git_oid_tostr(hash, sizeof(hash), sym_git_commit_id(commit));
		rc = ac_error_set(AC_ECONFLICT, "cannot revert commit %.12s: later changes touch the "
				  "same lines of %s; refusing the whole revert, nothing was changed "
				  "(roll back to before it instead, or revert the later ones first)",
				  hash, paths.data ? paths.data : "?");
		goto done;
	}
	if (sym_git_index_write_tree_to(&oid, merged, g->repo) != 0 ||
	    sym_git_tree_lookup(out, g->repo, &oid) != 0)
		rc = ac_git_fail("writing the revert's tree");
done:
	ac_buf_free(&paths);
	sym_git_index_free(merged);
	sym_git_tree_free(mine);
	return rc;
}
