/* agentctl session export ID --format md|html [-o FILE]: the transcript
 * (ac_session_export.h) on stdout, or written atomically to FILE (nothing
 * is written when the session cannot be read). Works on either store, and
 * on a coding agent's transcript (an id no session file has): its
 * conversation as the conversation view shows it, escaped the same way. */
#include "cli.h"
#include "cli_sources.h"

#include "ac_atomic.h"
#include "ac_error.h"
#include "ac_session.h"
#include "ac_session_export.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The document of the transcript id, when no session file has that id. */
static int transcript_root(json_t **out, const cli_context *ctx, const char *id)
{
	ac_source_index *index = NULL;
	ac_source_session *s = NULL;
	char *missing = strdup(ac_error_last());
	int status;

	if ((status = cli_source_find(&index, &s, ctx, id)) == CLI_OK) {
		if (!s)
			status = cli_error(CLI_FAILED, "session export: %s",
					   missing ? missing : "no such session");
		else if (ac_source_session_document(out, s) != 0)
			status = cli_error(CLI_FAILED, "session export: %s", ac_error_last());
	}
	free(missing);
	ac_source_index_free(index);
	return status;
}

/* The session's document from the store the workspace uses, else a
 * coding agent's transcript of that id. */
static int load_root(json_t **out, const cli_context *ctx, const char *id)
{
	ac_backend_session_info info = {0};
	ac_session *s = NULL;
	ac_backend *b = NULL;
	int status = CLI_OK, rc;

	*out = NULL;
	if ((status = cli_open_backend(&b, ctx)))
		return status;
	if (ac_backend_has_local_sessions(b)) {
		if ((rc = ac_session_load(&s, ctx->ws.sessions_dir, id)) == 0)
			*out = json_incref(ac_session_root(s));
	} else if ((rc = ac_backend_inspector_find(b, &info, id)) == 0) {
		/* The operator names a session by id: its tenant comes from the store. */
		rc = ac_backend_session_get(b, out, info.tenant, id);
	}
	if (rc == AC_ENOTFOUND && !*out)
		status = transcript_root(out, ctx, id);
	else if (rc != 0)
		status = cli_error(CLI_FAILED, "session export: %s", ac_error_last());
	ac_session_free(s);
	ac_backend_session_info_clear(&info);
	cli_close_backend(ctx, b);
	return status;
}

int cli_session_export(const cli_context *ctx, int argc, char **argv)
{
	const char *id = NULL, *format_name = NULL, *path = NULL;
	ac_export_format format;
	ac_buf doc = AC_BUF_INIT;
	json_t *root = NULL;
	struct stat st;
	cli_args args;
	int status = CLI_OK;

	if ((status = cli_args_parse_as(&args, "session export", argc, argv)))
		return status;
	format_name = cli_args_get(&args, "--format");
	path = cli_args_get(&args, "--output");
	id = args.pos[0];
	if (!format_name)
		return cli_args_say_missing(&args);
	if (ac_session_export_format(&format, format_name) != 0 || ac_session_id_check(id) != 0)
		return cli_error(CLI_USAGE, "session export: %s", ac_error_last());
	if (path && !*path)
		return cli_error(CLI_USAGE, "session export: -o: an empty file name");
	if (path && ctx->read_only)
		return cli_error(CLI_USAGE, "session export: --read-only forbids writing -o %s", path);
	/* -o replaces the file by a rename: a device (as root, -o /dev/null
	 * replaced the machine's /dev/null by a regular file), a FIFO or a
	 * folder is never replaced. */
	if (path && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return cli_error(CLI_USAGE, "session export: -o %s: not a regular file (a device, "
				 "FIFO or folder is never replaced); leave out -o to write to "
				 "standard output", path);
	if ((status = load_root(&root, ctx, id)))
		goto done;
	if (ac_session_export(&doc, root, format) != 0) {
		status = cli_error(CLI_FAILED, "session export: %s", ac_error_last());
		goto done;
	}
	if (path) {
		if (ac_atomic_write(path, doc.data, doc.len, NULL, NULL) != 0)
			status = cli_error(CLI_FAILED, "session export: %s", ac_error_last());
		goto done;
	}
	cli_write(doc.data, doc.len);
	status = cli_finish_output();
done:
	json_decref(root);
	ac_buf_free(&doc);
	return status;
}
