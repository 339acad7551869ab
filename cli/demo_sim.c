/* The demo's simulated agents: what they say and do, and the forked
 * process they run in. Everything goes through the core library, as a real
 * agent linked against libagentctl would do it. The command itself (the
 * temporary workspace, the dashboard) is cli/cli_demo.c. */
#include "demo_sim.h"

#include "ac_atomic.h"
#include "ac_checkpoint.h"
#include "ac_error.h"
#include "ac_event.h"
#include "ac_file.h"
#include "ac_journal.h"
#include "ac_oplog.h"
#include "ac_session.h"
#include "ac_turn_usage.h"
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

#define DEMO_STOP_WAIT_MS 3000 /* a step ends well within this; then SIGKILL */

/* ---- what the simulated agents say and touch ------------------------- */

typedef struct {
	const char *name;    /* journal agent and metadata.agentId */
	const char *prefix;  /* session ids: "<prefix>-<n>" */
	const char *user;    /* metadata.userId */
	bool openai_tools;   /* tool calls as OpenAI tool_calls + role "tool" */
	const char *tasks[4];
	const char *files[3];
	const char *prompts[4];
	const char *replies[4];
	const char *tool;    /* the tool it calls */
	const char *commands[3];
} demo_persona;

static const demo_persona personas[DEMO_AGENTS] = {
	{
		.name = "Claude", .prefix = "claude", .user = "alice",
		.tasks = {"Fix the login redirect loop", "Add rate limiting to the API",
			  "로그인 세션 만료 버그 수정", "Harden the password reset flow"},
		.files = {"src/auth/login.js", "src/auth/session.js", "src/server.js"},
		.prompts = {"The login page keeps redirecting to itself. Can you find out why?",
			    "Please keep the change small and add a test.",
			    "세션이 만료되면 어떻게 되나요?", "Looks good, carry on."},
		.replies = {"The cookie is set on the wrong path, so the session is never seen; "
			    "I will fix the path and add a regression test.",
			    "Done: the redirect now happens only once, and the test covers it.",
			    "만료된 세션은 로그인 페이지로 한 번만 리디렉션됩니다.",
			    "I checked the other routes; none of them has the same problem."},
		.tool = "read_file",
		.commands = {"npm test -- auth", "npm run lint", "node scripts/check-routes.js"},
	},
	{
		.name = "Codex", .prefix = "codex", .user = "bob", .openai_tools = true,
		.tasks = {"設定ファイルの読み込みを高速化する", "Write unit tests for the parser",
			  "Refactor the config loader", "Remove the dead feature flags"},
		.files = {"src/config.js", "src/parser.js", "tests/parser.test.js"},
		.prompts = {"設定の読み込みが遅いので、キャッシュを入れてください。",
			    "Add tests for empty input and for a missing closing brace.",
			    "Can the loader stop reading the file twice?", "Ship it."},
		.replies = {"読み込み結果をキャッシュし、ファイルが変わったときだけ読み直します。",
			    "Added six tests; two of them failed before the fix and pass now.",
			    "The loader now reads the file once and shares the parsed result.",
			    "Removed three flags that no code path reads any more."},
		.tool = "shell",
		.commands = {"npm test -- parser", "npx tsc --noEmit", "git diff --stat"},
	},
	{
		.name = "Gemini", .prefix = "gemini", .user = "carol",
		.tasks = {"API 문서 정리 및 예제 추가", "Document the REST endpoints",
			  "Review the database migration", "Summarise yesterday's failed builds"},
		.files = {"docs/api.md", "docs/endpoints.md", "docs/migration-review.md"},
		.prompts = {"API 문서를 정리하고 예제를 추가해 주세요.",
			    "Which endpoints still lack an example?",
			    "Is the migration safe to run on a live database?",
			    "Keep it short, please."},
		.replies = {"엔드포인트별로 요청과 응답 예제를 추가했습니다.",
			    "Four endpoints had no example; each has one now, with curl and JSON.",
			    "It is safe: the new column is nullable and the index is built concurrently.",
			    "Summary written to the docs folder; three builds failed on one flaky test."},
		.tool = "search_docs",
		.commands = {"npx markdownlint docs", "npm run docs:build", "psql --dry-run migrate.sql"},
	},
};


volatile sig_atomic_t demo_stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	demo_stop_requested = 1;
}

void demo_catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop; /* no SA_RESTART: sleeps return early */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* xorshift64*: the demo wants variety, not secrecy. */
static unsigned rnd(demo_sim *s, unsigned n)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return (unsigned)((s->rng * 2685821657736338717ULL) >> 33) % (n ? n : 1);
}

static void sim_problem(demo_sim *s, const char *what)
{
	s->failures++;
	cli_note("demo: %s: %s", what, ac_error_last());
}

/* ---- writing through the core ------------------------------------------ */

/* Appends one event of agent to the journal; params and artifacts (may be
 * NULL) are stolen. */
static int journal_event(demo_sim *s, const demo_persona *p, const char *session,
			 const char *status, const char *type, json_t *params,
			 json_t *artifacts, const char *message)
{
	char id[AC_EVENT_ID_LEN + 1], *text = NULL, *line = NULL;
	size_t len;
	json_t *ev;
	int rc = AC_ENOMEM;

	ev = json_pack("{s:s, s:s, s:{s:s, s:o}, s:{s:s}, s:{s:s}}", "agent", p->name, "status",
		       status, "action", "type", type, "params", params ? params : json_object(),
		       "result", "message", message, "trace", "correlation_id", session);
	if (!ev) {
		json_decref(artifacts);
		goto done;
	}
	if (artifacts)
		json_object_set_new(json_object_get(ev, "result"), "artifacts", artifacts);
	if (!(text = json_dumps(ev, JSON_COMPACT)))
		goto done;
	if ((rc = ac_event_prepare(&line, &len, id, text, &s->ws->schema)) == 0)
		rc = ac_journal_append(NULL, s->ws->journal_path, line, len, &s->ws->journal);
done:
	if (rc == AC_ENOMEM)
		ac_error_set(AC_ENOMEM, "out of memory");
	if (rc)
		sim_problem(s, "journal");
	json_decref(ev);
	free(text);
	free(line);
	return rc;
}

static int start_session(demo_sim *s, int a)
{
	const demo_persona *p = &personas[a];
	demo_agent *ag = &s->agents[a];
	const char *task = p->tasks[ag->task++ % 4];
	char message[256];

	snprintf(ag->session, sizeof(ag->session), "%s-%02u", p->prefix, ag->next_id++);
	ag->turns = 0;
	ag->limit = 6 + rnd(s, 8);
	if (ac_session_create(NULL, s->ws->sessions_dir, ag->session, task, "demo", p->user,
			      p->name) != 0) {
		sim_problem(s, "creating a session");
		ag->session[0] = '\0';
		return -1;
	}
	snprintf(message, sizeof(message), "started: %s", task);
	return journal_event(s, p, ag->session, "SUCCESS", "SESSION_START",
			     json_pack("{s:s}", "task", task), NULL, message);
}

/* One turn: a prompt and an answer, every other time with a tool call and
 * its result in between (Anthropic blocks, or OpenAI tool_calls for
 * Codex). */
static int take_turn(demo_sim *s, int a)
{
	const demo_persona *p = &personas[a];
	demo_agent *ag = &s->agents[a];
	const char *prompt = p->prompts[rnd(s, 4)], *reply = p->replies[rnd(s, 4)];
	const char *file = p->files[rnd(s, 3)];
	bool tool = ag->turns > 0 && rnd(s, 2) == 0;
	json_t *msgs = json_array(), *params;
	char call_id[96], message[200];
	int rc;

	json_array_append_new(msgs, json_pack("{s:s, s:s}", "role", "user", "content", prompt));
	if (tool) {
		snprintf(call_id, sizeof(call_id), "%s_%s_%u", p->openai_tools ? "call" : "toolu",
			 ag->session, ++ag->tool_calls);
		if (p->openai_tools) {
			char args[160];

			snprintf(args, sizeof(args), "{\"command\":\"%s\"}", p->commands[rnd(s, 3)]);
			json_array_append_new(msgs, json_pack(
				"{s:s, s:s, s:[{s:s, s:s, s:{s:s, s:s}}]}", "role", "assistant",
				"content", "", "tool_calls", "id", call_id, "type", "function",
				"function", "name", p->tool, "arguments", args));
			json_array_append_new(msgs, json_pack(
				"{s:s, s:s, s:s}", "role", "tool", "tool_call_id", call_id, "content",
				"exit 0: 42 passed, 0 failed"));
		} else {
			json_array_append_new(msgs, json_pack(
				"{s:s, s:[{s:s, s:s}, {s:s, s:s, s:s, s:{s:s}}]}", "role", "assistant",
				"content", "type", "text", "text", "Let me look at the code first.",
				"type", "tool_use", "id", call_id, "name", p->tool, "input", "path",
				file));
			json_array_append_new(msgs, json_pack(
				"{s:s, s:[{s:s, s:s, s:s}]}", "role", "user", "content", "type",
				"tool_result", "tool_use_id", call_id, "content",
				"module.exports = { handler, routes };"));
		}
	}
	json_array_append_new(msgs, json_pack("{s:s, s:s}", "role", "assistant", "content", reply));
	if (json_array_size(msgs) < (tool ? 4u : 2u)) {
		json_decref(msgs);
		ac_error_set(AC_ENOMEM, "out of memory");
		sim_problem(s, "building a turn");
		return -1;
	}
	rc = ac_session_append_messages(NULL, s->ws->sessions_dir, ag->session, msgs);
	json_decref(msgs);
	if (rc) {
		sim_problem(s, "appending a turn");
		return rc;
	}
	{
		/* A per-turn row, as an agent reports it: the inspector shows them. */
		json_t *fields = json_pack("{s:I, s:s}", "cacheReadInputTokens",
					   (json_int_t)rnd(s, 20000), "model", "claude-sonnet-4-5");
		ac_usage usage = {800 + (uint64_t)rnd(s, 4000), 100 + (uint64_t)rnd(s, 900), fields};

		if (!fields || ac_turn_usage_record(NULL, NULL, s->ws->sessions_dir, ag->session, NULL,
						    &usage, NULL) != 0)
			sim_problem(s, "recording usage");
		json_decref(fields);
	}
	ag->turns++;
	if (tool) {
		params = p->openai_tools ? json_pack("{s:s}", "command", p->commands[rnd(s, 3)])
					 : json_pack("{s:s, s:s}", "tool", p->tool, "path", file);
		snprintf(message, sizeof(message), "called %s", p->tool);
		return journal_event(s, p, ag->session, "SUCCESS", "CMD_RUN", params, NULL, message);
	}
	snprintf(message, sizeof(message), "turn %u: %.120s", ag->turns, reply);
	return journal_event(s, p, ag->session, "SUCCESS", "ANALYSIS",
			     json_pack("{s:s}", "content_summary", "answered the user"), NULL,
			     message);
}

/* Writes (or deletes) one of the agent's files and records it as an
 * operation, which commits the workspace. */
static int change_file(demo_sim *s, int a, bool delete)
{
	const demo_persona *p = &personas[a];
	demo_agent *ag = &s->agents[a];
	const char *file = p->files[rnd(s, 3)];
	char path[PATH_MAX], dir[PATH_MAX], message[300], commit[AC_GIT_HASH_LEN + 1], *slash;
	ac_buf body = AC_BUF_INIT;
	ac_op *op = NULL;
	json_t *details = NULL;
	struct stat st;
	bool existed;
	int rc = AC_ENOMEM;

	snprintf(path, sizeof(path), "%s/%s", s->ws->root, file);
	existed = stat(path, &st) == 0;
	if (delete && !existed)
		delete = false;
	if (delete) {
		if (unlink(path) != 0) {
			rc = ac_error_errno(errno, "removing %s", path);
			goto done;
		}
	} else {
		snprintf(dir, sizeof(dir), "%s", path);
		if ((slash = strrchr(dir, '/')))
			*slash = '\0';
		if (ac_buf_printf(&body, "// %s, edited by %s in session %s (turn %u)\n", file,
				  p->name, ag->session, ag->turns) ||
		    ac_buf_printf(&body, "// task: %s\n\nexport const revision = %u;\n",
				  p->tasks[(ag->task + 3) % 4], rnd(s, 100000))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		if ((rc = ac_file_mkdirs(dir)) ||
		    (rc = ac_atomic_write(path, body.data, body.len, NULL, NULL)))
			goto done;
	}
	if (!(details = json_pack("{s:s, s:s, s:I}", "path", file, "agent", p->name, "bytes",
				  (json_int_t)body.len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_oplog_record(&op, s->ws, ag->session, delete ? "file_delete" : "file_write",
				  details)))
		goto done;
	snprintf(commit, sizeof(commit), "%s", op->commit ? op->commit : "");
	snprintf(message, sizeof(message), "%s %s (commit %.8s)",
		 delete ? "deleted" : existed ? "edited" : "created", file,
		 commit[0] ? commit : "none");
	/* journal_event() reports its own trouble. */
	json_decref(details);
	ac_op_free(op);
	ac_buf_free(&body);
	return journal_event(s, p, ag->session, "SUCCESS",
			     delete ? "FILE_DELETE" : existed ? "FILE_EDIT" : "FILE_CREATE",
			     json_pack("{s:s, s:s}", "path", file, "commit", commit),
			     json_pack("[s]", file), message);
done:
	sim_problem(s, delete ? "deleting a file" : "writing a file");
	json_decref(details);
	ac_op_free(op);
	ac_buf_free(&body);
	return rc;
}

/* A command the agent ran: an operation with no commit (not reversible on
 * its own), sometimes failing. */
static int run_command(demo_sim *s, int a)
{
	const demo_persona *p = &personas[a];
	const char *command = p->commands[rnd(s, 3)];
	bool failed = rnd(s, 5) == 0;
	json_t *details = json_pack("{s:s, s:i}", "command", command, "exitCode", failed ? 1 : 0);
	char message[200];
	int rc;

	rc = ac_oplog_record(NULL, s->ws, s->agents[a].session, "command_run", details);
	json_decref(details);
	if (rc) {
		sim_problem(s, "recording a command");
		return rc;
	}
	snprintf(message, sizeof(message), "%s: %s", command,
		 failed ? "2 failing, see the log" : "all passed");
	return journal_event(s, p, s->agents[a].session, failed ? "FAILED" : "SUCCESS", "CMD_RUN",
			     json_pack("{s:s}", "command", command), NULL, message);
}

static int checkpoint(demo_sim *s, int a, const char *node)
{
	json_t *doc = NULL;
	char message[200];
	int rc;

	if ((rc = ac_checkpoint_create(&doc, s->store, s->ws->sessions_dir, s->agents[a].session,
				       node))) {
		sim_problem(s, "creating a checkpoint");
		return rc;
	}
	snprintf(message, sizeof(message), "checkpoint v%lld (%s) saved",
		 (long long)ac_checkpoint_version(doc), node);
	json_decref(doc);
	return journal_event(s, &personas[a], s->agents[a].session, "SUCCESS", "ANALYSIS",
			     json_pack("{s:s}", "checkpoint", node), NULL, message);
}

static int finish_session(demo_sim *s, int a)
{
	demo_agent *ag = &s->agents[a];
	bool failed = rnd(s, 5) == 0;
	int rc;

	if ((rc = ac_session_set_status(NULL, s->ws->sessions_dir, ag->session,
					failed ? "failed" : "completed"))) {
		sim_problem(s, "finishing a session");
	} else {
		checkpoint(s, a, AC_CHECKPOINT_TOMBSTONE);
		rc = journal_event(s, &personas[a], ag->session, failed ? "FAILED" : "SUCCESS",
				   "ANALYSIS", NULL, NULL,
				   failed ? "gave up: the tests still fail" : "task finished");
	}
	ag->session[0] = '\0';
	ag->idle_until = ac_time_now_ms() + 1500 + rnd(s, 2500);
	return rc;
}

/* The session's status as its file says now: the operator may have paused,
 * resumed or finished it from the dashboard. "" when it cannot be read. */
static void session_status(char out[16], const demo_sim *s, const char *id)
{
	ac_session *session = NULL;

	out[0] = '\0';
	if (ac_session_load(&session, s->ws->sessions_dir, id) == 0)
		snprintf(out, 16, "%s", ac_session_status(session));
	ac_session_free(session);
}

/* One step of one agent that is not paused; nothing when every agent is. */
static void sim_step(demo_sim *s)
{
	int64_t now = ac_time_now_ms();
	int a = (int)rnd(s, DEMO_AGENTS);
	unsigned r = rnd(s, 100);
	char status[16];

	for (int tries = 0; tries < DEMO_AGENTS; tries++, a = (a + 1) % DEMO_AGENTS) {
		demo_agent *ag = &s->agents[a];

		if (!ag->session[0]) {
			if (now < ag->idle_until)
				continue;
			start_session(s, a);
			return;
		}
		session_status(status, s, ag->session);
		if (!strcmp(status, "paused"))
			continue; /* a paused agent waits for the operator */
		if (strcmp(status, "running")) {
			/* Finished by the operator, or gone: start afresh later. */
			ag->session[0] = '\0';
			ag->idle_until = now + 1000;
			continue;
		}
		if (ag->turns < 2 || r < 40) {
			take_turn(s, a);
			if (ag->turns >= ag->limit)
				finish_session(s, a);
		} else if (r < 65) {
			change_file(s, a, false);
		} else if (r < 72) {
			change_file(s, a, true);
		} else if (r < 80) {
			run_command(s, a);
		} else if (r < 90) {
			checkpoint(s, a, ag->turns % 2 ? "after-tests" : "plan");
		} else {
			journal_event(s, &personas[a], ag->session, "IN_PROGRESS", "ANALYSIS",
				      json_pack("{s:s}", "content_summary", "reading the code"),
				      NULL, "thinking about the next change");
		}
		return;
	}
}

/* Sleeps ms unless a stop is requested. */
static void nap(int ms)
{
	struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (!demo_stop_requested && nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

/* The forked simulator's whole life. Never returns. */
void demo_sim_main(demo_sim *s, pid_t parent, const char *title, const char *log_path)
{
	int fd;

	/* Die with the parent, even if it is killed with SIGKILL. The
	 * SIGTERM is caught, so the step under way (a commit) completes. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	demo_catch_stop_signals();
	if (getppid() != parent)
		_exit(0);
	prctl(PR_SET_NAME, title);
	if ((fd = open("/dev/null", O_RDONLY)) >= 0) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	/* The dashboard owns the terminal: notes go to a log file. */
	if (log_path && (fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644)) >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	s->rng ^= (uint64_t)getpid() << 20;
	while (!demo_stop_requested) {
		sim_step(s);
		nap(300 + (int)rnd(s, 501));
	}
	ac_checkpoint_store_free(s->store);
	exit(s->failures ? CLI_FAILED : CLI_OK);
}

/* A first piece of everything, so the first screen is already full. */
int demo_sim_seed(demo_sim *s)
{
	for (int a = 0; a < DEMO_AGENTS; a++) {
		if (start_session(s, a) || take_turn(s, a))
			return -1;
		s->agents[a].turns = 1;
	}
	if (change_file(s, 0, false) || change_file(s, 2, false) || checkpoint(s, 1, "plan") ||
	    take_turn(s, 1) || run_command(s, 1))
		return -1;
	return 0;
}

/* Asks the simulator to stop, then reaps it; SIGKILL if it lingers.
 * Returns its exit status (or 128 + signal). */
int demo_sim_stop(pid_t pid)
{
	int status = 0;
	pid_t r;

	kill(pid, SIGTERM);
	for (int waited = 0; (r = waitpid(pid, &status, WNOHANG)) == 0; waited += 10) {
		if (waited >= DEMO_STOP_WAIT_MS) {
			kill(pid, SIGKILL);
			r = waitpid(pid, &status, 0);
			break;
		}
		poll(NULL, 0, 10);
	}
	if (r != pid)
		return 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

