/* agentctl: the dashboard, or one command, over an agent workspace. */
#include "cli.h"

#include "ac_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_text[] =
	"usage: agentctl [-w DIR] [--theme NAME] [--read-only]   the dashboard\n"
	"       agentctl demo                                     a live demo workspace + dashboard\n"
	"       agentctl [-w DIR] journal log JSON|-\n"
	"       agentctl [-w DIR] journal read [--last N] [--all] [--json]\n"
	"       agentctl [-w DIR] journal query TERM... [--last N] [--all] [--json]\n"
	"       agentctl [-w DIR] journal check [--all]\n"
	"       agentctl [-w DIR] journal rotate\n"
	"       agentctl [-w DIR] session list [--json] [--status S] [--user U]\n"
	"       agentctl [-w DIR] session show ID [--json]\n"
	"       agentctl [-w DIR] session pause|resume|complete|fail ID\n"
	"       agentctl [-w DIR] session compact ID [--force]\n"
	"       agentctl [-w DIR] ops list [--session ID] [--json] | show OPID\n"
	"       agentctl [-w DIR] ops rollback OPID [--dry-run] [--yes]\n"
	"       agentctl [-w DIR] checkpoint list SESSION [--json]\n"
	"       agentctl [-w DIR] checkpoint create SESSION [--node NAME]\n"
	"       agentctl [-w DIR] checkpoint rollback SESSION (CKPT|--latest) [--yes]\n"
	"       agentctl [-w DIR] config show [--origin] [--json] | trust\n"
	"\n"
	"Query terms (all must hold): FIELD=VALUE, FIELD!=VALUE, FIELD~TEXT,\n"
	"  text~TEXT (anywhere in the event), since=TIME, until=TIME (UTC;\n"
	"  until is exclusive). FIELD is a dotted path: agent, status,\n"
	"  action.type, trace.correlation_id, action.params.path, ...\n"
	"\n"
	"Options: -w, --workspace DIR  the workspace (default: the current folder)\n"
	"Exit status: 0 success, 1 the operation failed, 2 bad usage.\n";

int main(int argc, char **argv)
{
	cli_context ctx = {.workspace = "."};
	struct stat st;
	int i, status;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			fputs(usage_text, stdout);
			return CLI_OK;
		} else if (!strcmp(arg, "--version")) {
			printf("agentctl %s\n", ac_version());
			return CLI_OK;
		} else if (!strcmp(arg, "-w") || !strcmp(arg, "--workspace")) {
			if (++i == argc)
				return cli_error(CLI_USAGE, "%s needs a folder", arg);
			ctx.workspace = argv[i];
		} else if (!strncmp(arg, "--workspace=", 12)) {
			ctx.workspace = arg + 12;
		} else if (!strcmp(arg, "--theme")) {
			if (++i == argc)
				return cli_error(CLI_USAGE, "--theme needs a name");
			ctx.theme = argv[i];
		} else if (!strcmp(arg, "--read-only")) {
			ctx.read_only = true;
		} else {
			cli_error(CLI_USAGE, "unknown option '%s'", arg);
			fputs(usage_text, stderr);
			return CLI_USAGE;
		}
	}
	if (stat(ctx.workspace, &st) != 0 || !S_ISDIR(st.st_mode))
		return cli_error(CLI_USAGE, "-w %s: not a folder", ctx.workspace);
	if (ac_config_load(&ctx.config, ctx.workspace) != 0)
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	if (ctx.theme && ac_config_set_cli(ctx.config, "theme", ctx.theme) != 0) {
		ac_config_free(ctx.config);
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	}
	if (ac_workspace_init(&ctx.ws, ctx.config) != 0) {
		ac_config_free(ctx.config);
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	}

	if (i == argc) {
		status = cli_dashboard(&ctx);
	} else if (!strcmp(argv[i], "journal")) {
		status = cli_journal(&ctx, argc - i - 1, argv + i + 1);
	} else if (!strcmp(argv[i], "session")) {
		status = cli_session(&ctx, argc - i - 1, argv + i + 1);
	} else if (!strcmp(argv[i], "demo")) {
		status = cli_demo(&ctx, argc - i - 1, argv + i + 1);
	} else if (!strcmp(argv[i], "memo")) {
		status = cli_memo(&ctx, argc - i - 1, argv + i + 1);
	} else if (!strcmp(argv[i], "artifact")) {
		status = cli_artifact(&ctx, argc - i - 1, argv + i + 1);
	} else if (!strcmp(argv[i], "trace")) {
		status = cli_trace(&ctx, argc - i - 1, argv + i + 1);
	} else if (!strcmp(argv[i], "ops")) {
		status = cli_ops(&ctx, argc - i - 1, argv + i + 1);
	} else if (!strcmp(argv[i], "checkpoint")) {
		status = cli_checkpoint(&ctx, argc - i - 1, argv + i + 1);
	} else if (!strcmp(argv[i], "config")) {
		status = cli_config(&ctx, argc - i - 1, argv + i + 1);
	} else if (!strcmp(argv[i], "help")) {
		fputs(usage_text, stdout);
		status = CLI_OK;
	} else {
		status = cli_error(CLI_USAGE, "unknown command '%s' (see 'agentctl --help')", argv[i]);
	}
	ac_workspace_free(&ctx.ws);
	ac_config_free(ctx.config);
	return status;
}
