/* agentctl storage check: which store the workspace uses (its files, or
 * the PostgreSQL database storage.url names, shown without its password),
 * the schema version the database is at and what it lacks, as the
 * workspace's store seam reports it (ac_workspace_store_check()).
 *
 * Exit 0 when the store is usable as it is, 1 when migrations are missing
 * or it cannot be reached (one line). Opening the store through a command
 * brings the schema up to date by itself; check changes nothing.
 * storage migrate (--to URL | --from URL) copies a workspace between the
 * two stores: cli_storage_migrate.c. */
#include "cli.h"

#include "ac_error.h"
#include "ac_text.h"

#include <stdlib.h>
#include <string.h>

static int check(cli_context *ctx, int argc, char **argv)
{
	ac_workspace_store_report r;
	ac_buf line = AC_BUF_INIT, safe = AC_BUF_INIT;
	cli_args a;
	int status;

	if ((status = cli_args_parse_as(&a, "storage check", argc, argv)))
		return status;
	if (ac_workspace_store_check(&r, &ctx->ws)) {
		status = cli_error(CLI_FAILED, "storage check: %s", ac_error_last());
		ac_workspace_store_report_clear(&r);
		return status;
	}
	/* The path or URL is the one text from outside: shown safe; the
	 * lines around it are ours. */
	ac_text_sanitize(&safe, r.where, strlen(r.where));
	if (!r.versioned)
		ac_buf_printf(&line, "store: %s in %s\nschema: not versioned (the file formats)\n",
			      r.kind, safe.data ? safe.data : "");
	else if (r.missing == 0)
		ac_buf_printf(&line, "store: %s %s\nschema: version %d (up to date)\n", r.kind,
			      safe.data ? safe.data : "", r.version);
	else
		ac_buf_printf(&line, "store: %s %s\nschema: version %d; %d migration%s missing "
			      "(this agentctl expects %d; the next command that opens the store "
			      "applies them)\n",
			      r.kind, safe.data ? safe.data : "", r.version, r.missing,
			      r.missing == 1 ? "" : "s", r.latest);
	cli_write(line.data, line.len);
	ac_buf_free(&safe);
	ac_buf_free(&line);
	status = cli_finish_output();
	if (!status && r.missing)
		status = CLI_FAILED;
	ac_workspace_store_report_clear(&r);
	return status;
}

int cli_storage(cli_context *ctx, int argc, char **argv)
{
	if (argc == 0)
		return cli_error(CLI_USAGE, "usage: storage check | storage migrate (--to URL | --from URL)");
	if (!strcmp(argv[0], "check"))
		return check(ctx, argc - 1, argv + 1);
	if (!strcmp(argv[0], "migrate"))
		return cli_storage_migrate(ctx, argc - 1, argv + 1);
	return cli_error(CLI_USAGE, "storage: unknown command '%s'", argv[0]);
}
