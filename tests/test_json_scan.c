/* Tests for the strict JSON scanner: validation, error columns, path
 * picking and string decoding. Documents are scanned from exact-size heap
 * copies without a terminating NUL, so AddressSanitizer reports any read
 * past the end of the text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ac_error.h"
#include "ac_json_scan.h"

/* A heap copy of text[0..len) with no byte after it. */
static char *dup_exact(const char *text, size_t len)
{
	char *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, text, len);
	return copy;
}

static int scan_exact(const char *text, size_t len)
{
	char *copy = dup_exact(text, len);
	int rc = ac_json_scan(NULL, copy, len, NULL, 0, NULL);

	free(copy);
	return rc;
}

static void check_error(const char *label, int rc, size_t column, const char *reason)
{
	char prefix[32];
	const char *msg = ac_error_last();

	snprintf(prefix, sizeof(prefix), "column %zu: ", column);
	if (rc != AC_ECORRUPT || strncmp(msg, prefix, strlen(prefix)) != 0 ||
	    !strstr(msg, reason))
		fail_msg("%s: got %d \"%s\", want \"%s...%s\"", label, rc, msg,
			 prefix, reason);
}

/* Scans doc for the dotted paths; doc must stay alive while out is used. */
static void scan_paths(ac_json_span *out, const char *doc, size_t len,
		       const char *const *dotted, size_t n)
{
	ac_json_path paths[AC_JSON_MAX_PATHS];
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(ac_json_path_init(&paths[i], dotted[i]), 0);
	if (ac_json_scan(out, doc, len, paths, n, NULL) != 0)
		fail_msg("scan failed: %s", ac_error_last());
}

static void assert_span(const ac_json_span *span, ac_json_type type, const char *raw)
{
	assert_int_equal(span->type, type);
	assert_int_equal(span->len, strlen(raw));
	assert_memory_equal(span->start, raw, span->len);
}

static void test_valid_documents(void **state)
{
	static const char *const docs[] = {
		"0", "-0", "7", "-12", "1.5", "-0.0", "1e9", "1E+2", "2.5e-3",
		"123456789012345678901234567890", "true", "false", "null",
		"\"\"", "\"plain\"", "[]", "{}", "[[]]", "{\"\":{}}",
		" [1, 2 ,3 ] ", "\t\r\n{\"a\" : [ {} , [] ]}\n",
		"{\"a\":1,\"b\":[true,false,null],\"c\":{\"d\":\"e\"}}",
		"[\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"]",
		"\"\\u0000 \\u00e9 \\u20AC \\ud83d\\ude00 \\uDBFF\\uDFFF\"",
		"\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \x7f\"",
		"{\"a\":{\"a\":{\"a\":{\"a\":[{\"a\":[]}]}}}}",
		"[-1.0e-0,0.5,10E10]",
		/* Lone surrogates, as JavaScript's JSON.stringify writes text
		 * cut with .slice() inside an emoji, and JSON.parse reads. */
		"\"ship\\ud83d\"", "\"\\ude80ok\"", "\"ab\\uDC00\"", "\"\\udfff\\ud800\"",
		"\"\\uD800\\u0041\"", "\"\\uDBFF\\uD800\"", "\"\\uD800x\\uDC00\"", "\"\\uD800\\n\"",
		"{\"k\\ud83d\":\"\\ud83d\"}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
		if (scan_exact(docs[i], strlen(docs[i])) != 0)
			fail_msg("%s: %s", docs[i], ac_error_last());
}

struct bad_doc {
	const char *text;
	size_t len; /* 0: strlen(text) */
	size_t column;
	const char *reason;
};

static void test_invalid_documents(void **state)
{
	static const struct bad_doc docs[] = {
		{ "", 0, 1, "empty document" },
		{ " \n\t\r", 0, 5, "empty document" },
		{ "[", 0, 2, "unexpected end of document" },
		{ "{", 0, 2, "unexpected end of document" },
		{ "[1,2", 0, 5, "unexpected end of document" },
		{ "{\"a\":", 0, 6, "unexpected end of document" },
		{ "{\"a\":1", 0, 7, "unexpected end of document" },
		{ "[1,]", 0, 4, "trailing comma before ']'" },
		{ "{\"a\":1,}", 0, 8, "trailing comma before '}'" },
		{ "[,1]", 0, 2, "unexpected character ','" },
		{ "{,}", 0, 2, "expected a string key" },
		{ "{1:2}", 0, 2, "expected a string key" },
		{ "{'a':1}", 0, 2, "expected a string key" },
		{ "{\"a\"", 0, 5, "expected ':' after object key" },
		{ "{\"a\" 1}", 0, 6, "expected ':' after object key" },
		{ "{\"a\":1,\"b\"}", 0, 11, "expected ':' after object key" },
		{ "{\"a\":1 \"b\":2}", 0, 8, "expected ',' or '}' after object member" },
		{ "[1 2]", 0, 4, "expected ',' or ']' after array element" },
		{ "[1}", 0, 3, "expected ',' or ']' after array element" },
		{ "{\"a\":1]", 0, 7, "expected ',' or '}' after object member" },
		{ "{\"a\":]", 0, 6, "unexpected character ']'" },
		{ "01", 0, 1, "leading zero in number" },
		{ "[-01]", 0, 3, "leading zero in number" },
		{ "+1", 0, 1, "unexpected character '+'" },
		{ "-", 0, 2, "expected a digit after '-'" },
		{ "-a", 0, 2, "expected a digit after '-'" },
		{ "-Infinity", 0, 2, "expected a digit after '-'" },
		{ "1.", 0, 3, "expected a digit after '.'" },
		{ "1.e5", 0, 3, "expected a digit after '.'" },
		{ ".5", 0, 1, "unexpected character '.'" },
		{ "1e", 0, 3, "expected a digit in the exponent" },
		{ "1e+", 0, 4, "expected a digit in the exponent" },
		{ "[1E-x]", 0, 5, "expected a digit in the exponent" },
		{ "NaN", 0, 1, "unexpected character 'N'" },
		{ "Infinity", 0, 1, "unexpected character 'I'" },
		{ "[nan]", 0, 2, "invalid literal, expected null" },
		{ "tru", 0, 1, "invalid literal, expected true" },
		{ "True", 0, 1, "unexpected character 'T'" },
		{ "fals", 0, 1, "invalid literal, expected false" },
		{ "nul", 0, 1, "invalid literal, expected null" },
		{ "truex", 0, 5, "trailing characters after the document" },
		{ "1 2", 0, 3, "trailing characters after the document" },
		{ "{} x", 0, 4, "trailing characters after the document" },
		{ "[]]", 0, 3, "trailing characters after the document" },
		{ "{\"a\":1}}", 0, 8, "trailing characters after the document" },
		{ "1 /* c */", 0, 3, "trailing characters after the document" },
		{ "{}\0", 3, 3, "trailing characters after the document" },
		{ "\f1", 0, 1, "unexpected byte 0x0c" },
		{ "[\v]", 0, 2, "unexpected byte 0x0b" },
		{ "\xc2\xa0" "1", 0, 1, "unexpected byte 0xc2" },
		{ "\xef\xbb\xbf{}", 0, 1, "unexpected byte 0xef" },
		{ "\"abc", 0, 5, "unterminated string" },
		{ "\"abc\\", 0, 6, "unterminated string" },
		{ "\"\\u00e9", 0, 8, "unterminated string" },
		{ "{\"ab", 0, 5, "unterminated string" },
		{ "\"a\\qb\"", 0, 3, "invalid escape \\q" },
		{ "\"\\x41\"", 0, 2, "invalid escape \\x" },
		{ "\"\\'\"", 0, 2, "invalid escape \\'" },
		{ "\"\\\x01\"", 0, 2, "invalid escape byte 0x01" },
		{ "\"\\U0041\"", 0, 2, "invalid escape \\U" },
		{ "\"\\u12\"", 0, 2, "invalid \\u escape" },
		{ "\"\\u12G4\"", 0, 2, "invalid \\u escape" },
		{ "\"\\u", 0, 2, "invalid \\u escape" },
		/* A lone surrogate is valid; what follows it is checked alone. */
		{ "\"\\uD800\\xDC00\"", 0, 8, "invalid escape \\x" },
		{ "\"\\uD800\\uDC0\"", 0, 8, "invalid \\u escape" },
		{ "\"a\tb\"", 0, 3, "control character 0x09 in string" },
		{ "\"a\nb\"", 0, 3, "control character 0x0a in string" },
		{ "\"a\0b\"", 5, 3, "control character 0x00 in string" },
		{ "\"\x1f\"", 0, 2, "control character 0x1f in string" },
		{ "[\"\x80\"]", 0, 3, "invalid UTF-8 in string" },
		{ "{\"a\\q\":1}", 0, 4, "invalid escape \\q" },
		{ "{\"a\xed\xa0\x80\":1}", 0, 4, "invalid UTF-8 in string" },
		{ "{\"a\n\":1}", 0, 4, "control character 0x0a in string" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		const struct bad_doc *d = &docs[i];
		size_t len = d->len ? d->len : strlen(d->text);

		check_error(d->text, scan_exact(d->text, len), d->column, d->reason);
	}
}

static void test_text_is_not_nul_terminated(void **state)
{
	static const char text[] = "[1,2]xyz truely 12345 \"abc\"";
	ac_json_span out[1];
	ac_json_path path;
	char *doc;

	(void)state;
	assert_int_equal(scan_exact(text, 5), 0);
	assert_int_equal(scan_exact(text + 9, 4), 0);
	check_error("tru", scan_exact(text + 9, 3), 1, "invalid literal");
	check_error("\"abc", scan_exact(text + 22, 4), 5, "unterminated string");

	/* A number cut off by the end of the text is not read past it. */
	doc = dup_exact("{\"n\":12345}", 8);
	assert_int_equal(ac_json_path_init(&path, "n"), 0);
	check_error("{\"n\":123", ac_json_scan(out, doc, 8, &path, 1, NULL), 9,
		    "unexpected end of document");
	free(doc);
}

static void test_utf8(void **state)
{
	static const char *const good[] = {
		"\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xe1\x80\x80",
		"\xec\xbf\xbf", "\xed\x80\x80", "\xed\x9f\xbf", "\xee\x80\x80",
		"\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf1\x80\x80\x80",
		"\xf3\xbf\xbf\xbf", "\xf4\x8f\xbf\xbf", "\x7f",
	};
	static const char *const bad[] = {
		"\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xc2", "\xc2\xc2",
		"\xc2\x7f", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xe2\x82",
		"\xe2\x28\xa1", "\xed\xa0\x80", "\xed\xbf\xbf", "\xf0\x80\x80\x80",
		"\xf0\x8f\xbf\xbf", "\xf0\x9f\x98", "\xf0\x9f\x98\x28",
		"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80",
		"\xfe", "\xff",
	};
	char doc[32];
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		n = snprintf(doc, sizeof(doc), "\"ab%s\"", good[i]);
		if (scan_exact(doc, (size_t)n) != 0)
			fail_msg("good[%zu]: %s", i, ac_error_last());
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char label[16];

		snprintf(label, sizeof(label), "bad[%zu]", i);
		n = snprintf(doc, sizeof(doc), "\"ab%s\"", bad[i]);
		check_error(label, scan_exact(doc, (size_t)n), 4,
			    "invalid UTF-8 in string");
		/* A sequence cut off by the end of the text. */
		n = snprintf(doc, sizeof(doc), "\"ab%s", bad[i]);
		check_error(label, scan_exact(doc, (size_t)n), 4,
			    "invalid UTF-8 in string");
	}
	/* A whole sequence right at the end is valid UTF-8 but unterminated. */
	check_error("cut", scan_exact("\"\xc3\xa9", 3), 4, "unterminated string");
}

static char *nested(size_t depth, bool close)
{
	char *doc = malloc(2 * depth);

	assert_non_null(doc);
	memset(doc, '[', depth);
	memset(doc + depth, close ? ']' : '[', depth);
	return doc;
}

static void test_nesting_limit(void **state)
{
	char *doc;
	char buf[2048];
	size_t i, n = 0;

	(void)state;
	doc = nested(AC_JSON_MAX_DEPTH, true);
	if (ac_json_scan(NULL, doc, 2 * AC_JSON_MAX_DEPTH, NULL, 0, NULL) != 0)
		fail_msg("%s", ac_error_last());
	free(doc);

	doc = nested(AC_JSON_MAX_DEPTH + 1, true);
	check_error("257 arrays", ac_json_scan(NULL, doc, 2 * (AC_JSON_MAX_DEPTH + 1), NULL, 0, NULL),
		    AC_JSON_MAX_DEPTH + 1, "nesting deeper than 256");
	free(doc);

	/* Objects and arrays count alike. */
	for (i = 0; i < 128; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "{\"a\":[");
	check_error("256 mixed", scan_exact(buf, n), n + 1, "unexpected end of document");
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "{");
	check_error("257 mixed", scan_exact(buf, n), n, "nesting deeper than 256");
}

static void test_deep_nesting_rejected(void **state)
{
	const size_t deep = 100000, huge = 10 * 1000 * 1000;
	char *doc;

	(void)state;
	doc = nested(deep, true);
	check_error("100000 deep", ac_json_scan(NULL, doc, 2 * deep, NULL, 0, NULL),
		    AC_JSON_MAX_DEPTH + 1, "nesting deeper than 256");
	free(doc);

	doc = nested(huge / 2, false);
	check_error("10M '['", ac_json_scan(NULL, doc, huge, NULL, 0, NULL),
		    AC_JSON_MAX_DEPTH + 1, "nesting deeper than 256");
	free(doc);
}

static const char event[] =
	"{\"id\":\"evt_20240501123456_0a1b2c3d\",\"agent\":\"Claude\","
	"\"action\":{\"type\":\"FILE_EDIT\",\"params\":{\"path\":\"a.c\"}},"
	"\"trace\":{\"correlation_id\":\"c-1\",\"parent_id\":null},"
	"\"result\":{\"artifacts\":[\"a\",\"b\"],\"message\":\"ok\"},"
	"\"n\":-1.5e3,\"ok\":true,\"no\":false}";

static void test_path_extraction(void **state)
{
	static const char *const dotted[] = {
		"agent", "action.type", "trace.correlation_id", "action.params",
		"result.artifacts", "n", "ok", "no", "trace.parent_id", "id",
		"action.params.path", "action",
	};
	ac_json_span out[12];
	char *doc = dup_exact(event, strlen(event));

	(void)state;
	scan_paths(out, doc, strlen(event), dotted, 12);
	assert_span(&out[0], AC_JSON_STRING, "\"Claude\"");
	assert_span(&out[1], AC_JSON_STRING, "\"FILE_EDIT\"");
	assert_span(&out[2], AC_JSON_STRING, "\"c-1\"");
	assert_span(&out[3], AC_JSON_OBJECT, "{\"path\":\"a.c\"}");
	assert_span(&out[4], AC_JSON_ARRAY, "[\"a\",\"b\"]");
	assert_span(&out[5], AC_JSON_NUMBER, "-1.5e3");
	assert_span(&out[6], AC_JSON_TRUE, "true");
	assert_span(&out[7], AC_JSON_FALSE, "false");
	assert_span(&out[8], AC_JSON_NULL, "null");
	assert_span(&out[9], AC_JSON_STRING, "\"evt_20240501123456_0a1b2c3d\"");
	assert_span(&out[10], AC_JSON_STRING, "\"a.c\"");
	assert_span(&out[11], AC_JSON_OBJECT,
		    "{\"type\":\"FILE_EDIT\",\"params\":{\"path\":\"a.c\"}}");
	assert_ptr_equal(out[0].start, doc + (strstr(event, "\"Claude\"") - event));
	free(doc);
}

static void test_path_missing(void **state)
{
	static const char *const dotted[] = {
		"missing", "action.missing", "agent.x", "action.type.x",
		"trace.correlation_id.deeper", "type", "correlation_id",
	};
	ac_json_span out[7];
	size_t i;

	(void)state;
	memset(out, 0xAB, sizeof(out));
	scan_paths(out, event, strlen(event), dotted, 7);
	for (i = 0; i < 7; i++)
		if (out[i].type != AC_JSON_NONE)
			fail_msg("%s was found", dotted[i]);

	/* Paths start at a top-level object only. */
	scan_paths(out, "[{\"agent\":1}]", 13, dotted, 1);
	assert_int_equal(out[0].type, AC_JSON_NONE);
	scan_paths(out, "\"agent\"", 7, dotted, 1);
	assert_int_equal(out[0].type, AC_JSON_NONE);
}

static void test_path_depth_must_match(void **state)
{
	static const char doc[] =
		"{\"type\":0,\"b\":{\"type\":1},\"x\":{\"action\":{\"type\":2}},"
		"\"action\":{\"x\":{\"type\":3}}}";
	static const char *const dotted[] = { "action.type", "type", "b.type" };
	ac_json_span out[3];

	(void)state;
	scan_paths(out, doc, strlen(doc), dotted, 3);
	assert_int_equal(out[0].type, AC_JSON_NONE);
	assert_span(&out[1], AC_JSON_NUMBER, "0");
	assert_span(&out[2], AC_JSON_NUMBER, "1");
}

static void test_path_duplicate_last_wins(void **state)
{
	static const char *const dotted[] = { "a", "a.b", "a.c", "z" };
	ac_json_span out[4];
	const char *doc;

	(void)state;
	doc = "{\"a\":1,\"z\":[],\"a\":\"two\",\"z\":{}}";
	scan_paths(out, doc, strlen(doc), dotted, 4);
	assert_span(&out[0], AC_JSON_STRING, "\"two\"");
	assert_span(&out[3], AC_JSON_OBJECT, "{}");

	doc = "{\"a\":{\"b\":1,\"b\":2},\"a\":{\"b\":3,\"c\":4}}";
	scan_paths(out, doc, strlen(doc), dotted, 4);
	assert_span(&out[0], AC_JSON_OBJECT, "{\"b\":3,\"c\":4}");
	assert_span(&out[1], AC_JSON_NUMBER, "3");
	assert_span(&out[2], AC_JSON_NUMBER, "4");

	/* The last "a" has no "b", so a.b is not there any more. */
	doc = "{\"a\":{\"b\":1},\"a\":{\"c\":2}}";
	scan_paths(out, doc, strlen(doc), dotted, 4);
	assert_int_equal(out[1].type, AC_JSON_NONE);
	assert_span(&out[2], AC_JSON_NUMBER, "2");
	doc = "{\"a\":{\"b\":1},\"a\":null}";
	scan_paths(out, doc, strlen(doc), dotted, 4);
	assert_span(&out[0], AC_JSON_NULL, "null");
	assert_int_equal(out[1].type, AC_JSON_NONE);
}

static void test_path_not_into_arrays(void **state)
{
	static const char *const dotted[] = { "a", "a.b", "c.a", "d.e" };
	static const char doc[] =
		"{\"a\":[{\"b\":1}],\"c\":[{\"a\":2}],\"d\":[[{\"e\":3}]]}";
	ac_json_span out[4];

	(void)state;
	scan_paths(out, doc, strlen(doc), dotted, 4);
	assert_span(&out[0], AC_JSON_ARRAY, "[{\"b\":1}]");
	assert_false(out[0].all_strings);
	assert_int_equal(out[1].type, AC_JSON_NONE);
	assert_int_equal(out[2].type, AC_JSON_NONE);
	assert_int_equal(out[3].type, AC_JSON_NONE);
}

static void test_path_escaped_keys(void **state)
{
	static const char *const dotted[] = {
		"agent", "action.type", "\xf0\x9f\x98\x80", "a/b", "nul",
	};
	static const char doc[] =
		"{\"a\\u0067ent\":\"x\",\"\\u0061ction\":{\"t\\u0079pe\":\"Y\"},"
		"\"\\ud83d\\ude00\":1,\"a\\/b\":2,\"agen\\u0074x\":3,\"\\u0061gen\":4,"
		"\"nul\\u0000\":5,\"n\\u0075l\":6}";
	ac_json_span out[5];

	(void)state;
	scan_paths(out, doc, strlen(doc), dotted, 5);
	assert_span(&out[0], AC_JSON_STRING, "\"x\"");
	assert_span(&out[1], AC_JSON_STRING, "\"Y\"");
	assert_span(&out[2], AC_JSON_NUMBER, "1");
	assert_span(&out[3], AC_JSON_NUMBER, "2");
	assert_span(&out[4], AC_JSON_NUMBER, "6");
}

/* Keys are looked up by length and first byte: keys that share a bucket
 * ("id" and "Id"), long keys compared a word at a time and keys that
 * differ only in their last byte still find exactly their own path, and a
 * prepared scan finds what a plain one does, over many documents. */
static void test_path_key_table(void **state)
{
	static const char *const dotted[] = {
		"id", "Id", "correlation_idX", "correlation_idY", "abcdefgh", "abcdefgi", "a.b",
	};
	static const char doc[] =
		"{\"Id\":1,\"id\":2,\"correlation_idY\":3,\"correlation_idX\":4,"
		"\"abcdefgi\":5,\"abcdefgh\":6,\"a\":{\"b\":7},\"i\\u0064\":8}";
	ac_json_path paths[7];
	ac_json_paths prepared;
	ac_json_span plain[7], fast[7];

	(void)state;
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(ac_json_path_init(&paths[i], dotted[i]), 0);
	assert_int_equal(ac_json_paths_prepare(&prepared, paths, 7), 0);
	for (size_t cut = strlen(doc); cut > 0; cut--) {
		int a = ac_json_scan(plain, doc, cut, paths, 7, NULL);
		int b = ac_json_scan_prepared(fast, doc, cut, &prepared, NULL);

		assert_int_equal(a, b);
		for (size_t i = 0; a == 0 && i < 7; i++) {
			assert_int_equal(plain[i].type, fast[i].type);
			assert_ptr_equal(plain[i].start, fast[i].start);
		}
	}
	assert_int_equal(ac_json_scan_prepared(fast, doc, strlen(doc), &prepared, NULL), 0);
	assert_span(&fast[0], AC_JSON_NUMBER, "8"); /* the escaped "id" comes last */
	assert_span(&fast[1], AC_JSON_NUMBER, "1");
	assert_span(&fast[2], AC_JSON_NUMBER, "4");
	assert_span(&fast[3], AC_JSON_NUMBER, "3");
	assert_span(&fast[4], AC_JSON_NUMBER, "6");
	assert_span(&fast[5], AC_JSON_NUMBER, "5");
	assert_span(&fast[6], AC_JSON_NUMBER, "7");
}

static void test_path_many(void **state)
{
	static char names[AC_JSON_MAX_PATHS + 1][8];
	const char *dotted[AC_JSON_MAX_PATHS + 1];
	ac_json_path paths[AC_JSON_MAX_PATHS + 1];
	ac_json_span out[AC_JSON_MAX_PATHS + 1];
	char doc[2048];
	size_t i, n = 0;

	(void)state;
	doc[n++] = '{';
	for (i = 0; i <= AC_JSON_MAX_PATHS; i++) {
		snprintf(names[i], sizeof(names[i]), "k%zu", i);
		dotted[i] = names[i];
		assert_int_equal(ac_json_path_init(&paths[i], names[i]), 0);
		/* Keys in reverse order, so masks are tested on every bit. */
		n += (size_t)snprintf(doc + n, sizeof(doc) - n, "%s\"k%zu\":%zu",
				      i ? "," : "", AC_JSON_MAX_PATHS - i,
				      AC_JSON_MAX_PATHS - i);
	}
	doc[n++] = '}';
	scan_paths(out, doc, n, dotted, AC_JSON_MAX_PATHS);
	for (i = 0; i < AC_JSON_MAX_PATHS; i++) {
		char want[8];

		snprintf(want, sizeof(want), "%zu", i);
		assert_span(&out[i], AC_JSON_NUMBER, want);
	}
	assert_int_equal(ac_json_scan(out, doc, n, paths, AC_JSON_MAX_PATHS + 1, NULL),
			 AC_EINVAL);
}

static void test_has_escape_all_strings(void **state)
{
	static const char *const dotted[] = {
		"s", "e", "arr", "mix", "empty", "nested", "obj", "nul", "o", "esc",
	};
	static const char doc[] =
		"{\"s\":\"plain\",\"e\":\"a\\nb\",\"arr\":[\"x\", \"y\\\"z\" ],"
		"\"mix\":[\"x\",1],\"empty\":[ ],\"nested\":[[\"x\"]],\"obj\":[{}],"
		"\"nul\":[\"a\",null],\"o\":{\"k\":\"v\"},\"esc\":\"\\u0041\"}";
	ac_json_span out[10];

	(void)state;
	scan_paths(out, doc, strlen(doc), dotted, 10);
	assert_false(out[0].has_escape);
	assert_true(out[1].has_escape);
	assert_true(out[9].has_escape);
	assert_span(&out[2], AC_JSON_ARRAY, "[\"x\", \"y\\\"z\" ]");
	assert_true(out[2].all_strings);
	assert_false(out[2].has_escape);
	assert_false(out[3].all_strings);
	assert_span(&out[4], AC_JSON_ARRAY, "[ ]");
	assert_true(out[4].all_strings);
	assert_false(out[5].all_strings);
	assert_false(out[6].all_strings);
	assert_false(out[7].all_strings);
	assert_false(out[8].all_strings);
}

static void test_path_init(void **state)
{
	static const char *const bad[] = {
		"", ".", "a..b", ".a", "a.", "a.b.c.d.e.f.g.h.i",
	};
	ac_json_path path;
	size_t i;

	(void)state;
	assert_int_equal(ac_json_path_init(&path, "agent"), 0);
	assert_int_equal(path.nsegments, 1);
	assert_int_equal(path.segment_len[0], 5);

	assert_int_equal(ac_json_path_init(&path, "trace.correlation_id"), 0);
	assert_int_equal(path.nsegments, 2);
	assert_memory_equal(path.segment[0], "trace", 5);
	assert_int_equal(path.segment_len[0], 5);
	assert_memory_equal(path.segment[1], "correlation_id", 14);
	assert_int_equal(path.segment_len[1], 14);

	assert_int_equal(ac_json_path_init(&path, "a.b.c.d.e.f.g.h"), 0);
	assert_int_equal(path.nsegments, AC_JSON_MAX_SEGMENTS);
	assert_memory_equal(path.segment[7], "h", 1);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (ac_json_path_init(&path, bad[i]) != AC_EINVAL)
			fail_msg("\"%s\" was accepted", bad[i]);
		assert_int_equal(path.nsegments, 0);
		assert_true(ac_error_last()[0] != '\0');
	}
}

/* Decodes the string at the top of doc into an exact-size buffer. */
static void check_decode(const char *doc, const char *want, size_t want_len)
{
	ac_json_span span;
	ac_json_path path;
	char *text, *buf;
	size_t len;
	int n;

	text = malloc(strlen(doc) + 8);
	assert_non_null(text);
	n = sprintf(text, "{\"v\":%s}", doc);
	assert_int_equal(ac_json_path_init(&path, "v"), 0);
	if (ac_json_scan(&span, text, (size_t)n, &path, 1, NULL) != 0)
		fail_msg("%s: %s", doc, ac_error_last());
	assert_int_equal(span.type, AC_JSON_STRING);
	buf = malloc(span.len);
	assert_non_null(buf);
	ac_json_string_decode(buf, &len, &span);
	assert_int_equal(len, want_len);
	assert_memory_equal(buf, want, want_len);
	assert_true(ac_json_string_equals(&span, want, want_len));
	free(buf);
	free(text);
}

static void test_decode(void **state)
{
	(void)state;
	check_decode("\"\"", "", 0);
	check_decode("\"h\xc3\xa9llo\"", "h\xc3\xa9llo", 6);
	check_decode("\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"",
		     "a\"b\\c/d\be\ff\ng\rh\ti", 17);
	check_decode("\"\\u0041\\u00e9\\u20AC\\ud83d\\ude00\"",
		     "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 10);
	check_decode("\"\\uD800\\uDC00\\uDBFF\\uDFFF\"",
		     "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 8);
	check_decode("\"x\\u0000y\"", "x\0y", 3);
	check_decode("\"\\u0000\"", "\0", 1);
	check_decode("\"\\u007f\\u0080\\u07FF\\u0800\\uFFFF\"",
		     "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf", 11);
	check_decode("\"tail\\n\"", "tail\n", 5);
	/* A lone surrogate: its 3-byte WTF-8 form, the unit kept. */
	check_decode("\"ship\\ud83d\"", "ship\xed\xa0\xbd", 7);
	check_decode("\"\\ude80ok\"", "\xed\xba\x80ok", 5);
	check_decode("\"\\uDBFF\\uD800\\uDC00\"", "\xed\xaf\xbf\xf0\x90\x80\x80", 7);
	check_decode("\"\\ud83d\\u0041\\udc00\"", "\xed\xa0\xbd" "A\xed\xb0\x80", 7);
	assert_true(ac_json_holds_lone_surrogate("ship\xed\xa0\xbd", 7));
	assert_false(ac_json_holds_lone_surrogate("\xed\x9f\xbf \xf0\x9f\x9a\x80", 8));
}

static void test_string_equals(void **state)
{
	static const char *const dotted[] = { "p", "e", "u", "z", "n" };
	static const char doc[] =
		"{\"p\":\"plain\",\"e\":\"a\\nb\",\"u\":\"\\ud83d\\ude00!\","
		"\"z\":\"\\u0000\",\"n\":5}";
	ac_json_span out[5];

	(void)state;
	scan_paths(out, doc, strlen(doc), dotted, 5);
	assert_true(ac_json_string_equals(&out[0], "plain", 5));
	assert_false(ac_json_string_equals(&out[0], "plai", 4));
	assert_false(ac_json_string_equals(&out[0], "plainer", 7));
	assert_false(ac_json_string_equals(&out[0], "plaiN", 5));

	assert_true(ac_json_string_equals(&out[1], "a\nb", 3));
	assert_false(ac_json_string_equals(&out[1], "a\\nb", 4));
	assert_false(ac_json_string_equals(&out[1], "a\n", 2));
	assert_false(ac_json_string_equals(&out[1], "a\nbc", 4));
	assert_false(ac_json_string_equals(&out[1], "a\rb", 3));

	assert_true(ac_json_string_equals(&out[2], "\xf0\x9f\x98\x80!", 5));
	assert_false(ac_json_string_equals(&out[2], "\xf0\x9f\x98\x80", 4));
	assert_false(ac_json_string_equals(&out[2], "\xf0\x9f\x98", 3));

	assert_true(ac_json_string_equals(&out[3], "\0", 1));
	assert_false(ac_json_string_equals(&out[3], "", 0));

	assert_false(ac_json_string_equals(&out[4], "5", 1));
}

static void test_long_strings(void **state)
{
	const size_t big = 10 * 1024 * 1024;
	static const char *const dotted[] = { "big", "after", "agent" };
	ac_json_span out[3];
	char *doc, *content;
	size_t n = 0;

	(void)state;
	doc = malloc(big + 64);
	content = malloc(big);
	assert_non_null(doc);
	assert_non_null(content);
	for (n = 0; n < big; n++)
		content[n] = (char)('a' + n % 26);

	/* A 10 MB value, with multi-byte text in the middle. */
	memcpy(content + big / 2, "\xe2\x82\xac", 3);
	n = 0;
	n += (size_t)sprintf(doc, "{\"big\":\"");
	memcpy(doc + n, content, big);
	n += big;
	n += (size_t)sprintf(doc + n, "\",\"after\":1}");
	scan_paths(out, doc, n, dotted, 2);
	assert_int_equal(out[0].type, AC_JSON_STRING);
	assert_int_equal(out[0].len, big + 2);
	assert_false(out[0].has_escape);
	assert_true(ac_json_string_equals(&out[0], content, big));
	assert_span(&out[1], AC_JSON_NUMBER, "1");

	/* A 10 MB key holding escapes is compared without a buffer. */
	n = 0;
	n += (size_t)sprintf(doc, "{\"agen\\u0074");
	memset(doc + n, 'x', big);
	n += big;
	n += (size_t)sprintf(doc + n, "\\n\":0,\"agent\":2}");
	scan_paths(out, doc, n, dotted, 3);
	assert_int_equal(out[0].type, AC_JSON_NONE);
	assert_span(&out[2], AC_JSON_NUMBER, "2");

	/* A fault at the end of a long string is found at its column. */
	doc[big + 12] = '\x01';
	check_error("control after 10 MB", ac_json_scan(NULL, doc, n, NULL, 0, NULL),
		    big + 13, "control character 0x01");
	free(content);
	free(doc);
}

/* The failure's offset, line, column and bare reason, for callers that
 * name lines. */
static void test_scan_error_offset_and_reason(void **state)
{
	static const char text[] = "{\n  \"a\": nope}";
	static const char valid[] = "{}";
	ac_json_scan_error error;

	(void)state;
	assert_int_equal(ac_json_scan(NULL, text, sizeof(text) - 1, NULL, 0, &error), AC_ECORRUPT);
	assert_int_equal(error.offset, 9); /* the 'n' of nope */
	assert_int_equal(error.line, 2);
	assert_int_equal(error.column, 8);
	assert_string_equal(error.text, "invalid literal, expected null");
	assert_null(strstr(error.text, "column"));
	assert_string_equal(ac_error_last(), "column 10: invalid literal, expected null");
	/* On one line the column is the offset's. */
	assert_int_equal(ac_json_scan(NULL, "[1,]", 4, NULL, 0, &error), AC_ECORRUPT);
	assert_int_equal(error.line, 1);
	assert_int_equal(error.column, 4);
	/* A success clears it. */
	assert_int_equal(ac_json_scan(NULL, valid, sizeof(valid) - 1, NULL, 0, &error), 0);
	assert_int_equal(error.line, 0);
	assert_string_equal(error.text, "");
}

/* The cursor walks what the scanner accepted: each element or member once,
 * its raw bytes exactly, whatever the spacing, escapes and nesting. */
static void test_cursor(void **state)
{
	static const char text[] =
		" { \"a\\\"b\" : [ 1 , \"x]\\\\\" , {\"k\":[]} , [[\"}\"]] , -0.5e3,true ,null ] ,"
		"\"empty\":[],\"o\":{} }";
	static const char key[] = "a\"b";
	const ac_json_path path = {{key}, {sizeof(key) - 1}, 1};
	static const char *const elements[] = {"1", "\"x]\\\\\"", "{\"k\":[]}", "[[\"}\"]]",
					       "-0.5e3", "true", "null"};
	static const ac_json_type types[] = {AC_JSON_NUMBER, AC_JSON_STRING, AC_JSON_OBJECT,
					     AC_JSON_ARRAY, AC_JSON_NUMBER, AC_JSON_TRUE,
					     AC_JSON_NULL};
	ac_json_span found, value, k, whole;
	ac_json_cursor cursor;
	size_t n = 0;

	(void)state;
	assert_int_equal(ac_json_scan(&found, text, sizeof(text) - 1, &path, 1, NULL), 0);
	assert_int_equal(found.type, AC_JSON_ARRAY);
	ac_json_cursor_init(&cursor, &found);
	while (ac_json_cursor_next(&cursor, NULL, &value)) {
		assert_true(n < 7);
		assert_int_equal(value.type, types[n]);
		assert_int_equal(value.len, strlen(elements[n]));
		assert_memory_equal(value.start, elements[n], value.len);
		n++;
	}
	assert_int_equal(n, 7);
	assert_false(ac_json_cursor_next(&cursor, NULL, &value));

	/* The top-level object: keys with their quotes, escapes noted. */
	whole = (ac_json_span){AC_JSON_OBJECT, strchr(text, '{'), 0, false, false, 0};
	whole.len = (size_t)(strrchr(text, '}') + 1 - whole.start);
	ac_json_cursor_init(&cursor, &whole);
	assert_true(ac_json_cursor_next(&cursor, &k, &value));
	assert_int_equal(k.len, 6);
	assert_true(k.has_escape);
	assert_true(ac_json_string_equals(&k, key, sizeof(key) - 1));
	assert_ptr_equal(value.start, found.start);
	assert_int_equal(value.len, found.len);
	assert_true(ac_json_cursor_next(&cursor, &k, &value));
	assert_false(k.has_escape);
	assert_memory_equal(value.start, "[]", value.len);
	assert_true(ac_json_cursor_next(&cursor, &k, &value));
	assert_memory_equal(k.start, "\"o\"", 3);
	assert_memory_equal(value.start, "{}", value.len);
	assert_false(ac_json_cursor_next(&cursor, &k, &value));

	/* An empty container has nothing to walk. */
	whole = (ac_json_span){AC_JSON_ARRAY, "[ \n ]", 5, false, true, 0};
	ac_json_cursor_init(&cursor, &whole);
	assert_false(ac_json_cursor_next(&cursor, NULL, &value));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_error_offset_and_reason),
		cmocka_unit_test(test_valid_documents),
		cmocka_unit_test(test_invalid_documents),
		cmocka_unit_test(test_text_is_not_nul_terminated),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_deep_nesting_rejected),
		cmocka_unit_test(test_path_extraction),
		cmocka_unit_test(test_path_missing),
		cmocka_unit_test(test_path_depth_must_match),
		cmocka_unit_test(test_path_duplicate_last_wins),
		cmocka_unit_test(test_path_not_into_arrays),
		cmocka_unit_test(test_path_escaped_keys),
		cmocka_unit_test(test_path_key_table),
		cmocka_unit_test(test_path_many),
		cmocka_unit_test(test_has_escape_all_strings),
		cmocka_unit_test(test_path_init),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_string_equals),
		cmocka_unit_test(test_long_strings),
		cmocka_unit_test(test_cursor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
