/* agentctl journal log|read|query|check|rotate */
#include "cli.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_event.h"
#include "ac_journal.h"
#include "ac_journal_reader.h"
#include "ac_journal_scan.h"
#include "ac_journal_store.h"
#include "ac_json_scan.h"
#include "ac_text.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUTPUT_BUFFER (256u * 1024) /* stdout's buffer for read and query into a pipe */

static int cmd_log(const ac_workspace *ws, ac_journal_store *store, int argc, char **argv)
{
	ac_journal_append_info info = {0};
	char id[AC_EVENT_ID_LEN + 1], *line = NULL;
	ac_buf input = AC_BUF_INIT;
	size_t len;
	cli_args args;
	int status;

	if ((status = cli_args_parse_as(&args, "journal log", argc, argv)))
		return status;
	if ((status = cli_read_input(&input, args.pos[0], "journal log")))
		goto done;
	if (ac_event_prepare(&line, &len, id, input.data, &ws->schema) != 0) {
		status = cli_error(CLI_USAGE, "journal log: %s", ac_error_last());
		goto done;
	}
	if (ac_journal_store_append(store, line, len, &info) != 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
	if (info.rotated_to)
		cli_note("%s: rotated to %s (%s)", ws->journal_path, info.rotated_to, info.rotated_by);
	if (info.repaired_torn_tail && info.torn_overlong)
		cli_note("%s: the unterminated line that holds byte %llu is longer than "
			 AC_JOURNAL_MAX_LINE_TEXT "; the new event starts on a fresh line",
			 ws->journal_path, (unsigned long long)info.torn_offset);
	else if (info.repaired_torn_tail)
		cli_note("%s: the line at byte %llu was torn (no newline); "
			 "the new event starts on a fresh line", ws->journal_path,
			 (unsigned long long)info.torn_offset);
	printf("%s\n", id);
	status = cli_finish_output();
done:
	free(info.rotated_to);
	free(line);
	ac_buf_free(&input);
	return status;
}

typedef struct {
	bool json;
	bool wrote_any; /* an event was written */
} printer;

/* Appends a string field decoded and made safe, padded to width (at most
 * 15). Without escapes the raw bytes are the text: no copy first. */
static void put_field(ac_buf *out, ac_buf *scratch, const ac_json_span *span, int width)
{
	static const char spaces[] = "               ";
	size_t start = out->len, decoded_len = 0;

	if (span->type == AC_JSON_STRING && !span->has_escape && span->len >= 2) {
		ac_text_sanitize(out, span->start + 1, span->len - 2);
	} else if (span->type == AC_JSON_STRING) {
		ac_buf_clear(scratch);
		if (ac_buf_reserve(scratch, span->len) == 0) {
			ac_json_string_decode(scratch->data, &decoded_len, span);
			ac_text_sanitize(out, scratch->data, decoded_len);
		}
	} else {
		ac_buf_putc(out, '-');
	}
	if (out->len - start < (size_t)width)
		ac_buf_append(out, spaces, (size_t)width - (out->len - start));
}

/* The fields of an event's text line, in order, and their widths. */
static const struct {
	int field, width;
} line_fields[] = {
	{AC_EV_TIMESTAMP, 0}, {AC_EV_ID, 0},		 {AC_EV_AGENT, 7},
	{AC_EV_STATUS, 11},   {AC_EV_ACTION_TYPE, 15}, {AC_EV_RESULT_MESSAGE, 0},
};
#define NLINE_FIELDS (sizeof(line_fields) / sizeof(line_fields[0]))

/* The common event, all of whose fields are strings of printable ASCII
 * without escapes, which put_field() would copy as they are: the line
 * made in one go. False (nothing appended) for any other. printable: the
 * scanner found every string of the line so already. */
static bool put_plain_line(ac_buf *out, const ac_json_span *f, bool printable)
{
	size_t need = 0;
	char *w;

	for (size_t i = 0; i < NLINE_FIELDS; i++) {
		const ac_json_span *span = &f[line_fields[i].field];

		if (span->type != AC_JSON_STRING || span->has_escape || span->len < 2 ||
		    (!printable && !ac_text_plain(span->start + 1, span->len - 2)))
			return false;
		need += span->len - 2 + (size_t)line_fields[i].width + 1;
	}
	if (ac_buf_reserve(out, need))
		return false;
	w = out->data + out->len;
	for (size_t i = 0; i < NLINE_FIELDS; i++) {
		const ac_json_span *span = &f[line_fields[i].field];
		size_t len = span->len - 2, width = (size_t)line_fields[i].width;

		memcpy(w, span->start + 1, len);
		w += len;
		if (len < width) {
			memset(w, ' ', width - len);
			w += width - len;
		}
		*w++ = i + 1 < NLINE_FIELDS ? ' ' : '\n';
	}
	out->len = (size_t)(w - out->data);
	out->data[out->len] = '\0';
	return true;
}

/* A record that is not a valid event, shown rather than hidden (an audit
 * trail must not lose one): in text, a line marked '!' with where and why,
 * then the record indented, both made safe; in JSON, an object that says
 * so: {"invalid":true,"file":F,"offset":N,"reason":R,"raw":LINE}. */
static int format_invalid(ac_buf *out, ac_buf *scratch, const ac_scan_match *m,
			  const printer *p)
{
	json_t *record, *raw;
	char *text;
	int rc = 0;

	if (!p->json) {
		ac_buf_clear(scratch);
		ac_buf_printf(scratch, "! %s: byte %llu: %s", m->path,
			      (unsigned long long)m->offset, m->invalid);
		ac_text_sanitize(out, scratch->data, scratch->len);
		ac_buf_append(out, "\n  ", 3);
		ac_text_sanitize(out, m->line, m->len);
		ac_buf_putc(out, '\n');
		return out->data ? 0 : AC_ENOMEM;
	}
	/* The raw line exactly when it is UTF-8; else as the text shows it. */
	if (!(raw = json_stringn(m->line, m->len))) {
		ac_buf_clear(scratch);
		ac_text_sanitize(scratch, m->line, m->len);
		raw = json_stringn(scratch->data ? scratch->data : "", scratch->len);
	}
	record = json_pack("{s:b, s:s, s:I, s:s, s:o}", "invalid", 1, "file", m->path,
			   "offset", (json_int_t)m->offset, "reason", m->invalid, "raw", raw);
	if (!record || !(text = json_dumps(record, JSON_COMPACT))) {
		json_decref(record);
		return AC_ENOMEM;
	}
	ac_buf_append(out, ",\n", 2);
	if (ac_text_json_safe(out, text, strlen(text)))
		rc = AC_ENOMEM;
	free(text);
	json_decref(record);
	return rc;
}

/* One event as read and query show it; may run on several threads at
 * once. In JSON every event comes after ",\n"; write_events turns the
 * first one into the array's "[\n". */
static int format_event(ac_buf *out, ac_buf *scratch, const ac_scan_match *m, const void *ctx)
{
	const printer *p = ctx;
	const ac_json_span *f = m->fields;

	if (m->invalid)
		return format_invalid(out, scratch, m, p);
	if (p->json) {
		ac_buf_append(out, ",\n", 2);
		if (m->printable)
			ac_buf_append(out, m->line, m->len);
		else
			ac_text_json_safe(out, m->line, m->len);
	} else if (!put_plain_line(out, f, m->printable)) {
		for (size_t i = 0; i < NLINE_FIELDS; i++) {
			put_field(out, scratch, &f[line_fields[i].field], line_fields[i].width);
			ac_buf_putc(out, i + 1 < NLINE_FIELDS ? ' ' : '\n');
		}
	}
	return out->data ? 0 : AC_ENOMEM;
}

static int write_events(const char *data, size_t len, void *ctx)
{
	printer *p = ctx;

	/* The array opens with its first element, so a scan that fails
	 * before any output leaves stdout empty rather than half a document. */
	if (p->json && !p->wrote_any && len >= 2) {
		if (!cli_write("[\n", 2))
			return 1;
		data += 2;
		len -= 2;
	}
	p->wrote_any = true;
	/* A closed pipe (| head) ends the scan early, quietly. */
	return cli_write(data, len) ? 0 : 1;
}

static void report_skipped(const ac_scan_stats *stats, bool all)
{
	if (stats->invalid)
		cli_note("%s: skipped %llu invalid line%s (see 'agentctl journal check%s')",
			 stats->invalid_path, (unsigned long long)stats->invalid,
			 stats->invalid == 1 ? "" : "s", all ? " --all" : "");
	if (stats->torn)
		cli_note("%s: skipped the unterminated line at byte %llu "
			 "(a torn write, or one still in progress)",
			 stats->torn_path, (unsigned long long)stats->torn_offset);
}

/* With --all: one line for each file named like an archive that the
 * store does not read (compressed, or another naming), so that "all" is
 * never silently less than all. */
static void report_unread(ac_journal_store *store, bool all)
{
	char **lines = NULL;
	size_t n = 0;

	if (!all || !store->ops->unread)
		return;
	if (store->ops->unread(store, &lines, &n) != 0) {
		cli_note("journal archives not listed: %s", ac_error_last());
		return;
	}
	for (size_t i = 0; i < n; i++)
		cli_note("%s", lines[i]);
	ac_journal_files_free(lines, n);
}

/* read and query: the same scan, with or without terms. */
static int cmd_scan(ac_journal_store *store, int argc, char **argv, bool is_query)
{
	const char **terms = calloc((size_t)argc + 1, sizeof(char *));
	size_t nterms = 0, last_n = 0;
	bool all, last_given, strict;
	ac_scan_stats stats = {0};
	printer p = {0};
	ac_query *q = NULL;
	cli_args args;
	int status = CLI_OK, rc;

	if (!terms)
		return cli_error(CLI_FAILED, "out of memory");
	if ((status = cli_args_parse_as(&args, is_query ? "journal query" : "journal read", argc,
					argv)))
		goto done;
	p.json = cli_args_has(&args, "--json");
	strict = cli_args_has(&args, "--strict");
	all = cli_args_has(&args, "--all");
	last_given = cli_args_has(&args, "--last");
	if (last_given && (status = cli_parse_count(&last_n, "--last", cli_args_get(&args, "--last"))))
		goto done;
	for (int i = 0; i < args.npos; i++)
		terms[nterms++] = args.pos[i];
	/* Each argument is a query string: "agent=Codex status=SUCCESS" is
	 * two terms, as in the dashboard's search. */
	if (ac_query_parse_strings(&q, terms, nterms) != 0) {
		status = cli_error(CLI_USAGE, "journal query: %s", ac_error_last());
		goto done;
	}
	ac_query_show_invalid(q, !strict);
	if (last_given && last_n == 0)
		goto finish; /* --last 0: nothing asked for */
	/* Into a pipe, stdio writes 4 KiB at a time; a query with many
	 * matches then spends more time waking the reader than scanning.
	 * Nothing has been written to stdout yet. A terminal keeps its lines.
	 * (glibc ignores the size unless given the buffer; it must outlive
	 * stdout, hence static.) */
	if (!isatty(STDOUT_FILENO)) {
		static char buffer[OUTPUT_BUFFER];

		setvbuf(stdout, buffer, _IOFBF, sizeof(buffer));
	}
	rc = store->ops->scan(store, &stats, all, q, last_n, format_event, &p, write_events, &p);
	if (rc < 0) {
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
		goto done;
	}
finish:
	if (p.json)
		cli_write(p.wrote_any ? "\n]\n" : "[]\n", 3);
	report_skipped(&stats, all);
	report_unread(store, all);
	status = cli_finish_output();
done:
	ac_query_free(q);
	free(terms);
	return status;
}

static int report_invalid(const char *path, uint64_t line, uint64_t offset,
			  const char *reason, void *ctx)
{
	ac_buf out = AC_BUF_INIT, safe = AC_BUF_INIT;

	(void)ctx;
	ac_buf_printf(&out, "%s:%llu: byte %llu: %s", path, (unsigned long long)line,
		      (unsigned long long)offset, reason);
	ac_text_sanitize(&safe, out.data, out.len);
	ac_buf_putc(&safe, '\n');
	cli_write(safe.data, safe.len);
	ac_buf_free(&out);
	ac_buf_free(&safe);
	return 0;
}

static int report_checked(const char *part, uint64_t valid, uint64_t invalid, void *ctx)
{
	uint64_t *total_invalid = ctx;

	printf("%s: %llu valid, %llu invalid line%s\n", part, (unsigned long long)valid,
	       (unsigned long long)invalid, invalid == 1 ? "" : "s");
	*total_invalid += invalid;
	return 0;
}

static int cmd_check(ac_journal_store *store, int argc, char **argv)
{
	uint64_t total_invalid = 0;
	bool all;
	cli_args args;
	int status = CLI_OK;

	if ((status = cli_args_parse_as(&args, "journal check", argc, argv)))
		return status;
	all = cli_args_has(&args, "--all");
	if (store->ops->check(store, all, report_invalid, report_checked, &total_invalid) != 0)
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
	report_unread(store, all);
	if (status == CLI_OK)
		status = cli_finish_output();
	return status == CLI_OK && total_invalid ? CLI_FAILED : status;
}

static int cmd_rotate(ac_journal_store *store, int argc, char **argv)
{
	char *rotated = NULL;
	cli_args args;
	int status;

	if ((status = cli_args_parse_as(&args, "journal rotate", argc, argv)))
		return status;
	if (!store->ops->rotate)
		return cli_error(CLI_USAGE, "journal rotate: the %s store keeps the journal in one "
				 "table; there is nothing to rotate", store->ops->name);
	if (store->ops->rotate(store, &rotated) != 0)
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	printf("%s\n", rotated);
	free(rotated);
	return cli_finish_output();
}

/* The command on the workspace's journal store (files, or storage.url's). */
static int run_on_store(ac_journal_store *store, const ac_workspace *ws, int argc, char **argv)
{
	if (!strcmp(argv[0], "log"))
		return cmd_log(ws, store, argc - 1, argv + 1);
	if (!strcmp(argv[0], "read"))
		return cmd_scan(store, argc - 1, argv + 1, false);
	if (!strcmp(argv[0], "query"))
		return cmd_scan(store, argc - 1, argv + 1, true);
	if (!strcmp(argv[0], "check"))
		return cmd_check(store, argc - 1, argv + 1);
	return cmd_rotate(store, argc - 1, argv + 1);
}

int cli_journal(cli_context *ctx, int argc, char **argv)
{
	const ac_workspace *ws = &ctx->ws;
	ac_journal_store *store = NULL;
	int status;

	if (argc == 0)
		return cli_error(CLI_USAGE, "journal needs a command: log, read, query, check or rotate");
	if (strcmp(argv[0], "log") && strcmp(argv[0], "read") && strcmp(argv[0], "query") &&
	    strcmp(argv[0], "check") && strcmp(argv[0], "rotate"))
		return cli_error(CLI_USAGE, "journal: unknown command '%s'", argv[0]);
	if (ac_journal_store_open(&store, ws) != 0)
		return cli_error(CLI_FAILED, "journal %s: %s", argv[0], ac_error_last());
	status = run_on_store(store, ws, argc, argv);
	ac_journal_store_free(store);
	return status;
}
