/* Differential tests of the JSON scanner's copies (ac_json_scan_loop.h):
 * the SSE2 search for the end of a string's plain run must give exactly
 * what the scalar copy gives (result, error position and reason, every
 * span) on random and hostile text: every byte value at every place
 * around the 16-byte steps, broken UTF-8 in the middle and at the end of strings,
 * escapes and lone surrogates, every one-byte change of real journal
 * lines (the event paths' spans compared), random bytes and deep
 * nesting. Each document is scanned from an exact-size heap copy at
 * several alignments, so AddressSanitizer reports a vector load past the
 * end, and from the end of a page whose next page is unmapped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ac_event.h"
#include "ac_json_scan.h"
#include "ac_json_scan_impl.h"

#define MAX_DOC 512

static const char *const dotted[] = {"k", "n", "a", "o.s", "o.t"};
#define NPATHS (sizeof(dotted) / sizeof(dotted[0]))

static ac_json_path path_list[NPATHS];
static ac_json_paths prepared, event_prepared;
/* The paths the comparisons use: the short ones above, or the event's. */
static const ac_json_paths *active = &prepared;
static size_t compared;

static uint64_t rng_state;

static uint64_t next_random(void)
{
	/* xorshift64*: seeded, so a failure replays. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static size_t below(size_t n)
{
	return (size_t)(next_random() % n);
}

static int setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < NPATHS; i++)
		if (ac_json_path_init(&path_list[i], dotted[i]) != 0)
			return -1;
	if (ac_json_paths_prepare(&event_prepared, ac_event_paths(), AC_EV_NFIELDS) != 0)
		return -1;
	return ac_json_paths_prepare(&prepared, path_list, NPATHS) == 0 ? 0 : -1;
}

/* One scan of text[0..len) placed `shift` bytes into an allocation that
 * ends exactly at the text's end. */
typedef struct {
	int rc;
	ac_json_scan_error error;
	ac_json_span spans[AC_JSON_MAX_PATHS];
	bool printable; /* when rc is 0 */
} outcome;

/* What a valid document's printable must be: outside strings valid JSON
 * holds no byte from 0x7F, so none in the whole text. */
static bool no_byte_from_del(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)text[i] >= 0x7F)
			return false;
	return true;
}

/* Spans point into the scanned copy: keep them as offsets from text. */
static void spans_to_offsets(outcome *o, const char *text)
{
	for (size_t i = 0; i < active->npaths; i++)
		if (o->spans[i].type != AC_JSON_NONE)
			o->spans[i].start = (const char *)(uintptr_t)(o->spans[i].start - text);
}

static void scan_with(outcome *o, ac_json_scan_impl impl, const char *text, size_t len,
		      size_t shift)
{
	char *block = malloc(len + shift ? len + shift : 1);

	assert_non_null(block);
	memcpy(block + shift, text, len);
	o->printable = false;
	o->rc = ac_json_scan_prepared_with(impl, o->spans, block + shift, len, active, &o->error,
					   &o->printable);
	spans_to_offsets(o, block + shift);
	free(block);
}

static void print_doc(const char *text, size_t len)
{
	fprintf(stderr, "document (%zu bytes):", len);
	for (size_t i = 0; i < len; i++)
		fprintf(stderr, " %02x", (unsigned char)text[i]);
	fprintf(stderr, "\n");
}

static void expect_same(const outcome *want, const outcome *got, ac_json_scan_impl impl,
			const char *text, size_t len, size_t shift)
{
	bool same = want->rc == got->rc && want->error.offset == got->error.offset &&
		    want->error.line == got->error.line &&
		    want->error.column == got->error.column &&
		    strcmp(want->error.text, got->error.text) == 0 &&
		    (want->rc != 0 || (want->printable == got->printable &&
				       got->printable == no_byte_from_del(text, len)));

	for (size_t i = 0; same && i < active->npaths; i++) {
		const ac_json_span *a = &want->spans[i], *b = &got->spans[i];

		same = a->type == b->type && a->start == b->start && a->len == b->len &&
		       a->has_escape == b->has_escape && a->all_strings == b->all_strings &&
		       a->count == b->count;
	}
	if (!same) {
		fprintf(stderr, "copy %d differs from the scalar one (shift %zu): rc %d/%d, "
				"error at %zu/%zu \"%s\"/\"%s\"\n",
			(int)impl, shift, want->rc, got->rc, want->error.offset,
			got->error.offset, want->error.text, got->error.text);
		print_doc(text, len);
		fail();
	}
}

/* Scans text with every copy this CPU has, at shifts that move the
 * text's start across a 32-byte boundary, and compares each with the
 * scalar copy. */
static void compare_copies(const char *text, size_t len)
{
	static const size_t shifts[] = {0, 1, 15, 31};

	for (size_t s = 0; s < sizeof(shifts) / sizeof(shifts[0]); s++) {
		outcome want, got;

		scan_with(&want, AC_JSON_SCAN_SCALAR, text, len, shifts[s]);
		for (int impl = AC_JSON_SCAN_SSE2; impl <= AC_JSON_SCAN_SSE2; impl++) {
			if (!ac_json_scan_has_impl((ac_json_scan_impl)impl))
				continue;
			scan_with(&got, (ac_json_scan_impl)impl, text, len, shifts[s]);
			expect_same(&want, &got, (ac_json_scan_impl)impl, text, len, shifts[s]);
			compared++;
		}
	}
}

/* A builder for one document. */
typedef struct {
	char text[MAX_DOC];
	size_t len;
} doc;

static void put(doc *d, const void *bytes, size_t n)
{
	assert_true(d->len + n <= MAX_DOC);
	memcpy(d->text + d->len, bytes, n);
	d->len += n;
}

static void puts_doc(doc *d, const char *s)
{
	put(d, s, strlen(s));
}

static void put_run(doc *d, char c, size_t n)
{
	while (n--)
		put(d, &c, 1);
}

/* Every byte value at every place 0..70 of a string's content (across
 * the 16- and 32-byte steps from either the document's or the string's
 * start), inside a key and a value, followed by more text, by the
 * closing quote, or by the end of the document (a truncated string). */
static void test_every_byte_everywhere(void **state)
{
	(void)state;
	for (unsigned b = 0; b < 256; b++) {
		for (size_t at = 0; at <= 70; at++) {
			for (int tail = 0; tail < 3; tail++) {
				doc d = {.len = 0};

				puts_doc(&d, "{\"k\":\"");
				put_run(&d, 'a', at);
				put(&d, &(char){(char)b}, 1);
				if (tail == 0)
					put_run(&d, 'b', 40);
				if (tail < 2)
					puts_doc(&d, "\",\"n\":1}");
				compare_copies(d.text, d.len);

				/* The same in a key. */
				d.len = 0;
				puts_doc(&d, "{\"o\":{\"");
				put_run(&d, 'a', at);
				put(&d, &(char){(char)b}, 1);
				if (tail < 2)
					puts_doc(&d, "\":2}}");
				compare_copies(d.text, d.len);
			}
		}
	}
}

/* Fragments that stop a plain run, valid and not. */
static const char *const hostile[] = {
	"\\\"", "\\\\", "\\/", "\\b", "\\n", "\\u0041", "\\u00e9", "\\ud83d\\ude00",
	"\\ud83d", "\\ude00", "\\udbff\\udfff", "\\ud83dx", "\\ud83d\\u0041", "\\u12",
	"\\x", "\\", "\\u", "\\uZZZZ",
	"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xed\x9f\xbf", "\xee\x80\x80",
	"\xf4\x8f\xbf\xbf", "\xef\xbf\xbf",
	/* overlong */
	"\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xf0\x80\x80\x80",
	"\xf0\x8f\xbf\xbf",
	/* encoded surrogates, beyond U+10FFFF, stray bytes */
	"\xed\xa0\x80", "\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff",
	"\x80", "\xbf",
	/* truncated sequences */
	"\xc3", "\xe2\x82", "\xf0\x9f\x98", "\xe2", "\xf0",
	"\x01", "\x1f", "\x7f", "\t", "\n",
	"\xed\x95\x9c\xea\xb8\x80", /* Korean, as in the journals */
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

/* A random string's content: plain runs of random length between
 * hostile fragments (rarely a random byte), so stops fall at every
 * offset of the vector steps. */
static void put_random_string(doc *d, size_t budget)
{
	while (d->len < budget) {
		size_t run = below(8) == 0 ? below(80) : below(12);
		size_t pick = below(NHOSTILE + 4);

		for (size_t i = 0; i < run && d->len < budget; i++)
			put(d, &(char){(char)(' ' + 3 + below(90))}, 1);
		if (d->len >= budget)
			break;
		if (pick < NHOSTILE)
			puts_doc(d, hostile[pick]);
		else if (pick == NHOSTILE)
			put(d, &(char){(char)below(256)}, 1);
		if (below(4) == 0)
			break;
	}
}

/* Event-like documents with random strings: a few thousand, seeded. */
static void test_random_documents(void **state)
{
	(void)state;
	rng_state = 0x5eed0042ULL;
	for (int i = 0; i < 6000; i++) {
		doc d = {.len = 0};

		puts_doc(&d, "{\"k\":\"");
		put_random_string(&d, 120);
		puts_doc(&d, "\",\"o\":{\"");
		put_random_string(&d, 180);
		puts_doc(&d, "\":\"x\",\"s\":\"");
		put_random_string(&d, 300);
		puts_doc(&d, "\"},\"a\":[\"");
		put_random_string(&d, 400);
		puts_doc(&d, "\",\"y\"],\"n\":12}");
		/* Cut some documents short, mid-string or mid-sequence. */
		if (i % 5 == 0)
			d.len = below(d.len) + 1;
		compare_copies(d.text, d.len);
	}
}

/* A long valid line with a multi-byte character straddling each place
 * of a 32-byte step, so a vector loop resumes after it at every
 * alignment. */
static void test_utf8_straddles_steps(void **state)
{
	static const char *const chars[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
					    "\xe0\x80\x80", "\xed\xa0\x80", "\xf0\x9f\x98"};

	(void)state;
	for (size_t c = 0; c < sizeof(chars) / sizeof(chars[0]); c++) {
		for (size_t at = 0; at < 96; at++) {
			doc d = {.len = 0};

			puts_doc(&d, "{\"k\":\"");
			put_run(&d, 'a', at);
			puts_doc(&d, chars[c]);
			put_run(&d, 'b', 100 - at % 37);
			puts_doc(&d, chars[c]);
			puts_doc(&d, "\"}");
			compare_copies(d.text, d.len);
		}
	}
	/* Something was compared: a CPU without the vector copies runs
	 * only the scalar one, and this test says nothing there. */
	if (ac_json_scan_has_impl(AC_JSON_SCAN_SSE2))
		assert_true(compared > 0);
}

/* Real journal lines: a Node writer's with escapes and UTF-8 (seed
 * 004's style), a Python writer's with spaces and \u escapes, and one
 * of bench/gen_journal.py's. */
static const char *const real_lines[] = {
	"{\"id\":\"evt_20250903144621_08ef83f1\",\"timestamp\":\"2025-09-03T14:4"
	"6:21.900Z\",\"agent\":\"Codex\",\"status\":\"SUCCESS\",\"action\":{\"ty"
	"pe\":\"FILE_CREATE\",\"input\":\"Explain the lock file in journal.js\","
	"\"params\":{\"path\":\"c:/Users/etlov/agents-workspace/routes/buffer_ap"
	"pend.json\",\"content_summary\":\"review reader token. caf\xc3""\xa9"" "
	"na\xc3""\xaf""ve .\"}},\"result\":{\"message\":\"merge value checkpoint"
	". middleware error express server offset query socket socket rollback p"
	"ort. warning route filter parser. query parser column server header err"
	"or deploy agent review. path c:\\\\Users\\\\etlov\\\\agents-workspace\\"
	"\\server.js not found. config stream query. review value cleanup socket"
	" offset stream session the append buffer. cache field parser review req"
	"uest link rollback append parser. request rename merge response socket "
	"compile. offset retry express server checkpoint link append agent middl"
	"eware checkpoint. rename checkpoint file route timeout compile. npm tes"
	"t\\n\\n> app@1.0.0 test\\n> jest\\n\\nPASS  tests/server.test.js\\n  \xe2"""
	"\x9c""\x93"" listens on 3000 (12 ms)\\n. index header merge. route writ"
	"er writer. lock session writer fix. diff:\\n-\\tconst port = 3000;\\n+\\"
	"tco.\",\"artifacts\":[\"c:/Users/etlov/agents-workspace/routes/buffer_a"
	"ppend.json\"]},\"trace\":{\"correlation_id\":\"task_2c3378_95\"}}",
	"{\"agent\": \"Claude\", \"id\": \"evt_20250903142548_9b0b30fe\", \"time"
	"stamp\": \"2025-09-03T14:25:48.672Z\", \"status\": \"SUCCESS\", \"actio"
	"n\": {\"type\": \"FILE_EDIT\", \"params\": {\"path\": \"routes/line_che"
	"ckpoint.css\", \"content_summary\": \"query merge filter c.\"}, \"input"
	"\": \"\\ud14c\\uc2a4\\ud2b8\\ub97c \\uace0\\uccd0 \\uc8fc\\uc138\\uc694"
	"\"}, \"result\": {\"message\": \"response lock index the server deploy "
	"timeout timeout review. module mi.\", \"artifacts\": [\"routes/line_che"
	"ckpoint.css\"]}}",
	"{\"id\":\"evt_20250903142514_cc81736f\",\"timestamp\":\"2025-09-03T14:2"
	"5:14.764Z\",\"agent\":\"System\",\"status\":\"SUCCESS\",\"action\":{\"t"
	"ype\":\"ANALYSIS\",\"input\":\"cleanup line rollback index compile buff"
	"e.\",\"params\":{\"scope\":\"views/socket.txt\",\"depth\":2}},\"result\""
	":{\"message\":\"fixture fixture link deploy. build deploy fixture jo.\""
	"},\"trace\":{\"correlation_id\":\"task_e40b88_570\"}}",
};
#define NREAL (sizeof(real_lines) / sizeof(real_lines[0]))

/* A page whose next page is unmapped: text placed to end at its end
 * faults on any read past that end, with or without AddressSanitizer. */
static char *guarded_page;
static size_t page_size;

static void guarded_page_open(void)
{
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	guarded_page = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(guarded_page != MAP_FAILED);
	assert_int_equal(mprotect(guarded_page + page_size, page_size, PROT_NONE), 0);
}

static void guarded_page_close(void)
{
	munmap(guarded_page, 2 * page_size);
	guarded_page = NULL;
}

/* Scans text with every copy, placed to end at the guarded page's end,
 * and compares each with the scalar copy's scan of a heap copy. */
static void compare_at_page_end(const char *text, size_t len)
{
	char *at = guarded_page + page_size - len;
	outcome want, got;

	assert_true(len <= page_size);
	scan_with(&want, AC_JSON_SCAN_SCALAR, text, len, 0);
	memcpy(at, text, len);
	for (int impl = AC_JSON_SCAN_SCALAR; impl <= AC_JSON_SCAN_SSE2; impl++) {
		if (!ac_json_scan_has_impl((ac_json_scan_impl)impl))
			continue;
		got.printable = false;
		got.rc = ac_json_scan_prepared_with((ac_json_scan_impl)impl, got.spans, at, len,
						    active, &got.error, &got.printable);
		spans_to_offsets(&got, at);
		expect_same(&want, &got, (ac_json_scan_impl)impl, text, len, 0);
		compared++;
	}
}

/* Every one-byte change of the real lines (each byte replaced by each of
 * the 256 values, or deleted) and every prefix, with the event paths:
 * the spans journal check reads must be the same whichever copy runs. */
static void test_real_line_mutations(void **state)
{
	(void)state;
	active = &event_prepared;
	guarded_page_open();
	for (size_t l = 0; l < NREAL; l++) {
		const char *line = real_lines[l];
		size_t len = strlen(line);
		char copy[2048];

		assert_true(len < sizeof(copy));
		compare_copies(line, len);
		for (size_t at = 0; at <= len; at++)
			compare_at_page_end(line, at);
		for (size_t at = 0; at < len; at++) {
			memcpy(copy, line, len);
			for (unsigned b = 0; b < 256; b++) {
				copy[at] = (char)b;
				compare_at_page_end(copy, len);
			}
			memcpy(copy, line, at);
			memcpy(copy + at, line + at + 1, len - at - 1);
			compare_copies(copy, len - 1);
		}
	}
	guarded_page_close();
	active = &prepared;
}

/* Random bytes, mostly JSON's own, so that some documents get far. */
static void test_random_bytes(void **state)
{
	static const char alphabet[] = "{}[]:,\"\\ \t\r\n0123456789-+.eEtrufalsn\"ku";

	(void)state;
	rng_state = 0xb17e5ULL;
	guarded_page_open();
	for (int i = 0; i < 100000; i++) {
		doc d = {.len = 0};
		size_t n = below(i % 10 == 0 ? MAX_DOC : 80);

		if (below(2))
			puts_doc(&d, "{\"k\":\"");
		while (d.len < n) {
			char c = below(8) == 0 ? (char)below(256)
					       : alphabet[below(sizeof(alphabet) - 1)];

			put(&d, &c, 1);
		}
		compare_at_page_end(d.text, d.len);
	}
	guarded_page_close();
}

/* Nesting around the depth limit, with strings at each level, in arrays
 * and in objects on a path. */
static void test_deep_nesting(void **state)
{
	static char text[8192];

	(void)state;
	for (size_t depth = AC_JSON_MAX_DEPTH - 2; depth <= AC_JSON_MAX_DEPTH + 2; depth++) {
		size_t len = 0;

		for (size_t i = 0; i < depth; i++) {
			memcpy(text + len, i % 2 ? "[\"a\\n\"," : "{\"o\":", i % 2 ? 7 : 5);
			len += i % 2 ? 7 : 5;
		}
		memcpy(text + len, "\"s\"", 3);
		len += 3;
		for (size_t i = depth; i-- > 0;)
			text[len++] = i % 2 ? ']' : '}';
		compare_copies(text, len);
		compare_copies(text, len - 1);
	}
}

/* Lines around 64 KiB, each with a fault or the string's end near the
 * end of the text. */
static void test_long_lines(void **state)
{
	size_t cap = 64 << 10;
	char *text = malloc(cap + 64);

	(void)state;
	assert_non_null(text);
	for (size_t len = cap - 3; len <= cap + 3; len++) {
		memset(text, 'a', len);
		memcpy(text, "{\"k\":\"", 6);
		memcpy(text + len - 2, "\"}", 2);
		compare_copies(text, len);
		text[len - 40] = '\x01';
		compare_copies(text, len);
		compare_copies(text, len - 1);
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_byte_everywhere),
		cmocka_unit_test(test_random_documents),
		cmocka_unit_test(test_utf8_straddles_steps),
		cmocka_unit_test(test_real_line_mutations),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_long_lines),
	};

	int failed = cmocka_run_group_tests(tests, setup, NULL);

	fprintf(stderr, "%zu scans compared with the scalar copy's\n", compared);
	return failed;
}
