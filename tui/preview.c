/* Events and checkpoints in full, for the viewer. Read-only. */
#include "preview.h"

#include "ac_operator.h"

#include "ac_buf.h"
#include "ac_checkpoint.h"
#include "ac_checkpoint_runtime.h"
#include "ac_error.h"
#include "ac_journal.h"
#include "ac_journal_reader.h"
#include "ac_journal_scan.h"
#include "ac_journal_store.h"
#include "ac_json_exact.h"
#include "ac_messages.h"
#include "ac_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The viewer's lines for one journal line: its JSON indented, or the raw
 * line and why it is not JSON. */
static void event_lines(ui_model *m, const char *line, size_t len)
{
	json_t *doc = NULL;
	size_t pretty_len = 0;
	/* Read as the journal's writers' JSON.parse reads it (a lone
	 * surrogate included), and shown with its numbers as written. */
	int rc = ac_json_exact_load(&doc, line, len, 0, "not JSON");
	char *pretty = doc ? ac_json_exact_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER,
						 &pretty_len) : NULL;

	if (pretty)
		ui_model_viewer_line(m, "%s", pretty);
	else {
		ui_model_viewer_line(m, "%s:", rc ? ac_error_last() : "not JSON: out of memory");
		ui_model_viewer_line(m, "%.*s", (int)(len > 1000000 ? 1000000 : len), line);
	}
	free(pretty);
	json_decref(doc);
}

/* Whether line is the event id: its "id" member, sanitised as the model's. */
static bool line_is(const char *line, size_t len, const char *id)
{
	json_t *doc = NULL;
	const char *have;
	char *safe;
	bool same;

	if (ac_json_exact_load(&doc, line, len, 0, "line") != 0)
		return false;
	have = json_string_value(json_object_get(doc, "id"));
	safe = have ? ui_safe_str(have) : NULL;
	same = safe && !strcmp(safe, id);

	if (safe)
		ui_sfree(safe);
	json_decref(doc);
	return same;
}

void ui_preview_event_at(ui_model *m, const char *path, const char *name, uint64_t offset,
			 const char *id)
{
	ac_journal_reader *r = NULL;
	ac_journal_line line;
	char title[512];
	int rc;

	snprintf(title, sizeof(title), "Event in %.300s at byte %llu", name,
		 (unsigned long long)offset);
	ui_model_viewer_open(m, title);
	if ((rc = ac_journal_reader_open(&r, path, offset, UINT64_MAX, 1)) != 0 ||
	    (rc = ac_journal_reader_next(r, &line)) != 1) {
		ui_model_viewer_line(m, "the event cannot be read: %s",
				     rc == 0 ? "the file is shorter now (rotated or replaced?)"
					     : ac_error_last());
	} else if (id && !line.overlong && !line_is(line.text, line.len, id)) {
		ui_model_viewer_line(m, "event %s is no longer at this place: the journal was "
				     "rotated or replaced since the search (S: search again)", id);
	} else if (line.overlong) {
		ui_model_viewer_line(m, "the line is longer than %s: not shown",
				     AC_JOURNAL_MAX_LINE_TEXT);
	} else {
		event_lines(m, line.text, line.len);
	}
	ac_journal_reader_free(r);
}

typedef struct {
	char *path;
	uint64_t offset;
	bool found;
} found_event;

static int keep_found(const ac_scan_match *match, void *ctx)
{
	found_event *f = ctx;

	free(f->path);
	f->path = strdup(match->path);
	f->offset = match->offset;
	f->found = f->path != NULL;
	return 0;
}

/* The line of the newest event a store's scan matched (into ctx, an
 * ac_buf), writing nothing. */
static int keep_line(ac_buf *out, ac_buf *scratch, const ac_scan_match *match, const void *ctx)
{
	ac_buf *line = (ac_buf *)ctx;

	(void)out;
	(void)scratch;
	ac_buf_clear(line);
	return ac_buf_append(line, match->line, match->len);
}

static int write_nothing(const char *data, size_t len, void *ctx)
{
	(void)data;
	(void)len;
	(void)ctx;
	return 0;
}

/* A journal read through its store (a database's, followed by seq): the
 * event by its id (an indexed column there). */
static void event_in_store(ui_model *m, ac_journal_store *store, const ac_query *q, const char *id)
{
	ac_buf line = AC_BUF_INIT;
	char title[300];

	snprintf(title, sizeof(title), "Event %.200s", id);
	ui_model_viewer_open(m, title);
	if (store->ops->scan(store, NULL, true, q, 1, keep_line, &line, write_nothing, NULL) != 0)
		ui_model_viewer_line(m, "event %s cannot be read: %s", id, ac_error_last());
	else if (!line.len)
		ui_model_viewer_line(m, "event %s is no longer in the journal", id);
	else
		event_lines(m, line.data, line.len);
	ac_buf_free(&line);
}

void ui_preview_event_id(ui_model *m, const ac_workspace *ws, const char *id)
{
	ac_buf term = AC_BUF_INIT;
	ac_query *q = NULL;
	char **files = NULL;
	size_t n = 0;
	found_event f = {0};
	const char *terms[1];
	ac_journal_store *store = NULL;

	ac_buf_printf(&term, "id=%s", id);
	terms[0] = term.data;
	if (term.data && ac_journal_store_open(&store, ws) == 0 && store->ops->follow &&
	    ac_query_parse(&q, terms, 1) == 0) {
		event_in_store(m, store, q, id);
		goto done;
	}
	ac_error_clear();
	if (!term.data || ac_query_parse(&q, terms, 1) != 0 ||
	    ac_journal_files(&files, &n, ws->journal_path) != 0 ||
	    ac_journal_scan(NULL, (const char *const *)files, n, q, 1, &ws->schema, keep_found,
			    &f) < 0) {
		ui_model_viewer_open(m, "Event");
		ui_model_viewer_line(m, "event %s cannot be read: %s", id, ac_error_last());
	} else if (!f.found) {
		ui_model_viewer_open(m, "Event");
		ui_model_viewer_line(m, "event %s is no longer in the journal", id);
	} else {
		const char *slash = strrchr(f.path, '/');

		ui_preview_event_at(m, f.path, slash ? slash + 1 : f.path, f.offset, NULL);
	}
done:
	ac_journal_store_free(store);
	free(f.path);
	ac_journal_files_free(files, n);
	ac_query_free(q);
	ac_buf_free(&term);
}

static void compensations(ui_model *m, const ac_checkpoint_plan *plan)
{
	ui_model_viewer_line(m, "R (roll back to it) would keep %zu messages, remove %zu, and "
			     "compensate %zu tool call%s (newest first):", plan->keep, plan->remove,
			     plan->n_calls, plan->n_calls == 1 ? "" : "s");
	if (!plan->n_calls)
		ui_model_viewer_line(m, "  (no tool call after it)");
	for (size_t i = 0; i < plan->n_calls; i++) {
		const ac_checkpoint_compensation *c = &plan->calls[i];
		char *input = c->input ? json_dumps(c->input, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
		ac_buf argv = AC_BUF_INIT;

		for (size_t a = 0; c->argv && c->argv[a]; a++)
			ac_buf_printf(&argv, "%s%s", a ? " " : "", c->argv[a]);
		ui_model_viewer_line(m, "  %s call %s (message %zu) %s", *c->tool ? c->tool : "(unnamed)",
				     c->call_id, c->message_index, input ? input : "");
		if (c->argv)
			ui_model_viewer_line(m, "      would run: %s", argv.data ? argv.data : "");
		else
			ui_model_viewer_line(m, "      no rollbackTools entry: its effect stays");
		ac_buf_free(&argv);
		free(input);
	}
}

static void messages(ui_model *m, const json_t *history)
{
	size_t i;
	json_t *msg;

	ui_model_viewer_line(m, "%s", "");
	ui_model_viewer_line(m, "Its messages (%zu):", json_array_size(history));
	json_array_foreach(history, i, msg) {
		ac_buf text = AC_BUF_INIT;

		ac_message_text(&text, msg);
		ui_model_viewer_line(m, "[%zu] %s: %s", i, ac_message_role(msg),
				     text.data ? text.data : "");
		ac_buf_free(&text);
	}
}

void ui_preview_checkpoint(ui_model *m, const ac_workspace *ws, const char *session,
			   const char *ckpt)
{
	ac_checkpoint_store *store = NULL;
	ac_checkpoint_plan plan;
	const json_t *tools = NULL;
	json_t *doc = NULL;
	char title[512];

	memset(&plan, 0, sizeof(plan));
	snprintf(title, sizeof(title), "Preview of checkpoint %.100s: nothing is changed", ckpt);
	ui_model_viewer_open(m, title);
	if (ac_checkpoint_store_open(&store, ws) != 0 ||
	    ac_checkpoint_store_get(&doc, store, session, ckpt) != 0) {
		ui_model_viewer_line(m, "the checkpoint cannot be read: %s", ac_error_last());
		goto done;
	}
	ui_model_viewer_line(m, "session %s, version %lld, node %s, created %s", session,
			     (long long)ac_checkpoint_version(doc),
			     ac_checkpoint_node(doc) ? ac_checkpoint_node(doc) : "-",
			     json_string_value(json_object_get(doc, "createdAt")) ?
			     json_string_value(json_object_get(doc, "createdAt")) : "-");
	if (ac_workspace_rollback_tools(&tools, ws) != 0) {
		ui_model_viewer_line(m, "rollbackTools not used: %s", ac_error_last());
		tools = NULL;
	}
	if (ac_operator_plan_rollback(&plan, store, ws, session, ckpt) != 0)
		ui_model_viewer_line(m, "R (roll back to it) cannot be planned: %s", ac_error_last());
	else
		compensations(m, &plan);
	messages(m, ac_checkpoint_history(doc));
done:
	ac_checkpoint_plan_free(&plan);
	json_decref(doc);
	ac_checkpoint_store_free(store);
}
