/* The coding agents' own sessions (Claude Code, Codex, Gemini CLI) in
 * `session list` and `session show`, and the refusal of every write to
 * them: their transcripts are read, never written (ac_source.h). */
#include "cli.h"
#include "cli_sources.h"

#include "ac_error.h"
#include "ac_messages.h"
#include "ac_text.h"
#include "ac_time.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int open_index(ac_source_index **out, const cli_context *ctx, bool all_projects,
		      bool note)
{
	ac_source_options opts;
	const char *first;
	size_t unreadable;
	int rc;

	*out = NULL;
	if ((rc = ac_source_options_from_config(&opts, ctx->config, ctx->ws.root, all_projects)))
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	rc = ac_source_index_new(out, &opts);
	ac_source_options_free(&opts);
	/* A refresh that failed lists no transcript at all: an error, never
	 * a shorter list that exits 0. */
	if (rc == 0)
		rc = ac_source_index_refresh(*out, NULL);
	if (rc) {
		ac_source_index_free(*out);
		*out = NULL;
		return cli_error(CLI_FAILED, "%s (coding-agent transcripts)", ac_error_last());
	}
	/* A transcript that cannot be read is left out, never silently. */
	if (!note)
		return CLI_OK;
	if ((unreadable = ac_source_index_unreadable(*out, &first)) == 1)
		cli_note("%s (skipped)", first);
	else if (unreadable)
		cli_note("%s (skipped, and %zu more coding-agent transcripts not read)", first,
			 unreadable - 1);
	return CLI_OK;
}

int cli_sources_open(ac_source_index **out, const cli_context *ctx, bool all_projects)
{
	return open_index(out, ctx, all_projects, true);
}

int cli_sources_read(ac_source_index **out, const cli_context *ctx, bool all_projects)
{
	return open_index(out, ctx, all_projects, false);
}

ac_session_state cli_source_state(const ac_source_session *s, int64_t now_ms,
				  const ac_config *config)
{
	ac_state_thresholds limits;
	ac_state_inputs in;

	ac_source_state_limits(&limits, config);
	ac_source_session_inputs(&in, s, now_ms);
	return ac_session_state_derive(&in, &limits);
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* A folder name as a JSON string: one that is not UTF-8 (a Gemini
 * session's cwd is the workspace, whose name may be any bytes) escaped as
 * the text output shows it, never a string jansson refuses (which left
 * the session out of list --json and show --json printed nothing). */
static json_t *path_json(const char *path)
{
	ac_buf text = AC_BUF_INIT;
	json_t *s;

	path = or_empty(path);
	if (ac_text_is_utf8(path, strlen(path)))
		return json_string(path);
	s = ac_text_sanitize(&text, path, strlen(path)) ? NULL : json_stringn(text.data, text.len);
	ac_buf_free(&text);
	return s;
}

json_t *cli_source_json(const ac_source_session *s, ac_session_state state)
{
	/* What the tool says it waits on (a status file), only while it
	 * waits: a reason of a state that is over would mislead. */
	const char *waiting_for = state == AC_STATE_WAITING ? s->waiting_reason : NULL;
	json_t *doc = json_pack("{s:s, s:s, s:s, s:o, s:s, s:o, s:s, s:s, s:s, s:o, s:I, s:I, s:I}",
				"id", s->id, "source", ac_source_name(s->kind),
				"state", ac_session_state_name(state),
				"waitingFor", waiting_for ? json_string(waiting_for) : json_null(),
				"task", ac_source_session_task(s),
				"cwd", path_json(s->cwd), "model", or_empty(s->model),
				"createdAt", or_empty(s->started), "updatedAt", or_empty(s->updated),
				"path", path_json(s->path), "messages", (json_int_t)s->messages,
				"pendingToolCalls", (json_int_t)s->npending,
				"malformedLines", (json_int_t)s->malformed);

	/* Where it sits (a fork, a sub-agent), the tool's own title, and
	 * whether the tool archived it. */
	if (doc && (json_object_set_new(doc, "relation",
					json_string(ac_source_relation_name(s->relation))) ||
		    json_object_set_new(doc, "parentId", s->parent_id ? json_string(s->parent_id)
								       : json_null()) ||
		    json_object_set_new(doc, "title", s->title ? json_string(s->title) : json_null()) ||
		    json_object_set_new(doc, "archived", json_boolean(ac_source_session_archived(s))) ||
		    json_object_set_new(doc, "tokens", json_integer((json_int_t)s->tokens)) ||
		    json_object_set_new(doc, "lastAction", s->last_action ? json_string(s->last_action)
									 : json_null()))) {
		json_decref(doc);
		doc = NULL;
	}
	return doc;
}

/* v in decimal (or text when not NULL) right-aligned in width, to out
 * (room for 20 digits); returns the bytes written. */
static size_t put_right(char *out, uint64_t v, const char *text, size_t width)
{
	char digits[24];
	size_t n = 0, at = 0;

	if (text) {
		n = strlen(text);
		memcpy(digits, text, n);
	} else {
		do
			digits[sizeof(digits) - ++n] = (char)('0' + v % 10);
		while ((v /= 10));
		memmove(digits, digits + sizeof(digits) - n, n);
	}
	while (at + n < width)
		out[at++] = ' ';
	memcpy(out + at, digits, n);
	return at + n;
}

void cli_source_row(ac_buf *line, const ac_source_session *s, ac_session_state state,
		    unsigned depth)
{
	char number[48];
	size_t at;

	if (depth) {
		/* A child under its parent: "└ " per level, the id cut to fit. */
		ac_buf id = AC_BUF_INIT;

		for (unsigned d = 1; d < depth; d++)
			ac_buf_printf(&id, "  ");
		ac_buf_printf(&id, "\xe2\x94\x94 %s", s->id);
		cli_put_cell(line, id.data ? id.data : "", 37);
		ac_buf_free(&id);
	} else {
		cli_put_cell(line, s->id, 37);
	}
	ac_buf_putc(line, ' ');
	cli_put_cell(line, ac_session_state_name(state), 10);
	ac_buf_putc(line, ' ');
	/* "%5zu %8llu" (tokens "-" when its tool says none), without
	 * snprintf(): at 200,000 rows it was a tenth of a list. */
	at = put_right(number, s->messages, NULL, 5);
	number[at++] = ' ';
	at += put_right(number + at, s->tokens, s->tokens ? NULL : "-", 8);
	number[at] = '\0';
	cli_put_cell(line, number, 16);
	cli_put_cell(line, or_empty(s->updated), 26);
	cli_put_cell(line, ac_source_name(s->kind), 20);
	ac_buf_putc(line, ' ');
	/* The reason before the task, where the eye reads first. */
	if (state == AC_STATE_WAITING && s->waiting_reason) {
		ac_buf_putc(line, '[');
		cli_put_cell(line, s->waiting_reason, 0);
		ac_buf_append(line, "] ", 2);
	}
	cli_put_cell(line, ac_source_session_task(s), 0);
	ac_buf_putc(line, '\n');
}

/* The session id in the workspace's transcripts, else in every project's. */
int cli_source_find(ac_source_index **out_index, ac_source_session **out, const cli_context *ctx,
		    const char *id)
{
	int status;

	*out = NULL;
	for (int all = 0; all < 2 && !*out; all++) {
		ac_source_index_free(*out_index);
		/* The same files again: said once. */
		if ((status = open_index(out_index, ctx, all, all == 0)))
			return status;
		*out = ac_source_index_find(*out_index, id);
	}
	return CLI_OK;
}

/* One header line of `session show`: "label    value", the value made
 * safe whole (ac_text_sanitize()). */
static void field(ac_buf *out, const char *label, const char *value)
{
	ac_buf_printf(out, "%-8s ", label);
	ac_text_sanitize(out, value, strlen(value));
	ac_buf_putc(out, '\n');
}

int cli_source_show(const cli_context *ctx, const char *id, bool json, bool *out_found)
{
	ac_source_index *index = NULL;
	ac_source_session *s = NULL;
	ac_buf out = AC_BUF_INIT, text = AC_BUF_INIT;
	json_t *conv = NULL, *doc = NULL;
	ac_session_state state;
	int status;

	*out_found = false;
	if ((status = cli_source_find(&index, &s, ctx, id)) || !s)
		goto done;
	*out_found = true;
	state = cli_source_state(s, ac_time_now_ms(), ctx->config);
	if (ac_source_session_conversation(&conv, s) != 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	if (json) {
		doc = cli_source_json(s, state);
		json_object_set(doc, "conversation", conv);
		cli_write_json(doc);
		status = cli_finish_output();
		goto done;
	}
	/* Every field comes from the transcript: each made safe on its own
	 * line (a newline in a title or a reason shows as ^J: it cannot
	 * make a header line of its own). */
	field(&out, "session", s->id);
	ac_buf_printf(&text, "%s (%sread-only)", ac_source_name(s->kind),
		      ac_source_session_archived(s) ? "archived, " : "");
	field(&out, "source", text.data);
	field(&out, "state", ac_session_state_name(state));
	if (state == AC_STATE_WAITING && s->waiting_reason)
		field(&out, "waits on", s->waiting_reason);
	field(&out, "task", ac_source_session_task(s));
	field(&out, "cwd", or_empty(s->cwd));
	field(&out, "model", or_empty(s->model));
	field(&out, "created", or_empty(s->started));
	field(&out, "updated", or_empty(s->updated));
	field(&out, "file", s->path);
	ac_buf_clear(&text);
	ac_buf_printf(&text, "%zu", json_array_size(conv));
	if (s->malformed)
		ac_buf_printf(&text, " (%zu malformed lines skipped)", s->malformed);
	field(&out, "messages", text.data);
	if (s->title)
		field(&out, "title", s->title);
	if (s->tokens) {
		ac_buf_clear(&text);
		ac_buf_printf(&text, "%llu", (unsigned long long)s->tokens);
		field(&out, "tokens", text.data);
	}
	if (s->last_action)
		field(&out, "last", s->last_action);
	ac_buf_clear(&text);
	if (s->parent_id && s->relation == AC_SOURCE_FORK) {
		field(&out, "fork of", s->parent_id);
	} else if (s->parent_id) {
		ac_buf_printf(&text, "%s (this is its %s)", s->parent_id,
			      ac_source_relation_name(s->relation));
		field(&out, "parent", text.data);
	}
	ac_buf_clear(&text);
	ac_buf_putc(&out, '\n');
	cli_put_conversation(&out, conv);
	cli_write(out.data, out.len);
	status = cli_finish_output();
done:
	json_decref(doc);
	json_decref(conv);
	ac_buf_free(&out);
	ac_buf_free(&text);
	ac_source_index_free(index);
	return status;
}

int cli_source_refuse_write(const cli_context *ctx, const char *verb, const char *id)
{
	ac_source_index *index = NULL;
	ac_source_session *s = NULL;
	char *path = NULL;
	int status = CLI_OK;

	/* Only an id that names no session file is looked for among the
	 * transcripts: the seed sessions' writes cost nothing more. */
	if (ac_session_id_check(id) != 0 || ac_session_path(&path, ctx->ws.sessions_dir, id) != 0 ||
	    access(path, F_OK) == 0) {
		ac_error_clear();
		goto done;
	}
	if ((status = cli_source_find(&index, &s, ctx, id)) == CLI_OK && s)
		status = cli_error(CLI_FAILED, "session %s: %s is a %s session, a read-only source "
				   "(agentctl never writes to %s)", verb, id, ac_source_name(s->kind),
				   s->path);
done:
	free(path);
	ac_source_index_free(index);
	return status;
}

/* ---- children under their parent ---- */

#define TREE_DEPTH_MAX 8 /* deeper is no tree a tool writes (or a cycle) */

typedef struct {
	size_t *first, *next; /* first child, next sibling: SIZE_MAX for none */
	const bool *shown;
	size_t *order;
	unsigned char *depth;
	unsigned char *mark; /* REACHED from a top row; PUT in order */
	size_t n;
} tree;

enum { REACHED = 1, PUT = 2 };

/* Each row at most once (mark), so a cycle of parents written by hand
 * (a fork of its own fork) ends, and order never holds more than n. */
static void put(tree *t, size_t i, unsigned depth, unsigned char flag)
{
	if (t->mark[i] & flag)
		return;
	t->mark[i] |= flag;
	if (flag == PUT) {
		t->order[t->n] = i;
		t->depth[t->n++] = (unsigned char)depth;
	}
	if (depth >= TREE_DEPTH_MAX)
		return;
	for (size_t c = t->first[i]; c != SIZE_MAX; c = t->next[c])
		if (t->shown[c])
			put(t, c, depth + 1, flag);
}

int cli_sources_tree(size_t **out_order, unsigned char **out_depth, size_t *out_n,
		     ac_source_session *const *list, size_t n, const bool *shown, bool children)
{
	tree t = {0};
	size_t *parent = NULL, *named = NULL; /* named: the row of each one's parent_id */
	int rc = 0;

	t.shown = shown;
	t.first = malloc((n + 1) * sizeof(*t.first));
	t.next = malloc((n + 1) * sizeof(*t.next));
	parent = malloc((n + 1) * sizeof(*parent));
	t.order = malloc((n + 1) * sizeof(*t.order));
	t.depth = malloc(n + 1);
	t.mark = calloc(n + 1, 1);
	if (!t.first || !t.next || !parent || !t.order || !t.depth || !t.mark) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		t.first[i] = t.next[i] = parent[i] = SIZE_MAX;
	if (children && (rc = ac_source_parent_rows(&named, list, n)))
		goto done;
	/* Newest first, each parent's children too: linked from the oldest. */
	for (size_t k = n; named && k-- > 0;) {
		size_t pi = named[k];

		if (pi == SIZE_MAX || pi == k || !shown[pi])
			continue;
		parent[k] = pi;
		t.next[k] = t.first[pi];
		t.first[pi] = k;
	}
	for (size_t i = 0; i < n; i++)
		if (shown[i] && parent[i] == SIZE_MAX)
			put(&t, i, 0, REACHED);
	for (size_t i = 0; i < n; i++) {
		/* Without children a sub-agent is left out; a fork is a session
		 * of its own and stays in its place. A row no top row reaches
		 * (its parents make a cycle, or are deeper than TREE_DEPTH_MAX)
		 * is a top row itself: never left out. */
		if (!shown[i] || (parent[i] != SIZE_MAX && (t.mark[i] & REACHED)) ||
		    (!children && list[i]->relation == AC_SOURCE_SUBAGENT))
			continue;
		put(&t, i, 0, PUT);
	}
	*out_order = t.order;
	*out_depth = t.depth;
	*out_n = t.n;
	t.order = NULL;
	t.depth = NULL;
done:
	free(named);
	free(t.first);
	free(t.next);
	free(parent);
	free(t.order);
	free(t.depth);
	free(t.mark);
	return rc;
}
