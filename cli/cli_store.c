/* agentctl memo read|write|append|list, artifact list|show, trace show:
 * the storage-backend contracts (ac_backend.h) from the command line,
 * through the workspace's store (ac_workspace_store(): PostgreSQL when
 * storage.url is set, else the workspace's files).
 *
 * Documents, artifacts and traces are data written by agents: what they
 * hold reaches the terminal only sanitised (ac_text.h), always, not only
 * when stdout is a terminal, because a pipe often ends in one (less -R,
 * a CI log viewer). Line breaks and tabs stay as they are. Artifacts and
 * traces are looked up under the session's own tenant (metadata.tenantId):
 * the operator sees every tenant. */
#include "cli.h"

#include "ac_backend.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_session.h"
#include "ac_text.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A document shown as its blocks come: made safe, line breaks and tabs
 * kept, written as it is made, so memory stays the same whatever the
 * document's size. */
#define OUTPUT_LOST 1 /* "stdout failed": not an AC_E* code */

static int write_out(const char *bytes, size_t len, void *ctx)
{
	(void)ctx;
	return cli_write(bytes, len) ? 0 : OUTPUT_LOST;
}

static int show_block(const char *bytes, size_t len, void *ctx)
{
	return ac_text_stream_feed(ctx, bytes, len);
}

/* Ends what stream (or, in a backend without one, read) showed: rc is
 * its result. */
static int show_finish(ac_text_stream *shown, int rc)
{
	if (rc == 0)
		rc = ac_text_stream_end(shown);
	if (rc < 0) {
		cli_finish_output();
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	}
	return cli_finish_output();
}

/* The whole text of a backend without a stream op, shown the same way.
 * rc is read's result: the caller calls read before this (in the call's
 * own arguments, text and len could be read before read sets them). */
static int show_whole(ac_text_stream *shown, int rc, char *text, size_t len)
{
	if (rc == 0)
		rc = show_block(text, len, shown);
	free(text);
	return show_finish(shown, rc);
}

static int print_names(char **names, size_t n, bool json)
{
	ac_buf line = AC_BUF_INIT;
	json_t *array = json_array();

	for (size_t i = 0; i < n; i++) {
		if (json) {
			json_array_append_new(array, json_string(names[i]));
			continue;
		}
		ac_buf_clear(&line);
		cli_put_cell(&line, names[i], 0);
		ac_buf_putc(&line, '\n');
		cli_write(line.data, line.len);
	}
	if (json)
		cli_write_json(array);
	json_decref(array);
	ac_buf_free(&line);
	return cli_finish_output();
}

/* ---- memo ---- */

static int memo_usage(void)
{
	return cli_error(CLI_USAGE, "usage: memo read|write|append TENANT OWNER SCOPE NAME [TEXT|-] "
			 "| memo list TENANT OWNER SCOPE [--json]");
}

static int check_memo_args(const char *tenant, const char *owner, const char *scope,
			   const char *name)
{
	if (ac_backend_id_check("tenant", tenant) || ac_backend_id_check("owner", owner) ||
	    ac_backend_scope_check(scope) || (name && ac_backend_id_check("memo name", name)))
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	return CLI_OK;
}

/* The arguments after the memo command's verb ("read"), parsed by its
 * spec into parsed: the count checked, the arguments moved to the front
 * of argv (parsed->pos is argv), which the callers read. */
static int memo_parse(cli_args *parsed, const char *verb, int argc, char **argv)
{
	return cli_args_parse(parsed, cli_spec_find("memo", verb), argc, argv);
}

static int memo_list(const ac_backend *b, int argc, char **argv)
{
	char **names = NULL;
	size_t n = 0;
	cli_args parsed;
	int status;

	if ((status = memo_parse(&parsed, "list", argc, argv)))
		return status;
	if ((status = check_memo_args(argv[0], argv[1], argv[2], NULL)))
		return status;
	if (ac_backend_memo_list(b, &names, &n, argv[0], argv[1], argv[2]))
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	status = print_names(names, n, cli_args_has(&parsed, "--json"));
	ac_backend_names_free(names, n);
	return status;
}

static int memo_change(const ac_backend *b, const cli_context *ctx, bool append, int argc,
		       char **argv)
{
	ac_buf input = AC_BUF_INIT;
	const char *text;
	size_t len;
	cli_args parsed;
	int status, rc;

	if ((status = memo_parse(&parsed, append ? "append" : "write", argc, argv)))
		return status;
	if ((status = check_memo_args(argv[0], argv[1], argv[2], argv[3])))
		return status;
	if ((status = cli_read_input(&input, argv[4], "memo")))
		goto done;
	text = input.data;
	len = input.len;
	rc = append ? ac_backend_memo_append(b, argv[0], argv[1], argv[2], argv[3], text, len)
		    : ac_backend_memo_write(b, argv[0], argv[1], argv[2], argv[3], text, len);
	if (rc) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	{
		ac_buf line = AC_BUF_INIT;

		ac_buf_printf(&line, "memo %s/%s/%s/%s: %zu bytes %s\n", argv[0], argv[1], argv[2],
			      argv[3], len, append ? "appended" : "written");
		cli_write(line.data, line.len);
		ac_buf_free(&line);
	}
	cli_sandbox_after_memo(b, ctx, argv[0], argv[1], argv[2]);
	status = cli_finish_output();
done:
	ac_buf_free(&input);
	return status;
}

static int memo_read(const ac_backend *b, int argc, char **argv)
{
	ac_text_stream shown = AC_TEXT_STREAM_INIT(write_out, NULL);
	char *text = NULL;
	size_t len = 0;
	cli_args parsed;
	int status;

	if ((status = memo_parse(&parsed, "read", argc, argv)))
		return status;
	if ((status = check_memo_args(argv[0], argv[1], argv[2], argv[3])))
		return status;
	if (ac_backend_has_memo_stream(b))
		return show_finish(&shown, ac_backend_memo_stream(b, show_block, &shown, argv[0],
							  argv[1], argv[2], argv[3]));
	status = ac_backend_memo_read(b, &text, &len, argv[0], argv[1], argv[2], argv[3]);
	return show_whole(&shown, status, text, len);
}

int cli_memo(cli_context *ctx, int argc, char **argv)
{
	const char *verb = argc ? argv[0] : "";
	ac_backend *b = NULL;
	int status;

	if (strcmp(verb, "read") && strcmp(verb, "write") && strcmp(verb, "append") &&
	    strcmp(verb, "list"))
		return argc ? cli_error(CLI_USAGE, "memo: unknown command '%s'", verb) : memo_usage();
	if (ctx->read_only && (!strcmp(verb, "write") || !strcmp(verb, "append")))
		return cli_error(CLI_USAGE, "memo %s: --read-only forbids changes", verb);
	if ((status = cli_open_backend(&b, ctx)))
		return status;
	if (!strcmp(verb, "read"))
		status = memo_read(b, argc - 1, argv + 1);
	else if (!strcmp(verb, "list"))
		status = memo_list(b, argc - 1, argv + 1);
	else
		status = memo_change(b, ctx, !strcmp(verb, "append"), argc - 1, argv + 1);
	cli_close_backend(ctx, b);
	return status;
}

/* ---- artifact and trace: by session, under its own tenant ---- */

/* The session's tenant as the store has it: inspector.find, one lookup by
 * id (a database reads one row by its key), never the whole listing. */
static int found_tenant(char **out, const ac_backend *b, const char *session_id)
{
	ac_backend_session_info info = {0};
	int rc = ac_backend_inspector_find(b, &info, session_id);

	*out = NULL;
	if (!rc && !(*out = strdup(info.tenant)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	ac_backend_session_info_clear(&info);
	return rc;
}

/* *out (allocated): the tenant session_id belongs to. */
static int session_tenant(char **out, const cli_context *ctx, const ac_backend *b,
			  const char *session_id, const char *what)
{
	ac_session *s = NULL;
	const char *tenant;
	int status = CLI_OK;

	if (ac_backend_id_check("session", session_id))
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	/* A shared store knows every session's tenant; a session file says it
	 * in its metadata (or not: the seed's have none). */
	if (!ac_backend_has_local_sessions(b)) {
		if (found_tenant(out, b, session_id))
			return cli_error(CLI_FAILED, "%s", ac_error_last());
		if (!**out) {
			free(*out);
			*out = NULL;
			return cli_error(CLI_FAILED, "session %s has no tenant, so no %s", session_id, what);
		}
		return CLI_OK;
	}
	if (ac_session_load(&s, ctx->ws.sessions_dir, session_id))
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	tenant = json_string_value(json_object_get(json_object_get(ac_session_root(s), "metadata"),
						   "tenantId"));
	if (!tenant)
		status = cli_error(CLI_FAILED, "session %s has no metadata.tenantId, so no %s",
				   session_id, what);
	else if (ac_backend_id_check("tenant", tenant))
		status = cli_error(CLI_FAILED, "session %s: metadata.tenantId: %s", session_id,
				   ac_error_last());
	else if (!(*out = strdup(tenant)))
		status = cli_error(CLI_FAILED, "out of memory");
	ac_session_free(s);
	return status;
}

int cli_artifact(cli_context *ctx, int argc, char **argv)
{
	const char *verb = argc ? argv[0] : "";
	bool json;
	const char *args[2] = {NULL, NULL};
	char *tenant = NULL, *text = NULL, **ids = NULL;
	size_t len = 0, n = 0;
	ac_backend *b = NULL;
	cli_args parsed;
	int status;

	if (!argc)
		return cli_error(CLI_USAGE, "usage: artifact list SESSION [--json] | artifact show SESSION ID");
	if (strcmp(verb, "list") && strcmp(verb, "show"))
		return cli_error(CLI_USAGE, "artifact: unknown command '%s'", verb);
	if ((status = cli_args_parse(&parsed, cli_spec_find("artifact", verb), argc - 1, argv + 1)))
		return status;
	json = cli_args_has(&parsed, "--json");
	for (int i = 0; i < parsed.npos; i++)
		args[i] = parsed.pos[i];
	if (args[1] && ac_backend_id_check("artifact id", args[1]))
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	if ((status = cli_open_backend(&b, ctx)) ||
	    (status = session_tenant(&tenant, ctx, b, args[0], "artifacts")))
		goto done;
	if (!args[1]) {
		if (ac_backend_artifact_list(b, &ids, &n, tenant, args[0]))
			status = cli_error(CLI_FAILED, "%s", ac_error_last());
		else
			status = print_names(ids, n, json);
	} else {
		ac_text_stream shown = AC_TEXT_STREAM_INIT(write_out, NULL);

		if (ac_backend_has_artifact_stream(b)) {
			status = show_finish(&shown, ac_backend_artifact_stream(b, show_block, &shown,
								       tenant, args[0], args[1]));
		} else {
			status = ac_backend_artifact_read(b, &text, &len, tenant, args[0], args[1]);
			status = show_whole(&shown, status, text, len);
		}
		text = NULL;
	}
done:
	ac_backend_names_free(ids, n);
	cli_close_backend(ctx, b);
	free(text);
	free(tenant);
	return status;
}

#define SUMMARY_BYTES 160 /* a record's data shown in the table, at most */

/* The start of a value's compact JSON: dumping stops once more than
 * SUMMARY_BYTES are there, as only they are shown. */
typedef struct {
	char text[SUMMARY_BYTES + 2];
	size_t len;
} summary_start;

static int keep_start(const char *bytes, size_t size, void *data)
{
	summary_start *s = data;
	size_t room = sizeof(s->text) - 1 - s->len;

	memcpy(s->text + s->len, bytes, size < room ? size : room);
	s->len += size < room ? size : room;
	return size < room ? 0 : -1;
}

/* What kind of record: the first of data's type, kind, event, name. */
static void put_record(ac_buf *line, const json_t *record)
{
	const json_t *data = json_object_get(record, "data");
	const char *at = json_string_value(json_object_get(record, "at"));
	summary_start summary = {{0}, 0};
	char seq[32];

	json_dump_callback(data, keep_start, &summary, JSON_COMPACT | JSON_PRESERVE_ORDER);
	summary.text[summary.len] = '\0';
	snprintf(seq, sizeof(seq), "%lld", (long long)json_integer_value(json_object_get(record, "seq")));
	ac_buf_clear(line);
	cli_put_cell(line, seq, 6);
	ac_buf_putc(line, ' ');
	cli_put_cell(line, at ? at : "-", 25);
	cli_put_cell(line, ac_backend_trace_kind(data), 16);
	ac_buf_putc(line, ' ');
	if (strlen(summary.text) > SUMMARY_BYTES)
		strcpy(summary.text + SUMMARY_BYTES - 3, "...");
	cli_put_cell(line, summary.text, 0);
	ac_buf_putc(line, '\n');
}

#define TRACE_OUTPUT_BUFFER (64 * 1024)

/* trace show's output, one record at a time: table lines, or the elements
 * of the JSON array cli_write_json() would print for the whole trace. */
typedef struct {
	bool json;
	size_t shown;
	ac_buf line;
	ac_buf safe;
} trace_output;

/* One record as an element of that array: its 2-space dump, one level in. */
static int put_json_record(trace_output *t, const json_t *record)
{
	size_t len = 0;
	char *text = ac_json_exact_dumps(record, JSON_INDENT(2) | JSON_PRESERVE_ORDER, &len);
	int rc = text ? 0 : AC_ENOMEM;

	ac_buf_clear(&t->line);
	ac_buf_clear(&t->safe);
	rc = rc ? rc : ac_buf_append(&t->line, t->shown ? ",\n  " : "[\n  ", 4);
	/* Compact or not, jansson escapes line breaks in strings: each one
	 * in the dump is structure and takes the extra level. */
	for (size_t i = 0, start = 0; !rc && i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		rc = ac_buf_append(&t->line, text + start, i - start);
		if (!rc && i < len)
			rc = ac_buf_append(&t->line, "\n  ", 3);
		start = i + 1;
	}
	free(text);
	if (rc || ac_text_json_safe(&t->safe, t->line.data, t->line.len))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return cli_write(t->safe.data, t->safe.len) ? 0 : OUTPUT_LOST;
}

static int show_record(const json_t *record, void *ctx)
{
	trace_output *t = ctx;
	int rc;

	if (t->json) {
		rc = put_json_record(t, record);
	} else {
		put_record(&t->line, record);
		rc = cli_write(t->line.data, t->line.len) ? 0 : OUTPUT_LOST;
	}
	t->shown++;
	return rc;
}

/* Walks the trace with the backend's each, or loads it whole in one
 * without. */
static int each_record(const ac_backend *b, trace_output *t, size_t *skipped, const char *tenant,
		       const char *session_id)
{
	json_t *records = NULL, *record;
	size_t i;
	int rc;

	if (ac_backend_has_trace_each(b))
		return ac_backend_trace_each(b, skipped, show_record, t, tenant, session_id);
	if ((rc = ac_backend_trace_load(b, &records, skipped, tenant, session_id, 0)))
		return rc;
	json_array_foreach(records, i, record)
		if ((rc = show_record(record, t)))
			break;
	json_decref(records);
	return rc;
}

int cli_trace(cli_context *ctx, int argc, char **argv)
{
	static const char header[] = "SEQ    AT                       KIND             DATA\n";
	trace_output out = {false, 0, AC_BUF_INIT, AC_BUF_INIT};
	const char *session_id;
	char *tenant = NULL;
	ac_backend *b = NULL;
	size_t skipped = 0;
	cli_args parsed;
	int status, rc;

	if (!argc)
		return cli_error(CLI_USAGE, "usage: trace show SESSION [--json]");
	if (strcmp(argv[0], "show"))
		return cli_error(CLI_USAGE, "trace: unknown command '%s'", argv[0]);
	if ((status = cli_args_parse_as(&parsed, "trace show", argc - 1, argv + 1)))
		return status;
	out.json = cli_args_has(&parsed, "--json");
	session_id = parsed.pos[0];
	if ((status = cli_open_backend(&b, ctx)) ||
	    (status = session_tenant(&tenant, ctx, b, session_id, "trace")))
		goto done;
	/* A line a record: into a pipe or file, in 64 KiB writes rather
	 * than stdio's 4 KiB (a terminal keeps its line buffering). */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, TRACE_OUTPUT_BUFFER);
	if (!out.json)
		cli_write(header, sizeof(header) - 1);
	rc = each_record(b, &out, &skipped, tenant, session_id);
	if (rc < 0) {
		cli_finish_output();
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	if (rc == 0 && out.json)
		cli_write(out.shown ? "\n]\n" : "[]\n", 3); /* both 3 bytes */
	if (skipped)
		cli_note("trace of session %s: %zu torn or corrupt line%s skipped", session_id, skipped,
			 skipped == 1 ? "" : "s");
	status = cli_finish_output();
done:
	ac_buf_free(&out.line);
	ac_buf_free(&out.safe);
	cli_close_backend(ctx, b);
	free(tenant);
	return status;
}
