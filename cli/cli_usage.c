/* agentctl usage [daily|session|block] [--since T] [--all-projects] [--json]:
 * the recorded usage of every source (agentctl's turn rows, Claude Code
 * and Codex transcripts) through the usage index, priced with the
 * configuration's `pricing` (else the built-in example table). By default
 * only sessions that ran in the workspace or below it are counted.
 * Numbers come from files; model, session and project names from files are
 * printed made safe. */
#include "cli.h"

#include "ac_buf.h"
#include "ac_config.h"
#include "ac_error.h"
#include "ac_gc.h"
#include "ac_time.h"
#include "ac_usage_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --since: a date or time (UTC unless a zone is given), or an age back
 * from now (30m, 12h, 7d, 2w). */
static int parse_since(int64_t *out, const char *text, int64_t now)
{
	int64_t age;

	if (ac_time_parse(out, text) == 0)
		return CLI_OK;
	if (ac_gc_parse_age(&age, text) == 0) {
		*out = now - age;
		return CLI_OK;
	}
	return cli_error(CLI_USAGE, "usage: --since '%s': give a date (2026-11-01), a time "
			 "(2026-11-01T09:00Z) or an age (12h, 7d, 2w)", text);
}

/* A row's text field (every row has them; a missing one shows empty,
 * never dereferenced). */
static void cell_text(ac_buf *line, const json_t *row, const char *key, int width)
{
	const char *text = json_string_value(json_object_get(row, key));

	cli_put_cell(line, text ? text : "", width);
}

static void cell_count(ac_buf *line, const json_t *row, const char *key)
{
	ac_buf_printf(line, " %13lld", (long long)json_integer_value(json_object_get(row, key)));
}

static void cell_cost(ac_buf *line, const json_t *row)
{
	const json_t *cost = json_object_get(row, "costUsd");

	if (json_is_number(cost))
		ac_buf_printf(line, " %11.4f", json_number_value(cost));
	else
		ac_buf_printf(line, " %11s", "unknown");
}

static void put_counts(ac_buf *line, const json_t *row)
{
	cell_count(line, row, "inputTokens");
	cell_count(line, row, "outputTokens");
	cell_count(line, row, "cacheCreationTokens");
	cell_count(line, row, "cacheReadTokens");
	cell_count(line, row, "totalTokens");
	cell_cost(line, row);
}

static void print_table(const json_t *report, ac_usage_report_kind kind)
{
	static const char counts[] = "         INPUT        OUTPUT  CACHE-CREATE    CACHE-READ"
				     "         TOTAL    COST-USD";
	const json_t *rows = json_object_get(report, "rows"), *r;
	const json_t *totals = json_object_get(report, "totals");
	ac_buf out = AC_BUF_INIT, line = AC_BUF_INIT;
	size_t i;

	ac_buf_printf(&out, "%s%s%s\n",
		      kind == AC_USAGE_DAILY ? "DATE      " : kind == AC_USAGE_BLOCKS
						     ? "BLOCK START           "
						     : "SOURCE   SESSION                               ",
		      counts, kind == AC_USAGE_DAILY ? "" : kind == AC_USAGE_BLOCKS ? "  STATE" : "  PROJECT");
	json_array_foreach(rows, i, r) {
		ac_buf_clear(&line);
		if (kind == AC_USAGE_DAILY) {
			cell_text(&line, r, "date", 10);
		} else if (kind == AC_USAGE_BLOCKS) {
			cell_text(&line, r, "start", 22);
		} else {
			cell_text(&line, r, "source", 9);
			cell_text(&line, r, "sessionId", 37);
		}
		put_counts(&line, r);
		if (kind == AC_USAGE_BLOCKS) {
			ac_buf_printf(&line, "  %s", json_is_true(json_object_get(r, "active")) ? "active"
											: "done");
		} else if (kind == AC_USAGE_BY_SESSION) {
			ac_buf_printf(&line, "  ");
			cell_text(&line, r, "project", 0);
		}
		ac_buf_putc(&line, '\n');
		ac_buf_append(&out, line.data, line.len);
	}
	ac_buf_clear(&line);
	cli_put_cell(&line, "total", kind == AC_USAGE_DAILY ? 10 : kind == AC_USAGE_BLOCKS ? 22 : 46);
	put_counts(&line, totals);
	ac_buf_putc(&line, '\n');
	ac_buf_append(&out, line.data, line.len);
	if (json_integer_value(json_object_get(totals, "unpricedTokens")))
		ac_buf_printf(&out, "cost unknown for %lld tokens of models the pricing table lacks "
			      "(priced part: $%.2f; add them under `pricing`)\n",
			      (long long)json_integer_value(json_object_get(totals, "unpricedTokens")),
			      json_number_value(json_object_get(totals, "costUsdPriced")));
	cli_write(out.data, out.len);
	ac_buf_free(&out);
	ac_buf_free(&line);
}

int cli_usage(cli_context *ctx, int argc, char **argv)
{
	ac_usage_report_options ro = AC_USAGE_REPORT_OPTIONS_INIT;
	ac_usage_paths paths = {0};
	ac_usage_scan_options so;
	ac_usage_set set = {0};
	const char *since;
	char *root = NULL;
	bool json, all;
	cli_args a;
	json_t *report = NULL;
	int status = CLI_OK;

	if ((status = cli_args_parse_as(&a, "usage", argc, argv)))
		return status;
	json = cli_args_has(&a, "--json");
	all = cli_args_has(&a, "--all-projects");
	since = cli_args_get(&a, "--since");
	if (a.npos == 1) {
		const char *kind = a.pos[0];

		if (strcmp(kind, "daily") && strcmp(kind, "session") && strcmp(kind, "block") &&
		    strcmp(kind, "blocks"))
			return cli_error(CLI_USAGE, "usage: unexpected '%s' (agentctl usage "
					 "[daily|session|block] [--since T] [--all-projects] [--json])",
					 kind);
		ro.kind = kind[0] == 'd' ? AC_USAGE_DAILY
			  : kind[0] == 's' ? AC_USAGE_BY_SESSION : AC_USAGE_BLOCKS;
	}
	ro.now_ms = ac_time_now_ms();
	ro.pricing = ac_config_get(ctx->config, "pricing");
	if (since && (status = parse_since(&ro.since_ms, since, ro.now_ms)))
		return status;
	if (ac_usage_pricing_check(ro.pricing) != 0)
		return cli_error(CLI_USAGE, "usage: %s", ac_error_last());
	/* Transcripts record the real cwd: compare with the real path. */
	if (!all && !(root = realpath(ctx->ws.root, NULL)) && !(root = strdup(ctx->ws.root))) {
		status = cli_error(CLI_FAILED, "out of memory");
		goto done;
	}
	ro.workspace = root;
	if (ac_usage_paths_init(&paths, &ctx->ws) != 0) {
		status = cli_error(CLI_FAILED, "usage: %s", ac_error_last());
		goto done;
	}
	so = ac_usage_paths_options(&paths);
	if (ac_usage_scan(&set, &so) != 0) {
		status = cli_error(CLI_FAILED, "usage: %s", ac_error_last());
		goto done;
	}
	/* An index that cannot be written costs the next run time, not these
	 * numbers: said, and the report goes on. */
	if (set.index_unsaved)
		cli_note("usage: the index was not saved: %s", set.index_unsaved);
	if (ac_usage_report(&report, &set, &ro) != 0) {
		status = cli_error(CLI_FAILED, "usage: %s", ac_error_last());
		goto done;
	}
	if (set.lines_skipped)
		cli_note("usage: %zu usage lines could not be read and were skipped", set.lines_skipped);
	if (set.files_skipped)
		cli_note("usage: %zu transcript files or folders whose name is not valid UTF-8 were "
			 "skipped", set.files_skipped);
	if (json) {
		json_object_set_new(report, "files",
				    json_pack("{s:I, s:I, s:I, s:I, s:b, s:I}", "seen",
					      (json_int_t)set.files, "read", (json_int_t)set.files_read,
					      "reread", (json_int_t)set.files_reread, "bytesRead",
					      (json_int_t)set.bytes_read, "indexRebuilt",
					      set.index_rebuilt, "skipped", (json_int_t)set.files_skipped));
		cli_write_json(report);
	} else {
		print_table(report, ro.kind);
	}
	status = cli_finish_output();
done:
	json_decref(report);
	ac_usage_set_free(&set);
	ac_usage_paths_free(&paths);
	free(root);
	return status;
}
