/* The operator's own edits as a rollback would find them: the files that
 * differ from HEAD which no line of the operation log names. A rollback
 * commits them into its snapshot first; its dialog names them, so that
 * nobody is surprised to see their own work rewound. */
#include "ac_oplog.h"

#include "ac_error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* p without "./" runs at its start. */
static const char *plain(const char *p)
{
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	return p;
}

/* Whether some operation names path (relative to the workspace, whose real
 * path is root): details.path, or one of details.paths. */
static bool named(const ac_op_list *ops, const char *root, const char *path)
{
	size_t rlen = strlen(root);

	for (size_t i = 0; i < ops->n; i++) {
		const json_t *d = ops->ops[i].details, *one = json_object_get(d, "path");
		const json_t *many = json_object_get(d, "paths");
		size_t k, n = json_is_array(many) ? json_array_size(many) : 0;

		for (k = 0; k <= n; k++) {
			const json_t *v = k < n ? json_array_get(many, k) : one;
			const char *p = json_string_value(v);

			if (!p)
				continue;
			if (p[0] == '/' && !strncmp(p, root, rlen) && p[rlen] == '/')
				p += rlen + 1;
			if (!strcmp(plain(p), path))
				return true;
		}
	}
	return false;
}

int ac_oplog_operator_edits(char ***out, size_t *out_n, const ac_workspace *ws)
{
	ac_op_list ops = {0};
	ac_git *git = NULL;
	char **dirty = NULL, root[PATH_MAX];
	size_t n_dirty = 0, n = 0, wlen, rlen;
	const char *workdir;
	int rc;

	*out = NULL;
	*out_n = 0;
	if (!realpath(ws->root, root))
		return ac_error_set(AC_EIO, "%s: cannot resolve the workspace", ws->root);
	if ((rc = ac_oplog_open_git(&git, ws)) || (rc = ac_git_dirty_paths(&dirty, &n_dirty, git)) ||
	    (rc = ac_oplog_read(&ops, ws->operations_path, 0, 1, NULL, NULL)))
		goto done;
	/* Git names paths from its working directory; the log, from the
	 * workspace (a folder inside it, or the same). */
	workdir = ac_git_workdir(git);
	wlen = strlen(workdir);
	rlen = strlen(root);
	for (size_t i = 0; i < n_dirty; i++) {
		char *rel = dirty[i];
		size_t skip = 0;

		if (rlen + 1 > wlen && !strncmp(root, workdir, wlen - 1))
			skip = rlen + 1 - wlen; /* "sub/dir/" before the workspace's paths */
		if (strlen(rel) < skip || named(&ops, root, rel + skip)) {
			free(rel);
			continue;
		}
		memmove(rel, rel + skip, strlen(rel + skip) + 1);
		dirty[n++] = rel;
	}
	dirty[n] = NULL;
	*out = dirty;
	*out_n = n;
	dirty = NULL;
	n_dirty = 0;
done:
	ac_git_paths_free(dirty, n_dirty);
	ac_op_list_free(&ops);
	ac_git_free(git);
	return rc;
}
