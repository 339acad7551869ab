/* The whole-journal search: bounded windows, newest first; on a database
 * store, the journal store's backward scan for as many matches as wanted. */
#include "jsearch.h"

#include "source.h"

#include "ac_error.h"
#include "ac_journal.h"
#include "ac_journal_reader.h"
#include "ac_journal_scan.h"
#include "ac_journal_store.h"
#include "ac_query.h"
#include "ac_time.h"

#include <stdlib.h>
#include <string.h>

struct ui_jsearch_engine {
	const ac_workspace *ws;
	ac_query *q;
	size_t file;        /* the file being read, counting from 1 (0: none left) */
	uint64_t end;       /* where the unread part of that file ends */
	bool started;       /* the file's end was found */
	size_t want;        /* matches wanted before pausing */
	ac_buf scratch;
	ui_jmatch *window;  /* one window's matches, oldest first */
	size_t n_window, cap_window;
	int rc;             /* the window scan's error */
	ac_journal_store *store; /* a database's journal, or NULL: the files */
};

static void jmatch_free(ui_jmatch *j)
{
	ui_event *e = &j->ev;

	ui_sfree(e->id);
	ui_sfree(e->timestamp);
	ui_sfree(e->agent);
	ui_sfree(e->status);
	ui_sfree(e->action);
	ui_sfree(e->message);
	if (e->invalid)
		ui_sfree(e->invalid);
	memset(j, 0, sizeof(*j));
}

static void search_clear(ui_model *m)
{
	ui_jsearch *s = &m->search;

	for (size_t i = 0; i < s->n; i++)
		jmatch_free(&s->matches[i]);
	free(s->matches);
	for (size_t i = 0; i < s->n_files; i++) {
		free(s->files[i]);
		ui_sfree(s->file_names[i]);
	}
	free(s->files);
	free(s->file_names);
	if (s->query)
		ui_sfree(s->query);
	if (s->error)
		ui_sfree(s->error);
	memset(s, 0, sizeof(*s));
}

void ui_jsearch_close(ui_jsearch_engine **io, ui_model *m)
{
	ui_jsearch_engine *e = *io;

	search_clear(m);
	if (!e)
		return;
	ac_query_free(e->q);
	ac_journal_store_free(e->store);
	ac_buf_free(&e->scratch);
	for (size_t i = 0; i < e->n_window; i++)
		jmatch_free(&e->window[i]);
	free(e->window);
	free(e);
	*io = NULL;
}

static void set_error(ui_model *m, const char *what)
{
	m->search.error = ui_safe_str(what);
	m->search.running = false;
	m->search.complete = true;
}

/* The workspace's journal, into e->store when it is read by seq through
 * its store (a database's: the optional follow); files are left to the
 * scanner, which reads them in steps and shows its progress. */
static int open_store(ui_jsearch_engine *e, const ac_workspace *ws)
{
	int rc = ac_journal_store_open(&e->store, ws);

	if (rc == 0 && !e->store->ops->follow) {
		ac_journal_store_free(e->store);
		e->store = NULL;
	}
	return rc;
}

int ui_jsearch_start(ui_jsearch_engine **io, ui_model *m, const ac_workspace *ws,
		     const char *text)
{
	ui_jsearch_engine *e;
	ui_jsearch *s = &m->search;
	char **files = NULL;
	size_t nfiles = 0;
	int rc;

	ui_jsearch_close(io, m);
	if (!(e = calloc(1, sizeof(*e))))
		return AC_ENOMEM;
	*io = e;
	e->ws = ws;
	e->want = UI_JSEARCH_BATCH;
	s->query = ui_safe_str(text);
	/* The same query strings as 'agentctl journal query'. */
	rc = text[strspn(text, " \t")] ? ac_query_parse_strings(&e->q, &text, 1)
		: ac_error_set(AC_EINVAL, "type at least one term, e.g. agent=Claude or "
			       "trace.correlation_id=ID");
	if (rc == 0)
		ac_query_show_invalid(e->q, true); /* as the pane and the CLI show them */
	if (rc == 0 && (rc = open_store(e, ws)) == 0 && e->store) {
		s->database = s->running = true;
		e->file = 1;
		return 0;
	}
	if (rc == 0)
		rc = ac_journal_files(&files, &nfiles, ws->journal_path);
	if (rc != 0) {
		set_error(m, ac_error_last());
		return rc;
	}
	s->files = files;
	s->n_files = nfiles;
	s->file_names = calloc(nfiles + 1, sizeof(*s->file_names));
	if (!s->file_names)
		return AC_ENOMEM;
	for (size_t i = 0; i < nfiles; i++) {
		const char *slash = strrchr(files[i], '/');
		uint64_t end = 0, size = 0;

		s->file_names[i] = ui_safe_str(slash ? slash + 1 : files[i]);
		if (ac_journal_complete_end(&end, &size, files[i]) == 0)
			s->bytes_total += end;
	}
	e->file = nfiles;
	s->running = nfiles > 0;
	s->complete = nfiles == 0;
	return 0;
}

static int keep_match(const ac_scan_match *match, void *ctx)
{
	ui_jsearch_engine *e = ctx;
	static const int which[6] = {AC_EV_ID, AC_EV_TIMESTAMP, AC_EV_AGENT, AC_EV_STATUS,
				     AC_EV_ACTION_TYPE, AC_EV_RESULT_MESSAGE};
	char **parts[6];
	ui_jmatch *j;

	if (e->n_window == e->cap_window) {
		size_t cap = e->cap_window ? e->cap_window * 2 : 64;
		ui_jmatch *grown = realloc(e->window, cap * sizeof(*grown));

		if (!grown)
			return AC_ENOMEM;
		e->window = grown;
		e->cap_window = cap;
	}
	j = &e->window[e->n_window++];
	memset(j, 0, sizeof(*j));
	parts[0] = &j->ev.id;
	parts[1] = &j->ev.timestamp;
	parts[2] = &j->ev.agent;
	parts[3] = &j->ev.status;
	parts[4] = &j->ev.action;
	parts[5] = &j->ev.message;
	for (int i = 0; i < 6; i++)
		*parts[i] = ui_safe_str(ui_event_field(&e->scratch, &match->fields[which[i]]));
	j->ev.st = ui_event_status_of(j->ev.status);
	if (match->invalid)
		j->ev.invalid = ui_invalid_text(match->invalid, match->line, match->len);
	j->file = e->file - 1;
	j->offset = match->offset;
	return 0;
}

/* Moves the window's matches to the model, newest first. */
static int take_window(ui_jsearch_engine *e, ui_model *m)
{
	ui_jsearch *s = &m->search;

	if (s->n + e->n_window > s->cap) {
		size_t cap = s->cap ? s->cap : 64;
		ui_jmatch *grown;

		while (cap < s->n + e->n_window)
			cap *= 2;
		if (!(grown = realloc(s->matches, cap * sizeof(*grown))))
			return AC_ENOMEM;
		s->matches = grown;
		s->cap = cap;
	}
	while (e->n_window)
		s->matches[s->n++] = e->window[--e->n_window];
	return 0;
}

/* Reads one window of the current file backward. */
static int scan_window(ui_jsearch_engine *e, ui_model *m)
{
	ui_jsearch *s = &m->search;
	const char *path = s->files[e->file - 1];
	uint64_t start, size = 0;
	int rc = 0;

	if (!e->started) {
		if ((rc = ac_journal_complete_end(&e->end, &size, path)) == AC_ENOTFOUND)
			e->end = 0, rc = 0; /* rotated away meanwhile: nothing there */
		e->started = true;
		if (rc)
			return rc;
	}
	start = e->end > UI_JSEARCH_WINDOW ? e->end - UI_JSEARCH_WINDOW : 0;
	if (start > 0 && (rc = ac_journal_line_start(&start, path, start)) != 0)
		return rc;
	if (start < e->end) {
		rc = ac_journal_scan_range(NULL, path, start, e->end, e->q, &e->ws->schema,
					   keep_match, e);
		if (rc == AC_ENOTFOUND)
			rc = 0;
		if (rc == 0)
			rc = take_window(e, m);
		for (size_t i = 0; i < e->n_window; i++)
			jmatch_free(&e->window[i]);
		e->n_window = 0;
		if (rc)
			return rc;
	}
	s->bytes_done += e->end - start;
	e->end = start;
	if (start == 0) {
		e->file--;
		e->started = false;
		s->files_done++;
	}
	return 0;
}

static int keep_formatted(ac_buf *out, ac_buf *scratch, const ac_scan_match *match,
			  const void *ctx)
{
	(void)out;
	(void)scratch;
	return keep_match(match, (void *)ctx);
}

static int write_nothing(const char *data, size_t len, void *ctx)
{
	(void)data;
	(void)len;
	(void)ctx;
	return 0;
}

/* The newest e->want matches of a database's journal, in place of those
 * shown (the store pages backward by seq; asking for more reads them
 * again, which costs what showing them costs). */
static int scan_store(ui_jsearch_engine *e, ui_model *m)
{
	ui_jsearch *s = &m->search;
	int rc = e->store->ops->scan(e->store, NULL, true, e->q, e->want, keep_formatted, e,
				     write_nothing, NULL);

	if (rc == 0) {
		for (size_t i = 0; i < s->n; i++)
			jmatch_free(&s->matches[i]);
		s->n = 0;
		rc = take_window(e, m);
	}
	for (size_t i = 0; i < e->n_window; i++)
		jmatch_free(&e->window[i]);
	e->n_window = 0;
	if (rc == 0 && s->n < e->want)
		e->file = 0;
	return rc;
}

bool ui_jsearch_step(ui_jsearch_engine *e, ui_model *m, int budget_ms)
{
	ui_jsearch *s = &m->search;
	int64_t until = ac_time_now_ms() + budget_ms;
	int rc;

	if (!e || !s->running)
		return false;
	do {
		if (e->file == 0) {
			s->complete = true;
			break;
		}
		if ((rc = e->store ? scan_store(e, m) : scan_window(e, m)) != 0) {
			set_error(m, ac_error_last());
			return true;
		}
	} while (s->n < e->want && ac_time_now_ms() < until);
	if (e->file == 0)
		s->complete = true;
	if (s->complete || s->n >= e->want)
		s->running = false;
	return true;
}

void ui_jsearch_want(ui_jsearch_engine *e, ui_model *m, size_t n)
{
	if (!e || m->search.complete || m->search.error)
		return;
	if (e->want < n)
		e->want = n;
	m->search.running = m->search.n < e->want;
}

void ui_jsearch_stop(ui_jsearch_engine *e, ui_model *m)
{
	(void)e;
	m->search.running = false;
}
