/* agentctl ops list|show|rollback|revert|record
 *
 * record is the seed's OperationLog.record for agents in any language:
 * ac_oplog_record() commits the workspace through libgit2 for a file
 * operation (never a shell) and appends the line under the log's lock. */
#include "cli.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_git.h"
#include "ac_json_exact.h"
#include "ac_oplog.h"
#include "ac_oplog_intent.h"
#include "ac_session.h"
#include "ac_text.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void report_problem(const char *path, uint64_t line, const char *reason, void *ctx)
{
	(void)ctx;
	cli_note("%s:%llu: %s (skipped)", path, (unsigned long long)line, reason);
}

static void report_torn(const char *path, const ac_op_list *list)
{
	if (list->torn)
		cli_note("%s: skipped the unterminated line at byte %llu "
			 "(a torn write, or one still in progress)", path,
			 (unsigned long long)list->torn_offset);
}

/* The one note line every ops command gives about agent state git
 * tracks. */
static void note_tracked_state(const ac_workspace *ws)
{
	ac_buf notes = AC_BUF_INIT;

	ac_oplog_note_tracked_state(&notes, ws);
	if (notes.len)
		cli_note("%s", notes.data);
	ac_buf_free(&notes);
}

static void put_commit(ac_buf *out, const ac_op *op, int width)
{
	char short_hash[13];

	if (!op->commit) {
		cli_put_cell(out, "not reversible", width);
		return;
	}
	snprintf(short_hash, sizeof(short_hash), "%.12s", op->commit);
	cli_put_cell(out, short_hash, width);
}

static int cmd_list(const ac_workspace *ws, int argc, char **argv)
{
	const char *session = NULL;
	ac_op_list list = {0};
	ac_oplog_intent *intent = NULL;
	ac_buf line = AC_BUF_INIT, what = AC_BUF_INIT;
	json_t *array = NULL;
	bool json = false;
	cli_args args;
	int status;

	if ((status = cli_args_parse_as(&args, "ops list", argc, argv)))
		return status;
	json = cli_args_has(&args, "--json");
	session = cli_args_get(&args, "--session");
	if (ac_oplog_read(&list, ws->operations_path, 0, 1, report_problem, NULL) != 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	report_torn(ws->operations_path, &list);
	if (json && !(array = json_array())) {
		status = cli_error(CLI_FAILED, "out of memory");
		goto done;
	}
	if (ac_oplog_intent_read(&intent, ws) != 0)
		cli_note("%s", ac_error_last());
	if (intent && json) {
		json_array_append_new(array, ac_oplog_intent_json(intent));
	} else if (intent) {
		ac_buf finish = AC_BUF_INIT, undo = AC_BUF_INIT;

		ac_oplog_intent_describe(&what, intent);
		ac_oplog_intent_commands(&finish, &undo, intent);
		ac_buf_printf(&line, "%s ", ac_oplog_intent_running(intent) ? "RUNNING" : "INTERRUPTED");
		ac_text_sanitize(&line, what.data ? what.data : "", what.len);
		ac_buf_printf(&line, "; finish: %s; undo: %s\n", finish.data ? finish.data : "",
			      undo.data ? undo.data : "");
		if (line.data)
			cli_write(line.data, line.len);
		ac_buf_free(&finish);
		ac_buf_free(&undo);
	}
	if (!json) {
		static const char header[] =
			"TIME                     ID                                    SESSION"
			"                               TYPE         COMMIT          WHAT\n";

		cli_write(header, sizeof(header) - 1);
	}
	for (size_t i = 0; i < list.n; i++) {
		const ac_op *op = &list.ops[i];

		if (session && strcmp(op->session_id, session))
			continue;
		if (json) {
			json_array_append(array, op->raw);
			continue;
		}
		ac_buf_clear(&line);
		ac_buf_clear(&what);
		cli_put_cell(&line, *op->timestamp ? op->timestamp : "-", 24);
		ac_buf_putc(&line, ' ');
		cli_put_cell(&line, op->id, 37);
		ac_buf_putc(&line, ' ');
		cli_put_cell(&line, *op->session_id ? op->session_id : "-", 37);
		ac_buf_putc(&line, ' ');
		cli_put_cell(&line, op->type, 12);
		ac_buf_putc(&line, ' ');
		put_commit(&line, op, 15);
		ac_buf_putc(&line, ' ');
		ac_oplog_summary(&what, op->details, 100);
		cli_put_cell(&line, what.data ? what.data : "", 0);
		ac_buf_putc(&line, '\n');
		if (!line.data) {
			status = cli_error(CLI_FAILED, "out of memory");
			goto done;
		}
		if (!cli_write(line.data, line.len))
			break;
	}
	if (json)
		cli_write_json(array);
	note_tracked_state(ws);
	status = cli_finish_output();
done:
	ac_oplog_intent_free(intent);
	json_decref(array);
	ac_buf_free(&line);
	ac_buf_free(&what);
	ac_op_list_free(&list);
	return status;
}

static const char *change_name(char status)
{
	switch (status) {
	case 'A':
		return "added";
	case 'D':
		return "deleted";
	case 'T':
		return "typechanged";
	default:
		return "modified";
	}
}

/* Writes text line by line with every byte that could drive the terminal
 * made visible (ac_text_sanitize()), except the tabs a diff is full of,
 * which are harmless and kept, so the patch still applies. */
static void write_visible(const char *text, size_t len)
{
	ac_buf safe = AC_BUF_INIT;
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;

		while (p < stop) {
			const char *tab = memchr(p, '\t', (size_t)(stop - p));
			const char *cut = tab ? tab : stop;

			ac_text_sanitize(&safe, p, (size_t)(cut - p));
			if (tab)
				ac_buf_putc(&safe, '\t');
			p = tab ? tab + 1 : stop;
		}
		if (nl)
			ac_buf_putc(&safe, '\n');
		p = stop + (nl ? 1 : 0);
	}
	if (safe.data)
		cli_write(safe.data, safe.len);
	ac_buf_free(&safe);
}

/* ops show OPID --patch: the commit's unified diff, agent state left out. */
static int print_patch(const ac_workspace *ws, const ac_op *op)
{
	ac_git *git = NULL;
	ac_buf patch = AC_BUF_INIT;
	int status;

	if (!op->commit)
		return cli_error(CLI_FAILED, "operation %s (%s) has no git commit: no patch to show",
				 op->id, op->type);
	if (ac_oplog_open_git(&git, ws) != 0 || ac_git_commit_patch(&patch, git, op->commit) != 0) {
		status = cli_error(CLI_FAILED, "operation %s: %s", op->id, ac_error_last());
		goto done;
	}
	write_visible(patch.data ? patch.data : "", patch.len);
	status = cli_finish_output();
done:
	ac_buf_free(&patch);
	ac_git_free(git);
	return status;
}

static int cmd_show(const ac_workspace *ws, int argc, char **argv)
{
	ac_op_list list = {0};
	const ac_op *op;
	ac_git *git = NULL;
	ac_git_change *changes = NULL;
	size_t nchanges = 0;
	ac_buf out = AC_BUF_INIT, what = AC_BUF_INIT;
	char *details = NULL;
	size_t details_len = 0;
	const char *id = NULL;
	bool patch = false;
	cli_args args;
	int status;

	if ((status = cli_args_parse_as(&args, "ops show", argc, argv)))
		return status;
	patch = cli_args_has(&args, "--patch");
	id = args.pos[0];
	if (!*id) /* no id either */
		return cli_args_say_missing(&args);
	if (ac_oplog_read(&list, ws->operations_path, 0, 1, report_problem, NULL) != 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	if (ac_op_list_find_unique(&op, &list, id, ws->operations_path) != 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	if (patch) {
		status = print_patch(ws, op);
		goto done;
	}
	if (op->commit && (ac_oplog_open_git(&git, ws) != 0 ||
			   ac_git_commit_changes(&changes, &nchanges, git, op->commit) != 0)) {
		status = cli_error(CLI_FAILED, "operation %s: %s", op->id, ac_error_last());
		goto done;
	}
	details = ac_json_exact_dumps(op->details, JSON_COMPACT | JSON_PRESERVE_ORDER, &details_len);
	ac_oplog_summary(&what, op->details, 200);
	ac_buf_printf(&out, "Operation %s\n", op->id);
	ac_buf_printf(&out, "Time:     %s\nSession:  %s\nType:     %s\nWhat:     %s\nDetails:  %s\n",
		      op->timestamp, op->session_id, op->type, what.data ? what.data : "",
		      details ? details : "{}");
	if (!op->commit) {
		ac_buf_printf(&out, "Commit:   none (not reversible on its own)\n");
	} else {
		size_t adds = 0, dels = 0;

		ac_buf_printf(&out, "Commit:   %s\n\nFiles changed by the commit (against its parent):\n",
			      op->commit);
		for (size_t i = 0; i < nchanges; i++) {
			const ac_git_change *c = &changes[i];

			adds += c->additions;
			dels += c->deletions;
			if (c->binary)
				ac_buf_printf(&out, "  %-11s %s  (binary)\n", change_name(c->status), c->path);
			else
				ac_buf_printf(&out, "  %-11s %s  +%zu -%zu\n", change_name(c->status),
					      c->path, c->additions, c->deletions);
		}
		ac_buf_printf(&out, "%zu file%s changed, +%zu -%zu\n", nchanges,
			      nchanges == 1 ? "" : "s", adds, dels);
	}
	if (!out.data) {
		status = cli_error(CLI_FAILED, "out of memory");
		goto done;
	}
	{
		/* Line by line, so newlines survive and everything else from
		 * the files is made visible. */
		ac_buf safe = AC_BUF_INIT;
		const char *p = out.data, *nl;

		while ((nl = strchr(p, '\n'))) {
			ac_text_sanitize(&safe, p, (size_t)(nl - p));
			ac_buf_putc(&safe, '\n');
			p = nl + 1;
		}
		if (safe.data)
			cli_write(safe.data, safe.len);
		ac_buf_free(&safe);
	}
	note_tracked_state(ws);
	status = cli_finish_output();
done:
	free(details);
	ac_buf_free(&out);
	ac_buf_free(&what);
	ac_git_changes_free(changes, nchanges);
	ac_git_free(git);
	ac_op_list_free(&list);
	return status;
}

/* What ops rollback|revert does: run (a new one, or the same again, which
 * finishes a stopped one), --finish or --undo a stopped one. */
typedef enum { RUN, FINISH, UNDO } rollback_mode;

static void print_plan(const ac_oplog_rollback_result *res, const char *op_id, bool revert,
		       rollback_mode mode)
{
	const ac_git_rollback_result *r = &res->git;
	const char *what = revert ? "revert of" : "rollback to before";
	ac_buf out = AC_BUF_INIT;

	if (mode == UNDO)
		ac_buf_printf(&out, "Undoing the interrupted %s operation %s puts back the snapshot "
			      "%.12s (the state before it):\n", what, op_id, r->snapshot);
	else if (mode == FINISH)
		ac_buf_printf(&out, "Finishing the interrupted %s operation %s writes every file of "
			      "its plan (the snapshot %.12s holds the state before):\n", what, op_id,
			      r->snapshot);
	else if (revert)
		ac_buf_printf(&out, "Reverting operation %s undoes its change alone; later "
			      "operations' changes stay:\n", op_id);
	else if (*r->target)
		ac_buf_printf(&out, "Rolling back to before operation %s puts back the state of "
			      "commit %.12s:\n", op_id, r->target);
	else
		ac_buf_printf(&out, "Rolling back to before operation %s puts back the state of "
			      "the empty tree (its commit is the first):\n", op_id);
	for (size_t i = 0; i < r->n; i++) {
		ac_buf_printf(&out, "  %-8s ", ac_git_action_name(r->items[i].action));
		ac_text_sanitize(&out, r->items[i].path, strlen(r->items[i].path));
		ac_buf_putc(&out, '\n');
	}
	ac_buf_printf(&out, "%zu removed, %zu restored, %zu changed\n", r->removed, r->restored,
		      r->changed);
	if (r->kept)
		ac_buf_printf(&out, "%zu file%s git does not track (ignored) will be %s; the "
			      "snapshot commit keeps %s\n", r->kept, r->kept == 1 ? "" : "s",
			      mode == UNDO ? "put back" : "overwritten",
			      r->kept == 1 ? "a copy" : "copies");
	if (mode != UNDO) {
		ac_buf_printf(&out, "Undoes the work of session%s: ", res->n_sessions == 1 ? "" : "s");
		for (size_t i = 0; i < res->n_sessions; i++) {
			if (i)
				ac_buf_printf(&out, ", ");
			ac_text_sanitize(&out, res->sessions[i], strlen(res->sessions[i]));
		}
		if (!res->n_sessions)
			ac_buf_printf(&out, "(none named)");
		ac_buf_printf(&out, "%s\n", revert ? " (this operation only)" :
			      " (this operation and every later one)");
	}
	if (out.data)
		cli_write(out.data, out.len);
	ac_buf_free(&out);
}

static bool ask_yes(bool revert, rollback_mode mode)
{
	char answer[16] = "";

	if (mode == UNDO)
		fputs("Put the snapshot back? [y/N] ", stdout);
	else if (mode == FINISH)
		fputs("Finish it? [y/N] ", stdout);
	else
		fputs(revert ? "Revert these files? The current state is committed first. [y/N] "
			     : "Roll back these files? The current state is committed first. [y/N] ",
		      stdout);
	fflush(stdout);
	if (!fgets(answer, sizeof(answer), stdin))
		return false;
	return answer[0] == 'y' || answer[0] == 'Y';
}

/* The core call for mode: a rollback or revert of id, the stopped one
 * finished, or undone. */
static int run_mode(ac_oplog_rollback_result *out, const ac_workspace *ws, const char *id,
		    bool revert, rollback_mode mode, bool dry_run, ac_buf *notes)
{
	if (mode == UNDO)
		return ac_oplog_undo_interrupted(out, ws, dry_run);
	if (mode == FINISH)
		return ac_oplog_finish_interrupted(out, ws, dry_run, notes);
	return (revert ? ac_oplog_revert : ac_oplog_rollback)(out, ws, id, dry_run, notes);
}

static void print_done(const ac_oplog_rollback_result *result, const char *id, bool revert,
		       rollback_mode mode, bool finished)
{
	ac_buf out = AC_BUF_INIT;

	if (mode == UNDO) {
		ac_buf_printf(&out, "Undid the interrupted %s operation %s: %zu file%s put back as "
			      "the snapshot %.12s holds them\n", revert ? "revert of" :
			      "rollback to before", id, result->git.n, result->git.n == 1 ? "" : "s",
			      result->git.snapshot);
		if (result->git.commit[0])
			ac_buf_printf(&out, "Its commit was already made: commit %.12s puts the "
				      "snapshot's files back on it\n", result->git.commit);
	} else {
		if (finished)
			ac_buf_printf(&out, "Finished the interrupted %s operation %s\n", revert ?
				      "revert of" : "rollback to before", id);
		ac_buf_printf(&out, "%s operation %s: %zu removed, %zu restored, "
			      "%zu changed\nSnapshot of the state before: %.12s\n%s commit: %.12s\n",
			      revert ? "Reverted" : "Rolled back to before", id, result->git.removed,
			      result->git.restored, result->git.changed, result->git.snapshot,
			      revert ? "Revert" : "Rollback", result->git.commit);
		if (result->op)
			ac_buf_printf(&out, "Recorded as operation %s (to undo: agentctl ops %s %s)\n",
				      result->op->id, revert ? "revert" : "rollback", result->op->id);
	}
	if (out.data)
		cli_write(out.data, out.len);
	ac_buf_free(&out);
}

/* ops rollback (revert false) and ops revert: the same plan, dialog and
 * report, a different core call; --finish and --undo act on the stopped
 * one the intent names. */
/* The failure of ops rollback/revert, named by the command once: a
 * refusal from the core may already start with it. */
static int rollback_failed(const char *name, const char *why)
{
	size_t n = strlen(name);

	if (!strncmp(why, name, n) && why[n] == ':')
		return cli_error(CLI_FAILED, "%s", why);
	return cli_error(CLI_FAILED, "%s: %s", name, why);
}

static int cmd_rollback(const ac_workspace *ws, int argc, char **argv, bool revert)
{
	const char *name = revert ? "ops revert" : "ops rollback";
	ac_oplog_rollback_result result = {0};
	ac_oplog_intent *intent = NULL;
	ac_buf notes = AC_BUF_INIT;
	rollback_mode mode = RUN;
	const char *id = NULL;
	bool dry_run = false, yes = false, finished = false;
	cli_args args;
	int status;

	if ((status = cli_args_parse_as(&args, name, argc, argv)))
		return status;
	dry_run = cli_args_has(&args, "--dry-run");
	yes = cli_args_has(&args, "--yes");
	id = args.npos ? args.pos[0] : NULL;
	if (cli_args_has(&args, "--finish") && cli_args_has(&args, "--undo"))
		return cli_error(CLI_USAGE, "%s: --finish and --undo exclude each other", name);
	if (cli_args_has(&args, "--finish"))
		mode = FINISH;
	else if (cli_args_has(&args, "--undo"))
		mode = UNDO;
	if (mode != RUN && id)
		return cli_error(CLI_USAGE, "%s %s: acts on the interrupted rollback or revert the "
				 "intent names, without an operation id", name,
				 mode == FINISH ? "--finish" : "--undo");
	if (mode == RUN && (!id || !*id)) /* the id is left out only with those */
		return cli_args_say_missing(&args);
	if (ac_oplog_intent_read(&intent, ws) != 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	if (mode != RUN && intent) {
		id = intent->op_id;
		revert = intent->revert;
	}
	finished = intent && id && !strcmp(intent->op_id, id) && intent->revert == revert;
	if (!dry_run && !yes && !isatty(STDIN_FILENO)) {
		status = cli_error(CLI_USAGE, "%s %s: needs --yes when standard input is "
				   "not a terminal (see what would change with --dry-run)", name,
				   id ? id : mode == FINISH ? "--finish" : "--undo");
		goto done;
	}
	if (!dry_run && !yes) {
		if (run_mode(&result, ws, id, revert, mode, true, NULL) != 0) {
			status = rollback_failed(name, ac_error_last());
			goto done;
		}
		print_plan(&result, id, revert, finished && mode == RUN ? FINISH : mode);
		ac_oplog_rollback_result_free(&result);
		if (!ask_yes(revert, finished && mode == RUN ? FINISH : mode)) {
			cli_write("Nothing changed.\n", 17);
			status = cli_finish_output();
			goto done;
		}
	}
	if (run_mode(&result, ws, id, revert, mode, dry_run, &notes) != 0) {
		char *why = strdup(ac_error_last());

		if (notes.len)
			cli_note("%s", notes.data);
		status = rollback_failed(name, why ? why : "out of memory");
		free(why);
		goto done;
	}
	if (dry_run) {
		print_plan(&result, id, revert, finished && mode == RUN ? FINISH : mode);
		cli_write("(dry run: nothing changed)\n", 27);
	} else {
		print_done(&result, id, revert, mode, finished);
	}
	if (notes.len)
		cli_note("%s", notes.data);
	status = cli_finish_output();
done:
	ac_oplog_intent_free(intent);
	ac_oplog_rollback_result_free(&result);
	ac_buf_free(&notes);
	return status;
}

static const char *const op_types[] = {"file_write", "file_delete", "command_run", NULL};

static int cmd_record(const cli_context *ctx, int argc, char **argv)
{
	const ac_workspace *ws = &ctx->ws;
	const char *session = NULL, *type = NULL, *details_arg = NULL;
	ac_buf text = AC_BUF_INIT;
	json_t *details = NULL;
	ac_op *op = NULL;
	bool json = false;
	size_t t;
	cli_args args;
	int status = CLI_OK;

	if ((status = cli_args_parse_as(&args, "ops record", argc, argv)))
		return status;
	json = cli_args_has(&args, "--json");
	session = cli_args_get(&args, "--session");
	type = cli_args_get(&args, "--type");
	details_arg = cli_args_get(&args, "--details");
	if (!session || !type || !details_arg)
		return cli_error(CLI_USAGE, "ops record needs --session ID, --type T and --details "
				 "JSON (or - for standard input)");
	if (ac_session_id_check(session) != 0)
		return cli_error(CLI_USAGE, "ops record: --session: %s", ac_error_last());
	for (t = 0; op_types[t] && strcmp(op_types[t], type); t++)
		;
	if (!op_types[t])
		return cli_error(CLI_USAGE, "ops record: --type: '%s' is not one of file_write, "
				 "file_delete, command_run", type);
	if ((status = cli_read_input(&text, details_arg, "ops record --details")) ||
	    (status = cli_parse_json(&details, &text, "ops record: --details")))
		goto done;
	if (!json_is_object(details)) {
		status = cli_error(CLI_USAGE, "ops record: --details: must be a JSON object");
		goto done;
	}
	/* An operation names a session that exists (a typo would log an
	 * orphan nobody can find by session). */
	if ((status = cli_session_exists(ctx, session, "ops record")))
		goto done;
	if (ac_oplog_record(&op, ws, session, type, details) != 0) {
		status = cli_error(CLI_FAILED, "ops record: %s", ac_error_last());
		goto done;
	}
	/* The seed records quietly when gitEnabled is false; the note says
	 * which of the two reasons left the operation without a commit. */
	if (!op->commit && strcmp(type, "command_run") && !ws->git_enabled)
		cli_note("ops record: git is disabled (gitEnabled: false, from %s); recorded "
			 "without a commit (not reversible)",
			 ac_config_origin(ws->config, "gitEnabled")
				 ? ac_config_origin(ws->config, "gitEnabled") : "the configuration");
	else if (!op->commit && strcmp(type, "command_run"))
		cli_note("ops record: %s is in no git repository; recorded without a commit "
			 "(not reversible)", ws->root);
	if (json) {
		cli_write_json(op->raw);
	} else {
		/* The id is a UUID agentctl made: nothing to sanitise. */
		printf("%s\n", op->id);
	}
	status = cli_finish_output();
done:
	ac_op_free(op);
	json_decref(details);
	ac_buf_free(&text);
	return status;
}

int cli_ops(cli_context *ctx, int argc, char **argv)
{
	const char *sub = argc > 0 ? argv[0] : NULL;

	if (!sub)
		return cli_error(CLI_USAGE, "ops needs list, show, rollback, revert or record");
	if (!strcmp(sub, "list"))
		return cmd_list(&ctx->ws, argc - 1, argv + 1);
	if (!strcmp(sub, "show"))
		return cmd_show(&ctx->ws, argc - 1, argv + 1);
	if (!strcmp(sub, "rollback")) {
		if (ctx->read_only)
			return cli_error(CLI_USAGE, "ops rollback: not allowed with --read-only");
		return cmd_rollback(&ctx->ws, argc - 1, argv + 1, false);
	}
	if (!strcmp(sub, "revert")) {
		if (ctx->read_only)
			return cli_error(CLI_USAGE, "ops revert: not allowed with --read-only");
		return cmd_rollback(&ctx->ws, argc - 1, argv + 1, true);
	}
	if (!strcmp(sub, "record")) {
		if (ctx->read_only)
			return cli_error(CLI_USAGE, "ops record: not allowed with --read-only");
		return cmd_record(ctx, argc - 1, argv + 1);
	}
	return cli_error(CLI_USAGE, "ops: unknown command '%s' (list, show, rollback, revert, record)", sub);
}
