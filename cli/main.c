/* agentctl: the dashboard, or one command, over an agent workspace.
 *
 * The command table is the one place a command is named for dispatch;
 * `--help`, `help COMMAND` and `COMMAND --help` show the forms of the
 * command specs (cli_specs.c, cli_forms.h), each of whose commands is
 * in this table (tests/e2e/cli_help.sh). */
#include "cli.h"
#include "cli_args.h"
#include "cli_forms.h"

#include "ac_discover.h"
#include "ac_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
	const char *name;
	int (*run)(cli_context *ctx, int argc, char **argv);
	/* The subcommands that write agent state, between spaces: before
	 * they run, agent state is kept out of git (ac_oplog_exclude_agent_state).
	 * ops rollback and revert see to it themselves, after their checks
	 * (a dry run or a refused one changes nothing). */
	const char *writes;
} cli_command;

static const cli_command commands[] = {
	{"demo", cli_demo, NULL},
	{"journal", cli_journal, " log rotate "},
	{"session", cli_session,
	 " create append record-turn pause resume complete fail compact fork "},
	{"ops", cli_ops, " record "},
	{"checkpoint", cli_checkpoint, " create rollback auto "},
	{"memo", cli_memo, " write append "},
	{"artifact", cli_artifact, NULL},
	{"trace", cli_trace, NULL},
	{"sandbox", cli_sandbox, " mirror sync "},
	{"storage", cli_storage, " migrate "},
	{"usage", cli_usage, NULL},
	{"sources", cli_sources, NULL},
	{"gc", cli_gc, NULL},
	{"config", cli_config, NULL},
};

static const size_t n_commands = sizeof(commands) / sizeof(commands[0]);

static const char usage_head[] =
	"usage: agentctl [-w DIR] [--storage URL] [--theme NAME] [--read-only] [--poll]   the dashboard\n";

static const char usage_tail[] =
	"       agentctl help [COMMAND [SUBCOMMAND]]   (or COMMAND [SUBCOMMAND] --help)\n"
	"\n"
	"Query terms (all must hold): FIELD=VALUE, FIELD!=VALUE, FIELD~TEXT,\n"
	"  text~TEXT (anywhere in the event), since=TIME, until=TIME (UTC;\n"
	"  until is exclusive). FIELD is a dotted path: agent, status,\n"
	"  action.type, trace.correlation_id, action.params.path, ...\n"
	"\n"
	"Options (before or after the command):\n"
	"         -w, --workspace DIR  the workspace (default: the first folder from the current\n"
	"                              one up holding .agent/, JOURNAL.jsonl or .agentrc.json,\n"
	"                              not past $HOME or AGENT_CEILING_DIRECTORIES; else the\n"
	"                              current folder, which only the dashboard refuses)\n"
	"         --storage URL        the store: a postgresql:// URL or libpq connection string\n"
	"                              (storage.url key; default: the workspace's files)\n"
	"         --theme NAME         the dashboard's theme (dark, light, high-contrast, monochrome)\n"
	"         --read-only          no command or key changes a file\n"
	"         --poll               follow the workspace by polling, not inotify (for a\n"
	"                              shared file system whose other hosts' writes raise no\n"
	"                              event; found by itself for NFS, SMB, FUSE...: watch key)\n"
	"         --version            the version of agentctl and libagentctl\n"
	"Exit status: 0 success, 1 the operation failed, 2 bad usage.\n"
	"See agentctl(1) for every command, key and configuration key.\n";

static void put_help(FILE *out)
{
	fputs(usage_head, out);
	cli_forms_put(out, NULL, "       agentctl [-w DIR] ");
	fputs(usage_tail, out);
}

static const cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < n_commands; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* help [COMMAND [SUBCOMMAND]]: the program's forms, a command's, or one
 * subcommand's with its options (from its spec, cli_specs.c). */
static int help(int argc, char **argv)
{
	const cli_command *cmd;
	const cli_spec *spec;

	if (argc == 0) {
		put_help(stdout);
		return cli_finish_output();
	}
	if (argc > 2)
		return cli_error(CLI_USAGE, "help: unexpected '%s'", argv[2]);
	if (!(cmd = find_command(argv[0])))
		return cli_error(CLI_USAGE, "help: unknown command '%s' (see 'agentctl --help')",
				 argv[0]);
	if (argc == 2) {
		if (!(spec = cli_spec_find(cmd->name, argv[1])))
			return cli_error(CLI_USAGE, "help: %s has no command '%s' (see 'agentctl "
					 "help %s')", cmd->name, argv[1], cmd->name);
		cli_args_put_help(stdout, spec, "usage: agentctl [-w DIR] ");
		return cli_finish_output();
	}
	cli_forms_put(stdout, cmd->name, "usage: agentctl [-w DIR] ");
	/* A command without subcommands: its options, too. */
	if ((spec = cli_spec_find(cmd->name, NULL)) && spec->opts)
		cli_args_put_options(stdout, spec);
	return cli_finish_output();
}

/* True when running cmd with argv writes agent state (the dashboard's
 * actions see to it themselves: opening it writes nothing). */
static bool writes_agent_state(const cli_command *cmd, int argc, char **argv)
{
	char word[64];

	if (!cmd || !cmd->writes || argc < 1 || strlen(argv[0]) > sizeof(word) - 3)
		return false;
	snprintf(word, sizeof(word), " %s ", argv[0]);
	return strstr(cmd->writes, word) != NULL;
}

static bool is_help(int argc, char **argv, int i)
{
	return i < argc && (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"));
}

/* Options before the command (*json: --json, the command's own, was
 * among them). Returns the index of the command word (argc for the
 * dashboard), or -1 - exit status when the program is done. */
static int parse_options(cli_context *ctx, bool *json, int argc, char **argv)
{
	int i, status;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			put_help(stdout);
			return -1 - cli_finish_output();
		} else if (!strcmp(arg, "--version")) {
			printf("agentctl %s\n", ac_version());
			return -1 - cli_finish_output();
		} else if (!strcmp(arg, "--json")) {
			*json = true;
		} else if ((status = cli_args_global(ctx, argc, argv, &i)) >= 0) {
			if (status)
				return -1 - status;
		} else {
			/* One line, as for any bad argument; --help has the rest. */
			return -1 - cli_error(CLI_USAGE, "unknown option '%s' (see 'agentctl --help')",
					      arg);
		}
	}
	return i;
}

/* `agentctl --json COMMAND...`: --json handed to the command, after its
 * subcommand word, when its spec takes one (into *out, allocated: the
 * caller frees it); CLI_USAGE, said, when it prints no JSON. */
static int pass_json(char ***out, const cli_command *cmd, int *cargc, char **cargv)
{
	const cli_spec *spec = cli_spec_find(cmd->name, NULL);
	int at = 0;

	if (!spec && *cargc > 0 && (spec = cli_spec_find(cmd->name, cargv[0])))
		at = 1;
	for (const cli_opt *o = spec ? spec->opts : NULL; o && o->name; o++) {
		if (strcmp(o->name, "--json"))
			continue;
		if (!(*out = malloc(((size_t)*cargc + 2) * sizeof(char *))))
			return cli_error(CLI_FAILED, "out of memory");
		memcpy(*out, cargv, (size_t)at * sizeof(char *));
		(*out)[at] = (char *)"--json";
		memcpy(*out + at + 1, cargv + at, ((size_t)*cargc - (size_t)at + 1) * sizeof(char *));
		++*cargc;
		return CLI_OK;
	}
	return cli_error(CLI_USAGE, "--json: '%s%s%s' prints no JSON (see 'agentctl help %s')",
			 cmd->name, spec && at ? " " : "", spec && at ? cargv[0] : "", cmd->name);
}

static int open_workspace(cli_context *ctx)
{
	struct stat st;

	if (stat(ctx->workspace, &st) != 0 || !S_ISDIR(st.st_mode))
		return cli_error(CLI_USAGE, "-w %s: not a folder", ctx->workspace);
	if (ac_config_load(&ctx->config, ctx->workspace) != 0)
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	/* What the configuration read leniently, a line each, once. */
	for (const char *n = ac_config_notes(ctx->config); n && *n; n += strcspn(n, "\n") + 1)
		cli_note("%.*s", (int)strcspn(n, "\n"), n);
	if (ctx->theme && ac_config_set_cli(ctx->config, "theme", ctx->theme) != 0)
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	if (ctx->storage && ac_config_set_cli(ctx->config, "storage.url", ctx->storage) != 0)
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	if (ctx->poll && ac_config_set_cli(ctx->config, "watch", "poll") != 0)
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	if (ac_workspace_init(&ctx->ws, ctx->config) != 0)
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	ctx->ws_ready = true;
	return CLI_OK;
}

/* With no -w, the workspace is the first folder from here up that holds
 * one (ac_discover.h). The dashboard needs one; a command that finds none
 * uses the current folder, as it always did (journal log, session create
 * start a workspace there). A workspace another user could have planted
 * is not taken: one above is skipped, said in one line when that changes
 * the folder used; one here fails (-w names it anyway). found is set to
 * what ctx->workspace borrows. */
static int find_workspace(cli_context *ctx, const cli_command *cmd, char **found)
{
	char *skipped = NULL;
	int rc, status = CLI_OK;

	if (ctx->workspace || (cmd && !strcmp(cmd->name, "demo"))) {
		if (!ctx->workspace)
			ctx->workspace = ".";
		return CLI_OK;
	}
	ctx->workspace = ".";
	rc = ac_discover_workspace(found, &skipped, ".", getenv("AGENT_CEILING_DIRECTORIES"),
				   getenv("HOME"));
	if (rc == 0) {
		ctx->workspace = *found;
		if (skipped)
			cli_note("%s; using %s", skipped, *found);
	} else if (rc == AC_EDENIED) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
	} else if (cmd) {
		if (skipped)
			cli_note("%s; using the current folder", skipped);
	} else if (!(ctx->no_workspace = strdup(ac_error_last()))) {
		status = cli_error(CLI_FAILED, "out of memory");
	}
	/* The dashboard without a workspace: decided once the configuration
	 * says whether a database holds the fleet (no_workspace_refused()). */
	free(skipped);
	return status;
}

/* A dashboard with no workspace opens the current folder only when the
 * workspace's store is one hosts share (a database --storage,
 * AGENT_STORAGE_URL or the user's storage.url names): an operator's
 * machine has the team's database, not the agents' folders. */
static int no_workspace_refused(const cli_context *ctx)
{
	ac_backend *b = NULL;
	bool shared;

	if (!ctx->no_workspace)
		return CLI_OK;
	/* A store that cannot be opened is the dashboard's to say. */
	if (ctx->ws_ready && ac_workspace_store(&b, &ctx->ws) != 0)
		return CLI_OK;
	/* Hosts share it (no local session files): the fleet, from anywhere. */
	shared = b && !ac_backend_has_local_sessions(b);
	ac_workspace_store_release(&ctx->ws, b);
	if (shared)
		return CLI_OK;
	ac_error_clear();
	return cli_error(CLI_USAGE, "no workspace here or above (%s); run 'agentctl demo' for a "
			 "demo, pass -w DIR, or name the team's database with --storage URL or "
			 "AGENT_STORAGE_URL", ctx->no_workspace);
}

int main(int argc, char **argv)
{
	cli_context ctx = {.workspace = NULL};
	const cli_command *cmd = NULL;
	char *found = NULL, **cargv, **with_json = NULL;
	int first, status, cargc;
	bool json = false;

	if ((first = parse_options(&ctx, &json, argc, argv)) < 0)
		return -1 - first;
	if (first < argc && !strcmp(argv[first], "help"))
		return help(argc - first - 1, argv + first + 1);
	if (first < argc && !(cmd = find_command(argv[first])))
		return cli_error(CLI_USAGE, "unknown command '%s' (see 'agentctl --help')",
				 argv[first]);
	/* The global options may follow the command too, as in
	 * `agentctl storage check --storage URL`. */
	cargc = cmd ? argc - first - 1 : 0;
	cargv = argv + first + 1;
	if (cmd && (status = cli_args_take_globals(&ctx, cmd->name, &cargc, cargv)))
		return status;
	if (json && !cmd)
		return cli_error(CLI_USAGE, "--json: the dashboard prints no JSON (name a command)");
	if (json && !is_help(cargc, cargv, 0) && !is_help(cargc, cargv, 1)) {
		if ((status = pass_json(&with_json, cmd, &cargc, cargv)))
			return status;
		cargv = with_json;
	}
	/* "agentctl session --help" and "agentctl session pause --help": that
	 * command's forms, no workspace needed (not a session id "--help"). */
	if (cmd && strcmp(cmd->name, "demo") != 0 && is_help(cargc, cargv, 0))
		return help(1, argv + first);
	if (cmd && strcmp(cmd->name, "demo") != 0 && cargc > 0 && cargv[0][0] != '-' &&
	    is_help(cargc, cargv, 1)) {
		char *words[] = {argv[first], cargv[0]};

		/* A subcommand with a spec: its own help; else the command's. */
		return help(cli_spec_find(cmd->name, cargv[0]) ? 2 : 1, words);
	}

	status = find_workspace(&ctx, cmd, &found);
	if (status == CLI_OK)
		status = open_workspace(&ctx);
	if (status == CLI_OK)
		status = no_workspace_refused(&ctx);
	/* Before the first write, so a `git add -A` meanwhile finds it too. */
	if (status == CLI_OK && !ctx.read_only &&
	    writes_agent_state(cmd, cargc, cargv))
		cli_exclude_agent_state(&ctx);
	if (status == CLI_OK)
		status = cmd ? cmd->run(&ctx, cargc, cargv)
			     : cli_dashboard(&ctx);
	if (ctx.ws_ready)
		ac_workspace_free(&ctx.ws);
	ac_config_free(ctx.config);
	free(ctx.no_workspace);
	free(found);
	free(with_json);
	return status;
}
