/* agentctl sandbox mirror|sync TENANT SESSION DIR: a session's memory
 * documents and artifacts copied into a folder a sandboxed agent sees, and
 * the agent's edits written back (ac_sandbox.h has the layout and the
 * conflict rule). Mirrors are registered under the workspace's
 * .agent/sandboxes, where compaction finds them to refresh them.
 *
 * Exit status: 0 when everything was mirrored or written back; 1 when a
 * conflict or a refused entry was reported (one line each on stderr) or
 * the operation failed; 2 bad usage. */
#include "cli.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_sandbox.h"

#include <string.h>
#include <sys/stat.h>

static int sandbox_usage(void)
{
	return cli_error(CLI_USAGE, "usage: sandbox mirror|sync TENANT SESSION DIR");
}

/* One note a line (cli_note makes the names the agent chose safe). */
static void show_notes(const char *notes)
{
	const char *line = notes;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		int len = end ? (int)(end - line) : (int)strlen(line);

		cli_note("%.*s", len, line);
		line += len + (end != NULL);
	}
}

/* *out: the workspace's mirror registry, .agent/sandboxes. */
static int registry_path(ac_buf *out, const cli_context *ctx)
{
	return ac_buf_printf(out, "%s/.agent/sandboxes", ctx->ws.root);
}

void cli_sandbox_after_memo(const ac_backend *b, const cli_context *ctx, const char *tenant,
			    const char *owner, const char *scope)
{
	ac_buf registry = AC_BUF_INIT;
	ac_sandbox_options opts = AC_SANDBOX_OPTIONS_INIT;
	ac_sandbox_result result = {0};
	struct stat st;

	/* No mirror ever registered: nothing to look up. */
	if (registry_path(&registry, ctx) || stat(registry.data, &st) != 0)
		goto done;
	opts.registry_dir = registry.data;
	if (ac_sandbox_refresh_owner(&result, b, tenant, owner, scope, &opts))
		cli_note("sandbox mirrors not refreshed: %s", ac_error_last());
	show_notes(result.notes);
done:
	ac_sandbox_result_free(&result);
	ac_buf_free(&registry);
}

int cli_sandbox(cli_context *ctx, int argc, char **argv)
{
	ac_buf registry = AC_BUF_INIT;
	ac_sandbox_options opts = AC_SANDBOX_OPTIONS_INIT;
	ac_sandbox_result result = {0};
	ac_backend *b = NULL;
	cli_args parsed;
	bool sync;
	int status, rc;

	if (argc == 0)
		return sandbox_usage();
	if (strcmp(argv[0], "mirror") && strcmp(argv[0], "sync"))
		return cli_error(CLI_USAGE, "sandbox: unknown command '%s'", argv[0]);
	/* The arguments after the verb move to argv[1..3]. */
	if ((status = cli_args_parse(&parsed, cli_spec_find("sandbox", argv[0]), argc - 1,
				     argv + 1)))
		return status;
	sync = !strcmp(argv[0], "sync");
	if (ctx->read_only)
		return cli_error(CLI_USAGE, "sandbox %s: --read-only forbids changes", argv[0]);
	if (ac_backend_id_check("tenant", argv[1]) || ac_backend_id_check("session", argv[2]))
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	if (registry_path(&registry, ctx))
		return cli_error(CLI_FAILED, "out of memory");
	if ((status = cli_open_backend(&b, ctx)))
		goto done;
	opts.registry_dir = registry.data;
	rc = sync ? ac_sandbox_sync(&result, b, argv[1], argv[2], argv[3], &opts)
		  : ac_sandbox_mirror(&result, b, argv[1], argv[2], argv[3], &opts);
	show_notes(result.notes);
	if (rc) {
		status = cli_error(CLI_FAILED, "sandbox %s %s/%s: %s", argv[0], argv[1], argv[2],
				   ac_error_last());
		goto done;
	}
	if (sync)
		printf("sandbox %s/%s: %zu written back, %zu conflict%s, %zu refused; mirror: "
		       "%zu files written, %zu kept as edited\n", argv[1], argv[2], result.synced,
		       result.conflicts, result.conflicts == 1 ? "" : "s", result.refused,
		       result.written, result.kept);
	else
		printf("sandbox %s/%s: %zu files written, %zu kept as edited, %zu refused\n", argv[1],
		       argv[2], result.written, result.kept, result.refused);
	status = cli_finish_output();
	if (status == CLI_OK && (result.conflicts || result.refused))
		status = CLI_FAILED;
done:
	ac_sandbox_result_free(&result);
	cli_close_backend(ctx, b);
	ac_buf_free(&registry);
	return status;
}
