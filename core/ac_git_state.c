/* The agent's own state as the git layer sees it: the one predicate that
 * staging and rollback ask, the repository's local exclude block that keeps
 * `git add -A` away from it, and the agent-state files git already tracks. */
#include "ac_git.h"
#include "ac_git_impl.h"
#include "ac_git_paths.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK_BEGIN "# >>> agentctl: agent state, never committed (managed; edits are replaced) >>>\n"
#define BLOCK_END "# <<< agentctl <<<\n"

bool ac_git_in_workspace(const ac_git *g, const char *path)
{
	return !strncmp(path, g->prefix, strlen(g->prefix));
}

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

static bool is_journal(const ac_git_journal_rule *j, const char *path)
{
	size_t dlen = strlen(j->dir), slen = strlen(j->stem), len;
	const char *name = path + dlen;

	if (strncmp(path, j->dir, dlen) || strchr(name, '/') || strncmp(name, j->stem, slen))
		return false;
	len = strlen(name);
	/* logrotate's archives: <stem>.jsonl.N[.gz], <stem>.jsonl-DATE */
	if (!strncmp(name + slen, ".jsonl", 6) && (name[slen + 6] == '.' || name[slen + 6] == '-'))
		return true;
	if (has_suffix(name, len, ".lock"))
		len -= 5;
	if (!has_suffix(name, len, ".jsonl"))
		return false;
	return len == slen + 6 || name[slen] == '-';
}

bool ac_git_is_agent_state(const ac_git *g, const char *path)
{
	size_t plen = strlen(g->prefix);

	if (!strncmp(path, g->prefix, plen) && ac_git_path_is_default_agent_state(path + plen))
		return true;
	for (size_t i = 0; i < g->nfolders; i++) {
		size_t n = strlen(g->folders[i]);

		if (!strncmp(path, g->folders[i], n) && (path[n] == '\0' || path[n] == '/'))
			return true;
	}
	for (size_t i = 0; i < g->nfiles; i++) {
		size_t n = strlen(g->files[i]);

		if (!strncmp(path, g->files[i], n) && (!path[n] || !strcmp(path + n, ".lock")))
			return true;
	}
	for (size_t i = 0; i < g->njournals; i++)
		if (is_journal(&g->journals[i], path))
			return true;
	return false;
}

static void put_escaped(ac_buf *out, const char *text)
{
	for (const char *p = text; *p; p++) {
		if (strchr("\\*?[! #", *p))
			ac_buf_putc(out, '\\');
		ac_buf_putc(out, *p);
	}
}

/* Appends "/<path><suffix>" as a gitignore pattern: path matches itself
 * only (its wildcard and escape characters quoted); suffix is quoted too
 * unless glob_suffix. A path with a line break cannot be written as a
 * pattern and is left out. */
static void put_pattern(ac_buf *out, const char *path, const char *suffix, bool glob_suffix)
{
	if (strpbrk(path, "\n\r"))
		return;
	ac_buf_putc(out, '/');
	put_escaped(out, path);
	if (glob_suffix)
		ac_buf_append(out, suffix, strlen(suffix));
	else
		put_escaped(out, suffix);
	ac_buf_putc(out, '\n');
}

/* The block's patterns: the fixed rules under the workspace, then every
 * configured place inside the repository. */
static void build_block(ac_buf *out, const ac_git *g)
{
	ac_buf_printf(out, "%s", BLOCK_BEGIN);
	put_pattern(out, g->prefix, ".agent/", false);
	put_pattern(out, g->prefix, "JOURNAL*.jsonl", true);
	put_pattern(out, g->prefix, "JOURNAL*.jsonl.lock", true);
	put_pattern(out, g->prefix, "JOURNAL*.jsonl.*", true); /* logrotate's archives */
	put_pattern(out, g->prefix, "JOURNAL*.jsonl-*", true);
	for (size_t i = 0; i < g->nfolders; i++)
		put_pattern(out, g->folders[i], "/", false);
	for (size_t i = 0; i < g->nfiles; i++) {
		put_pattern(out, g->files[i], "", false);
		put_pattern(out, g->files[i], ".lock", false);
	}
	for (size_t i = 0; i < g->njournals; i++) {
		const ac_git_journal_rule *j = &g->journals[i];
		ac_buf stem = AC_BUF_INIT;

		if (ac_buf_printf(&stem, "%s%s", j->dir, j->stem) == 0) {
			put_pattern(out, stem.data, ".jsonl", false);
			put_pattern(out, stem.data, ".jsonl.lock", false);
			put_pattern(out, stem.data, "-*.jsonl", true);
			put_pattern(out, stem.data, "-*.jsonl.lock", true);
			put_pattern(out, stem.data, ".jsonl.*", true);
			put_pattern(out, stem.data, ".jsonl-*", true);
		}
		ac_buf_free(&stem);
	}
	ac_buf_printf(out, "%s", BLOCK_END);
}

/* text without the lines from BLOCK_BEGIN through BLOCK_END (a block cut
 * short by hand ends at the end of the file). */
static void strip_block(ac_buf *out, const char *text)
{
	const char *begin = strstr(text, BLOCK_BEGIN), *end;

	if (!begin || (begin != text && begin[-1] != '\n')) {
		ac_buf_append(out, text, strlen(text));
		return;
	}
	ac_buf_append(out, text, (size_t)(begin - text));
	end = strstr(begin, BLOCK_END);
	if (end)
		ac_buf_append(out, end + strlen(BLOCK_END), strlen(end + strlen(BLOCK_END)));
}

/* A link in the git folder is not followed: git's own folders are
 * written only where they are. */
static int refuse_link(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return ac_error_set(AC_EDENIED, "%s: a symbolic link: not followed", path);
	return 0;
}

int ac_git_exclude_agent_state(ac_git *g)
{
	ac_buf path = AC_BUF_INIT, next = AC_BUF_INIT, block = AC_BUF_INIT;
	char *old = NULL;
	size_t old_len = 0;
	int rc;

	if (ac_buf_printf(&path, "%sinfo", sym_git_repository_commondir(g->repo))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = refuse_link(path.data)) || (rc = ac_file_mkdirs(path.data)))
		goto done;
	ac_buf_printf(&path, "/exclude");
	if ((rc = refuse_link(path.data)))
		goto done;
	rc = ac_file_read(&old, &old_len, path.data);
	if (rc == AC_ENOTFOUND)
		ac_error_clear();
	else if (rc)
		goto done;
	rc = 0;
	strip_block(&next, old ? old : "");
	if (next.len && next.data[next.len - 1] != '\n')
		ac_buf_putc(&next, '\n');
	build_block(&block, g);
	ac_buf_append(&next, block.data, block.len);
	if (!next.data || !block.data) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (old && old_len == next.len && !memcmp(old, next.data, next.len))
		goto done; /* already there: no write */
	rc = ac_atomic_write(path.data, next.data, next.len, NULL, NULL);
done:
	free(old);
	ac_buf_free(&path);
	ac_buf_free(&next);
	ac_buf_free(&block);
	return rc;
}

/* True when the exclude file of the git folder dotgit (a real folder,
 * "<workdir>.git") holds the block with root's ".agent/" line in it
 * (ac_file_read() follows no link). */
static bool block_present(const char *dotgit, const char *root)
{
	ac_buf path = AC_BUF_INIT, line = AC_BUF_INIT;
	char *text = NULL, *real = realpath(root, NULL), *at, *end;
	size_t len = 0, workdir_len = strlen(dotgit) - 4; /* up to ".git" */
	bool found = false;

	if (!real || ac_buf_printf(&path, "%s/", real) || strncmp(path.data, dotgit, workdir_len))
		goto done;
	put_pattern(&line, path.data + workdir_len, ".agent/", false);
	ac_buf_clear(&path);
	if (!line.data || ac_buf_printf(&path, "%s/info/exclude", dotgit) ||
	    ac_file_read(&text, &len, path.data))
		goto done;
	for (at = text; !found && (at = strstr(at, BLOCK_BEGIN)); at++) {
		if (at != text && at[-1] != '\n')
			continue;
		end = strstr(at, BLOCK_END);
		found = end && memmem(at, (size_t)(end - at), line.data, line.len);
	}
done:
	ac_error_clear();
	free(real);
	free(text);
	ac_buf_free(&path);
	ac_buf_free(&line);
	return found;
}

int ac_git_exclude_ensure(const char *root, const ac_git_protect *protect)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char *seen; /* the root this process has seen to */
	ac_buf dotgit = AC_BUF_INIT;
	struct stat st;
	ac_git *g = NULL;
	bool foreign;
	uid_t owner;
	int rc;

	pthread_mutex_lock(&lock);
	if (seen && !strcmp(seen, root)) {
		rc = 0;
		goto done;
	}
	/* Cheap first: no repository, or one that is not ours (git refuses
	 * it; nothing of it is touched), or the block is there already. */
	rc = ac_git_nearest_dotgit(&dotgit, &st, root);
	if (rc == AC_ENOTFOUND) {
		ac_error_clear();
		rc = 0;
		goto seen_to;
	}
	if (rc)
		goto done;
	dotgit.data[dotgit.len - 5] = '\0'; /* its folder, for the owner test */
	foreign = ac_file_foreign_owner(&owner, &st, dotgit.len > 5 ? dotgit.data : "/", false);
	dotgit.data[dotgit.len - 5] = '/';
	if (foreign || S_ISLNK(st.st_mode))
		goto seen_to;
	if (S_ISDIR(st.st_mode) && block_present(dotgit.data, root))
		goto seen_to;
	/* A worktree's .git file, or no block yet: git's own view. */
	rc = ac_git_open(&g, root, protect);
	/* Without libgit2 agentctl does nothing with git: the command that
	 * needs it says so. */
	if (rc == AC_ENOTFOUND || rc == AC_ENOTSUP) {
		ac_error_clear();
		rc = 0;
	} else if (rc == 0) {
		rc = ac_git_exclude_agent_state(g);
	}
	if (rc)
		goto done;
seen_to:
	free(seen);
	seen = strdup(root);
done:
	pthread_mutex_unlock(&lock);
	ac_git_free(g);
	ac_buf_free(&dotgit);
	return rc;
}

/* Adds p (or, under the workspace's .agent folder, that folder) to list
 * unless it is the one added last. */
static int add_tracked(char ***list, size_t *n, size_t *cap, const ac_git *g, const char *p)
{
	size_t plen = strlen(g->prefix);
	char *item;

	if (!strncmp(p + plen, ".agent/", 7))
		item = strndup(p, plen + 6);
	else
		item = strdup(p);
	if (!item)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (*n > 0 && !strcmp((*list)[*n - 1], item)) {
		free(item);
		return 0;
	}
	if (*n + 1 >= *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 8;
		char **grown = realloc(*list, grown_cap * sizeof(char *));

		if (!grown) {
			free(item);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		*list = grown;
		*cap = grown_cap;
	}
	(*list)[(*n)++] = item;
	(*list)[*n] = NULL;
	return 0;
}

int ac_git_tracked_agent_state(char ***out, size_t *out_n, ac_git *g)
{
	git_index *index = NULL;
	char **list = NULL;
	size_t n = 0, cap = 0, count;
	int rc = 0;

	*out = NULL;
	*out_n = 0;
	if (sym_git_repository_index(&index, g->repo) != 0 || sym_git_index_read(index, 0) != 0) {
		rc = ac_git_fail("reading the index");
		goto done;
	}
	count = sym_git_index_entrycount(index);
	for (size_t i = 0; i < count; i++) {
		const git_index_entry *e = sym_git_index_get_byindex(index, i);

		if (e && ac_git_is_agent_state(g, e->path) &&
		    (rc = add_tracked(&list, &n, &cap, g, e->path)))
			goto done;
	}
	*out = list;
	*out_n = n;
	list = NULL;
done:
	ac_git_paths_free(list, n);
	sym_git_index_free(index);
	return rc;
}

int ac_git_dirty_paths(char ***out, size_t *out_n, ac_git *g)
{
	git_status_options opts;
	git_status_list *status = NULL;
	char **list = NULL;
	size_t n = 0, count;
	int rc = 0;

	*out = NULL;
	*out_n = 0;
	sym_git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
		     GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (sym_git_status_list_new(&status, g->repo, &opts) != 0) {
		rc = ac_git_fail("reading the worktree's status");
		goto done;
	}
	count = sym_git_status_list_entrycount(status);
	if (!(list = calloc(count + 1, sizeof(*list)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < count; i++) {
		const git_status_entry *e = sym_git_status_byindex(status, i);
		const git_diff_delta *d = e ? (e->head_to_index ? e->head_to_index : e->index_to_workdir)
					    : NULL;
		const char *p = d ? (d->new_file.path ? d->new_file.path : d->old_file.path) : NULL;

		if (!p || e->status == GIT_STATUS_CURRENT || (e->status & GIT_STATUS_IGNORED) ||
		    !ac_git_in_workspace(g, p) || ac_git_is_agent_state(g, p))
			continue;
		if (!(list[n] = strdup(p))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		n++;
	}
	*out = list;
	*out_n = n;
	list = NULL;
done:
	ac_git_paths_free(list, n);
	sym_git_status_list_free(status);
	return rc;
}

void ac_git_paths_free(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}
