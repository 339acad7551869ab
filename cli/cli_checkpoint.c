/* agentctl checkpoint list|create|rollback|auto, over the workspace's
 * checkpoint provider (retention: keep everything). create is the
 * checkpoint feature's createCheckpoint for agents in any language. The
 * session is the store's (storage.url: a database) or its file: the
 * operator functions (ac_operator.h) choose. */
#include "cli.h"

#include "ac_buf.h"
#include "ac_checkpoint.h"
#include "ac_checkpoint_runtime.h"
#include "ac_error.h"
#include "ac_operator.h"
#include "ac_session.h"
#include "ac_text.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void report_problem(const char *path, const char *reason, void *ctx)
{
	(void)path;
	(void)ctx;
	cli_note("%s (skipped)", reason);
}

static int open_store(ac_checkpoint_store **out, const ac_workspace *ws)
{
	if (ac_checkpoint_store_open(out, ws) != 0)
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	ac_checkpoint_store_set_problem(*out, report_problem, NULL);
	return CLI_OK;
}

static json_t *summary_json(const ac_checkpoint_header *c)
{
	return json_pack("{s:I, s:s, s:s, s:s, s:o, s:I, s:b}",
			 "version", (json_int_t)c->version,
			 "checkpointId", c->checkpoint_id, "nodeId", c->node_id,
			 "createdAt", c->created_at ? c->created_at : "",
			 "parentId", c->parent_id ? json_stringn(c->parent_id, c->parent_id_len) : json_null(),
			 "messages", (json_int_t)c->messages,
			 "tombstone", c->tombstone);
}

/* Reads only each checkpoint's header (one document at a time): a session
 * may hold thousands of them. */
static int cmd_list(const cli_context *ctx, int argc, char **argv)
{
	const ac_workspace *ws = &ctx->ws;
	ac_checkpoint_filter filter = {.include_tombstones = true};
	ac_checkpoint_store *store = NULL;
	ac_checkpoint_header_list list = {0};
	json_t *array = NULL;
	ac_buf line = AC_BUF_INIT;
	bool json;
	cli_args args;
	int status;

	if ((status = cli_args_parse_as(&args, "checkpoint list", argc, argv)))
		return status;
	json = cli_args_has(&args, "--json");
	filter.session_id = args.pos[0];
	if (ac_session_id_check(filter.session_id) != 0)
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	if ((status = open_store(&store, ws)))
		return status;
	if (ac_checkpoint_store_list_headers(&list, store, &filter) != 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	if (list.count == 0 && (status = cli_session_exists(ctx, filter.session_id,
							    "checkpoint list")))
		goto done;
	if (json) {
		array = json_array();
		for (size_t i = 0; i < list.count; i++)
			json_array_append_new(array, summary_json(&list.items[i]));
		cli_write_json(array);
	} else {
		static const char header[] = "VERSION  ID                                    "
					     "NODE             CREATED                   MSGS\n";

		cli_write(header, sizeof(header) - 1);
		for (size_t i = 0; i < list.count; i++) {
			const ac_checkpoint_header *c = &list.items[i];
			char number[32];

			ac_buf_clear(&line);
			snprintf(number, sizeof(number), "%7lld", (long long)c->version);
			cli_put_cell(&line, number, 9);
			cli_put_cell(&line, c->checkpoint_id, 38);
			cli_put_cell(&line, c->node_id, 17);
			cli_put_cell(&line, c->created_at ? c->created_at : "-", 26);
			ac_buf_printf(&line, "%4zu", c->messages);
			if (c->tombstone)
				ac_buf_append(&line, "  (tombstone)", 13);
			ac_buf_putc(&line, '\n');
			cli_write(line.data, line.len);
		}
	}
	status = cli_finish_output();
done:
	json_decref(array);
	ac_checkpoint_header_list_free(&list);
	ac_buf_free(&line);
	ac_checkpoint_store_free(store);
	return status;
}

/* checkpoint create prints the checkpoint's id (a program's handle on it),
 * or with --json the document saved. */
static int cmd_create(const ac_workspace *ws, int argc, char **argv)
{
	ac_checkpoint_create_options opts = AC_CHECKPOINT_CREATE_OPTIONS_INIT;
	ac_checkpoint_store *store = NULL;
	const char *session, *input_arg, *version_arg;
	bool json, tombstone;
	ac_buf text = AC_BUF_INIT;
	json_t *doc = NULL, *input = NULL;
	cli_args args;
	int status = CLI_OK;

	if ((status = cli_args_parse_as(&args, "checkpoint create", argc, argv)))
		return status;
	session = args.pos[0];
	json = cli_args_has(&args, "--json");
	tombstone = cli_args_has(&args, "--tombstone");
	opts.node = cli_args_get(&args, "--node");
	input_arg = cli_args_get(&args, "--input");
	opts.last_input_type = cli_args_get(&args, "--input-type");
	opts.checkpoint_id = cli_args_get(&args, "--id");
	version_arg = cli_args_get(&args, "--version");
	if (ac_session_id_check(session) != 0)
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	if (opts.node && !*opts.node)
		return cli_error(CLI_USAGE, "checkpoint create: --node needs a name");
	if (tombstone && opts.node && strcmp(opts.node, AC_CHECKPOINT_TOMBSTONE))
		return cli_error(CLI_USAGE, "checkpoint create: --tombstone and --node %s disagree "
				 "(a tombstone's node is \"tombstone\")", opts.node);
	if (tombstone)
		opts.node = AC_CHECKPOINT_TOMBSTONE;
	if (opts.last_input_type && !*opts.last_input_type)
		return cli_error(CLI_USAGE, "checkpoint create: --input-type needs a name");
	if (opts.checkpoint_id &&
	    (status = cli_check_new_id("checkpoint create", opts.checkpoint_id)))
		return status;
	if (opts.checkpoint_id && ac_checkpoint_id_check(opts.checkpoint_id) != 0)
		return cli_error(CLI_USAGE, "checkpoint create: --id: %s", ac_error_last());
	if ((opts.node && (status = cli_check_utf8("checkpoint create: --node", opts.node))) ||
	    (opts.last_input_type &&
	     (status = cli_check_utf8("checkpoint create: --input-type", opts.last_input_type))) ||
	    (opts.checkpoint_id &&
	     (status = cli_check_utf8("checkpoint create: --id", opts.checkpoint_id))))
		return status;
	if (version_arg) {
		uint64_t version = 0;

		if ((status = cli_parse_whole(&version, "checkpoint create: --version", version_arg,
					      AC_CHECKPOINT_VERSION_MAX)))
			return status;
		opts.set_version = true;
		opts.checkpoint_version = (int64_t)version;
	}
	if (input_arg) {
		if ((status = cli_read_input(&text, input_arg, "checkpoint create --input")) ||
		    (status = cli_parse_json(&input, &text, "checkpoint create: --input")))
			goto done;
		opts.last_input = input;
	}
	if ((status = open_store(&store, ws)))
		goto done;
	if (ac_checkpoint_store_is_none(store)) {
		status = cli_error(CLI_FAILED, "checkpoint create: checkpoint.provider is none (no "
				   "persistence, the seed's default): nothing was saved");
		goto done;
	}
	if (ac_operator_create_checkpoint(&doc, store, ws, session, &opts) != 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	if (json) {
		cli_write_json(doc);
	} else {
		ac_buf_clear(&text);
		ac_text_sanitize(&text, ac_checkpoint_id(doc), strlen(ac_checkpoint_id(doc)));
		ac_buf_putc(&text, '\n');
		cli_write(text.data, text.len);
	}
	status = cli_finish_output();
done:
	ac_buf_free(&text);
	json_decref(input);
	json_decref(doc);
	ac_checkpoint_store_free(store);
	return status;
}

static void put_safe(ac_buf *out, const char *text)
{
	ac_text_sanitize(out, text, strlen(text));
}

/* The plan, as the user confirms it. */
static void describe_plan(ac_buf *out, const ac_checkpoint_plan *plan)
{
	const json_t *c = plan->checkpoint;

	ac_buf_append(out, "roll back session ", 18);
	put_safe(out, plan->session_id);
	ac_buf_append(out, " to checkpoint ", 15);
	put_safe(out, ac_checkpoint_id(c));
	ac_buf_printf(out, " (version %lld, node ", (long long)ac_checkpoint_version(c));
	put_safe(out, ac_checkpoint_node(c));
	ac_buf_printf(out, ")\n  messages that will be removed: %zu (of %zu; %zu kept)\n",
		      plan->remove, plan->keep + plan->remove, plan->keep);
	if (plan->unfolded)
		ac_buf_printf(out, "  the checkpoint is older than the session's last compaction: "
			      "its history is rebuilt from the archive of %zu compaction(s) "
			      "(the session's %zu messages are replaced; all are archived)\n"
			      "  compensations skipped for %zu tool call(s) made before the "
			      "compaction (Koog skips them too)\n", plan->compactions,
			      json_array_size(plan->history), plan->n_before_compaction);
	ac_buf_printf(out, "  compensations that will run, newest first: %zu\n",
		      plan->n_calls - plan->n_unconfigured);
	for (size_t i = 0; i < plan->n_calls; i++) {
		const ac_checkpoint_compensation *k = &plan->calls[i];

		ac_buf_append(out, "    ", 4);
		put_safe(out, *k->tool ? k->tool : "?");
		ac_buf_append(out, " call ", 6);
		put_safe(out, k->call_id);
		if (!k->argv) {
			ac_buf_append(out, ": no compensation configured (not undone)\n", 42);
			continue;
		}
		ac_buf_append(out, ": ", 2);
		{
			json_t *cmd = json_array();
			char *text;

			for (size_t a = 0; k->argv[a]; a++)
				json_array_append_new(cmd, json_string(k->argv[a]));
			text = json_dumps(cmd, JSON_COMPACT);
			put_safe(out, text ? text : "?");
			free(text);
			json_decref(cmd);
		}
		ac_buf_putc(out, '\n');
	}
	if (plan->n_unconfigured)
		ac_buf_printf(out, "  note: %zu tool call(s) have no compensation configured in "
			      "rollbackTools; their effects will not be undone\n", plan->n_unconfigured);
}

/* Asks on the terminal; true for y or yes. */
static bool confirm(void)
{
	char answer[16];

	fputs("roll back? [y/N] ", stdout);
	fflush(stdout);
	if (!fgets(answer, sizeof(answer), stdin))
		return false;
	return !strcmp(answer, "y\n") || !strcmp(answer, "Y\n") || !strcmp(answer, "yes\n");
}

static int cmd_rollback(const ac_workspace *ws, int argc, char **argv)
{
	ac_checkpoint_plan plan = {0};
	ac_checkpoint_store *store = NULL;
	const char *session, *ckpt;
	bool latest, yes;
	ac_buf out = AC_BUF_INIT, notes = AC_BUF_INIT;
	ac_checkpoint_rollback_result result = {0};
	ac_checkpoint_uncertain uncertain = AC_CHECKPOINT_UNCERTAIN_STOP;
	cli_args args;
	int status;

	if ((status = cli_args_parse_as(&args, "checkpoint rollback", argc, argv)))
		return status;
	session = args.pos[0];
	ckpt = args.npos > 1 ? args.pos[1] : NULL;
	latest = cli_args_has(&args, "--latest");
	yes = cli_args_has(&args, "--yes");
	/* --skip-uncertain and --rerun-uncertain together: refused by the
	 * parser (the spec says they exclude each other). */
	if (cli_args_has(&args, "--skip-uncertain"))
		uncertain = AC_CHECKPOINT_UNCERTAIN_SKIP;
	else if (cli_args_has(&args, "--rerun-uncertain"))
		uncertain = AC_CHECKPOINT_UNCERTAIN_RERUN;
	if (latest == (ckpt != NULL))
		return cli_args_say_missing(&args);
	if (ac_session_id_check(session) != 0 || (ckpt && ac_checkpoint_id_check(ckpt) != 0))
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	if ((status = open_store(&store, ws)))
		return status;
	if (ac_operator_plan_rollback(&plan, store, ws, session, ckpt) != 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	plan.uncertain = uncertain;
	if (plan.remove == 0 && !plan.unfolded) {
		ac_buf_append(&out, "session ", 8);
		put_safe(&out, session);
		ac_buf_append(&out, " is already at checkpoint ", 26);
		put_safe(&out, ac_checkpoint_id(plan.checkpoint));
		ac_buf_append(&out, ": nothing to roll back\n", 23);
		cli_write(out.data, out.len);
		status = cli_finish_output();
		goto done;
	}
	describe_plan(&out, &plan);
	cli_write(out.data, out.len);
	if (!yes) {
		if (!isatty(STDIN_FILENO)) {
			cli_finish_output();
			status = cli_error(CLI_USAGE, "checkpoint rollback: needs --yes (standard input "
					   "is not a terminal); nothing was changed");
			goto done;
		}
		if (!confirm()) {
			printf("cancelled; nothing was changed\n");
			status = cli_finish_output();
			goto done;
		}
	}
	if (ac_operator_rollback_checkpoint(ws, session, &plan, &result, &notes) != 0) {
		if (notes.len)
			cli_note("%s", notes.data);
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	if (notes.len)
		cli_note("%s", notes.data);
	ac_buf_clear(&out);
	ac_buf_append(&out, "rolled back session ", 20);
	put_safe(&out, session);
	ac_buf_append(&out, " to checkpoint ", 15);
	put_safe(&out, ac_checkpoint_id(plan.checkpoint));
	ac_buf_printf(&out, ": %zu messages removed, %zu compensations ran", plan.remove, result.ran);
	if (result.skipped)
		ac_buf_printf(&out, " (%zu had run in an earlier attempt)", result.skipped);
	if (plan.unfolded)
		ac_buf_printf(&out, "; behind %zu compaction(s), %zu compensation(s) skipped for "
			      "tool calls made before it", plan.compactions, plan.n_before_compaction);
	if (result.uncertain)
		ac_buf_printf(&out, "; %zu started by an interrupted attempt %s", result.uncertain,
			      uncertain == AC_CHECKPOINT_UNCERTAIN_SKIP ? "skipped as if it ran"
								 : "ran again");
	if (result.archive_path) {
		ac_buf_append(&out, "; removed messages archived in ", 31);
		put_safe(&out, result.archive_path);
	}
	ac_buf_putc(&out, '\n');
	cli_write(out.data, out.len);
	status = cli_finish_output();
done:
	ac_checkpoint_rollback_result_free(&result);
	ac_buf_free(&out);
	ac_buf_free(&notes);
	ac_checkpoint_plan_free(&plan);
	ac_checkpoint_store_free(store);
	return status;
}

/* checkpoint auto SESSION on|off: automatic persistence for one session
 * (a checkpoint after every completed turn). */
static int cmd_auto(const ac_workspace *ws, int argc, char **argv)
{
	cli_args args;
	bool on;
	int status;

	if ((status = cli_args_parse_as(&args, "checkpoint auto", argc, argv)))
		return status;
	argv = args.pos;
	/* Another word is refused as a missing one is: by the usage line. */
	if (strcmp(argv[1], "on") && strcmp(argv[1], "off"))
		return cli_args_say_missing(&args);
	if (ac_session_id_check(argv[0]) != 0)
		return cli_error(CLI_USAGE, "checkpoint auto: %s", ac_error_last());
	on = !strcmp(argv[1], "on");
	if (ac_operator_set_checkpoint_auto(ws, argv[0], on) != 0)
		return cli_error(CLI_FAILED, "checkpoint auto: %s", ac_error_last());
	return CLI_OK;
}

int cli_checkpoint(cli_context *ctx, int argc, char **argv)
{
	const ac_workspace *ws = &ctx->ws;
	const char *verb = argc ? argv[0] : "";

	if (argc == 0)
		return cli_error(CLI_USAGE, "checkpoint needs a command: list, create, rollback or "
				 "auto");
	if (!strcmp(verb, "list"))
		return cmd_list(ctx, argc - 1, argv + 1);
	if (strcmp(verb, "create") && strcmp(verb, "rollback") && strcmp(verb, "auto"))
		return cli_error(CLI_USAGE, "checkpoint: unknown command '%s'", verb);
	if (ctx->read_only)
		return cli_error(CLI_USAGE, "checkpoint %s: --read-only forbids changes", verb);
	if (!strcmp(verb, "create"))
		return cmd_create(ws, argc - 1, argv + 1);
	if (!strcmp(verb, "auto"))
		return cmd_auto(ws, argc - 1, argv + 1);
	return cmd_rollback(ws, argc - 1, argv + 1);
}
