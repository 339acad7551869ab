/* agentctl session search TEXT [--json] [--limit N]: every conversation of
 * the workspace's session files, newest session first, each matching
 * message with its text around the match (ac_session_search.h).
 *
 * Without --limit the session files are listed by name only and each is
 * read once, by the search itself, which learns the updatedAt of those
 * that match from them. With --limit the session index lists them first
 * (reading each), so that the search can go newest first and stop at the
 * limit instead of parsing every file that matches. Like `journal query`, no match is not a failure:
 * exit 0 and nothing listed ([] of results with --json). On a database
 * store the histories are read through the backend, a batch of sessions
 * at a time. The coding agents' transcripts the sources index lists for
 * the workspace (every project's with --all-projects) are searched too,
 * beside the session files (ac_source_search.h). */
#include "cli.h"
#include "cli_sources.h"

#include "ac_error.h"
#include "ac_session.h"
#include "ac_session_index.h"
#include "ac_session_search.h"
#include "ac_session_search_store.h"
#include "ac_source_search.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void report_problem(const char *message, void *ctx)
{
	(void)ctx;
	cli_note("%s (skipped)", message);
}

/* The transcript an item of index is (by its path, borrowed from the
 * index), when it is a child (a sub-agent, a fork): NULL otherwise. */
static const ac_source_session *child_of(ac_source_index *index, json_t *by_path,
					 const ac_search_item *item)
{
	ac_source_session *const *list;
	const json_t *at;
	size_t n;

	if (!index || !item->path || !(at = json_object_get(by_path, item->path)))
		return NULL;
	list = ac_source_index_list(index, &n);
	return list[json_integer_value(at)]->parent_id ? list[json_integer_value(at)] : NULL;
}

static json_t *paths_of(ac_source_index *index)
{
	ac_source_session *const *list;
	json_t *by_path = json_object();
	size_t n = 0;

	if (index)
		list = ac_source_index_list(index, &n);
	for (size_t i = 0; by_path && i < n; i++)
		json_object_set_new(by_path, list[i]->path, json_integer((json_int_t)i));
	return by_path;
}

/* A hit in a child (a sub-agent, a fork) names it and its parent: JSON
 * "relation" and "parentId", the text row "(subagent of PARENT)". */
static int print_results(const ac_search_results *r, const ac_search_item *items,
			 const char *needle, bool json, ac_source_index *sources)
{
	ac_buf line = AC_BUF_INIT;
	json_t *doc = NULL, *array, *by_path = r->n ? paths_of(sources) : NULL;

	if (json) {
		doc = json_pack("{s:s, s:[], s:b}", "query", needle, "results", "limited",
				r->limited);
		if (!doc)
			return cli_error(CLI_FAILED, "out of memory");
		array = json_object_get(doc, "results");
	}
	for (size_t i = 0; i < r->n; i++) {
		const ac_search_hit *h = &r->hits[i];
		const ac_search_item *item = &items[h->item];
		const ac_source_session *child = child_of(sources, by_path, item);
		char number[32];

		if (json) {
			/* The snippet is terminal-safe already; message numbers
			 * count from 1, as `session show` and `fork --at` do. */
			json_t *e = json_pack(
				"{s:s, s:s, s:s, s:I, s:s, s:s, s:I, s:I}", "sessionId", item->id,
				"source", item->source, "updatedAt", h->updated_at,
				"message", (json_int_t)h->message + 1, "role", h->role,
				"snippet", h->snippet, "matchStart", (json_int_t)h->match_start,
				"matchLength", (json_int_t)h->match_len);

			if (e && child) {
				json_object_set_new(e, "relation",
						    json_string(ac_source_relation_name(child->relation)));
				json_object_set_new(e, "parentId", json_string(child->parent_id));
			}
			json_array_append_new(array, e);
			continue;
		}
		ac_buf_clear(&line);
		cli_put_cell(&line, item->id, 37);
		snprintf(number, sizeof(number), "[%zu]", h->message + 1);
		ac_buf_putc(&line, ' ');
		cli_put_cell(&line, number, 7);
		cli_put_cell(&line, h->role, 10);
		ac_buf_putc(&line, ' ');
		if (child) {
			ac_buf_printf(&line, "(%s of ", ac_source_relation_name(child->relation));
			cli_put_cell(&line, child->parent_id, 0);
			ac_buf_printf(&line, ") ");
		}
		ac_buf_append(&line, h->snippet, strlen(h->snippet));
		ac_buf_putc(&line, '\n');
		cli_write(line.data, line.len);
	}
	if (json)
		cli_write_json(doc);
	else if (r->limited)
		cli_note("stopped at %zu matches (--limit)", r->n);
	json_decref(doc);
	json_decref(by_path);
	ac_buf_free(&line);
	return cli_finish_output();
}

/* Sessions a database store holds are read in batches of this many, so
 * memory holds one batch of conversations at a time. */
#define STORE_BATCH 64

/* The order ac_session_search() keeps: newest update first, then id. */
static int newest_first(const void *a, const void *b)
{
	const ac_backend_session_info *x = *(const ac_backend_session_info *const *)a;
	const ac_backend_session_info *y = *(const ac_backend_session_info *const *)b;
	int order = strcmp(y->updated_at, x->updated_at);

	return order ? order : strcmp(x->session_id, y->session_id);
}

/* Moves r's hits (items offset by base) to the end of all. */
static int take_hits(ac_search_results *all, ac_search_results *r, size_t base)
{
	ac_search_hit *grown = realloc(all->hits, (all->n + r->n + 1) * sizeof(*grown));

	if (!grown)
		return AC_ENOMEM;
	all->hits = grown;
	for (size_t i = 0; i < r->n; i++) {
		all->hits[all->n] = r->hits[i];
		all->hits[all->n++].item += base;
	}
	all->limited = all->limited || r->limited;
	free(r->hits);
	memset(r, 0, sizeof(*r));
	return 0;
}

/* One session of the store as an item (ac_session_search_store.h). */
static int store_item(ac_search_item *item, char **out_text, const ac_backend *b,
		      const ac_backend_session_info *info)
{
	return ac_session_search_store_text(item, out_text, b, info->tenant, info->session_id);
}

/* Appends the transcripts of index to *items (grown). */
static int add_transcripts(ac_search_item **items, size_t *n, ac_source_index *index)
{
	ac_search_item *more = NULL, *grown;
	size_t k = 0;

	if (ac_source_search_items(&more, &k, index) != 0)
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	if (k && !(grown = realloc(*items, (*n + k) * sizeof(*grown)))) {
		free(more);
		return cli_error(CLI_FAILED, "out of memory");
	}
	if (k) {
		memcpy(grown + *n, more, k * sizeof(*more));
		*items = grown;
		*n += k;
	}
	free(more);
	return CLI_OK;
}

/* Newest first, then in the order searched: the store's hits and the
 * transcripts' mixed. */
static int hit_newest_first(const void *a, const void *b)
{
	const ac_search_hit *x = a, *y = b;
	int order = strcmp(y->updated_at, x->updated_at);

	if (order)
		return order;
	if (x->item != y->item)
		return x->item < y->item ? -1 : 1;
	return x->message < y->message ? -1 : x->message > y->message;
}

/* The transcripts searched after a store's sessions (items[0..*n) and
 * their hits in all): their hits join all, ordered with the store's,
 * cut to limit. */
static int search_store_transcripts(ac_search_results *all, ac_search_item **items, size_t *n,
				    const cli_context *ctx, const char *needle, size_t limit,
				    bool all_projects, ac_source_index **sources)
{
	size_t base = *n;
	ac_search_results r;
	int status;

	if ((status = cli_sources_open(sources, ctx, all_projects)) ||
	    (status = add_transcripts(items, n, *sources)))
		return status;
	if (ac_session_search(&r, *items + base, *n - base, needle, strlen(needle), limit, false,
			      report_problem, NULL) != 0)
		return cli_error(CLI_FAILED, "session search: %s", ac_error_last());
	if (take_hits(all, &r, base)) {
		ac_search_results_free(&r);
		return cli_error(CLI_FAILED, "out of memory");
	}
	if (all->n > 1)
		qsort(all->hits, all->n, sizeof(*all->hits), hit_newest_first);
	while (limit && all->n > limit) {
		ac_search_hit *h = &all->hits[--all->n];

		free(h->role);
		free(h->updated_at);
		free(h->snippet);
		all->limited = true;
	}
	return CLI_OK;
}

/* The search on a database store: every session's history, a batch at a
 * time (no raw bytes to prefilter there: each history is read whole). */
static int search_store(const cli_context *ctx, const char *needle, size_t limit, bool json,
			bool all_projects)
{
	ac_source_index *sources = NULL;
	ac_backend *b = NULL;
	ac_backend_session_info *list = NULL;
	const ac_backend_session_info **order = NULL;
	ac_search_results all = {0}, r;
	ac_search_item *items = NULL;
	char *texts[STORE_BATCH] = {0};
	size_t n = 0, listed = 0; /* items (the transcripts join them), sessions */
	int status;

	if ((status = cli_open_backend(&b, ctx)))
		return status;
	if (ac_backend_inspector_list_sessions(b, &list, &listed, NULL) != 0) {
		status = cli_error(CLI_FAILED, "session search: %s", ac_error_last());
		goto done;
	}
	n = listed;
	items = calloc(n ? n : 1, sizeof(*items));
	order = calloc(n ? n : 1, sizeof(*order));
	if (!items || !order) {
		status = cli_error(CLI_FAILED, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = &list[i];
	qsort(order, n, sizeof(*order), newest_first);
	for (size_t i = 0; i < n; i++)
		items[i] = (ac_search_item){.id = order[i]->session_id, .source = "postgresql",
					    .path = order[i]->session_id,
					    .updated_at = order[i]->updated_at,
					    .provider = &ac_session_search_file_provider};
	for (size_t at = 0; at < n && !all.limited; at += STORE_BATCH) {
		size_t k = n - at < STORE_BATCH ? n - at : STORE_BATCH;
		int rc = 0;

		for (size_t i = 0; i < k && rc == 0; i++) {
			/* One that cannot be read (gone since the listing) is
			 * named and searched as empty; the others still are. */
			if ((rc = store_item(&items[at + i], &texts[i], b, order[at + i])) &&
			    rc != AC_ENOMEM) {
				report_problem(ac_error_last(), NULL);
				items[at + i].bytes = "";
				items[at + i].len = 0;
				rc = 0;
			}
		}
		if (rc == 0)
			rc = ac_session_search(&r, items + at, k, needle, strlen(needle),
					       limit ? limit - all.n : 0, false, report_problem, NULL);
		for (size_t i = 0; i < k; i++) {
			free(texts[i]);
			texts[i] = NULL;
			items[at + i].bytes = NULL;
		}
		if (rc == 0 && (rc = take_hits(&all, &r, at)))
			ac_search_results_free(&r);
		if (rc) {
			status = cli_error(CLI_FAILED, "session search: %s", ac_error_last());
			goto done;
		}
	}
	if ((status = search_store_transcripts(&all, &items, &n, ctx, needle, limit, all_projects,
					       &sources)))
		goto done;
	status = print_results(&all, items, needle, json, sources);
done:
	ac_search_results_free(&all);
	ac_source_index_free(sources);
	free(items);
	free(order);
	ac_backend_sessions_free(list, listed);
	cli_close_backend(ctx, b);
	return status;
}

/* The session files of dir, each read once by the search (no listing
 * reads them first): "<id>.json" with a valid id, as the index lists them.
 * *out_paths holds their paths, which the items' path and id borrow. A
 * missing folder is no sessions. */
static int list_files(ac_search_item **out, size_t *out_n, char **out_paths, const char *dir)
{
	ac_buf paths = AC_BUF_INIT;
	size_t n = 0, at = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	int status = CLI_OK;

	*out = NULL;
	*out_n = 0;
	*out_paths = NULL;
	if (!d)
		return errno == ENOENT ? CLI_OK : cli_error(CLI_FAILED, "%s: %s", dir, strerror(errno));
	/* "<dir>/<id>.json\0<id>\0" for each, in one buffer. */
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		char id[256];

		if (len <= 5 || len - 5 >= sizeof(id) || strcmp(de->d_name + len - 5, ".json"))
			continue;
		memcpy(id, de->d_name, len - 5);
		id[len - 5] = '\0';
		if (ac_session_id_check(id) != 0)
			continue;
		if (ac_buf_printf(&paths, "%s/%s", dir, de->d_name) || ac_buf_putc(&paths, '\0') ||
		    ac_buf_append(&paths, id, len - 4)) {
			status = cli_error(CLI_FAILED, "out of memory");
			goto done;
		}
		n++;
	}
	ac_error_clear();
	if (n && !(*out = calloc(n, sizeof(**out)))) {
		status = cli_error(CLI_FAILED, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		const char *path = paths.data + at, *id = path + strlen(path) + 1;

		(*out)[i] = (ac_search_item){.id = id, .source = "file", .path = path,
					     .provider = &ac_session_search_file_provider};
		at = (size_t)(id - paths.data) + strlen(id) + 1;
	}
	*out_n = n;
	*out_paths = ac_buf_detach(&paths);
done:
	closedir(d);
	ac_buf_free(&paths);
	return status;
}

static void report_index_problem(const char *path, const char *reason, void *ctx)
{
	(void)path;
	report_problem(reason, ctx);
}

static int by_id(const void *a, const void *b)
{
	return strcmp((*(const ac_session_summary *const *)a)->id,
		      (*(const ac_session_summary *const *)b)->id);
}

/* With --limit the search should stop once it has the newest matches, so
 * it needs every session's updatedAt first: the session index reads them
 * (each file a first time), borrowed by items until index is freed. A file
 * the index could not list sorts last (the index said why). */
static int add_updates(ac_search_item *items, size_t n, ac_session_index **index,
		       const char *dir)
{
	const ac_session_summary *const *list;
	const ac_session_summary **sorted = NULL;
	size_t listed;

	if (ac_session_index_new(index, dir) != 0 ||
	    ac_session_index_refresh(*index, report_index_problem, NULL, NULL) != 0)
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	list = ac_session_index_list(*index, &listed);
	if (listed && !(sorted = malloc(listed * sizeof(*sorted))))
		return cli_error(CLI_FAILED, "out of memory");
	if (listed) { /* none: sorted is NULL, which qsort may not take */
		memcpy(sorted, list, listed * sizeof(*sorted));
		qsort(sorted, listed, sizeof(*sorted), by_id);
	}
	for (size_t i = 0; i < n; i++) {
		ac_session_summary key = {.id = items[i].id};
		const ac_session_summary *k = &key, *const *found =
			listed ? bsearch(&k, sorted, listed, sizeof(*sorted), by_id) : NULL;

		items[i].updated_at = found ? (*found)->updated_at : "";
	}
	free(sorted);
	return CLI_OK;
}

int cli_session_search(const cli_context *ctx, int argc, char **argv)
{
	const char *needle = NULL, *limit_text = NULL;
	ac_search_results results = {0};
	ac_search_item *items = NULL;
	ac_session_index *index = NULL;
	ac_source_index *sources = NULL;
	char *paths = NULL;
	size_t n = 0, limit = 0;
	bool json, all_projects, shared;
	ac_backend *b = NULL;
	cli_args args;
	int status = CLI_OK, rc;

	if ((status = cli_args_parse_as(&args, "session search", argc, argv)))
		return status;
	json = cli_args_has(&args, "--json");
	all_projects = cli_args_has(&args, "--all-projects");
	limit_text = cli_args_get(&args, "--limit");
	needle = args.pos[0];
	if (!*needle) /* no text to look for either */
		return cli_args_say_missing(&args);
	if ((status = cli_check_utf8("session search: the text", needle)) ||
	    (limit_text && (status = cli_parse_count(&limit, "--limit", limit_text))))
		return status;
	if ((status = cli_open_backend(&b, ctx)))
		return status;
	shared = !ac_backend_has_local_sessions(b);
	cli_close_backend(ctx, b);
	/* A shared store's histories are read through it. */
	if (shared)
		return search_store(ctx, needle, limit, json, all_projects);
	if ((status = list_files(&items, &n, &paths, ctx->ws.sessions_dir)) ||
	    (limit && (status = add_updates(items, n, &index, ctx->ws.sessions_dir))) ||
	    (status = cli_sources_open(&sources, ctx, all_projects)) ||
	    (status = add_transcripts(&items, &n, sources)))
		goto done;
	if ((rc = ac_session_search(&results, items, n, needle, strlen(needle), limit, false,
				    report_problem, NULL)) != 0) {
		status = cli_error(rc == AC_EINVAL ? CLI_USAGE : CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	status = print_results(&results, items, needle, json, sources);
done:
	ac_search_results_free(&results);
	free(items);
	free(paths);
	ac_session_index_free(index);
	ac_source_index_free(sources);
	return status;
}
