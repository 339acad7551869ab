/* Conversation search behind the Sessions filter, a slice at a time. */
#include "csearch.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_session_search.h"
#include "ac_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Files handed to one ac_session_search() call. */
#define SLICE 32

struct ui_csearch_engine {
	char *needle;
	ac_search_item *items; /* strings owned here */
	size_t n, next;
};

static void items_free(ui_csearch_engine *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free((char *)e->items[i].id);
		free((char *)e->items[i].path);
		free((char *)e->items[i].updated_at);
	}
	free(e->items);
	e->items = NULL;
	e->n = e->next = 0;
}

void ui_csearch_free(ui_csearch_engine *e)
{
	if (!e)
		return;
	items_free(e);
	free(e->needle);
	free(e);
}

static int newest_first(const void *a, const void *b)
{
	const ac_search_item *x = a, *y = b;
	int order = strcmp(y->updated_at, x->updated_at);

	return order ? order : strcmp(x->id, y->id);
}

/* The listed sessions as items, newest first (the order search keeps). */
static int load_items(ui_csearch_engine *e, const ui_model *m, const ac_workspace *ws)
{
	ac_buf path = AC_BUF_INIT;

	if (m->n_sessions && !(e->items = calloc(m->n_sessions, sizeof(*e->items))))
		return AC_ENOMEM;
	for (size_t i = 0; i < m->n_sessions; i++) {
		const ui_session *s = &m->sessions[i];
		ac_search_item *item = &e->items[e->n];

		ac_buf_clear(&path);
		if (ac_buf_printf(&path, "%s/%s.json", ws->sessions_dir, s->id))
			break;
		item->id = strdup(s->id);
		item->path = ac_buf_detach(&path);
		item->updated_at = strdup(*s->updated ? s->updated : s->created);
		item->source = "file";
		item->provider = &ac_session_search_file_provider;
		e->n++;
		if (!item->id || !item->path || !item->updated_at)
			break;
	}
	ac_buf_free(&path);
	if (e->n < m->n_sessions) {
		items_free(e);
		return AC_ENOMEM;
	}
	qsort(e->items, e->n, sizeof(*e->items), newest_first);
	return 0;
}

bool ui_csearch_sync(ui_csearch_engine **io, ui_model *m, const ac_workspace *ws,
		     const char *filter)
{
	ui_csearch_engine *e = *io;
	const char *want = filter && strlen(filter) >= UI_CSEARCH_MIN ? filter : NULL;

	if ((!e && !want) || (e && want && !strcmp(e->needle, want)))
		return false;
	ui_csearch_free(e);
	*io = NULL;
	ui_model_csearch_reset(m, want);
	if (!want)
		return true;
	if (!(e = calloc(1, sizeof(*e))) || !(e->needle = strdup(want)) ||
	    load_items(e, m, ws) != 0) {
		ui_csearch_free(e);
		ui_model_set_action(m, true, "conversation search: out of memory");
		return true;
	}
	m->conv_search.running = e->n > 0;
	*io = e;
	return true;
}

static void note_problem(const char *message, void *ctx)
{
	ui_model_log(ctx, true, message);
}

bool ui_csearch_step(ui_csearch_engine *e, ui_model *m, int budget_ms)
{
	int64_t until = ac_time_now_ms() + budget_ms;
	bool changed = false;

	if (!e || !m->conv_search.running)
		return false;
	do {
		size_t k = e->n - e->next < SLICE ? e->n - e->next : SLICE;
		ac_search_results r;

		if (ac_session_search(&r, e->items + e->next, k, e->needle, strlen(e->needle), 0,
				      note_problem, m) != 0) {
			/* Not UTF-8 yet (a character half typed) or out of
			 * memory: nothing more to find for this text. */
			e->next = e->n;
			break;
		}
		for (size_t i = 0; i < r.n; i++)
			if (ui_model_csearch_add(m, e->items[e->next + r.hits[i].item].id,
						 r.hits[i].message, r.hits[i].snippet) == 0)
				changed = true;
		ac_search_results_free(&r);
		e->next += k;
	} while (e->next < e->n && ac_time_now_ms() < until);
	if (e->next == e->n) {
		m->conv_search.running = false;
		ui_model_set_action(m, false, "/%s: %zu session%s hold it in their conversation",
				    e->needle, m->conv_search.n, m->conv_search.n == 1 ? "" : "s");
		changed = true;
	}
	return changed;
}
