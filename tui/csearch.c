/* Conversation search behind the Sessions filter, a slice at a time. A
 * session the workspace's store keeps as rows (no optional.local_sessions:
 * a database) is read through it (ac_session_search_store.h) when its
 * slice is searched; a session file, from its file. */
#include "csearch.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_session_search.h"
#include "ac_session_search_store.h"
#include "ac_source_search.h"
#include "ac_time.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Files handed to one ac_session_search() call. */
#define SLICE 32
/* Stored sessions read for one call: each is two statements (its tenant,
 * its history) on the dashboard's connection, so a slice stays short. */
#define STORE_SLICE 8

/* What marks an item read through the store (its source). */
static const char STORE_ITEM[] = "store";

struct ui_csearch_engine {
	char *needle;
	ac_search_item *items; /* strings owned here */
	size_t n, next;
	uint64_t sessions_gen; /* the model's rows the items were taken from */
	const ac_workspace *ws; /* borrowed */
	bool stored;           /* the store keeps no session files: rows are read through it */
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

/* What searches row s: its session file in ws (stored: its rows in ws's
 * store), or its transcript with the provider of its source. path
 * receives the file's path. 0 or AC_ENOMEM. */
static int item_of(ac_search_item *item, ac_buf *path, const ui_session *s,
		   const ac_workspace *ws, bool stored)
{
	const ac_search_provider *provider = &ac_session_search_file_provider;

	ac_buf_clear(path);
	for (int k = 0; s->source && k < AC_SOURCE_COUNT; k++)
		if (!strcmp(s->source, ac_source_name((ac_source_kind)k)))
			provider = ac_source_search_provider((ac_source_kind)k);
	/* A stored session's "path" only names it in errors. */
	if (s->source && s->path ? ac_buf_printf(path, "%s", s->path)
	    : stored ? ac_buf_printf(path, "%s", s->raw_id)
		     : ac_buf_printf(path, "%s/%s.json", ws->sessions_dir, s->raw_id))
		return AC_ENOMEM;
	*item = (ac_search_item){.id = s->raw_id,
				 .source = s->source ? s->source : stored ? STORE_ITEM : "file",
				 .path = path->data,
				 .updated_at = *s->updated ? s->updated : s->created,
				 .provider = provider};
	return 0;
}

/* The listed sessions as items, newest first (the order search keeps). */
static int load_items(ui_csearch_engine *e, const ui_model *m)
{
	ac_buf path = AC_BUF_INIT;

	if (m->n_sessions && !(e->items = calloc(m->n_sessions, sizeof(*e->items))))
		return AC_ENOMEM;
	for (size_t i = 0; i < m->n_sessions; i++) {
		const ui_session *s = &m->sessions[i];
		ac_search_item *item = &e->items[e->n];

		if (item_of(item, &path, s, e->ws, e->stored))
			break;
		item->id = strdup(s->raw_id);
		item->path = ac_buf_detach(&path);
		item->updated_at = strdup(item->updated_at);
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

static void note_problem(const char *message, void *ctx)
{
	ui_model_log(ctx, true, message);
}

/* Reads the stored sessions among items[0..k) through the workspace's
 * store into texts[] (their bytes); one that cannot be read is named in
 * m's log and searched as empty. 0 or AC_ENOMEM. */
static int read_stored(const ui_csearch_engine *e, ui_model *m, ac_search_item *items, size_t k,
		       char **texts)
{
	ac_backend *b = NULL;
	int rc = 0;

	for (size_t i = 0; i < k && rc == 0; i++) {
		ac_backend_session_info info = {0};

		if (items[i].source != STORE_ITEM)
			continue;
		/* The operator's view names a session by id; its tenant is the store's. */
		if ((b || (rc = ac_workspace_store(&b, e->ws)) == 0) &&
		    (rc = ac_backend_inspector_find(b, &info, items[i].id)) == 0)
			rc = ac_session_search_store_text(&items[i], &texts[i], b, info.tenant,
							  items[i].id);
		ac_backend_session_info_clear(&info);
		if (rc && rc != AC_ENOMEM) {
			note_problem(ac_error_last(), m);
			rc = 0;
		}
		if (!texts[i]) {
			items[i].bytes = "";
			items[i].len = 0;
		}
	}
	ac_workspace_store_release(e->ws, b);
	return rc;
}

/* Searches items[0..k) (sorted; k at most SLICE) and records their hits;
 * the rest of the search is the caller's. 0, or the search's error. */
static int search_slice(const ui_csearch_engine *e, ui_model *m, ac_search_item *items, size_t k)
{
	char *texts[SLICE] = {0};
	ac_search_results r = {0};
	int rc = e->stored ? read_stored(e, m, items, k, texts) : 0;

	if (rc == 0)
		rc = ac_session_search(&r, items, k, e->needle, strlen(e->needle), 0, true,
				       note_problem, m);
	for (size_t i = 0; rc == 0 && i < r.n; i++)
		ui_model_csearch_add(m, items[r.hits[i].item].id, r.hits[i].message,
				     r.hits[i].snippet);
	ac_search_results_free(&r);
	for (size_t i = 0; i < k; i++) {
		if (items[i].source == STORE_ITEM)
			items[i].bytes = NULL;
		free(texts[i]);
	}
	return rc;
}

/* Sets session id's item to updated, adding one for a new session. */
static int remember(ui_csearch_engine *e, const char *id, const char *updated)
{
	ac_search_item *grown;
	char *copy = strdup(updated);
	size_t k = 0;

	while (k < e->n && strcmp(e->items[k].id, id))
		k++;
	if (!copy)
		return AC_ENOMEM;
	if (k < e->n) {
		free((char *)e->items[k].updated_at);
		e->items[k].updated_at = copy;
		return 0;
	}
	if (!(grown = realloc(e->items, (e->n + 1) * sizeof(*grown)))) {
		free(copy);
		return AC_ENOMEM;
	}
	e->items = grown;
	/* Only its id and update are read again (by follow_rows). */
	e->items[e->n] = (ac_search_item){.id = strdup(id), .updated_at = copy};
	if (!e->items[e->n].id) {
		free(copy);
		return AC_ENOMEM;
	}
	e->n++;
	e->next = e->n;
	return 0;
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const ac_search_item *)a)->id, ((const ac_search_item *)b)->id);
}

/* The model's rows changed after the search: each session whose last
 * update is not the one searched (or that is new) is searched again
 * alone, and its item brought up to date. False when too many changed
 * (more than a slice): the caller starts over. */
static bool follow_rows(ui_csearch_engine *e, ui_model *m)
{
	ac_search_item *by_id_items = NULL;
	size_t changed = 0;
	bool ok = false;

	if (e->n && !(by_id_items = malloc(e->n * sizeof(*by_id_items))))
		return false;
	if (e->n)
		memcpy(by_id_items, e->items, e->n * sizeof(*by_id_items));
	qsort(by_id_items, e->n, sizeof(*by_id_items), by_id);
	for (size_t i = 0; i < m->n_sessions; i++) {
		const ui_session *s = &m->sessions[i];
		const char *updated = *s->updated ? s->updated : s->created;
		ac_search_item key = {.id = s->raw_id};
		const ac_search_item *was = e->n ? bsearch(&key, by_id_items, e->n,
							    sizeof(key), by_id) : NULL;
		ac_buf path = AC_BUF_INIT;
		ac_search_item item;

		if (was && !strcmp(was->updated_at, updated))
			continue;
		if (++changed > SLICE || item_of(&item, &path, s, e->ws, e->stored))
			goto done;
		ui_model_csearch_remove(m, s->raw_id);
		search_slice(e, m, &item, 1);
		ac_buf_free(&path);
		/* Its item says this update was searched (a new session
		 * gets one), so the next change is judged against it. */
		if (remember(e, s->raw_id, updated) != 0)
			goto done;
	}
	ok = true;
done:
	free(by_id_items);
	return ok;
}

bool ui_csearch_sync(ui_csearch_engine **io, ui_model *m, const ac_workspace *ws,
		     const char *filter)
{
	ui_csearch_engine *e = *io;
	ac_backend *store = NULL;
	const char *want = filter && strlen(filter) >= UI_CSEARCH_MIN ? filter : NULL;

	if (e && want && !strcmp(e->needle, want)) {
		if (m->sessions_gen == e->sessions_gen)
			return false;
		/* While it runs, the files not read yet are read as they are. */
		if (e->next < e->n || follow_rows(e, m)) {
			e->sessions_gen = m->sessions_gen;
			return true;
		}
		/* Many changed at once: the search starts over. */
	} else if (!e && !want) {
		return false;
	}
	ui_csearch_free(e);
	*io = NULL;
	ui_model_csearch_reset(m, want);
	if (!want)
		return true;
	if (!(e = calloc(1, sizeof(*e))) || !(e->needle = strdup(want))) {
		ui_csearch_free(e);
		ui_model_set_action(m, true, "conversation search: out of memory");
		return true;
	}
	e->ws = ws;
	if (ac_workspace_store(&store, ws) != 0) {
		/* Said where the dashboard reads the store; nothing searched. */
		ui_csearch_free(e);
		ui_model_set_action(m, true, "conversation search: %s", ac_error_last());
		return true;
	}
	e->stored = !ac_backend_has_local_sessions(store);
	ac_workspace_store_release(ws, store);
	if (load_items(e, m) != 0) {
		ui_csearch_free(e);
		ui_model_set_action(m, true, "conversation search: out of memory");
		return true;
	}
	e->sessions_gen = m->sessions_gen;
	m->conv_search.running = e->n > 0;
	*io = e;
	return true;
}

bool ui_csearch_step(ui_csearch_engine *e, ui_model *m, int budget_ms)
{
	int64_t until = ac_time_now_ms() + budget_ms;
	bool changed = false;

	if (!e || !m->conv_search.running)
		return false;
	do {
		size_t slice = e->stored ? STORE_SLICE : SLICE;
		size_t k = e->n - e->next < slice ? e->n - e->next : slice;
		uint64_t gen = m->conv_search.gen;

		if (search_slice(e, m, e->items + e->next, k) != 0) {
			/* Not UTF-8 yet (a character half typed) or out of
			 * memory: nothing more to find for this text. */
			e->next = e->n;
			break;
		}
		changed = changed || gen != m->conv_search.gen;
		e->next += k;
	} while (e->next < e->n && ac_time_now_ms() < until);
	if (e->next == e->n) {
		m->conv_search.running = false;
		ui_model_set_result(m, "/%s: found in the conversation of %zu session%s",
				    e->needle, m->conv_search.n, m->conv_search.n == 1 ? "" : "s");
		changed = true;
	}
	return changed;
}
