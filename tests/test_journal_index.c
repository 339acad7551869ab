/* The journal's block index (core/ac_journal_index*.c): built, appended
 * to, and never believed when it does not verify; a query through it
 * writes exactly what a full scan writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_journal_index.h"
#include "ac_journal_scan.h"
#include "ac_journal_split.h"
#include "ac_query.h"
#include "test_util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
	char *root, *journal, *index, *stats;
} fixture;

static const char *const agents[] = {"Claude", "Codex", "Gemini", "Human", "System"};

/* Appends n events from line number first on: a clock that runs forward
 * but a few events are stamped a day late or two days early (skewed
 * writers: lines 4001 and 17003), every 3rd carries a correlation id, every 50th
 * a session id, and line 11000 is not an event at all when bad. Lines
 * 9003 and 20001 write their ids escaped (task_77 and task_78 decoded). */
static void append_events(const char *path, size_t first, size_t n, bool bad)
{
	ac_buf b = AC_BUF_INIT;

	for (size_t i = first; i < first + n; i++) {
		long long s = 1756909510LL + (long long)i * 7;
		int day_shift = i == 4001 ? 1 : i == 17003 ? -2 : 0;
		time_t t = (time_t)(s + day_shift * 86400);
		struct tm tm;
		char ts[32];

		gmtime_r(&t, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
		if (bad && i == 11000) {
			ac_buf_printf(&b, "{\"not\":\"an event %zu\"}\n", i);
			continue;
		}
		ac_buf_printf(&b, "{\"id\":\"evt_20250903142512_%08zx\",\"timestamp\":\"%s.%03zuZ\","
				  "\"agent\":\"%s\",\"status\":\"%s\",\"action\":{\"type\":\"%s\","
				  "\"params\":{%s%zu\"}},\"result\":{\"message\":\"event %zu of a "
				  "journal written for the index tests, padded to a usual size\"}",
			      i, ts, i % 1000, i % 1201 == 0 ? "Human" : agents[i % 3],
			      i % 10 == 0 ? "FAILED" : "SUCCESS",
			      i % 50 == 0 ? "SESSION_START" : "CMD_RUN",
			      i % 50 == 0 ? "\"sessionId\":\"sess_" : "\"command\":\"make ", i, i);
		if (i == 9003 || i == 20001)
			ac_buf_printf(&b, ",\"trace\":{\"correlation_id\":\"%s\"}",
				      i == 9003 ? "task_\\u00377" : "task_7\\u0038");
		else if (i % 3 == 0)
			ac_buf_printf(&b, ",\"trace\":{\"correlation_id\":\"task_%zu\"}", i % 7919);
		ac_buf_append(&b, "}\n", 2);
	}
	tu_append_file(path, b.data, b.len);
	ac_buf_free(&b);
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->root = tu_make_temp_dir();
	f->journal = tu_path(f->root, "JOURNAL.jsonl");
	f->stats = tu_path(f->root, "stats.log");
	assert_int_equal(ac_journal_index_path(&f->index, f->root, f->journal), 0);
	assert_non_null(f->index);
	setenv("AGENTCTL_DEBUG_STATS", f->stats, 1);
	/* One core: the index is used when it leaves half the file unread. */
	ac_split_set_limits(0, 0, 1);
	append_events(f->journal, 0, 25000, true);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	unsetenv("AGENTCTL_DEBUG_STATS");
	ac_split_set_limits(0, 0, 0);
	tu_remove_tree(f->root);
	free(f->root);
	free(f->journal);
	free(f->index);
	free(f->stats);
	free(f);
	return 0;
}

static int format_line(ac_buf *out, ac_buf *scratch, const ac_scan_match *m, const void *ctx)
{
	(void)scratch;
	(void)ctx;
	ac_buf_printf(out, "%llu %s ", (unsigned long long)m->offset, m->invalid ? "!" : "");
	ac_buf_append(out, m->line, m->len);
	ac_buf_putc(out, '\n');
	return 0;
}

static int collect(const char *data, size_t len, void *ctx)
{
	return ac_buf_append(ctx, data, len);
}

/* The query's output and counts, through the index (indexed) or not. */
static char *query(const fixture *f, bool indexed, const char *terms)
{
	ac_scan_stats stats = {0};
	ac_buf out = AC_BUF_INIT;
	ac_query *q = NULL;
	const char *path = f->journal;

	assert_int_equal(ac_query_parse_strings(&q, &terms, 1), 0);
	ac_query_show_invalid(q, true);
	if (indexed)
		assert_int_equal(ac_journal_index_scan(&stats, f->journal, f->root, f->index, q, NULL,
						       format_line, NULL, collect, &out), 0);
	else
		assert_int_equal(ac_journal_scan_format(&stats, &path, 1, q, 0, NULL, format_line,
							NULL, collect, &out), 0);
	ac_buf_printf(&out, "matched %llu invalid %llu torn %llu at %llu\n",
		      (unsigned long long)stats.matched, (unsigned long long)stats.invalid,
		      (unsigned long long)stats.torn, (unsigned long long)stats.torn_offset);
	ac_query_free(q);
	return ac_buf_detach(&out);
}

/* The last line AGENTCTL_DEBUG_STATS got, "" before any. */
static char *last_stats(const fixture *f)
{
	char *text = tu_exists(f->root, "stats.log") ? tu_read_file(f->stats, NULL) : strdup("");
	char *last;
	size_t len = strlen(text);

	if (len && text[len - 1] == '\n')
		text[--len] = '\0';
	last = strrchr(text, '\n');
	last = strdup(last ? last + 1 : text);
	free(text);
	return last;
}

static const char *const queries[] = {
	"since=2025-09-05T05:00:00Z until=2025-09-05T05:05:00Z",
	"since=2025-09-04T08:00:00Z until=2025-09-04T08:05:00Z", /* skewed blocks too */
	"since=2025-09-02T23:28:51.003Z until=2025-09-02T23:28:51.004Z", /* only a skewed event */
	"since=2025-09-05T00:00:00Z",
	"until=2025-09-03T15:00:00Z",
	"trace.correlation_id=task_77",
	"trace.correlation_id=task_78",
	"action.params.sessionId=sess_10050",
	"agent=Human",
	"agent=Human status=FAILED",
	"agent=Bob",
	"action.type=ROLLBACK",
	"trace.correlation_id=task_77 text~event",
};

/* Every query writes through the index what it writes without. */
static void assert_same_results(const fixture *f)
{
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		char *plain = query(f, false, queries[i]), *indexed = query(f, true, queries[i]);

		if (strcmp(plain, indexed))
			fail_msg("'%s' differs through the index (%s)", queries[i], last_stats(f));
		free(plain);
		free(indexed);
	}
}

static void load(ac_journal_index *idx, const fixture *f)
{
	struct stat st;

	assert_int_equal(stat(f->journal, &st), 0);
	assert_int_equal(ac_journal_index_load(idx, f->root, f->index, &st, NULL), 0);
}

static void test_build_and_query(void **state)
{
	fixture *f = *state;
	ac_journal_index idx;
	char *stats, *out;

	out = query(f, true, queries[0]);
	stats = last_stats(f);
	if (!strstr(stats, "index=built mode=indexed"))
		fail_msg("%s", stats);
	free(stats);
	free(out);
	load(&idx, f);
	assert_string_equal(idx.state, "used");
	assert_true(idx.n >= 3);
	for (size_t i = 1; i < idx.n; i++)
		assert_int_equal(idx.entries[i]->offset,
				 idx.entries[i - 1]->offset + idx.entries[i - 1]->length);
	ac_journal_index_clear(&idx);
	assert_same_results(f);
	/* A torn last line (a writer still at it) is reported the same. */
	tu_append_file(f->journal, "{\"id\":\"evt_2", 13);
	assert_same_results(f);
	/* A rare id reads few blocks. */
	free(query(f, true, "trace.correlation_id=task_77"));
	stats = last_stats(f);
	if (!strstr(stats, "mode=indexed"))
		fail_msg("%s", stats);
	free(stats);
}

/* The first build on two threads, pieces of 256 KiB: blocks cut
 * differently, the same answers. */
static void test_parallel_build(void **state)
{
	fixture *f = *state;
	ac_journal_index idx;
	char *stats;

	ac_split_set_limits(256 * 1024, 0, 2);
	free(query(f, true, queries[0]));
	stats = last_stats(f);
	if (!strstr(stats, "index=built"))
		fail_msg("%s", stats);
	free(stats);
	load(&idx, f);
	assert_true(idx.n >= 20);
	assert_int_equal(idx.entries[0]->first_line, 1);
	for (size_t i = 1; i < idx.n; i++) {
		assert_int_equal(idx.entries[i]->offset,
				 idx.entries[i - 1]->offset + idx.entries[i - 1]->length);
		assert_int_equal(idx.entries[i]->first_line,
				 idx.entries[i - 1]->first_line + idx.entries[i - 1]->nlines);
	}
	ac_journal_index_clear(&idx);
	ac_split_set_limits(0, 0, 1);
	assert_same_results(f);
}

/* The entries the index holds after a first query built it. */
static size_t built_entries(const fixture *f)
{
	ac_journal_index idx;
	size_t n;

	free(query(f, true, queries[0]));
	load(&idx, f);
	n = idx.n;
	ac_journal_index_clear(&idx);
	return n;
}

/* After appends to the journal, the next queries add its new blocks to
 * the index file: more than before, and nothing but whole entries. */
static void assert_extended(const fixture *f, size_t before)
{
	ac_journal_index idx;
	struct stat ist;

	append_events(f->journal, 25000, 8000, false);
	assert_same_results(f);
	load(&idx, f);
	assert_true(idx.n > before);
	assert_int_equal(stat(f->index, &ist), 0);
	assert_int_equal((size_t)ist.st_size, 128 + idx.n * sizeof(ac_jidx_entry));
	ac_journal_index_clear(&idx);
}

static void test_appends_extend_the_index(void **state)
{
	fixture *f = *state;

	assert_extended(f, built_entries(f));
}

static void test_torn_entry_is_ignored(void **state)
{
	fixture *f = *state;
	ac_journal_index idx;
	size_t before = built_entries(f);

	/* A crash in the middle of an append. */
	tu_append_file(f->index, "half an entry", 13);
	load(&idx, f);
	assert_string_equal(idx.state, "used");
	assert_int_equal(idx.n, before);
	ac_journal_index_clear(&idx);
	assert_same_results(f);
	/* The next append cuts it off first. */
	assert_extended(f, before);
}

/* Flips one byte of the index file at offset. */
static void flip(const char *path, size_t offset)
{
	size_t len;
	char *data = tu_read_file(path, &len);

	assert_true(offset < len);
	data[offset] ^= 0x5a;
	tu_write_file(path, data, len);
	free(data);
}

static void test_bad_entry_is_scanned(void **state)
{
	fixture *f = *state;
	ac_journal_index idx;
	size_t before = built_entries(f);

	/* Entry 1's time range, then its filter: neither is believed. */
	flip(f->index, 128 + sizeof(ac_jidx_entry) + offsetof(ac_jidx_entry, min_ts) + 3);
	flip(f->index, 128 + 2 * sizeof(ac_jidx_entry) + offsetof(ac_jidx_entry, bloom) + 9);
	load(&idx, f);
	assert_string_equal(idx.state, "used");
	assert_int_equal(idx.n, before - 2);
	ac_journal_index_clear(&idx);
	assert_same_results(f);
	/* A bad header: the whole file is ignored, and rebuilt. */
	flip(f->index, 20);
	load(&idx, f);
	assert_string_equal(idx.state, "ignored");
	assert_int_equal(idx.n, 0);
	ac_journal_index_clear(&idx);
	assert_same_results(f);
	load(&idx, f);
	assert_string_equal(idx.state, "used");
	assert_int_equal(idx.n, before);
	ac_journal_index_clear(&idx);
}

/* Every from in data[0..len) made to (as long) in one pass: a strstr()
 * from each match on took 38 of this file's 55 s under AddressSanitizer,
 * whose strstr measures the whole rest of the text at every call. */
static size_t replace_all(char *data, size_t len, const char *from, const char *to)
{
	size_t n = strlen(from), made = 0;

	assert_int_equal(strlen(to), n);
	for (size_t i = 0; i + n <= len; i++)
		if (data[i] == from[0] && memcmp(data + i, from, n) == 0) {
			memcpy(data + i, to, n);
			i += n - 1;
			made++;
		}
	return made;
}

static void test_changed_journal_is_not_believed(void **state)
{
	fixture *f = *state;
	ac_journal_index idx;
	size_t len;
	char *data, *copy;

	free(query(f, true, queries[0]));
	/* Rewritten in place (same inode, same size): the blocks' last bytes
	 * no longer hash as summarised, so every block is read. */
	data = tu_read_file(f->journal, &len);
	assert_true(replace_all(data, len, "\"Human\"", "\"Codex\"") > 0);
	assert_true(replace_all(data, len, "task_77\"", "task_78\"") > 0);
	assert_true(replace_all(data, len, "padded to a usual size", "padded to a usual SIZE") > 0);
	{
		int fd = open(f->journal, O_WRONLY);

		assert_true(fd >= 0);
		assert_int_equal(pwrite(fd, data, len, 0), (ssize_t)len);
		close(fd);
	}
	free(data);
	assert_same_results(f);
	/* Cut short (same inode): stale, rebuilt. */
	assert_int_equal(truncate(f->journal, 1 << 20), 0);
	load(&idx, f);
	assert_string_equal(idx.state, "stale");
	ac_journal_index_clear(&idx);
	assert_same_results(f);
	/* Replaced (another inode), as a rotation or a repair does. */
	copy = tu_path(f->root, "copy.jsonl");
	append_events(copy, 5, 20000, false);
	assert_int_equal(rename(copy, f->journal), 0);
	free(copy);
	load(&idx, f);
	assert_string_equal(idx.state, "ignored");
	ac_journal_index_clear(&idx);
	assert_same_results(f);
	load(&idx, f);
	assert_string_equal(idx.state, "used");
	ac_journal_index_clear(&idx);
}

static void test_foreign_or_open_index_is_ignored(void **state)
{
	fixture *f = *state;
	ac_journal_index idx;

	free(query(f, true, queries[0]));
	assert_int_equal(chmod(f->index, 0666), 0);
	load(&idx, f);
	assert_string_equal(idx.state, "ignored");
	ac_journal_index_clear(&idx);
	assert_same_results(f); /* and replaced by one of ours */
	load(&idx, f);
	assert_string_equal(idx.state, "used");
	ac_journal_index_clear(&idx);
	if (geteuid() != 0)
		return; /* giving a file away takes root */
	assert_int_equal(chown(f->index, 65534, 65534), 0);
	load(&idx, f);
	assert_string_equal(idx.state, "ignored");
	ac_journal_index_clear(&idx);
	assert_same_results(f);
}

static int note_bad(const char *path, uint64_t number, uint64_t offset, const char *reason,
		    void *ctx)
{
	ac_buf_printf(ctx, "%s:%llu:%llu:%s\n", path, (unsigned long long)number,
		      (unsigned long long)offset, reason);
	return 0;
}

/* journal check's report, through the index or not, as text. */
static char *checked(const fixture *f, bool indexed)
{
	ac_buf b = AC_BUF_INIT;
	uint64_t valid = 0, invalid = 0;

	assert_int_equal(ac_journal_check_indexed(&valid, &invalid, f->journal, f->root,
						  indexed ? f->index : NULL, NULL, note_bad, &b),
			 0);
	ac_buf_printf(&b, "%llu valid, %llu invalid\n", (unsigned long long)valid,
		      (unsigned long long)invalid);
	return ac_buf_detach(&b);
}

static void assert_same_check(const fixture *f, const char *stats_has)
{
	char *plain = checked(f, false), *indexed = checked(f, true), *stats = last_stats(f);

	assert_string_equal(indexed, plain);
	if (!strstr(stats, stats_has))
		fail_msg("%s", stats);
	free(plain);
	free(indexed);
	free(stats);
}

/* Entries whose checksums hold but whose content hash is wrong (the
 * first block's) or claims a block with a bad line is clean: those
 * blocks are validated, the report is the same. */
static void test_forged_content_hash_is_validated(void **state)
{
	fixture *f = *state;
	ac_journal_index idx, forged = {0};
	struct stat st;
	bool forged_bad = false;

	assert_same_check(f, "index=built mode=counted");
	assert_same_check(f, "index=used mode=counted");
	load(&idx, f);
	forged.generation = idx.generation;
	for (size_t i = 0; i < idx.n; i++) {
		ac_jidx_entry e = *idx.entries[i];

		if (i == 0)
			e.content_hash ^= 1;
		if (e.flags & AC_JIDX_ALWAYS) {
			e.flags &= ~(uint32_t)AC_JIDX_ALWAYS;
			e.content_hash = idx.entries[0]->content_hash;
			forged_bad = true;
		}
		assert_int_equal(ac_jidx_keep(&forged, &e), 0);
	}
	assert_true(forged_bad);
	assert_int_equal(stat(f->journal, &st), 0);
	assert_int_equal(ac_journal_index_save(&forged, 0, f->root, f->index, &st, NULL), 0);
	ac_journal_index_clear(&forged);
	ac_journal_index_clear(&idx);
	load(&idx, f);
	assert_string_equal(idx.state, "used");
	ac_journal_index_clear(&idx);
	assert_same_check(f, "index=used mode=full blocks=");
	/* A changed byte (same length) in the second block: it and what
	 * follows are validated; the report shows the line now broken. */
	load(&idx, f);
	flip(f->journal, (size_t)idx.entries[1]->offset + 1);
	ac_journal_index_clear(&idx);
	assert_same_check(f, "journal-check");
}

/* The number after "name=" in the last stats line. */
static unsigned long long stat_of(const fixture *f, const char *name)
{
	char *stats = last_stats(f), *at = strstr(stats, name);
	unsigned long long v;

	if (!at)
		fail_msg("no %s in %s", name, stats);
	v = strtoull(at + strlen(name), NULL, 10);
	free(stats);
	return v;
}

/* A rare id reads only the segments that may hold it (and the unindexed
 * tail, and the block with a line that is not an event), not the whole
 * blocks: the one with its plain line, the one with
 * its escaped line (a segment with an escaped id is always read), and
 * the filter's rare false positive. */
static void test_rare_id_reads_its_segments(void **state)
{
	fixture *f = *state;
	ac_journal_index idx;
	struct stat st;
	uint64_t tail;
	char *out;

	free(query(f, true, queries[0]));
	load(&idx, f);
	assert_int_equal(stat(f->journal, &st), 0);
	tail = (uint64_t)st.st_size - idx.covered;
	for (size_t i = 0; i < idx.n; i++)
		if (idx.entries[i]->flags & AC_JIDX_ALWAYS)
			tail += idx.entries[i]->length;
	ac_journal_index_clear(&idx);
	out = query(f, true, "trace.correlation_id=task_77");
	assert_non_null(strstr(out, "evt_20250903142512_0000232b")); /* line 9003, escaped */
	assert_non_null(strstr(out, "evt_20250903142512_00003e2b")); /* line 15915 */
	assert_non_null(strstr(out, "matched 2 "));
	free(out);
	if (stat_of(f, "read_bytes=") >= tail + 3 * AC_JIDX_SEGMENT_BYTES)
		fail_msg("read %llu bytes, tail and invalid %llu", stat_of(f, "read_bytes="),
			 (unsigned long long)tail);
	assert_true(stat_of(f, "segments_skipped=") > 0);
	assert_same_results(f);
}

/* An index of the format before segments (version 2, entries 4216 bytes)
 * for this very journal is not read as this one: it is rebuilt. */
static void test_old_format_is_rebuilt(void **state)
{
	fixture *f = *state;
	ac_journal_index idx;
	size_t len;
	char *data, *stats;
	uint32_t version = 2, entry_size = 4216;
	uint64_t sum;

	free(query(f, true, queries[0]));
	data = tu_read_file(f->index, &len);
	memcpy(data + 8, &version, 4);
	memcpy(data + 12, &entry_size, 4);
	sum = ac_hash64(0, data, 120);
	memcpy(data + 120, &sum, 8);
	tu_write_file(f->index, data, len);
	free(data);
	load(&idx, f);
	assert_string_equal(idx.state, "ignored");
	assert_int_equal(idx.n, 0);
	ac_journal_index_clear(&idx);
	free(query(f, true, "trace.correlation_id=task_77"));
	stats = last_stats(f);
	if (!strstr(stats, "index=built mode=indexed"))
		fail_msg("%s", stats);
	free(stats);
	load(&idx, f);
	assert_string_equal(idx.state, "used");
	assert_true(idx.n >= 3);
	ac_journal_index_clear(&idx);
}

static void test_journal_outside_the_workspace_has_no_index(void **state)
{
	char *path = NULL;

	(void)state;
	assert_int_equal(ac_journal_index_path(&path, "/ws", "/elsewhere/JOURNAL.jsonl"), 0);
	assert_null(path);
	assert_int_equal(ac_journal_index_path(&path, "/ws/", "/ws/logs/J%.jsonl"), 0);
	assert_string_equal(path, "/ws/.agent/index/logs%2FJ%25.jsonl.idx");
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_build_and_query, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parallel_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_appends_extend_the_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_entry_is_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_entry_is_scanned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_journal_is_not_believed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_foreign_or_open_index_is_ignored, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forged_content_hash_is_validated, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rare_id_reads_its_segments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_format_is_rebuilt, setup, teardown),
		cmocka_unit_test(test_journal_outside_the_workspace_has_no_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
