/* Opening the workspace's repository, committing it and describing a
 * commit, with libgit2. Rolling back is ac_git_rollback.c's. */
#include "ac_git.h"
#include "ac_git_impl.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_libgit2.h"
#include "ac_lock.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int ac_git_fail(const char *what)
{
	const git_error *e = sym_git_error_last();

	return ac_error_set(AC_EIO, "%s: %s", what, e && e->message ? e->message : "libgit2 error");
}

/* The errno of a file system that takes no more (full, quota, read-only,
 * file size limit), 0 for any other. */
static int full_errno(int e)
{
	return e == ENOSPC || e == EDQUOT || e == EROFS || e == EFBIG ? e : 0;
}

int ac_git_fail_writing(const char *what, const char *file, int saved_errno)
{
	static const int kinds[] = {ENOSPC, EDQUOT, EROFS, EFBIG};
	const git_error *e = sym_git_error_last();
	const char *reason = e && e->message ? e->message : "";
	const char *slash = strrchr(file, '/');
	char folder[PATH_MAX];
	struct statvfs fs;
	int full = full_errno(saved_errno);

	/* libgit2 writes its reason with strerror() when it kept errno. */
	for (size_t i = 0; !full && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strstr(reason, strerror(kinds[i])))
			full = kinds[i];
	/* A lost reason, or one from a later step (an object a failed write
	 * left out is then "not found"), on a file system with no block left. */
	snprintf(folder, sizeof(folder), "%.*s", slash ? (int)(slash - file) : 1, slash ? file : ".");
	if (!full && statvfs(folder, &fs) == 0 && fs.f_bavail == 0)
		return ac_error_set(AC_ENOSPACE, "%s: writing %s: %s%s%s%s", what, file, strerror(ENOSPC),
				    *reason ? " (" : "", reason, *reason ? ")" : "");
	if (full)
		return ac_error_set(full == ENOSPC || full == EDQUOT ? AC_ENOSPACE : AC_EIO,
				    "%s: writing %s: %s", what, file, strerror(full));
	if (!*reason || strstr(reason, "callback returned"))
		reason = saved_errno ? strerror(saved_errno) : "libgit2 error";
	return ac_error_set(AC_EIO, "%s: %s", what, reason);
}

const char *ac_git_repo_file(const ac_git *g, const char *name)
{
	static _Thread_local char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s",
		 strcmp(name, "objects") ? sym_git_repository_path(g->repo)
					 : sym_git_repository_commondir(g->repo),
		 name);
	return path;
}

/* path as an absolute path without ".", ".." or repeated slashes, by text
 * alone (the folders need not exist). */
static char *normalize(const char *path)
{
	ac_buf in = AC_BUF_INIT, out = AC_BUF_INIT;
	char cwd[PATH_MAX];
	const char *p;

	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return NULL;
		ac_buf_printf(&in, "%s/", cwd);
	}
	ac_buf_append(&in, path, strlen(path));
	if (!in.data)
		return NULL;
	ac_buf_putc(&out, '/');
	for (p = in.data; *p;) {
		const char *end;
		size_t len;

		while (*p == '/')
			p++;
		end = strchr(p, '/');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0)
			break;
		if (len == 1 && p[0] == '.') {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (out.len > 1) {
				out.len--;
				while (out.len > 1 && out.data[out.len - 1] != '/')
					out.len--;
				out.data[out.len] = '\0';
			}
		} else {
			ac_buf_append(&out, p, len);
			ac_buf_putc(&out, '/');
		}
		p += len;
	}
	if (out.len > 1 && out.data && out.data[out.len - 1] == '/')
		out.data[--out.len] = '\0';
	ac_buf_free(&in);
	return ac_buf_detach(&out);
}

/* The real path of path: its deepest existing folder resolved through
 * symbolic links, the missing rest appended, so paths that do not exist
 * yet compare equal to the ones git reports. */
static char *resolve(const char *path)
{
	char *norm = normalize(path), *real = NULL, *cut;
	ac_buf out = AC_BUF_INIT;

	if (!norm)
		return NULL;
	for (cut = norm + strlen(norm);;) {
		char saved = *cut;

		*cut = '\0';
		real = realpath(*norm ? norm : "/", NULL);
		*cut = saved;
		if (real || cut == norm)
			break;
		/* Up to the '/' before the last name: its folder is next. */
		do
			cut--;
		while (cut > norm && *cut != '/');
	}
	if (!real) {
		ac_buf_free(&out);
		return norm;
	}
	ac_buf_append(&out, real, strlen(real));
	if (*cut) {
		if (out.len == 0 || out.data[out.len - 1] != '/')
			ac_buf_putc(&out, '/');
		ac_buf_append(&out, cut + (*cut == '/'), strlen(cut + (*cut == '/')));
	}
	free(real);
	free(norm);
	return ac_buf_detach(&out);
}

/* path relative to the workdir, allocated; NULL when outside it or on
 * ENOMEM. */
static char *relative(const ac_git *g, const char *path)
{
	char *real = resolve(path), *rel = NULL;
	size_t wlen = strlen(g->workdir);

	if (!real)
		return NULL;
	if (!strncmp(real, g->workdir, wlen))
		rel = strdup(real + wlen);
	else if (strlen(real) + 1 == wlen && !strncmp(real, g->workdir, wlen - 1))
		rel = strdup("");
	free(real);
	return rel;
}

static int add_rules(char ***out, size_t *out_n, const ac_git *g, const char *const *paths)
{
	size_t n = 0;

	while (paths && paths[n])
		n++;
	if (!(*out = calloc(n + 1, sizeof(char *))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		char *rel = relative(g, paths[i]);

		/* Outside the repository (or the whole of it): nothing git
		 * stages can fall under it, so there is nothing to guard. */
		if (rel && *rel)
			(*out)[(*out_n)++] = rel;
		else
			free(rel);
	}
	return 0;
}

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

static int add_journals(ac_git *g, const char *const *paths)
{
	size_t n = 0;

	while (paths && paths[n])
		n++;
	if (!(g->journals = calloc(n + 1, sizeof(ac_git_journal_rule))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		char *rel = relative(g, paths[i]), *slash, *base;
		size_t len;

		if (!rel || !*rel) {
			free(rel);
			continue;
		}
		slash = strrchr(rel, '/');
		base = slash ? slash + 1 : rel;
		len = strlen(base);
		if (has_suffix(base, len, ".jsonl"))
			len -= 6;
		g->journals[g->njournals].stem = strndup(base, len);
		g->journals[g->njournals].dir = strndup(rel, (size_t)(base - rel));
		g->njournals++;
		free(rel);
		if (!g->journals[g->njournals - 1].stem || !g->journals[g->njournals - 1].dir)
			return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

int ac_git_nearest_dotgit(ac_buf *out, struct stat *out_st, const char *root)
{
	char *dir = realpath(root, NULL), *slash;
	int rc = AC_ENOTFOUND;

	if (!dir)
		return ac_error_errno(errno, "%s", root);
	for (;;) {
		ac_buf_clear(out);
		if (ac_buf_printf(out, "%s%s.git", dir, strcmp(dir, "/") ? "/" : "")) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		if (lstat(out->data, out_st) == 0) {
			rc = 0;
			break;
		}
		if (!strcmp(dir, "/"))
			break;
		slash = strrchr(dir, '/');
		slash[slash == dir] = '\0'; /* "/a" -> "/", "/a/b" -> "/a" */
	}
	free(dir);
	return rc;
}

/* libgit2 1.5 reports a repository it refuses for its owner as "not
 * found" (with a stray "config value 'safe.directory' was not found"), so
 * the owner is looked at here: the nearest ".git" above root that is not
 * the caller's is git's "dubious ownership". 0 when there is none. */
static int check_owner(const char *root)
{
	ac_buf path = AC_BUF_INIT;
	struct stat st;
	int rc = ac_git_nearest_dotgit(&path, &st, root);

	if (rc == 0) {
		const char *dir = path.len > 5 ? path.data : "/";
		uid_t owner;

		/* git looks at the owner of both the folder and its .git */
		path.data[path.len - 5] = '\0';
		if (ac_file_foreign_owner(&owner, &st, dir, false))
			rc = ac_error_set(AC_EIO, "%s: dubious ownership: the repository at %s "
					  "is owned by uid %ld, not by you (uid %ld); git refuses it "
					  "unless it is listed in safe.directory", root, dir,
					  (long)owner, (long)geteuid());
	} else if (rc != AC_ENOMEM) {
		/* none, or root cannot be resolved: libgit2's "not found" stands */
		ac_error_clear();
		rc = 0;
	}
	ac_buf_free(&path);
	return rc;
}

int ac_git_init(const char *dir)
{
	git_repository *repo = NULL;
	int rc;

	if ((rc = ac_libgit2_load()) != 0)
		return rc;
	sym_git_libgit2_init();
	if (sym_git_repository_init(&repo, dir, 0) != 0) {
		const git_error *e = sym_git_error_last();

		rc = ac_error_set(AC_EIO, "git init in %s: %s", dir,
				  e && e->message ? e->message : "failed");
	}
	sym_git_repository_free(repo);
	sym_git_libgit2_shutdown();
	return rc;
}

int ac_git_open(ac_git **out, const char *root, const ac_git_protect *protect)
{
	ac_git *g = NULL;
	const char *workdir;
	char *real_workdir = NULL, *rel = NULL;
	int rc = 0, e;

	*out = NULL;
	if ((rc = ac_libgit2_load()) != 0)
		return rc;
	sym_git_libgit2_init();
	if (!(g = calloc(1, sizeof(*g)))) {
		sym_git_libgit2_shutdown();
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if ((e = sym_git_repository_open_ext(&g->repo, root, 0, NULL)) != 0) {
		/* Only "no repository here" is AC_ENOTFOUND; a repository git
		 * refuses (another owner, a broken .git) is named with git's
		 * reason. */
		if (e != GIT_ENOTFOUND)
			rc = ac_git_fail(root);
		else if (!(rc = check_owner(root)))
			rc = ac_error_set(AC_ENOTFOUND, "%s: not in a git repository", root);
		goto done;
	}
	if (!(workdir = sym_git_repository_workdir(g->repo))) {
		rc = ac_error_set(AC_ENOTFOUND, "%s: the git repository is bare (no working tree)", root);
		goto done;
	}
	if (!(real_workdir = realpath(workdir, NULL))) {
		rc = ac_error_errno(errno, "%s: cannot resolve", workdir);
		goto done;
	}
	if (!(g->workdir = malloc(strlen(real_workdir) + 2))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	sprintf(g->workdir, "%s%s", real_workdir, strcmp(real_workdir, "/") ? "/" : "");
	if (!(rel = relative(g, root))) {
		rc = ac_error_set(AC_ENOTFOUND, "%s: not inside the repository's working tree %s",
				  root, g->workdir);
		goto done;
	}
	if (!(g->prefix = malloc(strlen(rel) + 2))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	sprintf(g->prefix, "%s%s", rel, *rel ? "/" : "");
	if ((rc = add_rules(&g->folders, &g->nfolders, g, protect ? protect->folders : NULL)) ||
	    (rc = add_rules(&g->files, &g->nfiles, g, protect ? protect->files : NULL)) ||
	    (rc = add_journals(g, protect ? protect->journals : NULL)))
		goto done;
	*out = g;
	g = NULL;
done:
	free(real_workdir);
	free(rel);
	ac_git_free(g);
	return rc;
}

void ac_git_free(ac_git *g)
{
	if (!g)
		return;
	sym_git_repository_free(g->repo);
	free(g->workdir);
	free(g->prefix);
	for (size_t i = 0; i < g->nfolders; i++)
		free(g->folders[i]);
	for (size_t i = 0; i < g->nfiles; i++)
		free(g->files[i]);
	for (size_t i = 0; i < g->njournals; i++) {
		free(g->journals[i].dir);
		free(g->journals[i].stem);
	}
	free(g->folders);
	free(g->files);
	free(g->journals);
	ac_buf_free(&g->staging);
	free(g);
	sym_git_libgit2_shutdown();
}

const char *ac_git_workdir(const ac_git *g)
{
	return g->workdir;
}

int ac_git_lock(int *out_fd, const ac_git *g, int timeout_ms)
{
	ac_buf path = AC_BUF_INIT;
	int rc;

	/* The flock is on the git folder itself, never on the folder of the
	 * operation log, whose lock file ac_journal_append() takes meanwhile. */
	if (ac_buf_printf(&path, "%sagentctl", sym_git_repository_path(g->repo)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_lock_folder(out_fd, path.data, timeout_ms);
	ac_buf_free(&path);
	return rc;
}

int ac_git_head_commit(git_commit **out, git_repository *repo)
{
	git_oid oid;
	int e = sym_git_reference_name_to_id(&oid, repo, "HEAD");

	*out = NULL;
	if (e == GIT_ENOTFOUND || e == GIT_EUNBORNBRANCH)
		return 0;
	if (e != 0 || sym_git_commit_lookup(out, repo, &oid) != 0)
		return ac_git_fail("HEAD");
	return 0;
}

int ac_git_lookup_commit(git_commit **out, ac_git *g, const char *hash)
{
	size_t len = strlen(hash);
	git_oid oid;
	int e = 0;

	*out = NULL;
	if (len < 4 || len > GIT_OID_HEXSZ || strspn(hash, "0123456789abcdefABCDEF") != len ||
	    sym_git_oid_fromstrn(&oid, hash, len) != 0 ||
	    (e = sym_git_commit_lookup_prefix(out, g->repo, &oid, len)) == GIT_ENOTFOUND)
		return ac_error_set(AC_ENOTFOUND, "commit %s: not in the git repository at %s", hash,
				    g->workdir);
	/* Anything else (too many open files, a corrupt object, an
	 * ambiguous prefix) is named with git's reason. */
	if (e != 0)
		return ac_git_fail(hash);
	return 0;
}

int ac_git_commit_exists(ac_git *g, const char *hash)
{
	git_commit *c = NULL;
	int rc = ac_git_lookup_commit(&c, g, hash);

	sym_git_commit_free(c);
	return rc;
}

static int stage_filter(const char *path, const char *matched, void *payload)
{
	ac_git *g = payload;
	size_t len = strlen(path);

	(void)matched;
	/* An untracked folder with its own .git (a clone inside the
	 * workspace) comes as "dir/": git would add it as an embedded
	 * repository; it is left out, never entered and never fails the
	 * whole commit. */
	if (len > 0 && path[len - 1] == '/')
		return 1;
	if (!ac_git_in_workspace(g, path) || ac_git_is_agent_state(g, path))
		return 1;
	/* libgit2 adds it next: an error then is about this file. */
	ac_buf_clear(&g->staging);
	ac_buf_append(&g->staging, path, len);
	return 0;
}

#define STAGE_ATTEMPTS 5

/* Brings the index to what `git add -A` would make of the workspace.
 * git_index_add_all() alone does: its one walk of the workspace also drops
 * the entries whose file is gone (git_index_update_all() first would walk
 * every tracked file a second time: a tenth of a rollback).
 * Other agents keep writing files while we stage: a file that shrinks or
 * vanishes between libgit2's stat and its read fails the pass, so a few
 * more passes are tried, each reading the files as they are by then. */
int ac_git_stage(ac_git *g, git_index *index)
{
	for (int attempt = 1;; attempt++) {
		struct timespec pause = {0, 2000000L * attempt};
		ac_buf what = AC_BUF_INIT;
		int saved, rc;

		ac_buf_clear(&g->staging);
		errno = 0;
		if (sym_git_index_add_all(index, NULL, GIT_INDEX_ADD_DEFAULT, stage_filter, g) == 0)
			return 0;
		saved = errno;
		/* A full disk stays full for the next pass. */
		if (attempt < STAGE_ATTEMPTS && !full_errno(saved)) {
			nanosleep(&pause, NULL);
			continue;
		}
		if (g->staging.len)
			ac_buf_printf(&what, "staging %s", g->staging.data);
		rc = ac_git_fail_writing(what.data ? what.data : "staging the workspace",
					 ac_git_repo_file(g, "objects"), saved);
		ac_buf_free(&what);
		return rc;
	}
}

int ac_git_index_save(ac_git *g, git_index *index, git_oid *out_tree)
{
	errno = 0;
	if (sym_git_index_write(index) != 0)
		return ac_git_fail_writing("updating the index", ac_git_repo_file(g, "index"), errno);
	errno = 0;
	if (out_tree && sym_git_index_write_tree(out_tree, index) != 0)
		return ac_git_fail_writing("saving the staged tree", ac_git_repo_file(g, "objects"),
					   errno);
	return 0;
}

int ac_git_make_commit(git_oid *out, ac_git *g, const git_oid *tree_oid, git_commit *parent,
		       const char *message)
{
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	const git_commit *parents[1] = {parent};
	int rc = 0;

	/* A workspace without user.name still gets its commits. */
	if (sym_git_signature_default(&sig, g->repo) != 0 &&
	    sym_git_signature_now(&sig, "agentctl", "agentctl@localhost") != 0) {
		rc = ac_git_fail("making the commit signature");
		goto done;
	}
	errno = 0;
	if (sym_git_tree_lookup(&tree, g->repo, tree_oid) != 0 ||
	    sym_git_commit_create(out, g->repo, "HEAD", sig, sig, NULL, message, tree,
			      parent ? 1 : 0, parents) != 0)
		rc = ac_git_fail_writing("committing", ac_git_repo_file(g, "objects"), errno);
done:
	sym_git_tree_free(tree);
	sym_git_signature_free(sig);
	return rc;
}

int ac_git_commit_workspace(char out_hash[AC_GIT_HASH_LEN + 1], ac_git *g, const char *message)
{
	git_index *index = NULL;
	git_commit *head = NULL;
	git_oid tree_oid, commit_oid;
	int rc;

	if ((rc = ac_git_exclude_agent_state(g)))
		goto done;
	if (sym_git_repository_index(&index, g->repo) != 0 || sym_git_index_read(index, 0) != 0) {
		rc = ac_git_fail("reading the index");
		goto done;
	}
	if ((rc = ac_git_stage(g, index)))
		goto done;
	if ((rc = ac_git_index_save(g, index, &tree_oid)))
		goto done;
	if ((rc = ac_git_head_commit(&head, g->repo)) ||
	    (rc = ac_git_make_commit(&commit_oid, g, &tree_oid, head, message)))
		goto done;
	sym_git_oid_tostr(out_hash, AC_GIT_HASH_LEN + 1, &commit_oid);
done:
	sym_git_commit_free(head);
	sym_git_index_free(index);
	return rc;
}

int ac_git_parent_tree(git_tree **out, git_commit **out_parent, git_commit *c)
{
	git_commit *parent = NULL;
	char hex[GIT_OID_HEXSZ + 1];

	*out = NULL;
	if (out_parent)
		*out_parent = NULL;
	if (sym_git_commit_parentcount(c) == 0)
		return 0;
	if (sym_git_commit_parent(&parent, c, 0) != 0 || sym_git_commit_tree(out, parent) != 0) {
		sym_git_commit_free(parent);
		sym_git_oid_tostr(hex, sizeof(hex), sym_git_commit_id(c));
		return ac_error_set(AC_ENOTFOUND, "commit %s: its parent is not in the repository",
				    hex);
	}
	if (out_parent)
		*out_parent = parent;
	else
		sym_git_commit_free(parent);
	return 0;
}

void ac_git_changes_free(ac_git_change *changes, size_t n)
{
	for (size_t i = 0; changes && i < n; i++)
		free(changes[i].path);
	free(changes);
}

int ac_git_commit_diff(git_diff **out, ac_git *g, const char *hash)
{
	git_diff_options opts;
	git_commit *commit = NULL;
	git_tree *tree = NULL, *before = NULL;
	int rc;

	*out = NULL;
	if ((rc = ac_git_lookup_commit(&commit, g, hash)) || (rc = ac_git_parent_tree(&before, NULL, commit)))
		goto done;
	sym_git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags |= GIT_DIFF_INCLUDE_TYPECHANGE;
	if (sym_git_commit_tree(&tree, commit) != 0 ||
	    sym_git_diff_tree_to_tree(out, g->repo, before, tree, &opts) != 0)
		rc = ac_git_fail(hash);
done:
	sym_git_tree_free(tree);
	sym_git_tree_free(before);
	sym_git_commit_free(commit);
	return rc;
}

int ac_git_commit_changes(ac_git_change **out, size_t *out_n, ac_git *g, const char *hash)
{
	git_diff *diff = NULL;
	ac_git_change *changes = NULL;
	size_t n = 0, count;
	int rc;

	*out = NULL;
	*out_n = 0;
	if ((rc = ac_git_commit_diff(&diff, g, hash)))
		goto done;
	count = sym_git_diff_num_deltas(diff);
	if (!(changes = calloc(count + 1, sizeof(*changes)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < count; i++, n++) {
		const git_diff_delta *d = sym_git_diff_get_delta(diff, i);
		git_patch *patch = NULL;
		ac_git_change *c = &changes[n];

		c->status = d->status == GIT_DELTA_ADDED ? 'A' : d->status == GIT_DELTA_DELETED ? 'D' :
			    d->status == GIT_DELTA_TYPECHANGE ? 'T' : 'M';
		if (!(c->path = strdup(d->new_file.path ? d->new_file.path : d->old_file.path))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		if (sym_git_patch_from_diff(&patch, diff, i) != 0) {
			rc = ac_git_fail(hash);
			goto done;
		}
		if (patch)
			sym_git_patch_line_stats(NULL, &c->additions, &c->deletions, patch);
		c->binary = (sym_git_patch_get_delta(patch) ? sym_git_patch_get_delta(patch)->flags : d->flags) &
			    GIT_DIFF_FLAG_BINARY;
		sym_git_patch_free(patch);
	}
	*out = changes;
	*out_n = n;
	changes = NULL;
done:
	ac_git_changes_free(changes, n + 1);
	sym_git_diff_free(diff);
	return rc;
}

int ac_git_commit_subject(ac_buf *out, ac_git *g, const char *hash)
{
	git_commit *commit = NULL;
	const char *msg, *end;
	int rc;

	if ((rc = ac_git_lookup_commit(&commit, g, hash)))
		return rc;
	msg = sym_git_commit_message(commit);
	if (!msg)
		msg = "";
	end = strchr(msg, '\n');
	if (ac_buf_append(out, msg, end ? (size_t)(end - msg) : strlen(msg)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	sym_git_commit_free(commit);
	return rc;
}
