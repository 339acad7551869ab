/* agentctl session search TEXT [--json] [--limit N]: every conversation of
 * the workspace's session files, newest session first, each matching
 * message with its text around the match (ac_session_search.h).
 *
 * Like `journal query`, no match is not a failure: exit 0 and nothing
 * listed ([] of results with --json). */
#include "cli.h"

#include "ac_error.h"
#include "ac_session_index.h"
#include "ac_session_search.h"

#include <stdlib.h>
#include <string.h>

static void report_problem(const char *message, void *ctx)
{
	(void)ctx;
	cli_note("%s (skipped)", message);
}

static void report_index_problem(const char *path, const char *reason, void *ctx)
{
	(void)path;
	report_problem(reason, ctx);
}

static int print_results(const ac_search_results *r, const ac_search_item *items,
			 const char *needle, bool json)
{
	ac_buf line = AC_BUF_INIT;
	json_t *doc = NULL, *array;

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
		char number[32];

		if (json) {
			/* The snippet is terminal-safe already; message numbers
			 * count from 1, as `session show` and `fork --at` do. */
			json_array_append_new(array, json_pack(
				"{s:s, s:s, s:s, s:I, s:s, s:s, s:I, s:I}", "sessionId", item->id,
				"source", item->source, "updatedAt", item->updated_at,
				"message", (json_int_t)h->message + 1, "role", h->role,
				"snippet", h->snippet, "matchStart", (json_int_t)h->match_start,
				"matchLength", (json_int_t)h->match_len));
			continue;
		}
		ac_buf_clear(&line);
		cli_put_cell(&line, item->id, 37);
		snprintf(number, sizeof(number), "[%zu]", h->message + 1);
		ac_buf_putc(&line, ' ');
		cli_put_cell(&line, number, 7);
		cli_put_cell(&line, h->role, 10);
		ac_buf_putc(&line, ' ');
		ac_buf_append(&line, h->snippet, strlen(h->snippet));
		ac_buf_putc(&line, '\n');
		cli_write(line.data, line.len);
	}
	if (json)
		cli_write_json(doc);
	else if (r->limited)
		cli_note("stopped at %zu matches (--limit)", r->n);
	json_decref(doc);
	ac_buf_free(&line);
	return cli_finish_output();
}

int cli_session_search(const cli_context *ctx, int argc, char **argv)
{
	const char *needle = NULL, *limit_text = NULL;
	const ac_session_summary *const *list;
	ac_session_index *index = NULL;
	ac_search_results results = {0};
	ac_search_item *items = NULL;
	ac_buf paths = AC_BUF_INIT;
	size_t n = 0, limit = 0, *offsets = NULL;
	bool json = false, options_done = false;
	int status = CLI_OK, rc;

	for (int i = 0; i < argc && status == CLI_OK; i++) {
		if (!options_done && !strcmp(argv[i], "--json"))
			json = true;
		else if (!options_done && !strcmp(argv[i], "--"))
			options_done = true;
		else if (!options_done && cli_option(&limit_text, "--limit", argc, argv, &i, &status))
			continue;
		else if (!needle && (options_done || argv[i][0] != '-'))
			needle = argv[i];
		else
			return cli_error(CLI_USAGE, "session search: unexpected '%s'", argv[i]);
	}
	if (status)
		return status;
	if (!needle || !*needle)
		return cli_error(CLI_USAGE, "session search needs the text to look for");
	if ((status = cli_check_utf8("session search: the text", needle)) ||
	    (limit_text && (status = cli_parse_count(&limit, "--limit", limit_text))))
		return status;
	if (cli_store_is_database(ctx))
		return cli_error(CLI_FAILED, "session search: not available on a PostgreSQL store "
				 "yet (storage.url); it searches session files");
	if (ac_session_index_new(&index, ctx->ws.sessions_dir) != 0 ||
	    ac_session_index_refresh(index, report_index_problem, NULL, NULL) != 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	list = ac_session_index_list(index, &n);
	items = calloc(n ? n : 1, sizeof(*items));
	offsets = calloc(n ? n : 1, sizeof(*offsets));
	if (!items || !offsets) {
		status = cli_error(CLI_FAILED, "out of memory");
		goto done;
	}
	/* The paths go in one buffer; pointers are taken once it stops growing. */
	for (size_t i = 0; i < n; i++) {
		offsets[i] = paths.len;
		if (ac_buf_printf(&paths, "%s/%s.json", ctx->ws.sessions_dir, list[i]->id) ||
		    ac_buf_putc(&paths, '\0')) {
			status = cli_error(CLI_FAILED, "out of memory");
			goto done;
		}
	}
	for (size_t i = 0; i < n; i++)
		items[i] = (ac_search_item){.id = list[i]->id, .source = "file",
					    .path = paths.data + offsets[i],
					    .updated_at = list[i]->updated_at,
					    .provider = &ac_session_search_file_provider};
	if ((rc = ac_session_search(&results, items, n, needle, strlen(needle), limit,
				    report_problem, NULL)) != 0) {
		status = cli_error(rc == AC_EINVAL ? CLI_USAGE : CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	status = print_results(&results, items, needle, json);
done:
	ac_search_results_free(&results);
	free(items);
	free(offsets);
	ac_buf_free(&paths);
	ac_session_index_free(index);
	return status;
}
