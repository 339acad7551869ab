/* agentctl session list|show|pause|resume|complete|fail|compact, and the
 * writes an agent makes through the command line: create|append|record-turn,
 * on the workspace's store whichever it is (cli_open_backend()). Session
 * files that local agents write are read and changed through ac_session.h
 * (pending requests and transcripts beside them); a store hosts share
 * (ac_backend_has_local_sessions() false: a database) through ac_backend.h's calls,
 * printed the same way plus what it knows and the files do not: the host
 * that last wrote each session (a HOST column, "host" in --json; show adds
 * the agent that wrote it). Its status changes are compare-and-sets
 * (ac_operator_set_status()); its sessions always have a tenant, the
 * workspace's default when create names none (ac_workspace_tenant()).
 *
 * Those three are the seeds' JsonSessionStore.create, appendMessages and
 * recordTurn for agents in any language, through the same core calls as
 * the library (ac_session.h): atomic rewrites that never lose a turn
 * another writer saved. Their input is checked whole before anything is
 * written (exit 2 naming the field at fault). Like the library calls, they
 * are the agent's own data and are not journaled: the journal records what
 * agents report (`journal log`) and what the operator does to a session. */
#include "cli.h"
#include "cli_sources.h"

#include "ac_buf.h"
#include "ac_checkpoint_runtime.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_messages.h"
#include "ac_operator.h"
#include "ac_session.h"
#include "ac_session_index.h"
#include "ac_text.h"
#include "ac_turn_usage.h"
#include "ac_time.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const statuses[] = {"running", "paused", "completed", "failed", NULL};

static bool is_status(const char *s)
{
	for (size_t i = 0; statuses[i]; i++)
		if (!strcmp(statuses[i], s))
			return true;
	return false;
}

static const char *or_dash(const char *text)
{
	return text && *text ? text : "-";
}

static void report_problem(const char *path, const char *reason, void *ctx)
{
	(void)path;
	(void)ctx;
	cli_note("%s (skipped)", reason);
}

/* One row of `session list`, from a session file's summary or a store's
 * listing (strings borrowed). host is NULL on the local files, which do
 * not record it: the HOST column is shown only for a store that does. */
typedef struct {
	const char *id, *task, *status, *created, *updated, *tenant, *user, *agent, *host;
	size_t task_len, messages;
	uint64_t tokens, input_tokens, output_tokens, turns;
} list_row;

static void row_of_summary(list_row *r, const ac_session_summary *s)
{
	*r = (list_row){s->id, s->task, s->status, s->created_at, s->updated_at, s->tenant, s->user,
			s->agent, NULL, ac_session_summary_task_len(s), s->messages, s->tokens,
			s->input_tokens, s->output_tokens, s->turns};
}

static void row_of_info(list_row *r, const ac_backend_session_info *s)
{
	const char *task = s->task ? s->task : "";

	*r = (list_row){s->session_id, task, s->status, s->created_at ? s->created_at : "",
			s->updated_at, s->tenant, s->user, s->agent, s->host, strlen(task),
			s->messages, s->tokens, s->input_tokens, s->output_tokens, s->turns};
}

static json_t *row_json(const list_row *s, ac_pending pending)
{
	/* The task whole, a \u0000 or a lone surrogate in it included.
	 * turns: metadata.usage.turns, one a record-turn (seed 001's
	 * listSessions selects it beside tokens). */
	json_t *entry = json_pack("{s:s, s:o, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:s}",
				  "id", s->id, "task", ac_json_exact_stringn(s->task, s->task_len),
				  "status", s->status,
				  "createdAt", s->created, "updatedAt", s->updated,
				  "tenantId", s->tenant, "userId", s->user, "agentId", s->agent,
				  "messages", (json_int_t)s->messages, "turns", (json_int_t)s->turns,
				  "tokens", (json_int_t)s->tokens,
				  "inputTokens", (json_int_t)s->input_tokens,
				  "outputTokens", (json_int_t)s->output_tokens,
				  "pending", ac_pending_text(pending));

	if (entry && s->host)
		json_object_set_new(entry, "host", json_string(s->host));
	return entry;
}

/* What operator requests leave pending, for the sessions that have one
 * (a small folder is read, not one file per session). */
static ac_pending pending_of(const ac_workspace *ws, char **with_request, size_t n,
			     const list_row *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(with_request[i], s->id))
			return ac_operator_notice(ws, s->id, s->status);
	return AC_PENDING_NONE;
}

/* A session's state: its status, and how long it is quiet (its file's
 * age on the files; since its updatedAt in a store). */
static ac_session_state row_state(const cli_context *ctx, const list_row *s, bool local,
				  int64_t now)
{
	ac_state_inputs in = {s->status, AC_TURN_NONE, 0, false, 0, AC_AGENT_UNKNOWN};
	ac_state_thresholds limits;
	int64_t updated = 0;

	ac_source_state_limits(&limits, ctx->config);
	/* The file's age costs a stat: asked only when the state depends on
	 * it (a running session; not a paused, completed or failed one). */
	if (local) {
		ac_state_inputs quiet = in;

		quiet.quiet_ms = INT64_MAX;
		if (ac_session_state_derive(&in, &limits) != ac_session_state_derive(&quiet, &limits) &&
		    ac_session_idle_ms(&in.quiet_ms, ctx->ws.sessions_dir, s->id) != 0)
			ac_error_clear();
	}
	if (!local && ac_time_parse(&updated, s->updated) == 0 && updated <= now)
		in.quiet_ms = now - updated;
	ac_error_clear();
	return ac_session_state_derive(&in, &limits);
}

/* v in decimal, right-aligned in width columns, at *at (moved past it):
 * printf's "%*llu" without printf's cost on every row of a long listing. */
static void put_count(char **at, uint64_t v, int width)
{
	char digits[24];
	int n = 0;

	do {
		digits[sizeof(digits) - 1 - (size_t)n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (; width > n; width--)
		*(*at)++ = ' ';
	memcpy(*at, digits + sizeof(digits) - (size_t)n, (size_t)n);
	*at += n;
}

/* One row of the table appended to line; who is scratch room for the
 * USER/AGENT cell, reused from row to row (no allocation per row). */
static void put_row(ac_buf *line, ac_buf *who, const list_row *s)
{
	const char *user = or_dash(s->user), *agent = or_dash(s->agent);
	char number[64], *at = number;

	cli_put_cell(line, s->id, 37);
	ac_buf_putc(line, ' ');
	cli_put_cell(line, s->status, 10);
	ac_buf_putc(line, ' ');
	put_count(&at, s->messages, 5);
	*at++ = ' ';
	put_count(&at, s->tokens, 8);
	*at = '\0';
	cli_put_cell(line, number, 16);
	cli_put_cell(line, s->updated, 26);
	if (s->host)
		cli_put_cell(line, or_dash(s->host), 16);
	if (s->host)
		ac_buf_putc(line, ' ');
	ac_buf_clear(who);
	ac_buf_append(who, user, strlen(user));
	ac_buf_putc(who, '/');
	ac_buf_append(who, agent, strlen(agent));
	cli_put_cell(line, who->data ? who->data : "", 20);
	ac_buf_putc(line, ' ');
	/* Whole: a \u0000 shows as ^@, and what follows it is shown too. */
	ac_text_sanitize(line, s->task, s->task_len);
	ac_buf_putc(line, '\n');
}

typedef struct {
	const char *status, *user;
	bool state_set, json, all_projects, children;
	ac_session_state state;
} list_filter;

static int parse_list_args(list_filter *f, int argc, char **argv)
{
	const char *state;
	cli_args a;
	int status;

	if ((status = cli_args_parse_as(&a, "session list", argc, argv)))
		return status;
	f->json = cli_args_has(&a, "--json");
	f->all_projects = cli_args_has(&a, "--all-projects");
	f->children = cli_args_has(&a, "--children");
	f->user = cli_args_get(&a, "--user");
	f->status = cli_args_get(&a, "--status");
	if (f->status && !is_status(f->status))
		return cli_error(CLI_USAGE, "--status: '%s' is not one of running, paused, "
				 "completed, failed", f->status);
	if ((state = cli_args_get(&a, "--state"))) {
		if (ac_session_state_parse(&f->state, state))
			return cli_error(CLI_USAGE, "--state: %s", ac_error_last());
		f->state_set = true;
	}
	return CLI_OK;
}

/* The transcripts in the order they are listed: those that pass the
 * filter (a transcript has no status and no user: --status and --user
 * leave it out), with --children each session's sub-agents and forks
 * right after it (cli_sources_tree). */
typedef struct {
	ac_source_session *const *list;
	ac_session_state *state;
	size_t *order;
	unsigned char *depth;
	size_t n, at;
} source_rows;

static int source_rows_make(source_rows *r, const cli_context *ctx, const list_filter *f,
			    ac_source_session *const *list, size_t n)
{
	int64_t now = ac_time_now_ms();
	bool *shown = calloc(n + 1, sizeof(*shown));
	int rc;

	memset(r, 0, sizeof(*r));
	r->list = list;
	if (!shown || !(r->state = calloc(n + 1, sizeof(*r->state)))) {
		free(shown);
		return cli_error(CLI_FAILED, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		r->state[i] = cli_source_state(list[i], now, ctx->config);
		shown[i] = !f->status && !f->user && (!f->state_set || r->state[i] == f->state);
	}
	rc = cli_sources_tree(&r->order, &r->depth, &r->n, list, n, shown, f->children);
	free(shown);
	return rc ? cli_error(CLI_FAILED, "%s", ac_error_last()) : CLI_OK;
}

static void source_rows_free(source_rows *r)
{
	free(r->state);
	free(r->order);
	free(r->depth);
}

/* Rows are written in blocks of this many bytes or more, not one by one. */
#define ROWS_BLOCK (64 * 1024)

/* The rows (or JSON elements) up to the first session older than until
 * (NULL: all); a child goes with its parent, whatever its time. */
static void list_sources(const list_filter *f, source_rows *r, const char *until, json_t *array,
			 ac_buf *line)
{
	ac_buf_clear(line);
	for (; r->at < r->n; r->at++) {
		size_t i = r->order[r->at];
		const ac_source_session *s = r->list[i];

		if (until && !r->depth[r->at] && strcmp(s->updated ? s->updated : "", until) < 0)
			break;
		if (f->json) {
			json_array_append_new(array, cli_source_json(s, r->state[i]));
			continue;
		}
		cli_source_row(line, s, r->state[i], r->depth[r->at]);
		if (line->len >= ROWS_BLOCK) {
			cli_write(line->data, line->len);
			ac_buf_clear(line);
		}
	}
	if (line->len)
		cli_write(line->data, line->len);
	ac_buf_clear(line);
}

/* The store's sessions, newest first, as rows over *keep (freed by the
 * caller): the session files through their index on the local files
 * (*index), else the store's listing (*infos). */
static int list_rows(list_row **out, size_t *out_n, ac_session_index **index,
		     ac_backend_session_info **infos, const ac_backend *b, const ac_workspace *ws)
{
	const ac_session_summary *const *list;
	size_t n = 0;

	*out = NULL;
	*out_n = 0;
	if (ac_backend_has_local_sessions(b)) {
		size_t parsed = 0;

		/* Through the cache of the last listing: only the files that
		 * changed since are read (ac_session_index_use_cache()). */
		if (ac_session_index_new(index, ws->sessions_dir) != 0 ||
		    ac_session_index_use_cache(*index) != 0 ||
		    ac_session_index_refresh(*index, report_problem, NULL, &parsed) != 0)
			return cli_error(CLI_FAILED, "%s", ac_error_last());
		/* A cache that cannot be written only costs the next listing time. */
		if (ac_session_index_save_cache(*index) != 0)
			ac_error_clear();
		list = ac_session_index_list(*index, &n);
		/* What a test counts (not time): how many session files were read. */
		if (getenv("AGENTCTL_DEBUG_STATS"))
			fprintf(stderr, "agentctl: session files read: %zu of %zu\n", parsed, n);
		if (!(*out = calloc(n + 1, sizeof(**out))))
			return cli_error(CLI_FAILED, "out of memory");
		for (size_t i = 0; i < n; i++)
			row_of_summary(&(*out)[i], list[i]);
	} else {
		if (ac_backend_inspector_list_sessions(b, infos, &n, NULL) != 0)
			return cli_error(CLI_FAILED, "session list: %s", ac_error_last());
		*out_n = n;
		if (!(*out = calloc(n + 1, sizeof(**out))))
			return cli_error(CLI_FAILED, "out of memory");
		for (size_t i = 0; i < n; i++)
			row_of_info(&(*out)[i], &(*infos)[i]);
	}
	*out_n = n;
	return CLI_OK;
}

/* What cmd_list writes each row with: the transcripts merged in, the
 * filters, the JSON elements gathered in array. */
typedef struct {
	const cli_context *ctx;
	const list_filter *f;
	source_rows *rows;
	json_t *array;
	ac_buf *line;
	ac_buf table, who; /* the table's rows not yet written; put_row()'s scratch */
	char **with_request;
	size_t nrequests, streamed; /* streamed: JSON elements written so far */
	int64_t now;
	bool local;
} list_out;

/* The table's rows gathered so far written out, before anything that
 * writes after them (a transcript's row, the end). */
static void list_rows_flush(list_out *o)
{
	if (o->table.len)
		cli_write(o->table.data, o->table.len);
	ac_buf_clear(&o->table);
}

static void list_one(list_out *o, const list_row *s)
{
	const list_filter *f = o->f;
	ac_session_state state;
	ac_pending pending;
	json_t *entry;

	/* Both lists are newest first: merged, they stay so. */
	if (o->table.len && o->rows->at < o->rows->n)
		list_rows_flush(o);
	list_sources(f, o->rows, s->updated, o->array, o->line);
	if ((f->status && strcmp(s->status, f->status)) || (f->user && strcmp(s->user, f->user)))
		return;
	/* Shown in JSON, filtered by --state: not worth a stat otherwise. */
	state = f->json || f->state_set ? row_state(o->ctx, s, o->local, o->now) : AC_STATE_RUNNING;
	if (f->state_set && state != f->state)
		return;
	pending = pending_of(&o->ctx->ws, o->with_request, o->nrequests, s);
	if (f->json) {
		entry = row_json(s, pending);
		/* Every store's rows say what the transcripts' say. */
		json_object_set_new(entry, "source", json_string("agentctl"));
		json_object_set_new(entry, "state", json_string(ac_session_state_name(state)));
		json_object_set_new(entry, "relation", json_string(""));
		json_object_set_new(entry, "parentId", json_null());
		json_array_append_new(o->array, entry);
		return;
	}
	if (pending != AC_PENDING_NONE)
		cli_note("session %s: %s", s->id, ac_pending_text(pending));
	/* Written a block at a time, not row by row (list_rows_flush()). */
	put_row(&o->table, &o->who, s);
	if (o->table.len >= ROWS_BLOCK)
		list_rows_flush(o);
}

/* The JSON elements gathered so far written out as cli_write_json()
 * writes them inside the whole array (each line of an element two spaces
 * further in), then let go: a streamed listing holds none of them. */
static int list_json_flush(list_out *o)
{
	ac_buf text = AC_BUF_INIT, safe = AC_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < json_array_size(o->array) && rc == 0; i++) {
		ac_buf_clear(&text);
		ac_buf_clear(&safe);
		/* An element left out would leave a document that lies. */
		if ((rc = ac_json_exact_dump_nested(&text, json_array_get(o->array, i),
						    JSON_INDENT(2) | JSON_PRESERVE_ORDER, 2)) ||
		    (rc = ac_buf_append(&safe, o->streamed ? ",\n  " : "[\n  ", 4)) ||
		    (rc = ac_text_json_safe(&safe, text.data, text.len)))
			break;
		o->streamed++;
		cli_write(safe.data, safe.len);
	}
	json_array_clear(o->array);
	ac_buf_free(&text);
	ac_buf_free(&safe);
	if (rc)
		return ac_error_set(rc, "writing the listing's JSON: %s",
				    rc == AC_ENOMEM ? "out of memory" : "a value is neither UTF-8 nor WTF-8");
	return 0;
}

static int list_streamed_row(const ac_backend_session_info *info, void *ctx)
{
	list_out *o = ctx;
	list_row r;

	row_of_info(&r, info);
	list_one(o, &r);
	return o->f->json ? list_json_flush(o) : 0;
}

/* A store that hands its listing out as it reads it (a database): the
 * rows written as they come, in memory a batch at a time whatever the
 * count; the same lines, and with --json the same document, as the
 * listing read whole. */
static int list_streamed(list_out *o, const ac_backend *b)
{
	int rc = ac_backend_each_session(b, NULL, list_streamed_row, o);

	/* The rows that came before a failure are shown, as they came. */
	list_rows_flush(o);
	if (rc != 0)
		return cli_error(CLI_FAILED, "session list: %s", ac_error_last());
	list_sources(o->f, o->rows, NULL, o->array, o->line);
	if (!o->f->json)
		return CLI_OK;
	if (list_json_flush(o) != 0)
		return cli_error(CLI_FAILED, "session list: %s", ac_error_last());
	if (o->streamed)
		cli_write("\n]\n", 3);
	else
		cli_write("[]\n", 3);
	return CLI_OK;
}

static int cmd_list(const cli_context *ctx, int argc, char **argv)
{
	static const char header[] = "ID                                    STATUS     MSGS   TOKENS  "
				     "UPDATED                   USER/AGENT           TASK\n";
	static const char header_hosts[] = "ID                                    STATUS     MSGS   "
					   "TOKENS  UPDATED                   HOST             "
					   "USER/AGENT           TASK\n";
	const ac_workspace *ws = &ctx->ws;
	ac_source_session *const *sources = NULL;
	ac_source_index *transcripts = NULL;
	ac_backend_session_info *infos = NULL;
	source_rows rows = {0};
	ac_session_index *index = NULL;
	list_row *list = NULL;
	list_filter f = {0};
	ac_buf line = AC_BUF_INIT;
	ac_backend *b = NULL;
	size_t n = 0, nsources = 0;
	list_out o = {.ctx = ctx, .f = &f, .rows = &rows, .line = &line,
		      .now = ac_time_now_ms()};
	bool streamed;
	int status;

	if ((status = parse_list_args(&f, argc, argv)) || (status = cli_open_backend(&b, ctx)))
		return status;
	o.local = ac_backend_has_local_sessions(b);
	streamed = !o.local && ac_backend_has_each_session(b);
	if (!streamed && (status = list_rows(&list, &n, &index, &infos, b, ws)))
		goto done;
	if ((status = cli_sources_open(&transcripts, ctx, f.all_projects)))
		goto done;
	sources = ac_source_index_list(transcripts, &nsources);
	if ((status = source_rows_make(&rows, ctx, &f, sources, nsources)))
		goto done;
	/* Requests are left beside session files for local agents. */
	if (o.local && ac_request_list(&o.with_request, &o.nrequests, ws->sessions_dir) != 0)
		cli_note("%s (pending requests not shown)", ac_error_last());
	o.array = json_array();
	if (!f.json)
		cli_write(o.local ? header : header_hosts,
			  o.local ? sizeof(header) - 1 : sizeof(header_hosts) - 1);
	if (streamed && (status = list_streamed(&o, b)))
		goto done;
	for (size_t i = 0; i < n; i++)
		list_one(&o, &list[i]);
	list_rows_flush(&o);
	if (!streamed)
		list_sources(&f, &rows, NULL, o.array, &line);
	if (f.json && !streamed)
		cli_write_json(o.array);
	status = cli_finish_output();
done:
	for (size_t i = 0; i < o.nrequests; i++)
		free(o.with_request[i]);
	free(o.with_request);
	json_decref(o.array);
	ac_buf_free(&line);
	ac_buf_free(&o.table);
	ac_buf_free(&o.who);
	free(list);
	ac_backend_sessions_free(infos, n);
	ac_session_index_free(index);
	source_rows_free(&rows);
	ac_source_index_free(transcripts);
	cli_close_backend(ctx, b);
	return status;
}

/* What `session show` prints of a session: its document, its turn usage,
 * and from a shared store's listing the host that wrote it. */
typedef struct {
	json_t *doc, *usage;
	ac_backend_session_info info; /* a shared store's; zero on the files */
	ac_session *file;             /* the session file; NULL in a store */
} shown_session;

/* Reads id from the store into *out: 0, or the core's error code (its
 * message in ac_error_last()). */
static int read_shown(shown_session *out, const ac_backend *b, const ac_workspace *ws,
		      const char *id)
{
	const json_t *metadata;
	int rc;

	if (!ac_backend_has_local_sessions(b)) {
		/* The operator names a session by id: its tenant comes from the store. */
		if ((rc = ac_backend_inspector_find(b, &out->info, id)) ||
		    (rc = ac_backend_session_get(b, &out->doc, out->info.tenant, id)))
			return rc;
		return ac_backend_session_load_usage(b, &out->usage, out->info.tenant, id);
	}
	if ((rc = ac_session_load(&out->file, ws->sessions_dir, id)))
		return rc;
	out->doc = json_incref(ac_session_root(out->file));
	metadata = json_object_get(out->doc, "metadata");
	return ac_turn_usage_load(&out->usage, ws->sessions_dir, id,
				  json_object_get(metadata, "usage"));
}

static void shown_free(shown_session *s)
{
	json_decref(s->doc);
	json_decref(s->usage);
	ac_backend_session_info_clear(&s->info);
	ac_session_free(s->file);
}

static int cmd_show(const cli_context *ctx, int argc, char **argv)
{
	const ac_workspace *ws = &ctx->ws;
	shown_session s = {0};
	ac_buf out = AC_BUF_INIT, text = AC_BUF_INIT;
	ac_backend *b = NULL;
	bool json = false, local;
	const char *id = NULL, *status_text;
	json_t *messages, *metadata;
	cli_args args;
	int status, rc;

	if ((status = cli_args_parse_as(&args, "session show", argc, argv)))
		return status;
	json = cli_args_has(&args, "--json");
	id = args.pos[0];
	if ((status = cli_open_backend(&b, ctx)))
		return status;
	local = ac_backend_has_local_sessions(b);
	/* A session file's name may hold what a store's id may not. */
	if (local ? ac_session_id_check(id) : ac_backend_id_check("session", id)) {
		status = cli_error(CLI_USAGE, "%s%s", local ? "" : "session show: ", ac_error_last());
		goto done;
	}
	if ((rc = read_shown(&s, b, ws, id)) != 0) {
		bool found = false;
		ac_buf why = AC_BUF_INIT;

		/* Not a session of the store: perhaps a coding agent's transcript.
		 * Either store's line names where it looked. */
		if (rc == AC_ENOTFOUND && !local)
			ac_buf_printf(&why, "session '%s' not found in %s", id,
				      ac_workspace_store_where(ws));
		else
			ac_buf_printf(&why, "%s%s", local ? "" : "session show: ", ac_error_last());
		status = rc == AC_ENOTFOUND ? cli_source_show(ctx, id, json, &found) : CLI_OK;
		if (!found && status == CLI_OK)
			status = cli_error(CLI_FAILED, "%s", why.data ? why.data : id);
		ac_buf_free(&why);
		goto done;
	}
	if (json) {
		json_t *doc = json_copy(s.doc);

		/* The document as stored, plus the rows and their totals. */
		if (!doc || json_object_set(doc, "usage", s.usage)) {
			json_decref(doc);
			status = cli_error(CLI_FAILED, "out of memory");
			goto done;
		}
		cli_write_json(doc);
		json_decref(doc);
		status = cli_finish_output();
		goto done;
	}
	messages = json_object_get(s.doc, "conversationHistory");
	metadata = json_object_get(s.doc, "metadata");
	status_text = local ? ac_session_status(s.file) : s.info.status;
	/* Every field was written by an agent: the whole header is sanitised. */
	ac_buf_printf(&text, "session  %s\nstatus   %s\ntask     ", id, status_text);
	cli_put_string(&text, json_object_get(s.doc, "task"), local ? "" : "-");
	ac_buf_printf(&text, "\ncreated  %s\nupdated  %s\n",
		      or_dash(json_string_value(json_object_get(s.doc, "createdAt"))),
		      or_dash(json_string_value(json_object_get(s.doc, "updatedAt"))));
	if (local) {
		ac_pending pending = ac_operator_notice(ws, id, status_text);

		if (pending != AC_PENDING_NONE)
			ac_buf_printf(&text, "pending  %s\n", ac_pending_text(pending));
	} else {
		ac_buf_printf(&text, "host     %s   written by %s\n", or_dash(s.info.host),
			      or_dash(s.info.writer));
	}
	ac_buf_printf(&text, "user     %s   agent %s   tenant %s\nmessages %zu (~%llu tokens)\n\n",
		      or_dash(json_string_value(json_object_get(metadata, "userId"))),
		      or_dash(json_string_value(json_object_get(metadata, "agentId"))),
		      or_dash(json_string_value(json_object_get(metadata, "tenantId"))),
		      json_array_size(messages), (unsigned long long)ac_messages_tokens(messages));
	cli_turn_usage_table(&text, s.usage);
	ac_buf_putc(&text, '\n');
	cli_put_lines(&out, &text, "");
	cli_put_conversation(&out, messages);
	cli_write(out.data, out.len);
	status = cli_finish_output();
done:
	shown_free(&s);
	ac_buf_free(&out);
	ac_buf_free(&text);
	cli_close_backend(ctx, b);
	return status;
}

/* CLI_OK when id may name a session of the workspace's store: a session
 * file's name may hold what a store's id may not (control bytes). Else
 * the one usage line, after prefix. */
static int store_id_check(const cli_context *ctx, const char *id, const char *prefix)
{
	ac_backend *b = NULL;
	int status;

	if (ac_session_id_check(id) != 0)
		return cli_error(CLI_USAGE, "%s%s", prefix, ac_error_last());
	if ((status = cli_open_backend(&b, ctx)))
		return status;
	if (!ac_backend_has_local_sessions(b) && ac_backend_id_check("session", id) != 0)
		status = cli_error(CLI_USAGE, "%s%s", prefix, ac_error_last());
	cli_close_backend(ctx, b);
	return status;
}

static int cmd_set_status(const cli_context *ctx, const char *verb, int argc, char **argv)
{
	const ac_workspace *ws = &ctx->ws;
	static const struct {
		const char *verb, *status, *done;
	} verbs[] = {
		{"pause", "paused", "paused"},
		{"resume", "running", "resumed"},
		{"complete", "completed", "completed"},
		{"fail", "failed", "marked failed"},
	};
	ac_buf notes = AC_BUF_INIT;
	ac_operator_outcome out;
	size_t v = 0;
	cli_args args;
	int rc;

	while (strcmp(verbs[v].verb, verb))
		v++;
	if ((rc = cli_args_parse(&args, cli_spec_find("session", verb), argc, argv)))
		return rc;
	argv = args.pos;
	if ((rc = store_id_check(ctx, argv[0], "")))
		return rc;
	if (ctx->request_id) {
		/* A retry of a change made already is answered as the first was. */
		ac_backend *b = NULL;
		bool retry = false;

		if ((rc = cli_open_backend(&b, ctx)) == CLI_OK)
			rc = cli_request_status(b, ctx, argv[0], verbs[v].status, &retry);
		cli_close_backend(ctx, b);
		if (rc)
			return rc;
		if (retry) {
			cli_say("session %s %s", argv[0], verbs[v].done);
			return cli_finish_output();
		}
	}
	rc = ac_operator_set_status(ws, argv[0], NULL, verbs[v].status, true, &out, &notes);
	if (notes.len)
		cli_note("%s", notes.data);
	ac_buf_free(&notes);
	if (rc != 0)
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	if (out.withdrawn)
		cli_say("session %s: still running; its pause request withdrawn%s", argv[0],
		       out.signalled ? " (its agent, started by agentctl, was continued)" : "");
	else if (out.pid)
		cli_say("session %s %s: the agent started by resumeCommand (pid %ld) took it over",
		       argv[0], verbs[v].done, (long)out.pid);
	else if (out.signalled)
		cli_say("session %s %s (its agent, started by agentctl, was %s)", argv[0],
		       verbs[v].done, !strcmp(verb, "pause") ? "stopped" : "continued");
	else
		cli_say("session %s %s", argv[0], verbs[v].done);
	return cli_finish_output();
}

void cli_print_compacted(const ac_workspace *ws, const char *id, bool done, const char *why_not,
			 size_t summarized, size_t before, uint64_t tokens_before,
			 uint64_t tokens_after, const char *archive)
{
	if (!done)
		cli_say("session %s: ~%llu tokens (trigger %llu); not compacted: %s", id,
		       (unsigned long long)tokens_before, (unsigned long long)ws->compact.trigger_tokens,
		       why_not ? why_not : "nothing to do");
	else
		cli_say("session %s: %zu of %zu messages summarised, ~%llu -> ~%llu tokens; "
		       "originals archived in %s", id, summarized, before,
		       (unsigned long long)tokens_before, (unsigned long long)tokens_after, archive);
}

static int cmd_compact(const cli_context *ctx, int argc, char **argv)
{
	const ac_workspace *ws = &ctx->ws;
	ac_operator_compaction result = {0};
	ac_buf notes = AC_BUF_INIT;
	const char *id;
	bool force;
	cli_args args;
	int status;

	if ((status = cli_args_parse_as(&args, "session compact", argc, argv)))
		return status;
	force = cli_args_has(&args, "--force");
	id = args.pos[0];
	if ((status = store_id_check(ctx, id, "")))
		return status;
	if (ctx->request_id) {
		ac_backend *b = NULL;

		if ((status = cli_open_backend(&b, ctx)) == CLI_OK)
			status = cli_request_use(b, ctx, "compact");
		cli_close_backend(ctx, b);
		if (status)
			goto done;
	}
	if (ac_operator_compact(ws, id, force, &result, &notes) != 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	if (notes.len)
		cli_note("%s", notes.data);
	/* A store may move large tool results out first (the files do not):
	 * said only when it happened, so the lines agree otherwise. */
	if (result.done.externalized)
		cli_say("session %s: %zu tool result%s (%llu bytes) moved to artifacts", id,
			result.done.externalized, result.done.externalized == 1 ? "" : "s",
			(unsigned long long)result.done.artifact_bytes);
	cli_print_compacted(ws, id, result.done.compacted, result.done.why_not,
			    result.done.summarized, result.done.messages_before,
			    result.done.tokens_before, result.done.tokens_after,
			    result.archive ? result.archive : "the store (compactions)");
	status = cli_finish_output();
done:
	ac_operator_compaction_free(&result);
	ac_buf_free(&notes);
	return status;
}

/* ---- writes ---- */

/* The session written (--json), or the one line a program needs next
 * (made safe: an id may hold a bidi override; plain ids pass unchanged). */
static void print_session(const ac_session *s, bool json, const char *plain)
{
	ac_buf line = AC_BUF_INIT;

	if (json) {
		cli_write_json(ac_session_root(s));
		return;
	}
	cli_put_cell(&line, plain, 0);
	ac_buf_putc(&line, '\n');
	cli_write(line.data, line.len);
	ac_buf_free(&line);
}

static void print_count(const ac_session *s, bool json, unsigned long long count)
{
	char text[32];

	snprintf(text, sizeof(text), "%llu", count);
	print_session(s, json, text);
}

/* The seed's resumeOrCreate for `session create --id ID --resume`: a
 * paused session ID is set running (the agent's own write, so it is not
 * journaled) and *out receives it. When ID exists otherwise, *id is set to
 * NULL: like the seed, the caller then creates a session with a new id.
 * When it does not exist, the caller creates it. */
static int resume_or_create(ac_session **out, const ac_workspace *ws, const char **id,
			    const char *tenant)
{
	ac_session *s = NULL;
	const char *owner;
	int rc = ac_session_load(&s, ws->sessions_dir, *id);

	*out = NULL;
	if (rc == AC_ENOTFOUND)
		return CLI_OK;
	if (rc)
		return cli_error(CLI_FAILED, "session create: %s", ac_error_last());
	owner = json_string_value(json_object_get(json_object_get(ac_session_root(s), "metadata"),
						  "tenantId"));
	if (tenant && (!owner || strcmp(owner, tenant))) {
		ac_session_free(s);
		/* As the backend: another tenant's session is not revealed. */
		return cli_error(CLI_FAILED, "session create: session '%s' not found for tenant '%s'",
				 *id, tenant);
	}
	if (strcmp(ac_session_status(s), "paused")) {
		ac_session_free(s);
		*id = NULL;
		return CLI_OK;
	}
	ac_session_free(s);
	/* Judged again on the file's content: of two agents resuming it,
	 * one gets it and the other is told it is running already. */
	if (ac_session_set_status(out, ws->sessions_dir, *id, "running") != 0)
		return cli_error(CLI_FAILED, "session create --resume: %s", ac_error_last());
	return CLI_OK;
}

/* The session written in a shared store (--json: the whole document as
 * the store holds it now), or the one line a program needs next. */
static int print_stored(const ac_backend *b, const char *tenant, const char *id, bool json,
			const char *plain)
{
	ac_buf line = AC_BUF_INIT;
	json_t *doc = NULL;

	if (json) {
		if (ac_backend_session_get(b, &doc, tenant, id) != 0)
			return cli_error(CLI_FAILED, "session %s: written, but not read back: %s", id,
					 ac_error_last());
		cli_write_json(doc);
		json_decref(doc);
		return CLI_OK;
	}
	cli_put_cell(&line, plain, 0);
	ac_buf_putc(&line, '\n');
	cli_write(line.data, line.len);
	ac_buf_free(&line);
	return CLI_OK;
}

/* resume_or_create in a shared store: a paused session *id of tenant is
 * set running (a compare-and-set from paused: of two agents resuming it,
 * one gets it) and *resumed says so; another status leaves *id NULL (a
 * new id, as the seed does); no such session: create it. With no tenant
 * named (*adopted not NULL), any tenant's session is resumed, as on files,
 * and *adopted (allocated) names its tenant. */
static int resume_or_create_stored(const ac_backend *b, bool *resumed, const char **id,
				   const char *tenant, char **adopted)
{
	ac_backend_session_info info = {0};
	int rc = ac_backend_inspector_find(b, &info, *id), status = CLI_OK;

	*resumed = false;
	if (rc == AC_ENOTFOUND)
		return CLI_OK;
	if (rc)
		return cli_error(CLI_FAILED, "session create: %s", ac_error_last());
	if (adopted && strcmp(info.tenant, tenant) && strcmp(info.status, "paused"))
		tenant = info.tenant; /* not paused: a new id, in the tenant the create names */
	else if (adopted && strcmp(info.tenant, tenant)) {
		if (!(*adopted = strdup(info.tenant))) {
			ac_backend_session_info_clear(&info);
			return cli_error(CLI_FAILED, "out of memory");
		}
		tenant = *adopted;
	}
	if (strcmp(info.tenant, tenant))
		/* As the backend: another tenant's session is not revealed. */
		status = cli_error(CLI_FAILED, "session create: session '%s' not found for tenant '%s'",
				   *id, tenant);
	else if (strcmp(info.status, "paused"))
		*id = NULL;
	else if (ac_backend_session_set_status(b, tenant, *id, "paused", "running") != 0)
		status = cli_error(CLI_FAILED, "session create --resume: %s", ac_error_last());
	else
		*resumed = true;
	ac_backend_session_info_clear(&info);
	return status;
}

/* session create in a shared store. Every call it takes names a tenant
 * (ac_backend.h): without --tenant, the workspace's (storage.tenant, else
 * the user's name). */
static int create_stored(const cli_context *ctx, const ac_backend *b, const char *task,
			 const char *id, const char *tenant, const char *user, const char *agent,
			 bool resume, bool json)
{
	char *made = NULL, *fallback = NULL, *adopted = NULL;
	bool resumed = false, named = tenant != NULL;
	int status = CLI_OK;

	if (!tenant && ac_workspace_tenant(&fallback, &ctx->ws) != 0)
		return cli_error(CLI_USAGE, "session create: %s; or add --tenant T", ac_error_last());
	if (!tenant)
		tenant = fallback;
	if (resume && (status = resume_or_create_stored(b, &resumed, &id, tenant,
							named ? NULL : &adopted)))
		goto done;
	if (adopted)
		tenant = adopted;
	if (resumed) {
		if (!(made = strdup(id)))
			status = cli_error(CLI_FAILED, "out of memory");
	} else if ((status = cli_request_use(b, ctx, "create"))) {
		goto done;
	} else if (ac_backend_session_create(b, &made, tenant, user, agent, id, task) != 0) {
		status = cli_error(CLI_FAILED, "session create: %s", ac_error_last());
	}
	if (!status && (status = print_stored(b, tenant, made, json, made)) == CLI_OK)
		status = cli_finish_output();
done:
	free(made);
	free(fallback);
	free(adopted);
	return status;
}

static int cmd_create(const cli_context *ctx, int argc, char **argv)
{
	const ac_workspace *ws = &ctx->ws;
	const char *task, *id, *tenant, *user, *agent;
	bool json, resume;
	cli_args args;
	ac_session *s = NULL;
	ac_backend *b = NULL;
	int status = CLI_OK;

	if ((status = cli_args_parse_as(&args, "session create", argc, argv)))
		return status;
	task = args.pos[0];
	json = cli_args_has(&args, "--json");
	resume = cli_args_has(&args, "--resume");
	id = cli_args_get(&args, "--id");
	tenant = cli_args_get(&args, "--tenant");
	user = cli_args_get(&args, "--user");
	agent = cli_args_get(&args, "--agent");
	if ((status = cli_check_utf8("task", task)))
		return status;
	/* The backend's rules: what one front end writes, the other reads. */
	if ((id && ac_backend_id_check("--id", id)) ||
	    (tenant && ac_backend_id_check("--tenant", tenant)) ||
	    (user && ac_backend_id_check("--user", user)) ||
	    (agent && ac_backend_id_check("--agent", agent)))
		return cli_error(CLI_USAGE, "session create: %s", ac_error_last());
	if ((id && (status = cli_check_new_id("session create", id))) ||
	    (id && (status = cli_check_utf8("--id", id))) ||
	    (tenant && (status = cli_check_utf8("--tenant", tenant))) ||
	    (user && (status = cli_check_utf8("--user", user))) ||
	    (agent && (status = cli_check_utf8("--agent", agent))))
		return status;
	if (resume && !id)
		return cli_error(CLI_USAGE, "session create: --resume needs --id (the session to resume)");
	if ((status = cli_open_backend(&b, ctx)))
		return status;
	if (!ac_backend_has_local_sessions(b)) {
		status = create_stored(ctx, b, task, id, tenant, user, agent, resume, json);
		goto done;
	}
	/* A session file may have no tenant (the seed's): none is made up. */
	if (resume && (status = resume_or_create(&s, ws, &id, tenant)))
		goto done;
	/* Without --resume a create never adopts an existing session: an
	 * agent that meant to continue one asks for it by id. */
	if (!s && ac_session_create(&s, ws->sessions_dir, id, task, tenant, user, agent) != 0) {
		status = cli_error(CLI_FAILED, "session create: %s", ac_error_last());
		goto done;
	}
	print_session(s, json, ac_session_id(s));
	status = cli_finish_output();
done:
	ac_session_free(s);
	cli_close_backend(ctx, b);
	return status;
}

/* Reads a message or an array of messages from arg (JSON text or "-") and
 * checks every one; *out is always an array. */
static int read_messages(json_t **out, const char *arg, const char *command)
{
	ac_buf text = AC_BUF_INIT;
	json_t *doc = NULL;
	int status;

	*out = NULL;
	if ((status = cli_read_input(&text, arg, command)) ||
	    (status = cli_parse_json(&doc, &text, !strcmp(arg, "-") ? "standard input" : "messages")))
		goto done;
	if (json_is_object(doc)) {
		if (ac_message_check(doc, "message")) {
			status = cli_error(CLI_USAGE, "%s: %s", command, ac_error_last());
			goto done;
		}
		*out = json_array();
		if (!*out || json_array_append(*out, doc)) {
			status = cli_error(CLI_FAILED, "out of memory");
			goto done;
		}
	} else if (json_is_array(doc)) {
		if (json_array_size(doc) == 0) {
			status = cli_error(CLI_USAGE, "%s: messages: an empty array (nothing to append)",
					   command);
			goto done;
		}
		if (ac_messages_check(doc, "messages")) {
			status = cli_error(CLI_USAGE, "%s: %s", command, ac_error_last());
			goto done;
		}
		*out = json_incref(doc);
	} else {
		status = cli_error(CLI_USAGE, "%s: expected a message object {role, content} or an "
				   "array of them", command);
	}
done:
	if (status) {
		json_decref(*out);
		*out = NULL;
	}
	json_decref(doc);
	ac_buf_free(&text);
	return status;
}

/* session append in a shared store. The agent names its session by id,
 * as in the files: the tenant is the store's. The count is read back from
 * the row (one lookup). */
static int append_stored(const cli_context *ctx, const ac_backend *b, const char *id,
			 const json_t *messages, bool json)
{
	ac_backend_session_info info = {0}, after = {0};
	long long length = -1;
	char count[32];
	int status;

	if ((status = cli_request_use(b, ctx, "append")))
		goto done;
	if (ac_backend_inspector_find(b, &info, id) != 0 ||
	    ac_backend_session_append(b, info.tenant, id, messages) != 0 ||
	    ac_backend_inspector_find(b, &after, id) != 0) {
		status = cli_error(CLI_FAILED, "session append: %s", ac_error_last());
		goto done;
	}
	/* What a program needs next: how long the history is now (under a
	 * request id, as the write left it: a retry says what the first did). */
	cli_request_replayed(b, ctx, "messages", &length);
	snprintf(count, sizeof(count), "%lld", length < 0 ? (long long)after.messages : length);
	if ((status = print_stored(b, info.tenant, id, json, count)) == CLI_OK)
		status = cli_finish_output();
done:
	ac_backend_session_info_clear(&info);
	ac_backend_session_info_clear(&after);
	return status;
}

static int cmd_append(const cli_context *ctx, int argc, char **argv)
{
	const ac_workspace *ws = &ctx->ws;
	const char *id = NULL, *input = NULL;
	json_t *messages = NULL;
	ac_session *s = NULL;
	ac_backend *b = NULL;
	bool json = false;
	cli_args args;
	int status;

	if ((status = cli_args_parse_as(&args, "session append", argc, argv)))
		return status;
	json = cli_args_has(&args, "--json");
	id = args.pos[0];
	input = args.pos[1];
	if (ac_session_id_check(id) != 0)
		return cli_error(CLI_USAGE, "session append: %s", ac_error_last());
	if ((status = read_messages(&messages, input, "session append")) ||
	    (status = cli_open_backend(&b, ctx)))
		goto done;
	if (!ac_backend_has_local_sessions(b)) {
		status = append_stored(ctx, b, id, messages, json);
		goto done;
	}
	if (ac_session_append_messages(&s, ws->sessions_dir, id, messages) != 0) {
		status = cli_error(CLI_FAILED, "session append: %s", ac_error_last());
		goto done;
	}
	/* What a program needs next: how long the history is now. */
	print_count(s, json, json_array_size(ac_session_messages(s)));
	status = cli_finish_output();
done:
	ac_session_free(s);
	json_decref(messages);
	cli_close_backend(ctx, b);
	return status;
}

/* A completed turn of a session that asked for automatic persistence gets
 * its checkpoint (seed 002: enableAutomaticPersistence). The turn is
 * recorded already: a failure here says so. */
static int checkpoint_after_turn(const ac_workspace *ws, const char *id)
{
	ac_checkpoint_store *store = NULL;
	int rc;

	if ((rc = ac_checkpoint_store_open(&store, ws)) == 0)
		rc = ac_checkpoint_after_turn(NULL, store, ws->sessions_dir, id);
	ac_checkpoint_store_free(store);
	if (rc)
		return cli_error(CLI_FAILED, "session record-turn: the turn is recorded, but its "
				 "automatic checkpoint failed: %s", ac_error_last());
	return CLI_OK;
}

/* session record-turn in a shared store: one transaction writes the
 * messages, the turn's row and the totals; the turn's number is the rows'
 * count read back (another host's turn may follow at once, never come
 * between: the row lock). Then the automatic checkpoint, when the stored
 * document asks for one, from the history the store holds. */
static int record_turn_stored(const cli_context *ctx, const ac_backend *b, const char *id,
			      const json_t *messages, const ac_usage *usage, bool json)
{
	ac_backend_session_info info = {0};
	ac_checkpoint_store *store = NULL;
	json_t *rows = NULL, *doc = NULL;
	long long number;
	char turn[32];
	int status;

	if ((status = cli_request_use(b, ctx, "record-turn")))
		goto done;
	if (ac_backend_inspector_find(b, &info, id) != 0 ||
	    ac_backend_session_record_turn(b, info.tenant, id, messages, usage) != 0 ||
	    ac_backend_session_load_usage(b, &rows, info.tenant, id) != 0) {
		status = cli_error(CLI_FAILED, "session record-turn: %s", ac_error_last());
		goto done;
	}
	number = json_integer_value(json_object_get(json_object_get(rows, "totals"), "turns"));
	/* A retry's turn was the first call's, and so was its checkpoint. */
	if (!cli_request_replayed(b, ctx, "turns", &number) &&
	    (ac_checkpoint_store_open(&store, &ctx->ws) != 0 ||
	     ac_backend_session_get(b, &doc, info.tenant, id) != 0 ||
	     ac_checkpoint_after_turn_from(NULL, store, id, doc) != 0)) {
		status = cli_error(CLI_FAILED, "session record-turn: the turn is recorded, but its "
				   "automatic checkpoint failed: %s", ac_error_last());
		goto done;
	}
	snprintf(turn, sizeof(turn), "%lld", number);
	if ((status = print_stored(b, info.tenant, id, json, turn)) == CLI_OK)
		status = cli_finish_output();
done:
	json_decref(rows);
	json_decref(doc);
	ac_checkpoint_store_free(store);
	ac_backend_session_info_clear(&info);
	return status;
}

static int cmd_record_turn(const cli_context *ctx, int argc, char **argv)
{
	const ac_workspace *ws = &ctx->ws;
	const char *id = NULL, *in_text = NULL, *out_text = NULL, *messages_arg = NULL;
	const char *usage_text = NULL;
	json_t *messages = NULL, *fields = NULL;
	ac_usage usage = {0, 0, NULL};
	ac_backend *b = NULL;
	ac_session *s = NULL;
	uint64_t turn = 0;
	bool json = false;
	cli_args args;
	int status = CLI_OK;

	if ((status = cli_args_parse_as(&args, "session record-turn", argc, argv)))
		return status;
	json = cli_args_has(&args, "--json");
	in_text = cli_args_get(&args, "--input");
	out_text = cli_args_get(&args, "--output");
	usage_text = cli_args_get(&args, "--usage");
	messages_arg = cli_args_get(&args, "--messages");
	id = args.pos[0];
	if (!usage_text && (!in_text || !out_text))
		return cli_args_say_missing(&args);
	if (ac_session_id_check(id) != 0)
		return cli_error(CLI_USAGE, "session record-turn: %s", ac_error_last());
	/* --input and --output fill the Usage's two counts, over --usage's. */
	if (usage_text &&
	    (status = cli_turn_usage_parse(&fields, usage_text, "session record-turn: --usage")))
		return status;
	usage.fields = fields;
	usage.input_tokens = (uint64_t)json_integer_value(json_object_get(fields, "inputTokens"));
	usage.output_tokens = (uint64_t)json_integer_value(json_object_get(fields, "outputTokens"));
	if ((in_text && (status = cli_parse_whole(&usage.input_tokens,
						  "session record-turn: --input", in_text,
						  AC_SESSION_COUNT_MAX))) ||
	    (out_text && (status = cli_parse_whole(&usage.output_tokens,
						   "session record-turn: --output", out_text,
						   AC_SESSION_COUNT_MAX))))
		goto done;
	if (messages_arg &&
	    (status = read_messages(&messages, messages_arg, "session record-turn --messages")))
		goto done;
	if ((status = cli_open_backend(&b, ctx)))
		goto done;
	if (!ac_backend_has_local_sessions(b)) {
		status = record_turn_stored(ctx, b, id, messages, &usage, json);
		goto done;
	}
	/* The messages, the turn's row, then the totals derived from the rows
	 * (ac_turn_usage.h: a crash between them never counts a turn whose
	 * messages are missing). */
	if (ac_turn_usage_record(&s, &turn, ws->sessions_dir, id, messages, &usage, NULL) != 0) {
		status = cli_error(CLI_FAILED, "session record-turn: %s", ac_error_last());
		goto done;
	}
	if ((status = checkpoint_after_turn(ws, id)))
		goto done;
	/* What a program needs next: this turn's number. */
	print_count(s, json, (unsigned long long)turn);
	status = cli_finish_output();
done:
	ac_session_free(s);
	json_decref(messages);
	json_decref(fields);
	cli_close_backend(ctx, b);
	return status;
}

int cli_session(cli_context *ctx, int argc, char **argv)
{
	const char *verb = argc ? argv[0] : "";

	if (argc == 0)
		return cli_error(CLI_USAGE, "session needs a command: list, show, create, append, "
				 "record-turn, pause, resume, complete, fail, compact, search, fork or export");
	if (!strcmp(verb, "list"))
		return cmd_list(ctx, argc - 1, argv + 1);
	if (!strcmp(verb, "show"))
		return cmd_show(ctx, argc - 1, argv + 1);
	if (!strcmp(verb, "search"))
		return cli_session_search(ctx, argc - 1, argv + 1);
	if (!strcmp(verb, "export"))
		return cli_session_export(ctx, argc - 1, argv + 1);
	if (ctx->read_only)
		return cli_error(CLI_USAGE, "session %s: --read-only forbids changes", verb);
	if (strcmp(verb, "fork")) {
		int status = cli_request_take(ctx, &argc, argv, verb);

		if (status)
			return status;
	}
	/* The id is the first argument that is no option. A fork only reads
	 * its parent: a transcript may be forked (cli_session_fork.c). */
	for (int i = 1; i < argc; i++) {
		int status;

		if (argv[i][0] == '-')
			continue;
		if (strcmp(verb, "create") && strcmp(verb, "fork") && (status = cli_source_refuse_write(ctx, verb, argv[i])))
			return status;
		break;
	}
	if (!strcmp(verb, "pause") || !strcmp(verb, "resume") || !strcmp(verb, "complete") ||
	    !strcmp(verb, "fail"))
		return cmd_set_status(ctx, verb, argc - 1, argv + 1);
	if (!strcmp(verb, "compact"))
		return cmd_compact(ctx, argc - 1, argv + 1);
	if (!strcmp(verb, "create"))
		return cmd_create(ctx, argc - 1, argv + 1);
	if (!strcmp(verb, "append"))
		return cmd_append(ctx, argc - 1, argv + 1);
	if (!strcmp(verb, "record-turn"))
		return cmd_record_turn(ctx, argc - 1, argv + 1);
	if (!strcmp(verb, "fork"))
		return cli_session_fork(ctx, argc - 1, argv + 1);
	return cli_error(CLI_USAGE, "session: unknown command '%s'", verb);
}
