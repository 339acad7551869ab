/* agentctl sources check [--all-projects] [--json]: what the coding agents'
 * transcripts (Claude Code, Codex, Gemini CLI) gave, per source: its
 * folder, how many transcripts list, how many of their lines were not
 * entries, and each transcript that could not be read at all (a name that
 * is not UTF-8, no permission), named escaped; and the format-drift
 * canary: files in its folders that look like transcripts of a format it
 * does not read ("gemini: 17 session-*.jsonl not read") and records of
 * types it does not know ("codex: 3 records of type world_state
 * skipped"). Exit 1 when any transcript could not be read or a
 * transcript-like file was not read (sessions are missing), as `journal
 * check` does for a bad line; skipped record types, like malformed lines,
 * are reported but exit 0 (the sessions are listed). The transcripts are
 * only read. */
#include "cli.h"
#include "cli_sources.h"

#include "ac_buf.h"

#include <stdio.h>
#include <string.h>

typedef struct {
	size_t transcripts, malformed, unreadable, files_not_read, records_skipped;
} source_counts;

static size_t tally_total(const ac_source_tally *t)
{
	size_t n = t->other;

	for (size_t i = 0; i < t->n; i++)
		n += t->items[i].count;
	return n;
}

/* [{name-key: name, count}], the rest as {name-key: null, count}. */
static json_t *tally_json(const ac_source_tally *t, const char *key)
{
	json_t *out = json_array();

	for (size_t i = 0; i < t->n; i++)
		json_array_append_new(out, json_pack("{s:s, s:I}", key, t->items[i].name, "count",
						     (json_int_t)t->items[i].count));
	if (t->other)
		json_array_append_new(out, json_pack("{s:n, s:I}", key, "count",
						     (json_int_t)t->other));
	return out;
}

static void count(source_counts out[AC_SOURCE_COUNT], ac_source_index *index)
{
	ac_source_session *const *list;
	ac_source_kind kind;
	size_t n;

	memset(out, 0, AC_SOURCE_COUNT * sizeof(*out));
	list = ac_source_index_list(index, &n);
	for (size_t i = 0; i < n; i++) {
		out[list[i]->kind].transcripts++;
		out[list[i]->kind].malformed += list[i]->malformed;
	}
	for (size_t i = 0; ac_source_index_unreadable_at(index, i, &kind); i++)
		out[kind].unreadable++;
	for (int k = 0; k < AC_SOURCE_COUNT; k++) {
		const ac_source_drift *d = ac_source_index_drift(index, (ac_source_kind)k);

		out[k].files_not_read = tally_total(&d->files);
		out[k].records_skipped = tally_total(&d->types);
	}
}

static json_t *as_json(const source_counts counts[AC_SOURCE_COUNT], ac_source_index *index)
{
	const ac_source_options *opts = ac_source_index_options(index);
	json_t *sources = json_array(), *unreadable = json_array();
	ac_source_kind kind;
	const char *reason;

	for (int k = 0; k < AC_SOURCE_COUNT; k++) {
		const ac_source_drift *d = ac_source_index_drift(index, (ac_source_kind)k);

		json_array_append_new(sources, json_pack("{s:s, s:o, s:I, s:I, s:I, s:I, s:o, s:I, s:o}",
				      "source", ac_source_name((ac_source_kind)k), "folder",
				      opts->dir[k] ? json_string(opts->dir[k]) : json_null(),
				      "transcripts", (json_int_t)counts[k].transcripts,
				      "malformedLines", (json_int_t)counts[k].malformed,
				      "unreadable", (json_int_t)counts[k].unreadable,
				      "filesNotRead", (json_int_t)counts[k].files_not_read,
				      "filesNotReadByPattern", tally_json(&d->files, "pattern"),
				      "recordsSkipped", (json_int_t)counts[k].records_skipped,
				      "recordsSkippedByType", tally_json(&d->types, "type")));
	}
	for (size_t i = 0; (reason = ac_source_index_unreadable_at(index, i, &kind)); i++)
		json_array_append_new(unreadable, json_pack("{s:s, s:s}", "source",
							    ac_source_name(kind), "reason", reason));
	/* Antigravity conversations kept only in a format not read. */
	json_object_set_new(json_array_get(sources, AC_SOURCE_AGY), "conversationsNotRead",
			    json_integer((json_int_t)ac_source_agy_unread(opts->dir[AC_SOURCE_AGY])));
	return json_pack("{s:o, s:o}", "sources", sources, "unreadable", unreadable);
}

/* One line when Antigravity conversations are kept only in a format
 * agentctl does not read (ac_source_agy_unread()); not an error: older
 * agy wrote no transcript. */
static void cli_sources_agy_unread(ac_buf *out, const char *dir)
{
	size_t n = ac_source_agy_unread(dir);

	if (!n)
		return;
	ac_buf_printf(out, "%s: %zu conversation%s in ", ac_source_name(AC_SOURCE_AGY), n,
		      n == 1 ? "" : "s");
	cli_put_cell(out, dir, 0);
	ac_buf_printf(out, " with no transcript.jsonl, kept only as .db/.pb (protobuf, "
		      "encrypted): not read\n");
}

static void as_text(ac_buf *out, const source_counts counts[AC_SOURCE_COUNT],
		    ac_source_index *index)
{
	const ac_source_options *opts = ac_source_index_options(index);
	ac_source_kind kind;
	const char *reason;
	char figures[256];

	for (int k = 0; k < AC_SOURCE_COUNT; k++) {
		cli_put_cell(out, ac_source_name((ac_source_kind)k), 12);
		ac_buf_putc(out, ' ');
		if (!opts->dir[k]) {
			ac_buf_printf(out, "off\n");
			continue;
		}
		snprintf(figures, sizeof(figures),
			 "%zu listed, %zu malformed lines, %zu unreadable, %zu files not read, "
			 "%zu records skipped", counts[k].transcripts, counts[k].malformed,
			 counts[k].unreadable, counts[k].files_not_read, counts[k].records_skipped);
		cli_put_cell(out, figures, 0);
		ac_buf_printf(out, "  ");
		cli_put_cell(out, opts->dir[k], 0);
		ac_buf_putc(out, '\n');
	}
	cli_sources_agy_unread(out, opts->dir[AC_SOURCE_AGY]);
	for (size_t i = 0; (reason = ac_source_index_unreadable_at(index, i, &kind)); i++) {
		ac_buf_printf(out, "! %s: ", ac_source_name(kind));
		cli_put_cell(out, reason, 0);
		ac_buf_putc(out, '\n');
	}
	/* The canary, one line a source (its names are stored escaped). */
	for (int k = 0; k < AC_SOURCE_COUNT; k++) {
		ac_buf line = AC_BUF_INIT;

		if (ac_source_drift_describe(&line, (ac_source_kind)k,
					     ac_source_index_drift(index, (ac_source_kind)k)) == 0 &&
		    line.len) {
			ac_buf_printf(out, "! ");
			cli_put_cell(out, line.data, 0);
			ac_buf_putc(out, '\n');
		}
		ac_buf_free(&line);
	}
}

static int check(cli_context *ctx, int argc, char **argv)
{
	source_counts counts[AC_SOURCE_COUNT];
	ac_source_index *index = NULL;
	ac_buf out = AC_BUF_INIT;
	bool json, all;
	json_t *doc;
	cli_args a;
	int status;

	if ((status = cli_args_parse_as(&a, "sources check", argc, argv)))
		return status;
	json = cli_args_has(&a, "--json");
	all = cli_args_has(&a, "--all-projects");
	if ((status = cli_sources_read(&index, ctx, all)))
		return status;
	count(counts, index);
	if (json) {
		if (!(doc = as_json(counts, index))) {
			status = cli_error(CLI_FAILED, "out of memory");
			goto done;
		}
		cli_write_json(doc);
		json_decref(doc);
	} else {
		as_text(&out, counts, index);
		cli_write(out.data, out.len);
	}
	if ((status = cli_finish_output()) == CLI_OK) {
		bool missing = ac_source_index_unreadable(index, NULL) > 0;

		for (int k = 0; k < AC_SOURCE_COUNT; k++)
			missing = missing || counts[k].files_not_read;
		if (missing)
			status = CLI_FAILED;
	}
done:
	ac_buf_free(&out);
	ac_source_index_free(index);
	return status;
}

int cli_sources(cli_context *ctx, int argc, char **argv)
{
	if (argc == 0)
		return cli_error(CLI_USAGE, "usage: sources check [--all-projects] [--json]");
	if (!strcmp(argv[0], "check"))
		return check(ctx, argc - 1, argv + 1);
	return cli_error(CLI_USAGE, "sources: unknown command '%s'", argv[0]);
}
