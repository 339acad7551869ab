/* agentctl demo: a temporary workspace where three simulated agents
 * (Claude, Codex, Gemini) keep working, and the dashboard on it, so that a
 * newcomer sees sessions, operations, checkpoints and the journal move
 * within seconds.
 *
 * Everything goes through the core library, exactly as a real agent linked
 * against libagentctl would do it: sessions with ac_session.h, the journal
 * with ac_journal.h, file changes committed with ac_oplog_record(),
 * checkpoints with ac_checkpoint.h. No shell, no git command. The agents
 * run in one forked process that sleeps between steps; it dies with us
 * (PR_SET_PDEATHSIG) and is stopped and reaped when the dashboard closes.
 * The workspace is left on disk for the operator to look at. */
#include "cli.h"
#include "demo_sim.h"

#include "ac_atomic.h"
#include "ac_checkpoint.h"
#include "ac_error.h"
#include "ac_event.h"
#include "ac_file.h"
#include "ac_git.h"
#include "ac_journal.h"
#include "ac_oplog.h"
#include "ac_session.h"
#include "ac_time.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static const char usage_text[] =
	"usage: agentctl demo [--no-ui [--seconds N]]\n"
	"  a temporary workspace with simulated agents, and the dashboard on it;\n"
	"  --no-ui runs only the agents for N seconds (default 5) and prints the\n"
	"  workspace's path\n";

/* ---- the workspace ----------------------------------------------------- */

static int write_text(const char *root, const char *name, const char *text)
{
	ac_buf path = AC_BUF_INIT;
	int rc;

	if ((rc = ac_buf_printf(&path, "%s/%s", root, name)) == 0)
		rc = ac_atomic_write(path.data, text, strlen(text), NULL, NULL);
	ac_buf_free(&path);
	return rc;
}

/* The folder, a git repository in it, and a project config that pins
 * every path inside it, so no user setting sends the demo's writes
 * elsewhere. */
static int make_workspace(char *dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	ac_buf agent_dir = AC_BUF_INIT;
	int rc = 0;

	snprintf(dir, size, "%s/agentctl-demo-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return cli_error(CLI_FAILED, "demo: creating %s: %s", dir, strerror(errno));
	if (ac_git_init(dir) != 0)
		return cli_error(CLI_FAILED, "demo: %s", ac_error_last());
	if (ac_buf_printf(&agent_dir, "%s/.agent", dir) || ac_file_mkdirs(agent_dir.data) ||
	    write_text(dir, ".gitignore", ".agent/\n") ||
	    write_text(dir, "README.md",
		       "# agentctl demo workspace\n\nThree simulated agents work here. "
		       "Every file change is a commit; roll one back from the dashboard "
		       "(2 Operations, R).\n") ||
	    write_text(dir, ".agent/config.json",
		       "{\n  \"sessionDir\": \".agent/sessions\",\n"
		       "  \"journalPath\": \"JOURNAL.jsonl\",\n"
		       "  \"operationLogPath\": \".agent/operations.jsonl\",\n"
		       "  \"checkpointDir\": \".agent/checkpoints\"\n}\n"))
		rc = cli_error(CLI_FAILED, "demo: %s", ac_error_last());
	ac_buf_free(&agent_dir);
	return rc ? CLI_FAILED : CLI_OK;
}

/* Waits seconds, or until a signal or the simulator's end. */
static void wait_seconds(pid_t pid, size_t seconds)
{
	int64_t end = ac_time_now_ms() + (int64_t)seconds * 1000;
	siginfo_t info;

	for (;;) {
		/* WNOWAIT: only look; stop_simulator() reaps it. */
		memset(&info, 0, sizeof(info));
		if (demo_stop_requested || ac_time_now_ms() >= end ||
		    waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid)
			return;
		poll(NULL, 0, 50);
	}
}

int cli_demo(cli_context *ctx, int argc, char **argv)
{
	cli_context demo = {.theme = ctx->theme, .read_only = ctx->read_only};
	demo_sim sim = {0};
	char dir[PATH_MAX], log_path[PATH_MAX + 32], title[16];
	bool ui = true, ws_ready = false;
	size_t seconds = 5;
	pid_t pid = -1, parent = getpid();
	cli_args args;
	int status = CLI_OK, sim_status;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return CLI_OK;
		}
	}
	if ((status = cli_args_parse_as(&args, "demo", argc, argv)))
		return status;
	ui = !cli_args_has(&args, "--no-ui");
	if (cli_args_has(&args, "--seconds") &&
	    cli_parse_count(&seconds, "--seconds", cli_args_get(&args, "--seconds")) != CLI_OK)
		return CLI_USAGE;
	if (ui && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return cli_error(CLI_USAGE, "demo: the dashboard needs a terminal "
					    "(or run 'agentctl demo --no-ui')");
	if ((status = make_workspace(dir, sizeof(dir))) != CLI_OK)
		return status;
	fprintf(stderr, "agentctl: demo workspace: %s\n", dir);
	if (ac_config_load(&demo.config, dir) != 0 ||
	    (demo.theme && ac_config_set_cli(demo.config, "theme", demo.theme) != 0) ||
	    ac_workspace_init(&demo.ws, demo.config) != 0) {
		status = cli_error(CLI_FAILED, "demo: %s", ac_error_last());
		goto done;
	}
	ws_ready = true;
	demo.workspace = dir;
	sim.ws = &demo.ws;
	sim.rng = (uint64_t)ac_time_now_ms() * 0x9E3779B97F4A7C15ULL | 1;
	for (int a = 0; a < DEMO_AGENTS; a++)
		sim.agents[a].next_id = 1;
	if (ac_checkpoint_store_file_new(&sim.store, demo.ws.checkpoints_dir) != 0) {
		status = cli_error(CLI_FAILED, "demo: %s", ac_error_last());
		goto done;
	}
	if (demo_sim_seed(&sim) != 0) {
		status = cli_error(CLI_FAILED, "demo: could not fill the workspace (see above)");
		goto done;
	}

	/* "acdemo-" and the temp folder's unique suffix: tests find the
	 * simulator by this name without confusing it with another demo's. */
	snprintf(title, sizeof(title), "acdemo-%.8s", strrchr(dir, '-') + 1);
	snprintf(log_path, sizeof(log_path), "%s/.agent/demo-simulator.log", dir);
	demo_catch_stop_signals();
	fflush(NULL);
	if ((pid = fork()) < 0) {
		status = cli_error(CLI_FAILED, "demo: fork: %s", strerror(errno));
		goto done;
	}
	if (pid == 0)
		demo_sim_main(&sim, parent, title, ui ? log_path : NULL);
	fprintf(stderr, "agentctl: demo simulator: pid %d, process name %s\n", (int)pid, title);

	if (ui) {
		if (!demo_stop_requested)
			status = cli_dashboard(&demo);
	} else {
		printf("%s\n", dir);
		fflush(stdout);
		wait_seconds(pid, seconds);
	}
	sim_status = demo_sim_stop(pid);
	pid = -1;
	if (sim_status != 0) {
		cli_note("demo: the simulated agents reported problems (exit status %d)%s%s", sim_status,
			 ui ? "; see " : "", ui ? log_path : "");
		if (status == CLI_OK)
			status = CLI_FAILED;
	}
	if (ui)
		fprintf(stderr, "agentctl: the demo workspace is left at %s\n", dir);
done:
	if (pid > 0)
		demo_sim_stop(pid);
	ac_checkpoint_store_free(sim.store);
	if (ws_ready)
		ac_workspace_free(&demo.ws);
	ac_config_free(demo.config);
	return status;
}
