/* Tests for query terms (ac_query_*) and the scan engine behind read, query
 * and the dashboard's tail (ac_journal_scan*), on journals written per test
 * in a fresh temporary folder. Each event's id ends in its index in hex, so
 * results are compared as lists of indices such as "0 3 5". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_journal.h"
#include "ac_journal_scan.h"
#include "ac_journal_split.h"
#include "ac_json_scan.h"
#include "ac_query.h"
#include "ac_search.h"
#include "test_util.h"

typedef struct {
	char *dir;
	char *journal;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->dir = tu_make_temp_dir();
	f->journal = tu_path(f->dir, "JOURNAL.jsonl");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	tu_remove_tree(f->dir);
	free(f->journal);
	free(f->dir);
	free(f);
	return 0;
}

/* One event; NULL members take the defaults. agent and message are raw JSON
 * string contents (escapes allowed); params and trace raw JSON objects;
 * extra raw members appended after the required ones (",\"x\":5"). */
typedef struct {
	const char *ts, *agent, *status, *type, *params, *message, *trace, *extra;
} ev_spec;

#define OR(value, fallback) ((value) ? (value) : (fallback))

/* Appends event number n (its id ends in n) as one line with its newline. */
static void put_event(ac_buf *out, unsigned n, const ev_spec *s)
{
	char message[32];

	snprintf(message, sizeof(message), "event %u", n);
	assert_int_equal(ac_buf_printf(out,
		"{\"id\":\"evt_20250903142510_%08x\",\"timestamp\":\"%s\",\"agent\":\"%s\","
		"\"status\":\"%s\",\"action\":{\"type\":\"%s\",\"params\":%s},"
		"\"result\":{\"message\":\"%s\"}%s%s%s}\n",
		n, OR(s->ts, "2025-09-03T14:25:10.000Z"), OR(s->agent, "Claude"),
		OR(s->status, "SUCCESS"), OR(s->type, "FILE_EDIT"),
		OR(s->params, "{\"path\":\"src/a.c\"}"), OR(s->message, message),
		s->trace ? ",\"trace\":" : "", OR(s->trace, ""), OR(s->extra, "")), 0);
}

static void write_events(const char *path, const ev_spec *specs, size_t n)
{
	ac_buf out = AC_BUF_INIT;

	for (size_t i = 0; i < n; i++)
		put_event(&out, (unsigned)i, &specs[i]);
	tu_write_file(path, out.data, out.len);
	ac_buf_free(&out);
}

/* What a scan handed over, in order. */
typedef struct {
	ac_buf indices; /* "0 3 5" */
	const char *paths[16];
	uint64_t offsets[16];
	size_t n;
	size_t stop_after; /* 0: never stop */
} collector;

static int collect(const ac_scan_match *m, void *ctx)
{
	collector *c = ctx;
	const ac_json_span *id = &m->fields[AC_EV_ID];
	char hex[9];

	assert_int_equal(id->type, AC_JSON_STRING);
	memcpy(hex, id->start + 1 + 19, 8);
	hex[8] = '\0';
	ac_buf_printf(&c->indices, "%s%lu", c->n ? " " : "", strtoul(hex, NULL, 16));
	if (c->n < 16) {
		c->paths[c->n] = m->path;
		c->offsets[c->n] = m->offset;
	}
	c->n++;
	return c->stop_after && c->n == c->stop_after ? 99 : 0;
}

static ac_query *parse_ok(const char *const *terms, size_t nterms)
{
	ac_query *q = NULL;

	if (ac_query_parse(&q, terms, nterms) != 0)
		fail_msg("query failed to parse: %s", ac_error_last());
	return q;
}

static size_t count_terms(const char *const *terms)
{
	size_t n = 0;

	while (terms[n])
		n++;
	return n;
}

/* Scans paths with the NULL-terminated terms; returns the indices found. */
static char *scan_indices(ac_scan_stats *stats, const char *const *paths, size_t npaths,
			  const char *const *terms, size_t last_n)
{
	collector c = {0};
	ac_query *q = parse_ok(terms, count_terms(terms));
	int rc = ac_journal_scan(stats, paths, npaths, q, last_n, NULL, collect, &c);

	if (rc != 0)
		fail_msg("scan failed (%d): %s", rc, ac_error_last());
	ac_query_free(q);
	return c.indices.data ? ac_buf_detach(&c.indices) : strdup("");
}

static void expect_indices(const char *path, const char *const *terms, size_t last_n,
			   const char *want)
{
	char *got = scan_indices(NULL, &path, 1, terms, last_n);

	if (strcmp(got, want) != 0) {
		ac_buf shown = AC_BUF_INIT;

		for (size_t i = 0; terms[i]; i++)
			ac_buf_printf(&shown, " %s", terms[i]);
		fail_msg("query%s (last %zu): got \"%s\", want \"%s\"", shown.data ? shown.data : "",
			 last_n, got, want);
	}
	free(got);
}

#define TERMS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NO_TERMS ((const char *const[]){NULL})

static void test_parse_errors_name_the_term(void **state)
{
	static const char *const bad[] = {
		"agent", "=Claude", "!=x", "~x", "text=x", "text!=x", "since~2025", "until!=2025-01-01",
		"since=yesterday", "until=2025-13-01", "a..b=x", ".a=x", "a.=x", "agent!x", "",
	};
	ac_query *q = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *terms[] = {"agent=Claude", bad[i]};
		char quoted[64];

		snprintf(quoted, sizeof(quoted), "'%s'", bad[i]);
		if (ac_query_parse(&q, terms, 2) != AC_EINVAL || !strstr(ac_error_last(), quoted))
			fail_msg("term \"%s\": got \"%s\"", bad[i], ac_error_last());
	}
}

static const ev_spec match_events[] = {
	{.ts = "2025-09-01T10:00:00.000Z", .message = "edited the parser",
	 .trace = "{\"correlation_id\":\"c1\"}"},
	{.ts = "2025-09-02T00:00:00.000Z", .agent = "Codex", .status = "FAILED", .type = "CMD_RUN",
	 .params = "{\"command\":\"make test\"}", .message = "build failed",
	 .trace = "{\"correlation_id\":\"c1\"}"},
	{.ts = "2025-09-03T00:00:00.000Z", .agent = "Gemini", .status = "IN_PROGRESS",
	 .type = "ANALYSIS", .params = "{\"path\":\"src/b.c\"}", .message = "reading code",
	 .trace = "{\"correlation_id\":\"c2\"}"},
	{.ts = "2025-09-03T12:00:00.000Z", .status = "FAILED", .type = "FILE_CREATE",
	 .message = "created a.c again"},
	{.ts = "2025-09-04T00:00:00.000Z", .agent = "Human", .type = "CMD_RUN",
	 .params = "{\"command\":\"git status\"}", .message = "status ok"},
	{.ts = "2025-09-05T08:00:00.000Z", .agent = "System", .type = "SESSION_START",
	 .params = "{}", .message = "started server", .trace = "{\"correlation_id\":\"c2\"}"},
};

static void test_match_terms(void **state)
{
	const char *j = ((fixture *)*state)->journal;

	write_events(j, match_events, sizeof(match_events) / sizeof(match_events[0]));
	expect_indices(j, NO_TERMS, 0, "0 1 2 3 4 5");
	expect_indices(j, TERMS("agent=Claude"), 0, "0 3");
	expect_indices(j, TERMS("agent=Nobody"), 0, "");
	expect_indices(j, TERMS("agent~lau"), 0, "0 3");
	expect_indices(j, TERMS("status!=SUCCESS"), 0, "1 2 3");
	expect_indices(j, TERMS("action.type=CMD_RUN"), 0, "1 4");
	expect_indices(j, TERMS("trace.correlation_id=c1"), 0, "0 1");
	expect_indices(j, TERMS("trace.correlation_id=c"), 0, "");
	expect_indices(j, TERMS("trace.correlation_id!=c1"), 0, "2 3 4 5");
	expect_indices(j, TERMS("action.params.path=src/a.c"), 0, "0 3");
	expect_indices(j, TERMS("action.params.command~make"), 0, "1");
	expect_indices(j, TERMS("result.message~fail"), 0, "1");
	expect_indices(j, TERMS("text~ser"), 0, "0 5");
	expect_indices(j, TERMS("text~src/b"), 0, "2");
	expect_indices(j, TERMS("text~git status"), 0, "4");
	expect_indices(j, TERMS("since=2025-09-03"), 0, "2 3 4 5");
	expect_indices(j, TERMS("until=2025-09-03"), 0, "0 1");
	expect_indices(j, TERMS("since=2025-09-02T09:00+09:00"), 0, "1 2 3 4 5");
	expect_indices(j, TERMS("since=2025-09-02", "until=2025-09-04"), 0, "1 2 3");
	expect_indices(j, TERMS("agent=Claude", "status=FAILED"), 0, "3");
	expect_indices(j, TERMS("agent=Claude", "action.type=CMD_RUN"), 0, "");
	expect_indices(j, TERMS("status!=SUCCESS", "action.params.path~src"), 0, "2 3");
	expect_indices(j, TERMS("status=SUCCESS", "text~ok", "since=2025-09-01"), 0, "4");
}

static const ev_spec escaped_events[] = {
	{.agent = "\\u0043laude", .message = "plain"},
	{.params = "{\"path\":\"src\\/x.c\"}", .message = "say \\\"hi\\\" now"},
	{.agent = "Codex", .params = "{\"path\":\"src/x.c\"}"},
	{.agent = "Codex", .message = "caf\\u00e9 au lait"},
	{.agent = "Human", .extra = ",\"x\":5"},
	{.agent = "Human", .extra = ",\"x\":15"},
	{.agent = "Human", .extra = ",\"x\":50,\"flag\":true"},
	{.agent = "Human", .message = "back\\\\slash"},
	/* Korean written as \u escapes: found by a needle that is not ASCII. */
	{.agent = "Codex", .message = "\\uc2a4\\uc138 \\ud14c\\uc2a4\\ud2b8"},
	/* A backspace as \b, which the query itself would write \u0008. */
	{.agent = "Codex", .message = "bell\\bring"},
};

static void test_match_escaped_and_special_values(void **state)
{
	const char *j = ((fixture *)*state)->journal;

	write_events(j, escaped_events, sizeof(escaped_events) / sizeof(escaped_events[0]));
	expect_indices(j, TERMS("agent=Claude"), 0, "0 1");
	expect_indices(j, TERMS("agent!=Claude"), 0, "2 3 4 5 6 7 8 9");
	expect_indices(j, TERMS("text~Claude"), 0, "0 1");
	expect_indices(j, TERMS("action.params.path=src/x.c"), 0, "1 2");
	expect_indices(j, TERMS("result.message=say \"hi\" now"), 0, "1");
	expect_indices(j, TERMS("result.message~\"hi\""), 0, "1");
	expect_indices(j, TERMS("text~\"hi\""), 0, "1");
	expect_indices(j, TERMS("result.message~café"), 0, "3");
	expect_indices(j, TERMS("text~café au"), 0, "3");
	expect_indices(j, TERMS("x=5"), 0, "4");
	expect_indices(j, TERMS("x!=5", "agent=Human"), 0, "5 6 7");
	expect_indices(j, TERMS("flag=true"), 0, "6");
	expect_indices(j, TERMS("result.message=back\\slash"), 0, "7");
	expect_indices(j, TERMS("result.message~\xec\x8a\xa4\xec\x84\xb8"), 0, "8");
	expect_indices(j, TERMS("text~\xed\x85\x8c\xec\x8a\xa4\xed\x8a\xb8"), 0, "8");
	expect_indices(j, TERMS("result.message=bell\bring"), 0, "9");
	expect_indices(j, TERMS("text~l\br"), 0, "9");
}

static void test_stats_count_invalid_and_torn(void **state)
{
	fixture *f = *state;
	const char *path = f->journal;
	ac_scan_stats stats = {0};
	ac_buf content = AC_BUF_INIT;
	size_t torn_at;
	char *got;

	put_event(&content, 0, &(ev_spec){0});
	ac_buf_printf(&content, "this is not json\n");
	put_event(&content, 1, &(ev_spec){.agent = "Bob"}); /* JSON, not a valid event */
	put_event(&content, 2, &(ev_spec){0});
	ac_buf_printf(&content, "{\"id\":\"evt_2025\n"); /* corrupt JSON */
	put_event(&content, 3, &(ev_spec){0});
	torn_at = content.len;
	put_event(&content, 4, &(ev_spec){0});
	content.len--; /* the last line loses its newline */
	tu_write_file(path, content.data, content.len);

	for (size_t last_n = 0; last_n <= 10; last_n += 10) {
		memset(&stats, 0, sizeof(stats));
		got = scan_indices(&stats, &path, 1, NO_TERMS, last_n);
		assert_string_equal(got, "0 2 3");
		assert_int_equal(stats.matched, 3);
		assert_int_equal(stats.invalid, 3);
		assert_int_equal(stats.torn, 1);
		assert_int_equal(stats.torn_offset, torn_at);
		assert_ptr_equal(stats.torn_path, path);
		free(got);
	}
	ac_buf_free(&content);
}

static void test_callback_stops_the_scan(void **state)
{
	const char *path = ((fixture *)*state)->journal;
	collector c = {.stop_after = 2};
	ac_query *q = parse_ok(NO_TERMS, 0);

	write_events(path, match_events, sizeof(match_events) / sizeof(match_events[0]));
	assert_int_equal(ac_journal_scan(NULL, &path, 1, q, 0, NULL, collect, &c), 99);
	assert_string_equal(c.indices.data, "0 1");
	ac_buf_free(&c.indices);
	ac_query_free(q);
}

#define BIG_EVENTS 6000u
#define RARE_EVERY 500u

/* A journal over 1 MiB where one event in RARE_EVERY is from Gemini. */
static void write_big_journal(const char *path)
{
	ac_buf out = AC_BUF_INIT;
	char message[160];

	for (unsigned i = 0; i < BIG_EVENTS; i++) {
		snprintf(message, sizeof(message), "step %u of a long task; padding the line "
			 "so that the journal grows well past one mebibyte in size", i);
		put_event(&out, i, &(ev_spec){.agent = i % RARE_EVERY == 7 ? "Gemini" : "Claude",
					      .message = message});
	}
	assert_true(out.len > (1u << 20) + (1u << 18));
	tu_write_file(path, out.data, out.len);
	ac_buf_free(&out);
}

/* The last n of the space-separated indices in all. */
static const char *tail_words(const char *all, size_t n)
{
	const char *p = all + strlen(all);

	while (p > all) {
		if (p[-1] == ' ' && --n == 0)
			break;
		p--;
	}
	return p;
}

static void expect_last_matches_forward(const char *path, const char *const *terms,
					size_t last_n)
{
	char *all = scan_indices(NULL, &path, 1, terms, 0);

	expect_indices(path, terms, last_n, tail_words(all, last_n));
	free(all);
}

static void test_last_n_on_a_big_journal(void **state)
{
	const char *path = ((fixture *)*state)->journal;
	const size_t counts[] = {1, 10, 12, 13, 5000};

	write_big_journal(path);
	expect_indices(path, NO_TERMS, 1, "5999");
	expect_indices(path, NO_TERMS, 3, "5997 5998 5999");
	expect_indices(path, TERMS("agent=Gemini"), 1, "5507");
	expect_indices(path, TERMS("agent=Gemini"), 2, "5007 5507");
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		expect_last_matches_forward(path, NO_TERMS, counts[i]);
		expect_last_matches_forward(path, TERMS("agent=Gemini"), counts[i]);
		expect_last_matches_forward(path, TERMS("agent=Gemini", "text~step 4"), counts[i]);
	}
	/* More than there are: every match, oldest first. */
	expect_indices(path, TERMS("agent=Gemini"), 5000,
		       "7 507 1007 1507 2007 2507 3007 3507 4007 4507 5007 5507");
}

/* Rotations in quick succession (usually within one millisecond) must get
 * distinct names that still sort oldest first, since --all scans the list
 * ac_journal_files() returns in that order. */
static void test_rotated_files_oldest_first(void **state)
{
	fixture *f = *state;
	char **files = NULL, *got;
	size_t nfiles = 0;

	for (unsigned i = 0; i < 3; i++) {
		ac_buf line = AC_BUF_INIT;

		put_event(&line, i, &(ev_spec){0});
		tu_append_file(f->journal, line.data, line.len);
		ac_buf_free(&line);
		if (i < 2)
			assert_int_equal(ac_journal_rotate(NULL, f->journal, NULL), 0);
	}
	assert_int_equal(ac_journal_files(&files, &nfiles, f->journal), 0);
	assert_int_equal(nfiles, 3);
	assert_string_not_equal(files[0], files[1]);
	got = scan_indices(NULL, (const char *const *)files, nfiles, NO_TERMS, 2);
	assert_string_equal(got, "1 2");
	free(got);
	got = scan_indices(NULL, (const char *const *)files, nfiles, NO_TERMS, 0);
	assert_string_equal(got, "0 1 2");
	free(got);
	ac_journal_files_free(files, nfiles);
}

/* Where the line of event n starts in content. */
static uint64_t offset_of(const ac_buf *content, unsigned n)
{
	char id[40];
	const char *hit;

	snprintf(id, sizeof(id), "\"evt_20250903142510_%08x\"", n);
	hit = strstr(content->data, id);
	assert_non_null(hit);
	while (hit > content->data && hit[-1] != '\n')
		hit--;
	return (uint64_t)(hit - content->data);
}

static void test_last_n_over_two_files(void **state)
{
	fixture *f = *state;
	char *rotated = tu_path(f->dir, "JOURNAL-20250902T000000.000Z.jsonl");
	const char *paths[] = {rotated, f->journal};
	ac_buf old_part = AC_BUF_INIT, new_part = AC_BUF_INIT;
	collector c = {0};
	ac_query *q = parse_ok(TERMS("agent=Codex"), 1);
	char *got;

	for (unsigned i = 0; i < 10; i++)
		put_event(i < 6 ? &old_part : &new_part, i,
			  &(ev_spec){.agent = i % 2 ? "Codex" : "Claude"});
	tu_write_file(rotated, old_part.data, old_part.len);
	tu_write_file(f->journal, new_part.data, new_part.len);

	got = scan_indices(NULL, paths, 2, NO_TERMS, 6);
	assert_string_equal(got, "4 5 6 7 8 9");
	free(got);
	got = scan_indices(NULL, paths, 2, NO_TERMS, 100);
	assert_string_equal(got, "0 1 2 3 4 5 6 7 8 9");
	free(got);
	/* Matches from each file carry that file's path and offset. */
	assert_int_equal(ac_journal_scan(NULL, paths, 2, q, 3, NULL, collect, &c), 0);
	assert_string_equal(c.indices.data, "5 7 9");
	assert_ptr_equal(c.paths[0], rotated);
	assert_int_equal(c.offsets[0], offset_of(&old_part, 5));
	assert_ptr_equal(c.paths[1], f->journal);
	assert_int_equal(c.offsets[1], offset_of(&new_part, 7));
	assert_ptr_equal(c.paths[2], f->journal);
	assert_int_equal(c.offsets[2], offset_of(&new_part, 9));
	/* A missing current file is no error: the rotated one still answers. */
	remove(f->journal);
	got = scan_indices(NULL, paths, 2, TERMS("agent=Codex"), 2);
	assert_string_equal(got, "3 5");
	free(got);
	ac_buf_free(&c.indices);
	ac_query_free(q);
	ac_buf_free(&old_part);
	ac_buf_free(&new_part);
	free(rotated);
}

/* A range of whole lines: only the events that start in it and end before
 * its end, oldest first, with their offsets; a missing file is
 * AC_ENOTFOUND (the dashboard's search reads windows this way). */
static void test_scan_range(void **state)
{
	const char *path = ((fixture *)*state)->journal;
	ac_buf content = AC_BUF_INIT;
	collector c = {0};
	ac_query *q;

	for (unsigned i = 0; i < 6; i++)
		put_event(&content, i, &(ev_spec){.agent = i % 2 ? "Codex" : "Claude"});
	tu_write_file(path, content.data, content.len);
	q = parse_ok(TERMS("agent=Codex"), 1);
	assert_int_equal(ac_journal_scan_range(NULL, path, offset_of(&content, 1),
					       offset_of(&content, 5), q, NULL, collect, &c), 0);
	assert_string_equal(c.indices.data, "1 3");
	assert_int_equal(c.offsets[0], offset_of(&content, 1));
	assert_int_equal(c.offsets[1], offset_of(&content, 3));
	/* An end inside a line leaves that line to the next range. */
	ac_buf_free(&c.indices);
	memset(&c, 0, sizeof(c));
	assert_int_equal(ac_journal_scan_range(NULL, path, 0, offset_of(&content, 5) + 10, q, NULL,
					       collect, &c), 0);
	assert_string_equal(c.indices.data, "1 3");
	ac_buf_free(&c.indices);
	memset(&c, 0, sizeof(c));
	assert_int_equal(ac_journal_scan_range(NULL, path, offset_of(&content, 4), content.len, q,
					       NULL, collect, &c), 0);
	assert_string_equal(c.indices.data, "5");
	ac_buf_free(&c.indices);
	remove(path);
	assert_int_equal(ac_journal_scan_range(NULL, path, 0, 100, q, NULL, collect, &c),
			 AC_ENOTFOUND);
	ac_query_free(q);
	ac_buf_free(&content);
}

/* Scans path from *offset; returns the indices delivered and advances it. */
static char *scan_from(const char *path, uint64_t *offset, uint64_t *number)
{
	collector c = {0};
	ac_query *q = parse_ok(NO_TERMS, 0);
	uint64_t next = UINT64_MAX;

	if (ac_journal_scan_from(&next, number, NULL, path, *offset, q, NULL, collect, &c) != 0)
		fail_msg("scan_from failed: %s", ac_error_last());
	ac_query_free(q);
	*offset = next;
	return c.indices.data ? ac_buf_detach(&c.indices) : strdup("");
}

static void expect_scan_from(const char *path, uint64_t *offset, uint64_t *number,
			     const char *want, uint64_t want_offset)
{
	char *got = scan_from(path, offset, number);

	assert_string_equal(got, want);
	assert_int_equal(*offset, want_offset);
	free(got);
}

static void test_scan_from_resumes(void **state)
{
	const char *path = ((fixture *)*state)->journal;
	ac_buf first = AC_BUF_INIT, last = AC_BUF_INIT;
	uint64_t offset = 0, number = 1;
	size_t half;

	for (unsigned i = 0; i < 3; i++)
		put_event(&first, i, &(ev_spec){0});
	put_event(&last, 3, &(ev_spec){0});
	tu_write_file(path, first.data, first.len);
	expect_scan_from(path, &offset, &number, "0 1 2", first.len);
	assert_int_equal(number, 4);

	half = last.len / 2;
	tu_append_file(path, last.data, half); /* a write in progress */
	expect_scan_from(path, &offset, &number, "", first.len);
	expect_scan_from(path, &offset, &number, "", first.len);
	assert_int_equal(number, 4);

	tu_append_file(path, last.data + half, last.len - half);
	expect_scan_from(path, &offset, &number, "3", first.len + last.len);
	assert_int_equal(number, 5);
	expect_scan_from(path, &offset, &number, "", first.len + last.len);
	ac_buf_free(&first);
	ac_buf_free(&last);
}

/* Every start the finder reports in hay[0..n) against a plain search, from
 * every offset, the hay copied to a block of exactly n bytes so that
 * AddressSanitizer sees any read past its end. */
static void expect_finder_agrees(const char *hay, size_t n, const char *needle, size_t len,
				 const ac_byte_counts *counts)
{
	char *copy = malloc(n ? n : 1);
	ac_finder f;

	assert_non_null(copy);
	memcpy(copy, hay, n);
	ac_finder_init(&f, needle, len, counts);
	assert_true(f.rare_index < len && f.rare2_index < len);
	if (len > 1)
		assert_true(f.rare_index != f.rare2_index);
	for (size_t off = 0; off <= n; off++) {
		const char *want = memmem(copy + off, n - off, needle, len);
		const char *got = ac_finder_find(&f, copy + off, n - off);

		if (got != want)
			fail_msg("needle \"%.*s\" in %zu bytes from %zu: found at %td, want %td",
				 (int)len, needle, n, off, got ? got - copy : -1,
				 want ? want - copy : -1);
	}
	free(copy);
}

/* The fixed table calls x and C rare; in this data they are the commonest
 * bytes, so a sample picks other ones, and every occurrence is still found. */
static void test_finder_bytes_from_the_data(void **state)
{
	static const char needle[] = "\"Codex\"";
	ac_buf hay = AC_BUF_INIT;
	ac_byte_counts counts;
	ac_finder f;

	(void)state;
	for (unsigned i = 0; i < 300; i++)
		ac_buf_printf(&hay, i % 7 == 3 ? "{\"agent\":\"Codex\"}xxCx" : "xxCCxx\"Codx\"Cx%u",
			      i);
	ac_byte_counts_sample(&counts, hay.data, hay.len);
	assert_true(counts.count['x'] > counts.count['d']);
	ac_finder_init(&f, needle, sizeof(needle) - 1, &counts);
	assert_true(needle[f.rare_index] != 'x' && needle[f.rare_index] != 'C');
	assert_true(needle[f.rare2_index] != 'x' && needle[f.rare2_index] != 'C');
	expect_finder_agrees(hay.data, hay.len, needle, sizeof(needle) - 1, &counts);
	expect_finder_agrees(hay.data, hay.len, needle, sizeof(needle) - 1, NULL);
	/* Counting the data picks the rarest byte, as the table would not. */
	memset(&counts, 0, sizeof(counts));
	counts.count['a'] = 10;
	counts.count['Z'] = 20;
	counts.count['x'] = 43;
	ac_finder_init(&f, "xZa", 3, &counts);
	assert_int_equal(f.rare_index, 2);
	assert_int_equal(f.rare2_index, 1);
	ac_buf_free(&hay);
}

/* Needles at the start, at the end and across every 16-byte step of hays
 * of every length up to 70; one-byte needles; needles of one repeated byte. */
static void test_finder_at_buffer_boundaries(void **state)
{
	static const char *const needles[] = {"x", "\"", "ab", "xx", "\"agent\":\"Codex\"",
					      "aaaaaaaaaaaaaaaaab", "zzzz"};
	char hay[80];
	ac_byte_counts counts;

	(void)state;
	ac_byte_counts_sample(&counts, "", 0);
	for (size_t k = 0; k < sizeof(needles) / sizeof(needles[0]); k++) {
		const char *needle = needles[k];
		size_t len = strlen(needle);

		for (size_t n = 0; n <= 70; n++) {
			/* Filler that shares the needle's bytes, so partial
			 * matches are everywhere. */
			for (size_t i = 0; i < n; i++)
				hay[i] = needle[(i * 7 + 3) % len] == needle[0] && i % 3 ? 'a' :
					 needle[i % len];
			expect_finder_agrees(hay, n, needle, len, &counts);
			expect_finder_agrees(hay, n, needle, len, NULL);
			for (size_t at = 0; at + len <= n; at++) {
				char placed[80];

				memset(placed, '.', n);
				memcpy(placed + at, needle, len);
				expect_finder_agrees(placed, n, needle, len, &counts);
			}
		}
	}
}

/* Through the scan: the needle's table-rare bytes fill the journal, and the
 * query still returns exactly its events. */
static void test_query_with_common_rare_bytes(void **state)
{
	const char *j = ((fixture *)*state)->journal;
	ac_buf want = AC_BUF_INIT, all = AC_BUF_INIT;
	ev_spec specs[200];

	for (unsigned i = 0; i < 200; i++) {
		specs[i] = (ev_spec){.agent = i % 5 == 1 ? "Codex" : "Claude",
				     .message = i % 3 ? "xx Cx xCx codex \\\"Codx\\\" Codex\\\" xxx" : "x"};
		if (i % 5 == 1)
			ac_buf_printf(&want, "%s%u", want.len ? " " : "", i);
	}
	write_events(j, specs, 200);
	expect_indices(j, TERMS("agent=Codex"), 0, want.data);
	expect_indices(j, TERMS("agent=Codex"), 3, tail_words(want.data, 3));
	for (unsigned i = 0; i < 200; i++)
		ac_buf_printf(&all, "%s%u", i ? " " : "", i);
	expect_indices(j, TERMS("text~x"), 0, all.data);
	ac_buf_free(&want);
	ac_buf_free(&all);
}

static const ev_spec time_events[] = {
	{.ts = "2025-09-03T23:59:58.000Z"},
	{.ts = "2025-09-03T23:59:59.999Z"},
	{.ts = "2025-09-04T00:00:00.000Z"},
	{.ts = "2025-09-04T00:00:01.000Z", .message = "\\\"2025-09-04T00:00:00.5"},
	{.ts = "2025-09-04T00:00:00.500Z", .agent = "Codex"},
	{.ts = "2025-10-01T00:00:00.000Z"},
};

static void expect_needle(const char *const *terms, const char *want)
{
	ac_query *q = parse_ok(terms, count_terms(terms));
	size_t len = 0;
	const char *needle = ac_query_needle(q, &len);

	if (!want) {
		assert_null(needle);
	} else {
		assert_non_null(needle);
		assert_int_equal(len, strlen(want));
		assert_memory_equal(needle, want, len);
	}
	ac_query_free(q);
}

/* since= with until= prefilter on the start their timestamps share; the
 * result is what parsing every line gives. */
static void test_time_range_prefilter(void **state)
{
	const char *j = ((fixture *)*state)->journal;

	write_events(j, time_events, sizeof(time_events) / sizeof(time_events[0]));
	expect_needle(TERMS("since=2025-09-03T23:59:59Z", "until=2025-09-04T00:00:01Z"),
		      "\"2025-09-0");
	expect_indices(j, TERMS("since=2025-09-03T23:59:59Z", "until=2025-09-04T00:00:01Z"), 0,
		       "1 2 4");
	expect_indices(j, TERMS("since=2025-09-03T23:59:59Z", "until=2025-09-04T00:00:01Z"), 1,
		       "4");
	expect_needle(TERMS("since=2025-09-04T00:00:00Z", "until=2025-09-04T00:00:01Z"),
		      "\"2025-09-04T00:00:0");
	expect_indices(j, TERMS("since=2025-09-04T00:00:00Z", "until=2025-09-04T00:00:01Z"), 0,
		       "2 4");
	/* The narrowest of several: [00:00:00.5, 00:00:01) */
	expect_indices(j, TERMS("since=2025-09-03", "until=2025-09-04T00:00:01Z",
				"since=2025-09-04T00:00:00.5Z", "until=2025-09-05"), 0, "4");
	expect_indices(j, TERMS("agent=Codex", "since=2025-09-04T00:00:00Z",
				"until=2025-09-04T00:00:01Z"), 0, "4");
	expect_needle(TERMS("agent=Claude", "since=2025-09-30", "until=2025-10-02"), "\"Claude\"");
	expect_needle(TERMS("since=2025-09-30", "until=2025-10-02"), NULL);
	expect_needle(TERMS("since=2025-09-03"), NULL);
	expect_indices(j, TERMS("since=2025-09-30", "until=2025-10-02"), 0, "5");
	expect_indices(j, TERMS("since=2025-09-04T00:00:01Z", "until=2025-09-04T00:00:00Z"), 0, "");
}

/* A query over path, none of whose lines matches, parsed this many of
 * its lines (none of them JSON: each one parsed counts as invalid). */
static void expect_parsed(const char *path, const char *const *terms, uint64_t parsed)
{
	ac_scan_stats stats = {0};
	char *got = scan_indices(&stats, &path, 1, terms, 0);

	assert_string_equal(got, "");
	assert_int_equal(stats.invalid, parsed);
	free(got);
}

/* Lines without the needle are parsed only when they hold a \u or \/
 * escape that could spell it: a backslash run of odd length before the u
 * or /, not "\\u" (an escaped backslash, then a plain u); \/ only for a
 * needle with a '/', and for an ASCII needle only a \u00 (any other \u
 * stands for a character from U+0080). The invalid lines show which were
 * parsed. */
static void test_escape_candidates_follow_backslash_runs(void **state)
{
	fixture *f = *state;
	static const char lines[] =
		"{\"a\":\"\\\\u\"} not json, never parsed\n"
		"{\"a\":\"\\\\\\u0041\"} not json, parsed\n"
		"{\"a\":\"x\\/y\"} not json, parsed for a needle with '/'\n"
		"{\"a\":\"\\\\\\\\/\"} not json, never parsed\n"
		"{\"a\":\"0123456789abcdef\\\\\\\\\\u0041\"} not json, parsed\n"
		"{\"a\":\"\\uc2a4\"} not json, parsed for a needle beyond ASCII\n";

	/* A value with a backspace or form feed has none: \b and \f are
	 * escapes the search does not look for. */
	expect_needle(TERMS("text~l\br"), NULL);
	expect_needle(TERMS("text~l\fr"), NULL);
	/* Nor text~ of a quote, tab or CR: the whole line is decoded, and
	 * those may be its own quotes and whitespace between tokens. */
	expect_needle(TERMS("text~\"\t"), NULL);
	expect_needle(TERMS("text~a\rb"), NULL);
	expect_needle(TERMS("text~say \"hi"), NULL);
	expect_needle(TERMS("result.message~say \"hi"), "say \\\"hi");
	tu_write_file(f->journal, lines, strlen(lines));
	expect_parsed(f->journal, TERMS("agent=Codex"), 2);
	expect_parsed(f->journal, TERMS("action.params.path=a/b"), 3);
	expect_parsed(f->journal, TERMS("agent=\xed\x85\x8c"), 3);
}

/* text~ of a tab between a quote and a key: found on a line that holds
 * one raw between its tokens and an escape elsewhere (its only escape
 * stands for a character beyond ASCII, so the line is no candidate of
 * the escaped needle's). */
static void test_text_of_raw_whitespace_is_found(void **state)
{
	fixture *f = *state;
	static const char lines[] =
		"{\"id\":\"evt_20250903142510_00000001\",\t\"timestamp\":"
		"\"2025-09-03T14:25:10.000Z\",\"agent\":\"Claude\",\"status\":\"SUCCESS\","
		"\"action\":{\"type\":\"FILE_EDIT\",\"params\":{\"path\":\"a\"}},"
		"\"result\":{\"message\":\"\\u4e2d\"}}\n";

	tu_write_file(f->journal, lines, strlen(lines));
	expect_indices(f->journal, TERMS("text~\",\t\"timestamp"), 0, "1");
}

/* ---- the formatted scan, on one thread and on several ---- */

/* A journal that makes the pieces' edges hard: lines of many lengths (so
 * they straddle every piece size below), invalid lines of several kinds,
 * escapes that spell the needle differently, and a torn last line. */
static void write_mixed_journal(const char *path)
{
	static const char *const agents[] = {"Codex", "Claude", "Gemini", "Cod\\u0065x", "Human"};
	ac_buf out = AC_BUF_INIT;
	char message[600];

	for (unsigned i = 0; i < 3000; i++) {
		ev_spec e = {.agent = agents[i % 5], .message = message};
		size_t len = (i * 7919u) % 500;
		size_t k = (size_t)snprintf(message, sizeof(message), "event %u ", i);

		for (; k < len; k++)
			message[k] = (char)('a' + (k * i) % 26);
		message[k] = '\0';
		if (i % 97 == 5)
			ac_buf_printf(&out, "{\"id\":\"evt_bad\",\"agent\":\"Codex\"}\n");
		else if (i % 89 == 7)
			ac_buf_printf(&out, "not json, \"agent\":\"Codex\" %u\n", i);
		else if (i % 83 == 3)
			ac_buf_printf(&out, "\n");
		if (i % 50 == 9)
			e.ts = "2025-09-03T15:00:00.000Z";
		put_event(&out, i, &e);
	}
	ac_buf_append(&out, "{\"id\":\"torn", 11);
	tu_write_file(path, out.data, out.len);
	ac_buf_free(&out);
}

static int format_offset_and_id(ac_buf *out, ac_buf *scratch, const ac_scan_match *m,
				const void *ctx)
{
	const ac_json_span *id = &m->fields[AC_EV_ID];

	(void)ctx;
	if (m->invalid)
		return ac_buf_printf(out, "%llu ! %s\n", (unsigned long long)m->offset, m->invalid);
	ac_buf_clear(scratch);
	ac_buf_append(scratch, id->start, id->len);
	return ac_buf_printf(out, "%llu %s\n", (unsigned long long)m->offset, scratch->data);
}

typedef struct {
	ac_buf text;
	size_t writes, stop_after; /* stop_after 0: never stop */
} written;

static int append_written(const char *data, size_t len, void *ctx)
{
	written *w = ctx;

	assert_int_equal(ac_buf_append(&w->text, data, len), 0);
	w->writes++;
	return w->stop_after && w->writes == w->stop_after ? 7 : 0;
}

static bool format_shows_invalid; /* what format_scan's queries do */

/* The formatted scan's output and stats with the given split limits. */
static char *format_scan(ac_scan_stats *stats, const char *path, const char *const *terms,
			 size_t piece, size_t flush, size_t threads)
{
	ac_query *q = parse_ok(terms, count_terms(terms));
	written w = {0};
	int rc;

	ac_query_show_invalid(q, format_shows_invalid);
	memset(stats, 0, sizeof(*stats));
	ac_split_set_limits(piece, flush, threads);
	rc = ac_journal_scan_format(stats, &path, 1, q, 0, NULL, format_offset_and_id, NULL,
				    append_written, &w);
	ac_split_set_limits(0, 0, 0);
	if (rc != 0)
		fail_msg("formatted scan failed (%d): %s", rc, ac_error_last());
	ac_query_free(q);
	return w.text.data ? ac_buf_detach(&w.text) : strdup("");
}

static void test_format_scan_on_threads_writes_what_one_thread_writes(void **state)
{
	fixture *f = *state;
	const char *const *queries[] = {
		NO_TERMS, TERMS("agent=Codex"), TERMS("text~event 1"),
		TERMS("since=2025-09-03T15:00:00Z", "until=2025-09-03T15:00:01Z"),
		TERMS("agent=Nobody"),
	};
	static const size_t pieces[][2] = {{64, 0}, {1000, 1}, {4096, 0}, {70000, 100}};

	write_mixed_journal(f->journal);
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		ac_scan_stats one, many;
		char *want = format_scan(&one, f->journal, queries[i], 0, 0, 1);

		assert_int_equal(one.torn, 1);
		if (i == 0)
			assert_int_equal(one.invalid, 31 + 34 + 36);
		if (i == 1)
			assert_true(one.matched > 1000);
		for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
			for (size_t threads = 2; threads <= 3; threads++) {
				char *got = format_scan(&many, f->journal, queries[i], pieces[k][0],
							pieces[k][1], threads);

				assert_string_equal(got, want);
				assert_int_equal(many.matched, one.matched);
				assert_int_equal(many.invalid, one.invalid);
				assert_ptr_equal(many.invalid_path, one.invalid_path);
				assert_int_equal(many.torn, one.torn);
				assert_int_equal(many.torn_offset, one.torn_offset);
				free(got);
			}
		}
		free(want);
	}
}

static void test_format_scan_stops_when_the_writer_says(void **state)
{
	fixture *f = *state;
	const char *path = f->journal;
	ac_query *q = parse_ok(NO_TERMS, 0);
	written w = {.stop_after = 3};

	write_mixed_journal(f->journal);
	ac_split_set_limits(512, 0, 2);
	assert_int_equal(ac_journal_scan_format(NULL, &path, 1, q, 0, NULL, format_offset_and_id,
						NULL, append_written, &w), 7);
	ac_split_set_limits(0, 0, 0);
	assert_int_equal(w.writes, 3);
	ac_buf_free(&w.text);
	ac_query_free(q);
}

/* Records outside the schema shown (issue 16 item 6), on many threads:
 * the same bytes, in file order, as one thread and as --last writes. */
static void test_format_scan_shows_invalid_records_in_file_order(void **state)
{
	fixture *f = *state;
	const char *const *queries[] = {NO_TERMS, TERMS("agent=Codex"), TERMS("text~json")};
	static const size_t pieces[][2] = {{64, 0}, {1000, 1}, {70000, 100}};

	write_mixed_journal(f->journal);
	format_shows_invalid = true;
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		ac_scan_stats one, many;
		char *want = format_scan(&one, f->journal, queries[i], 0, 0, 1);

		assert_non_null(strstr(want, " ! "));
		assert_int_equal(one.invalid, 0);
		for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
			char *got = format_scan(&many, f->journal, queries[i], pieces[k][0],
						pieces[k][1], 2);

			assert_string_equal(got, want);
			assert_int_equal(many.matched, one.matched);
			assert_int_equal(many.invalid, 0);
			free(got);
		}
		free(want);
	}
	format_shows_invalid = false;
}

/* What a scan that shows invalid records handed over: "3" for event 3,
 * "!OFFSET" for a record outside the schema. */
static int collect_marked(const ac_scan_match *m, void *ctx)
{
	ac_buf *out = ctx;
	const ac_json_span *id = &m->fields[AC_EV_ID];

	if (out->len)
		ac_buf_putc(out, ' ');
	if (m->invalid)
		return ac_buf_printf(out, "!%llu", (unsigned long long)m->offset);
	return ac_buf_printf(out, "%lu", strtoul(id->start + 1 + 19, NULL, 16));
}

static char *scan_marked(ac_scan_stats *stats, const char *path, const char *const *terms,
			 size_t last_n)
{
	ac_buf out = AC_BUF_INIT;
	ac_query *q = parse_ok(terms, count_terms(terms));

	ac_query_show_invalid(q, true);
	memset(stats, 0, sizeof(*stats));
	assert_int_equal(ac_journal_scan(stats, &path, 1, q, last_n, NULL, collect_marked, &out), 0);
	ac_query_free(q);
	return out.data ? ac_buf_detach(&out) : strdup("");
}

static void test_invalid_records_shown_and_matched_by_their_fields(void **state)
{
	fixture *f = *state;
	ac_scan_stats stats;
	ac_buf content = AC_BUF_INIT;
	size_t garbage_at, bob_at, bare_at;
	char want[128], *got;

	put_event(&content, 0, &(ev_spec){0});
	garbage_at = content.len;
	ac_buf_printf(&content, "this is not json\n");
	bob_at = content.len;
	put_event(&content, 1, &(ev_spec){.agent = "Bob", .message = "typed"});
	put_event(&content, 2, &(ev_spec){.agent = "Codex"});
	bare_at = content.len;
	ac_buf_printf(&content, "{\"result\":{\"message\":\"bare\"}}\n");
	ac_buf_printf(&content, "{\"id\":\"evt_torn"); /* torn: counted, never shown */
	tu_write_file(f->journal, content.data, content.len);

	for (size_t last_n = 0; last_n <= 10; last_n += 10) {
		snprintf(want, sizeof(want), "0 !%zu !%zu 2 !%zu", garbage_at, bob_at, bare_at);
		got = scan_marked(&stats, f->journal, NO_TERMS, last_n);
		assert_string_equal(got, want);
		assert_int_equal(stats.invalid, 0);
		assert_int_equal(stats.torn, 1);
		assert_int_equal(stats.matched, 5);
		free(got);
	}
	/* A term needs its field in the record: agent!=Claude takes Bob and
	 * Codex, not the garbage nor the record without an agent. */
	snprintf(want, sizeof(want), "!%zu 2", bob_at);
	got = scan_marked(&stats, f->journal, TERMS("agent!=Claude"), 0);
	assert_string_equal(got, want);
	free(got);
	snprintf(want, sizeof(want), "!%zu", bob_at);
	got = scan_marked(&stats, f->journal, TERMS("agent=Bob"), 0);
	assert_string_equal(got, want);
	free(got);
	/* text~ reads the raw line, JSON or not. */
	snprintf(want, sizeof(want), "!%zu", garbage_at);
	got = scan_marked(&stats, f->journal, TERMS("text~not json"), 0);
	assert_string_equal(got, want);
	free(got);
	/* since= needs a timestamp of the schema's form: not the bare record. */
	snprintf(want, sizeof(want), "0 !%zu 2", bob_at);
	got = scan_marked(&stats, f->journal, TERMS("since=2025-01-01"), 0);
	assert_string_equal(got, want);
	free(got);
	snprintf(want, sizeof(want), "!%zu", bare_at);
	got = scan_marked(&stats, f->journal, TERMS("result.message=bare"), 1);
	assert_string_equal(got, want);
	free(got);
	ac_buf_free(&content);
}

/* The seed's one-string form: "agent=Codex status=SUCCESS" is two terms;
 * quotes keep spaces; what does not parse is named, never matched. */
static void test_parse_strings(void **state)
{
	const char *j = ((fixture *)*state)->journal;
	static const struct {
		const char *text, *named;
	} bad[] = {
		{"agent=Claude statusFAILED", "'statusFAILED'"}, {"agent==Claude", "'agent==Claude'"},
		{"agent~~x", "'agent~~x'"}, {"result.message~\"open", "not closed"},
		{"", "''"}, {"   ", "'   '"},
	};
	const char *strings[2];
	ac_query *q = NULL;
	collector c = {0};

	write_events(j, match_events, sizeof(match_events) / sizeof(match_events[0]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strings[0] = bad[i].text;
		if (ac_query_parse_strings(&q, strings, 1) != AC_EINVAL ||
		    !strstr(ac_error_last(), bad[i].named))
			fail_msg("\"%s\": got \"%s\"", bad[i].text, ac_error_last());
	}
	strings[0] = "agent=Claude  status=FAILED";
	assert_int_equal(ac_query_parse_strings(&q, strings, 1), 0);
	assert_int_equal(ac_journal_scan(NULL, &j, 1, q, 0, NULL, collect, &c), 0);
	assert_string_equal(c.indices.data, "3");
	ac_query_free(q);
	ac_buf_free(&c.indices);
	memset(&c, 0, sizeof(c));
	strings[0] = "\"text~git status\"";
	strings[1] = "action.params.command~\"git st\"\tagent=Human";
	assert_int_equal(ac_query_parse_strings(&q, strings, 2), 0);
	assert_int_equal(ac_journal_scan(NULL, &j, 1, q, 0, NULL, collect, &c), 0);
	assert_string_equal(c.indices.data, "4");
	ac_query_free(q);
	ac_buf_free(&c.indices);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_errors_name_the_term),
		cmocka_unit_test_setup_teardown(test_match_terms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_records_shown_and_matched_by_their_fields,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_format_scan_shows_invalid_records_in_file_order,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_match_escaped_and_special_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats_count_invalid_and_torn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_stops_the_scan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_n_on_a_big_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_n_over_two_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rotated_files_oldest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_from_resumes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_range, setup, teardown),
		cmocka_unit_test(test_finder_bytes_from_the_data),
		cmocka_unit_test(test_finder_at_buffer_boundaries),
		cmocka_unit_test_setup_teardown(test_query_with_common_rare_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_range_prefilter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_of_raw_whitespace_is_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_candidates_follow_backslash_runs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_format_scan_on_threads_writes_what_one_thread_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_format_scan_stops_when_the_writer_says, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
