/* agentctl storage check: which store the workspace uses (its files, or
 * the PostgreSQL database storage.url names, shown without its password),
 * the schema version the database is at and what it lacks.
 *
 * Exit 0 when the store is usable as it is, 1 when migrations are missing
 * or it cannot be reached (one line). Opening the store through a command
 * brings the schema up to date by itself; check changes nothing.
 * storage migrate (--to URL | --from URL) copies a workspace between the
 * two stores: cli_storage_migrate.c. */
#include "cli.h"

#include "ac_backend_pg.h"
#include "ac_error.h"
#include "ac_text.h"

#include <stdlib.h>
#include <string.h>

static int check(cli_context *ctx, int argc, char **argv)
{
	char *store = NULL;
	int version = 0, latest = 0, missing = 0, status;
	ac_buf line = AC_BUF_INIT, safe = AC_BUF_INIT;
	bool pg = ac_config_string(ctx->config, "storage.url", NULL) != NULL;

	if (argc > 0)
		return cli_error(CLI_USAGE, "storage check: unexpected '%s'", argv[0]);
	if (ac_storage_check(&store, &version, &latest, &missing, ctx->config, ctx->ws.sessions_dir)) {
		status = cli_error(CLI_FAILED, "storage check: %s", ac_error_last());
		free(store);
		return status;
	}
	/* The path or URL is the one text from outside: shown safe; the
	 * lines around it are ours. */
	ac_text_sanitize(&safe, store, strlen(store));
	if (!pg)
		ac_buf_printf(&line, "store: files in %s\nschema: not versioned (the file formats)\n",
			      safe.data ? safe.data : "");
	else if (missing == 0)
		ac_buf_printf(&line, "store: postgresql %s\nschema: version %d (up to date)\n",
			      safe.data ? safe.data : "", version);
	else
		ac_buf_printf(&line, "store: postgresql %s\nschema: version %d; %d migration%s missing "
			      "(this agentctl expects %d; the next command that opens the store "
			      "applies them)\n",
			      safe.data ? safe.data : "", version, missing, missing == 1 ? "" : "s",
			      latest);
	cli_write(line.data, line.len);
	ac_buf_free(&safe);
	ac_buf_free(&line);
	free(store);
	status = cli_finish_output();
	return status ? status : missing ? CLI_FAILED : CLI_OK;
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
