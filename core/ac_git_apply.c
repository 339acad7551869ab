/* Applying a rollback plan to the worktree: the checks made before
 * anything is written (what stands in the way, what must be kept in the
 * snapshot), the writes and removals themselves, and putting the snapshot
 * back when a write fails midway. Never follows or writes through a
 * symbolic link. The plan itself is made in ac_git_rollback.c. */
#include "ac_git.h"
#include "ac_git_impl.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_fs_calls.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Walks the folders on the way to path (workdir-relative), refusing a
 * symbolic link or a file among them; with create, makes missing ones. */
static bool plan_removes(const ac_git_rollback_result *plan, const char *path)
{
	for (size_t i = 0; i < plan->n; i++)
		if (plan->items[i].action == AC_GIT_REMOVE && !strcmp(plan->items[i].path, path))
			return true;
	return false;
}

int ac_git_check_parents(const ac_git *g, const char *path, bool create,
			 const ac_git_rollback_result *plan)
{
	ac_buf full = AC_BUF_INIT;
	const char *slash;
	struct stat st;
	int rc = 0;

	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		ac_buf_clear(&full);
		if (ac_buf_printf(&full, "%s%.*s", g->workdir, (int)(slash - path), path)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		if (lstat(full.data, &st) != 0) {
			if (errno != ENOENT) {
				rc = ac_error_errno(errno, "%s", full.data);
				break;
			}
			if (!create)
				break; /* nothing below can be a link either */
			if (ac_fs_mkdir(full.data, 0755) != 0 && errno != EEXIST) {
				rc = ac_error_errno(errno, "%s: cannot create the folder", full.data);
				break;
			}
			continue;
		}
		/* A file the plan removes first is gone when path is written.
		 * A link stays refused, removed or not: it may be a planted one. */
		if (S_ISREG(st.st_mode) && plan && plan_removes(plan, full.data + strlen(g->workdir)))
			break;
		if (S_ISLNK(st.st_mode)) {
			rc = ac_error_set(AC_EINVAL, "%s: a symbolic link stands in the path of %s; "
					  "refusing to write through it", full.data, path);
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc = ac_error_set(AC_EINVAL, "%s: not a folder, but %s lies below it",
					  full.data, path);
			break;
		}
		/* A clone inside the workspace belongs to its own repository. */
		if (ac_buf_printf(&full, "/.git")) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		if (lstat(full.data, &st) == 0) {
			rc = ac_error_set(AC_EINVAL, "%.*s: a separate git repository inside the "
					  "workspace; refusing to write %s into it",
					  (int)(full.len - 5), full.data, path);
			break;
		}
	}
	ac_buf_free(&full);
	return rc;
}

/* Removes the folders above path that the removal left empty, up to (not
 * including) the workspace. */
static void prune_folders(const ac_git *g, const char *path)
{
	ac_buf full = AC_BUF_INIT;
	size_t keep = strlen(g->prefix);
	const char *slash = strrchr(path, '/');

	while (slash && (size_t)(slash - path) > keep) {
		ac_buf_clear(&full);
		if (ac_buf_printf(&full, "%s%.*s", g->workdir, (int)(slash - path), path) ||
		    ac_fs_unlinkat(AT_FDCWD, full.data, AT_REMOVEDIR) != 0)
			break;
		while (--slash > path && *slash != '/')
			;
		if (*slash != '/')
			break;
	}
	ac_buf_free(&full);
}

int ac_git_remove_path(ac_git *g, git_index *index, const char *path)
{
	ac_buf full = AC_BUF_INIT;
	int rc = 0;

	if (ac_buf_printf(&full, "%s%s", g->workdir, path))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_git_check_parents(g, path, false, NULL)))
		goto done;
	if (ac_fs_unlink(full.data) != 0 && errno != ENOENT) {
		rc = ac_error_errno(errno, "%s: cannot remove", full.data);
		goto done;
	}
	prune_folders(g, path);
	if (sym_git_index_remove_bypath(index, path) != 0)
		rc = ac_git_fail(path);
done:
	ac_buf_free(&full);
	return rc;
}

/* A symbolic link from the tree: made beside the target, then renamed over
 * it, as ac_atomic_write() does for files. */
static int write_link(const char *full, const char *target, size_t len)
{
	ac_buf tmp = AC_BUF_INIT;
	char *text = strndup(target, len);
	int rc = 0;

	if (!text || ac_buf_printf(&tmp, "%s.agentctl-%ld.tmp", full, (long)getpid())) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	ac_fs_unlink(tmp.data);
	if (symlink(text, tmp.data) != 0 || ac_fs_rename(tmp.data, full) != 0) {
		rc = ac_error_errno(errno, "%s: cannot restore the symbolic link", full);
		ac_fs_unlink(tmp.data);
	}
done:
	free(text);
	ac_buf_free(&tmp);
	return rc;
}

/* Stages path, just written from the blob id, as what it is: the tree's
 * id and the file's own stat, so the index sees it clean. Not
 * git_index_add_bypath(), which reads the file back, hashes it and writes
 * the blob the tree already holds (a third of a 1,000-file rollback). */
static int stage_written(git_index *index, const char *full, const char *path,
			 const git_oid *id, git_filemode_t mode)
{
	git_index_entry entry = {0};
	struct stat st;

	if (lstat(full, &st) != 0)
		return ac_error_errno(errno, "%s", full);
	entry.ctime.seconds = (int32_t)st.st_ctim.tv_sec;
	entry.ctime.nanoseconds = (uint32_t)st.st_ctim.tv_nsec;
	entry.mtime.seconds = (int32_t)st.st_mtim.tv_sec;
	entry.mtime.nanoseconds = (uint32_t)st.st_mtim.tv_nsec;
	entry.dev = (uint32_t)st.st_dev;
	entry.ino = (uint32_t)st.st_ino;
	entry.mode = mode;
	entry.uid = st.st_uid;
	entry.gid = st.st_gid;
	entry.file_size = (uint32_t)st.st_size;
	entry.id = *id;
	entry.path = path;
	return sym_git_index_add(index, &entry) != 0 ? ac_git_fail(path) : 0;
}

int ac_git_write_blob(ac_git *g, git_index *index, const char *path, const git_oid *id,
		      git_filemode_t mode)
{
	git_blob *blob = NULL;
	ac_buf full = AC_BUF_INIT;
	struct stat st;
	int rc = 0;

	if (ac_buf_printf(&full, "%s%s", g->workdir, path))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (sym_git_blob_lookup(&blob, g->repo, id) != 0) {
		rc = ac_git_fail(path);
		goto done;
	}
	if ((rc = ac_git_check_parents(g, path, true, NULL)))
		goto done;
	/* A folder where the file goes was emptied by the removals (or holds
	 * untracked files, and then the rename below reports it). */
	if (lstat(full.data, &st) == 0 && S_ISDIR(st.st_mode))
		ac_fs_unlinkat(AT_FDCWD, full.data, AT_REMOVEDIR);
	if (mode == GIT_FILEMODE_LINK) {
		rc = write_link(full.data, sym_git_blob_rawcontent(blob), (size_t)sym_git_blob_rawsize(blob));
	} else {
		/* The mode is the new file's before its rename: a kill just
		 * after it leaves nothing with the old one. */
		rc = ac_atomic_write_unsynced_mode(full.data, sym_git_blob_rawcontent(blob),
						   (size_t)sym_git_blob_rawsize(blob),
						   mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644);
	}
	if (rc == 0)
		rc = stage_written(index, full.data, path, id, mode);
done:
	ac_buf_free(&full);
	sym_git_blob_free(blob);
	return rc;
}

int ac_git_write_path(ac_git *g, git_index *index, git_tree *tree, const char *path)
{
	git_tree_entry *entry = NULL;
	int rc;

	if (sym_git_tree_entry_bypath(&entry, tree, path) != 0)
		return ac_git_fail(path);
	rc = ac_git_write_blob(g, index, path, sym_git_tree_entry_id(entry),
			       sym_git_tree_entry_filemode(entry));
	sym_git_tree_entry_free(entry);
	return rc;
}

int ac_git_sync(ac_git *g)
{
	const char *git_dir = sym_git_repository_commondir(g->repo);
	struct stat work_st, git_st;
	int rc;

	if ((rc = ac_file_sync_fs(g->workdir)))
		return rc;
	/* A worktree's objects and refs may live on another file system. */
	if (git_dir && stat(g->workdir, &work_st) == 0 && stat(git_dir, &git_st) == 0 &&
	    work_st.st_dev != git_st.st_dev)
		rc = ac_file_sync_fs(git_dir);
	return rc;
}

/* The first file below the folder full (rel, workdir-relative) that the
 * plan does not remove, appended to *blocker; 0 when there is none. */
static int find_kept_file(ac_buf *blocker, const ac_git_rollback_result *plan, const char *full,
			  const char *rel)
{
	DIR *dir = opendir(full);
	struct dirent *e;
	ac_buf child = AC_BUF_INIT, child_rel = AC_BUF_INIT;
	int rc = 0;

	if (!dir)
		return ac_error_errno(errno, "%s", full);
	while (rc == 0 && blocker->len == 0 && (e = readdir(dir))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		ac_buf_clear(&child);
		ac_buf_clear(&child_rel);
		if (ac_buf_printf(&child, "%s/%s", full, e->d_name) ||
		    ac_buf_printf(&child_rel, "%s/%s", rel, e->d_name)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		if (lstat(child.data, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			rc = find_kept_file(blocker, plan, child.data, child_rel.data);
		else if (!plan_removes(plan, child_rel.data))
			ac_buf_printf(blocker, "%s", child_rel.data);
	}
	closedir(dir);
	ac_buf_free(&child);
	ac_buf_free(&child_rel);
	return rc;
}

int ac_git_preflight(ac_git *g, git_index *index, const ac_git_rollback_result *plan,
		     size_t *out_kept)
{
	ac_buf full = AC_BUF_INIT, blocker = AC_BUF_INIT;
	int rc = 0;

	*out_kept = 0;
	for (size_t i = 0; i < plan->n && rc == 0; i++) {
		const char *path = plan->items[i].path;
		struct stat st;

		if ((rc = ac_git_check_parents(g, path, false, plan)))
			break;
		if (plan->items[i].action == AC_GIT_REMOVE)
			continue;
		ac_buf_clear(&full);
		if (ac_buf_printf(&full, "%s%s", g->workdir, path)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		if (lstat(full.data, &st) != 0)
			continue; /* nothing there: nothing to keep */
		if (S_ISDIR(st.st_mode)) {
			if ((rc = find_kept_file(&blocker, plan, full.data, path)))
				break;
			if (blocker.len)
				rc = ac_error_set(AC_ECONFLICT, "'%s': a folder stands where the target state "
						  "has a file, and it holds '%s', which the rollback does "
						  "not remove (ignored or untracked); move it away first "
						  "(nothing was changed)", path, blocker.data);
			continue;
		}
		/* A file the current state does not hold (ignored, or never
		 * added) would be overwritten: the snapshot keeps a copy. */
		if (plan->items[i].action == AC_GIT_RESTORE) {
			if (sym_git_index_add_bypath(index, path) != 0) {
				rc = ac_git_fail(path);
				break;
			}
			(*out_kept)++;
		}
	}
	ac_buf_free(&full);
	ac_buf_free(&blocker);
	return rc;
}

int ac_git_put_back(ac_git *g, git_index *index, git_tree *snapshot,
		    const ac_git_rollback_result *plan, ac_buf *failed)
{
	size_t nfailed = 0;

	for (size_t i = plan->n; i-- > 0;) {
		const char *path = plan->items[i].path;
		git_tree_entry *e = NULL;
		int rc;

		if (sym_git_tree_entry_bypath(&e, snapshot, path) == 0)
			rc = ac_git_write_path(g, index, snapshot, path);
		else
			rc = ac_git_remove_path(g, index, path);
		sym_git_tree_entry_free(e);
		if (rc != 0 && nfailed++ == 0)
			ac_buf_printf(failed, "%s (%s)", path, ac_error_last());
	}
	if (sym_git_index_read_tree(index, snapshot) != 0 || sym_git_index_write(index) != 0)
		if (nfailed++ == 0)
			ac_buf_printf(failed, "the index (%s)", sym_git_error_last() ?
				      sym_git_error_last()->message : "libgit2 error");
	if (ac_git_sync(g) != 0 && nfailed++ == 0)
		ac_buf_printf(failed, "syncing (%s)", ac_error_last());
	return nfailed ? AC_EIO : 0;
}
