/* The usage extractors (Claude Code, Codex) on fixtures in their real
 * formats, the index (a warm run reads nothing, an append only the new
 * bytes, a shrunk file is read again, a corrupt or forged index is
 * rebuilt) and the reports' sums, filters and unknown prices. */
#include "ac_error.h"
#include "ac_text.h"
#include "ac_usage_index.h"
#include "ac_usage_record.h"
#include "ac_usage_report.h"

#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OK(expr)                                                                   \
	do {                                                                           \
		int rc_ = (expr);                                                          \
		if (rc_ != 0)                                                              \
			fail_msg("%s: %d (%s)", #expr, rc_, ac_error_last());              \
	} while (0)

#define CLAUDE ".claude/projects/-ws/c1111111-1111-4111-8111-111111111111.jsonl"
#define CODEX ".codex/sessions/2026/11/20/rollout-2026-11-20T11-00-00-d2222222-2222-4222-8222-222222222222.jsonl"

typedef struct {
	ac_usage_record r[16];
	char session[16][64], model[16][64];
	size_t n;
} seen;

static int collect(const ac_usage_record *r, void *ctx)
{
	seen *s = ctx;

	if (s->n == 16)
		return -1;
	s->r[s->n] = *r;
	snprintf(s->session[s->n], 64, "%s", r->session_id);
	snprintf(s->model[s->n], 64, "%s", r->model);
	s->n++;
	return 0;
}

static char *fixture_text(const char *rel, size_t *len)
{
	char *root = tu_path(AC_FIXTURES, "usage/home"), *path = tu_path(root, rel);
	char *text = tu_read_file(path, len);

	free(root);
	free(path);
	return text;
}

static void test_claude_extract(void **state)
{
	ac_usage_file_state st = {0};
	seen s = {0};
	size_t len, skipped = 0, whole;
	char *text = fixture_text(CLAUDE, &len);

	(void)state;
	/* The caller hands whole lines: the torn last one is cut off. */
	whole = (size_t)(strrchr(text, '\n') - text) + 1;
	OK(ac_usage_claude_extract(&st, text, whole, "from-name", collect, &s, &skipped));
	/* msg_1 streamed on two lines: once; the sidechain call counted. */
	assert_int_equal(s.n, 3);
	assert_int_equal(skipped, 0);
	assert_int_equal(s.r[0].counts.input, 10);
	assert_int_equal(s.r[0].counts.output, 5);
	assert_int_equal(s.r[0].counts.cache_create, 100);
	assert_int_equal(s.r[0].counts.cache_read, 1000);
	assert_string_equal(s.model[0], "claude-sonnet-4-5-20250929");
	assert_string_equal(s.session[0], "c1111111-1111-4111-8111-111111111111");
	assert_int_equal(s.r[1].counts.cache_read, 50);
	assert_int_equal(s.r[2].counts.output, 40);
	assert_string_equal(st.project, "@WS@");
	/* The same bytes again with the state carried: nothing new. */
	s.n = 0;
	OK(ac_usage_claude_extract(&st, text, whole, "from-name", collect, &s, &skipped));
	assert_int_equal(s.n, 0);
	/* The torn line alone: not JSON, skipped, counted as such. */
	OK(ac_usage_claude_extract(&st, text + whole, len - whole, "x", collect, &s, &skipped));
	assert_int_equal(s.n, 0);
	assert_int_equal(skipped, 1);
	ac_usage_file_state_free(&st);
	free(text);
}

static void test_codex_extract(void **state)
{
	ac_usage_file_state st = {0};
	seen s = {0};
	size_t len, skipped = 0;
	char *text = fixture_text(CODEX, &len);

	(void)state;
	OK(ac_usage_codex_extract(&st, text, len, "rollout", collect, &s, &skipped));
	/* info null: nothing; the repeated event: nothing; totals only: growth. */
	assert_int_equal(s.n, 2);
	assert_int_equal(skipped, 0);
	assert_int_equal(s.r[0].counts.input, 800); /* 1000 minus 200 cached */
	assert_int_equal(s.r[0].counts.cache_read, 200);
	assert_int_equal(s.r[0].counts.output, 100);
	assert_int_equal(s.r[0].counts.reasoning, 50);
	assert_int_equal(s.r[1].counts.input, 500);
	assert_int_equal(s.r[1].counts.cache_read, 100);
	assert_int_equal(s.r[1].counts.output, 60);
	assert_int_equal(s.r[1].counts.reasoning, 10);
	assert_string_equal(s.model[1], "gpt-5-codex");
	assert_string_equal(s.session[1], "d2222222-2222-4222-8222-222222222222");
	ac_usage_file_state_free(&st);
	free(text);
}

/* ---- the index ---- */

typedef struct {
	char *root, *home, *index;
	ac_usage_set set;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->root = tu_copy_fixture("usage");
	f->home = tu_path(f->root, "home");
	f->index = tu_path(f->root, "cache/usage-index.bin");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ac_usage_set_free(&f->set);
	tu_remove_tree(f->root);
	free(f->root);
	free(f->home);
	free(f->index);
	free(f);
	return 0;
}

static void scan(fixture *f)
{
	char *claude = tu_path(f->home, ".claude/projects"), *codex = tu_path(f->home, ".codex/sessions");
	ac_usage_scan_options o = {.version = AC_USAGE_SCAN_OPTIONS_VERSION, .claude_dir = claude,
				   .codex_dir = codex, .index_path = f->index};

	ac_usage_set_free(&f->set);
	OK(ac_usage_scan(&f->set, &o));
	free(claude);
	free(codex);
}

/* Total tokens over the set (every project). */
static uint64_t tokens(const fixture *f)
{
	uint64_t n = 0;

	for (size_t i = 0; i < f->set.n; i++)
		n += f->set.buckets[i].counts.input + f->set.buckets[i].counts.output +
		     f->set.buckets[i].counts.cache_create + f->set.buckets[i].counts.cache_read;
	return n;
}

/* A scan asked to stop (the dashboard quitting) stops before the next
 * file, says so, and writes no index. */
static void test_scan_cancelled(void **state)
{
	fixture *f = *state;
	char *claude = tu_path(f->home, ".claude/projects");
	atomic_bool cancel = true;
	ac_usage_scan_options o = {.version = AC_USAGE_SCAN_OPTIONS_VERSION, .claude_dir = claude,
				   .index_path = f->index, .cancel = &cancel};

	assert_int_equal(ac_usage_scan(&f->set, &o), AC_EBUSY);
	assert_non_null(strstr(ac_error_last(), "stopped"));
	assert_int_not_equal(access(f->index, F_OK), 0);
	atomic_store(&cancel, false);
	OK(ac_usage_scan(&f->set, &o));
	assert_true(f->set.files > 0);
	free(claude);
}

/* Scan and report options of another version are refused naming the
 * struct (the scan writes no index); the INIT macros' are taken. */
static void test_options_version(void **state)
{
	fixture *f = *state;
	char *claude = tu_path(f->home, ".claude/projects");
	ac_usage_scan_options so = {.claude_dir = claude, .index_path = f->index};
	ac_usage_report_options old = {.kind = AC_USAGE_DAILY};
	ac_usage_report_options ro = AC_USAGE_REPORT_OPTIONS_INIT;
	json_t *report = NULL;

	ac_usage_set_free(&f->set);
	assert_int_equal(ac_usage_scan(&f->set, &so), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_usage_scan_options version 0"));
	assert_non_null(strstr(ac_error_last(), "AC_USAGE_SCAN_OPTIONS_INIT"));
	assert_int_not_equal(access(f->index, F_OK), 0);
	so = (ac_usage_scan_options)AC_USAGE_SCAN_OPTIONS_INIT;
	so.claude_dir = claude;
	so.index_path = f->index;
	OK(ac_usage_scan(&f->set, &so));
	assert_true(f->set.files > 0);
	assert_int_equal(ac_usage_report(&report, &f->set, &old), AC_EINVAL);
	assert_null(report);
	assert_non_null(strstr(ac_error_last(), "ac_usage_report_options version 0"));
	OK(ac_usage_report(&report, &f->set, &ro));
	assert_string_equal(json_string_value(json_object_get(report, "kind")), "daily");
	json_decref(report);
	free(claude);
}

static void test_index_warm_and_append(void **state)
{
	fixture *f = *state;
	char *claude = tu_path(f->home, CLAUDE);
	static const char rest[] = ",\"output_tokens\":1},\"model\":\"claude-sonnet-4-5\"},"
				   "\"type\":\"assistant\",\"requestId\":\"req_4\",\"timestamp\":"
				   "\"2026-11-21T10:00:00.000Z\"}\n";
	size_t torn = strlen("{\"type\":\"assistant\",\"message\":{\"id\":\"msg_4\",\"usage\":{\"input_tokens\":99");
	uint64_t before;

	scan(f);
	assert_true(f->set.index_rebuilt); /* there was none */
	assert_int_equal(f->set.files, 3);
	assert_int_equal(f->set.files_read, 3);
	before = tokens(f);
	assert_int_equal(before, 2935 + 60 + 2000);
	/* Warm: nothing changed, nothing read. */
	scan(f);
	assert_false(f->set.index_rebuilt);
	assert_int_equal(f->set.files_read, 0);
	assert_int_equal(f->set.bytes_read, 0);
	assert_int_equal(tokens(f), before);
	/* The torn line is finished: only its bytes are read. */
	tu_append_file(claude, rest, strlen(rest));
	scan(f);
	assert_int_equal(f->set.files_read, 1);
	assert_int_equal(f->set.files_reread, 0);
	assert_int_equal(f->set.bytes_read, torn + strlen(rest));
	assert_int_equal(tokens(f), before + 100);
	free(claude);
}

static void test_index_shrink_rereads(void **state)
{
	fixture *f = *state;
	char *codex = tu_path(f->home, CODEX);
	size_t len;
	char *text;

	scan(f);
	text = tu_read_file(codex, &len);
	/* Cut after the turn_context line: the file shrank. */
	*(strstr(text, "\"type\":\"event_msg\"") - strlen("{\"timestamp\":\"2026-11-20T11:00:02.000Z\",")) = '\0';
	tu_write_file(codex, text, strlen(text));
	scan(f);
	assert_int_equal(f->set.files_reread, 1);
	assert_int_equal(tokens(f), 1235 + 2000); /* the rollout's 1760 gone */
	free(text);
	free(codex);
}

/* A resumed Claude Code session starts its new file with the earlier
 * messages: each is counted once over all files, as ccusage does, also
 * when the copy is read in a later run than the original. */
static void test_resumed_session_counted_once(void **state)
{
	fixture *f = *state;
	char *original = tu_path(f->home, CLAUDE);
	char *resumed = tu_path(f->home, ".claude/projects/-ws/a0000000-resumed.jsonl");
	static const char fresh[] = "{\"type\":\"assistant\",\"cwd\":\"@WS@\",\"sessionId\":\"a0\","
				    "\"requestId\":\"req_new\",\"timestamp\":\"2026-11-22T00:00:00.000Z\","
				    "\"message\":{\"id\":\"msg_new\",\"model\":\"claude-sonnet-4-5\","
				    "\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n";
	uint64_t before;
	size_t len;
	char *text;

	scan(f);
	before = tokens(f);
	text = tu_read_file(original, &len);
	*(strrchr(text, '\n') + 1) = '\0'; /* its whole lines */
	tu_write_file(resumed, text, strlen(text));
	tu_append_file(resumed, fresh, strlen(fresh));
	scan(f);
	assert_int_equal(f->set.files_read, 1);
	assert_int_equal(tokens(f), before + 2);
	/* Cold, both files read in one run: the same. */
	unlink(f->index);
	scan(f);
	assert_int_equal(f->set.files_read, 4);
	assert_int_equal(tokens(f), before + 2);
	free(text);
	free(original);
	free(resumed);
}

/* Each transcript session's total, as the session report counts it, for
 * the dashboard's TOKENS column: one entry a session, sorted, found by
 * source and id. */
static void test_session_totals(void **state)
{
	fixture *f = *state;
	ac_usage_session_total *t = NULL;
	const ac_usage_session_total *codex, *claude;
	size_t n = 0;

	scan(f);
	OK(ac_usage_session_totals(&t, &n, &f->set, NULL));
	assert_true(n >= 2);
	for (size_t i = 1; i < n; i++)
		assert_true(t[i - 1].source < t[i].source ||
			    (t[i - 1].source == t[i].source && strcmp(t[i - 1].session_id, t[i].session_id) < 0));
	codex = ac_usage_session_total_find(t, n, AC_USAGE_CODEX, "d2222222-2222-4222-8222-222222222222");
	claude = ac_usage_session_total_find(t, n, AC_USAGE_CLAUDE, "c1111111-1111-4111-8111-111111111111");
	assert_non_null(codex);
	assert_int_equal(codex->tokens, 1760);
	assert_non_null(claude);
	assert_int_equal(claude->tokens, 1235);
	assert_null(ac_usage_session_total_find(t, n, AC_USAGE_GEMINI, "d2222222-2222-4222-8222-222222222222"));
	assert_null(ac_usage_session_total_find(t, n, AC_USAGE_CODEX, "nope"));
	assert_null(ac_usage_session_total_find(NULL, 0, AC_USAGE_CODEX, "nope"));
	free(t);
}

static uint64_t fnv(const unsigned char *p, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void test_index_corrupt_rebuilt(void **state)
{
	fixture *f = *state;
	uint64_t truth;
	size_t len;
	char *bytes;
	unsigned char forged[8 + 8 + 8 + 8 + 8];

	scan(f);
	truth = tokens(f);
	/* One byte flipped: the checksum fails, the index is rebuilt. */
	bytes = tu_read_file(f->index, &len);
	bytes[len / 2] ^= 0x5a;
	tu_write_file(f->index, bytes, len);
	free(bytes);
	scan(f);
	assert_true(f->set.index_rebuilt);
	assert_int_equal(f->set.files_read, 3);
	assert_int_equal(tokens(f), truth);
	/* Cut short: rebuilt. */
	bytes = tu_read_file(f->index, &len);
	tu_write_file(f->index, bytes, len - 9);
	free(bytes);
	scan(f);
	assert_true(f->set.index_rebuilt);
	assert_int_equal(tokens(f), truth);
	/* Forged with a valid checksum: one file whose path claims 2^40
	 * bytes. Bounds-checked, not believed, nothing huge allocated. */
	memcpy(forged, "ACUSAGE1", 8);
	put64(forged + 8, 1);
	put64(forged + 16, 1);
	put64(forged + 24, UINT64_C(1) << 40);
	put64(forged + 32, fnv(forged, 32));
	tu_write_file(f->index, (const char *)forged, sizeof(forged));
	scan(f);
	assert_true(f->set.index_rebuilt);
	assert_int_equal(tokens(f), truth);
	/* And the rebuilt index serves the next run warm. */
	scan(f);
	assert_false(f->set.index_rebuilt);
	assert_int_equal(f->set.files_read, 0);
}

/* Every string of the session report is text: the JSON holds it and the
 * table prints it (a missing one crashed `usage session`). */
static void assert_session_rows_are_text(const ac_usage_set *set)
{
	ac_usage_report_options o = {.version = AC_USAGE_REPORT_OPTIONS_VERSION,
				     .kind = AC_USAGE_BY_SESSION};
	json_t *report = NULL, *row;
	size_t i;

	OK(ac_usage_report(&report, set, &o));
	assert_true(json_array_size(json_object_get(report, "rows")) > 0);
	json_array_foreach(json_object_get(report, "rows"), i, row) {
		assert_true(json_is_string(json_object_get(row, "sessionId")));
		assert_true(json_is_string(json_object_get(row, "project")));
	}
	json_decref(report);
	for (i = 0; i < set->n; i++)
		assert_true(ac_text_is_utf8(set->buckets[i].session_id,
					    strlen(set->buckets[i].session_id)) &&
			    ac_text_is_utf8(set->buckets[i].project, strlen(set->buckets[i].project)) &&
			    ac_text_is_utf8(set->buckets[i].model, strlen(set->buckets[i].model)));
}

/* Forged through the module's own writer (so with a valid checksum): each
 * string of an entry in turn made not UTF-8. The reader refuses the
 * whole index, the scan rebuilds it with the same numbers. A checksum
 * proves the file whole, not that agentctl wrote it. */
static void test_index_forged_strings_rebuilt(void **state)
{
	fixture *f = *state;
	ac_usage_index *index = NULL;
	bool rebuilt = false;
	uint64_t truth;

	scan(f);
	truth = tokens(f);
	assert_session_rows_are_text(&f->set);
	for (int field = 0; field < 4; field++) {
		ac_usage_entry *e;
		char **target;

		OK(ac_usage_index_load(&index, &rebuilt, f->index));
		assert_false(rebuilt);
		assert_true(index->n > 0);
		e = &index->entries[0];
		assert_true(e->n_buckets > 0);
		target = field == 0 ? &e->state.project : field == 1 ? &e->state.session_id
			 : field == 2 ? &e->buckets[0].model : &e->path;
		free(*target);
		*target = strdup(field == 3 ? "/ws/\xff\xfe.jsonl" : "/ws\xc0\xaf");
		OK(ac_usage_index_save(index, f->index));
		ac_usage_index_free(index);
		/* The reader alone: nothing believed. */
		OK(ac_usage_index_load(&index, &rebuilt, f->index));
		assert_true(rebuilt);
		assert_int_equal(index->n, 0);
		ac_usage_index_free(index);
		/* The scan: rebuilt from the files, the same figures, all text. */
		scan(f);
		assert_true(f->set.index_rebuilt);
		assert_int_equal(tokens(f), truth);
		assert_session_rows_are_text(&f->set);
	}
}

/* Counts each under 2^53 but summing past 2^63 over 4,096 buckets (a
 * forged file with a valid checksum): the index is not believed, and the
 * report is the true figures, never a total of -1. */
static void test_index_forged_sums_rebuilt(void **state)
{
	fixture *f = *state;
	ac_usage_index *index = NULL;
	ac_usage_entry *e;
	bool rebuilt = false;
	uint64_t truth;
	size_t n;

	scan(f);
	truth = tokens(f);
	OK(ac_usage_index_load(&index, &rebuilt, f->index));
	assert_false(rebuilt);
	e = &index->entries[0];
	assert_true(e->n_buckets > 0);
	n = e->n_buckets + 4096;
	assert_non_null(e->buckets = realloc(e->buckets, n * sizeof(*e->buckets)));
	e->cap_buckets = n;
	for (size_t k = e->n_buckets; k < n; k++) {
		e->buckets[k] = e->buckets[0];
		e->buckets[k].counts.input = UINT64_C(9007199254740991);
		assert_non_null(e->buckets[k].model = strdup(e->buckets[0].model));
	}
	e->n_buckets = n;
	OK(ac_usage_index_save(index, f->index));
	ac_usage_index_free(index);
	OK(ac_usage_index_load(&index, &rebuilt, f->index));
	assert_true(rebuilt);
	assert_int_equal(index->n, 0);
	ac_usage_index_free(index);
	scan(f);
	assert_true(f->set.index_rebuilt);
	assert_int_equal(tokens(f), truth);
}

/* A transcript (or project folder) whose name is not UTF-8 and that never
 * names its session would be named by its file: counted and left out,
 * the others still summed. */
static void test_name_not_utf8_skipped(void **state)
{
	fixture *f = *state;
	char *folder = tu_path(f->home, ".claude/projects/-w\xfe");
	char *odd = tu_path(f->home, ".claude/projects/-ws/x\xff.jsonl");
	char *inside = tu_path(folder, "e4444444.jsonl");
	static const char line[] = "{\"type\":\"assistant\",\"cwd\":\"/w\",\"requestId\":\"req_odd\","
				   "\"timestamp\":\"2026-11-22T00:00:00.000Z\",\"message\":{\"id\":"
				   "\"msg_odd\",\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":7,"
				   "\"output_tokens\":7}}}\n";
	uint64_t truth;

	scan(f);
	truth = tokens(f);
	tu_write_file(odd, line, strlen(line));
	assert_int_equal(mkdir(folder, 0755), 0);
	tu_write_file(inside, line, strlen(line));
	scan(f);
	assert_int_equal(f->set.files_skipped, 2);
	assert_int_equal(tokens(f), truth);
	assert_session_rows_are_text(&f->set);
	free(folder);
	free(odd);
	free(inside);
}

/* ---- reports ---- */

static void test_report_daily(void **state)
{
	fixture *f = *state;
	ac_usage_report_options o = {.version = AC_USAGE_REPORT_OPTIONS_VERSION,
				     .kind = AC_USAGE_DAILY, .workspace = "@WS@"};
	json_t *report = NULL, *rows, *price = json_pack("{s:{s:f, s:f}}", "claude-opus-4-1",
							  "input", 1000.0, "output", 1000.0);

	scan(f);
	OK(ac_usage_report(&report, &f->set, &o));
	rows = json_object_get(report, "rows");
	assert_int_equal(json_array_size(rows), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "date")),
			    "2026-11-20");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 0), "inputTokens")),
			 1313);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 0), "totalTokens")),
			 2935);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(report, "totals"),
							    "totalTokens")), 2995);
	json_decref(report);
	/* Every project: the other one's 2000 tokens come in. */
	o.workspace = NULL;
	OK(ac_usage_report(&report, &f->set, &o));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(report, "totals"),
							    "totalTokens")), 4995);
	json_decref(report);
	/* The config's table wins over the built-in one (longest prefix). */
	o.pricing = price;
	o.since_ms = 1795251600000; /* 2026-11-21T09:00Z: only msg_3 */
	OK(ac_usage_report(&report, &f->set, &o));
	assert_true(json_number_value(json_object_get(json_object_get(report, "totals"), "costUsd")) ==
		    (20.0 * 1000 + 40.0 * 1000) / 1e6);
	json_decref(report);
	json_decref(price);
}

static void test_unknown_model_cost_unknown(void **state)
{
	ac_usage_price p;
	(void)state;

	assert_false(ac_usage_price_of(&p, NULL, "mystery-model-1"));
	assert_false(ac_usage_price_of(&p, NULL, ""));
	assert_true(ac_usage_price_of(&p, NULL, "claude-sonnet-4-5-20250929"));
	assert_true(p.input == 3 && p.cache_read == 0.3);
	/* gpt-5-mini is its own price, not gpt-5's. */
	assert_true(ac_usage_price_of(&p, NULL, "gpt-5-mini-2025"));
	assert_true(p.input == 0.25);
}

static void test_unknown_model_in_report(void **state)
{
	fixture *f = *state;
	char *path = tu_path(f->home, ".claude/projects/-ws/f4444444.jsonl");
	static const char line[] = "{\"type\":\"assistant\",\"cwd\":\"@WS@\",\"sessionId\":\"f4\","
				   "\"requestId\":\"r\",\"timestamp\":\"2026-11-22T00:00:00.000Z\","
				   "\"message\":{\"id\":\"m\",\"model\":\"mystery-model-1\","
				   "\"usage\":{\"input_tokens\":7,\"output_tokens\":3}}}\n";
	ac_usage_report_options o = {.version = AC_USAGE_REPORT_OPTIONS_VERSION,
				     .kind = AC_USAGE_DAILY, .workspace = "@WS@"};
	json_t *report = NULL, *last;

	tu_write_file(path, line, strlen(line));
	scan(f);
	OK(ac_usage_report(&report, &f->set, &o));
	last = json_array_get(json_object_get(report, "rows"), 2);
	assert_true(json_is_null(json_object_get(last, "costUsd")));
	assert_int_equal(json_integer_value(json_object_get(last, "unpricedTokens")), 10);
	assert_true(json_is_null(json_object_get(json_object_get(report, "totals"), "costUsd")));
	json_decref(report);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claude_extract),
		cmocka_unit_test(test_codex_extract),
		cmocka_unit_test_setup_teardown(test_index_warm_and_append, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_cancelled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_options_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_shrink_rereads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_corrupt_rebuilt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_forged_strings_rebuilt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_forged_sums_rebuilt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_name_not_utf8_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resumed_session_counted_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_totals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_daily, setup, teardown),
		cmocka_unit_test(test_unknown_model_cost_unknown),
		cmocka_unit_test_setup_teardown(test_unknown_model_in_report, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
