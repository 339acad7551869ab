/* An operation's patch, read through the core into the model. */
#include "patch.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_git.h"
#include "ac_oplog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "2 files, +3 -1" of a unified diff. */
static void count_change(ac_buf *out, const char *text, size_t len)
{
	size_t files = 0, adds = 0, dels = 0;

	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n >= 11 && !memcmp(p, "diff --git ", 11))
			files++;
		else if (n >= 1 && *p == '+' && !(n >= 4 && !memcmp(p, "+++ ", 4)))
			adds++;
		else if (n >= 1 && *p == '-' && !(n >= 4 && !memcmp(p, "--- ", 4)))
			dels++;
		p += n + 1;
	}
	ac_buf_printf(out, "%zu file%s, +%zu -%zu", files, files == 1 ? "" : "s", adds, dels);
}

void ui_patch_open(ui_model *m, const ac_workspace *ws, const char *op_id)
{
	ac_op_list list = {0};
	const ac_op *op = NULL;
	ac_git *git = NULL;
	ac_buf patch = AC_BUF_INIT, title = AC_BUF_INIT;
	const char *error = NULL;

	ac_buf_printf(&title, "Operation %s", op_id);
	if (ac_oplog_read(&list, ws->operations_path, 0, 1, NULL, NULL) != 0 ||
	    ac_op_list_find_unique(&op, &list, op_id, ws->operations_path) != 0) {
		error = ac_error_last();
		goto done;
	}
	ac_buf_printf(&title, "  session %s  %s", *op->session_id ? op->session_id : "-", op->type);
	if (!op->commit) {
		error = "no commit: this operation changed no file git recorded, so it has no patch";
		goto done;
	}
	ac_buf_printf(&title, "  commit %.12s  ", op->commit);
	if (ac_oplog_open_git(&git, ws) != 0 || ac_git_commit_patch(&patch, git, op->commit) != 0) {
		error = ac_error_last();
		goto done;
	}
	count_change(&title, patch.data ? patch.data : "", patch.len);
done:
	if (ui_model_set_patch(m, title.data ? title.data : "Operation", patch.data, patch.len,
			       error) != 0)
		ui_model_set_action(m, true, "patch of %s: out of memory", op_id);
	ac_buf_free(&patch);
	ac_buf_free(&title);
	ac_git_free(git);
	ac_op_list_free(&list);
}
