/* Tests for ac_json_fast_load(): wherever it builds a value, the value is
 * the one json_loadb(JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL) gives (equal,
 * and dumped to the same bytes); wherever jansson refuses the text, it
 * builds nothing. Texts are exact-size heap copies without a terminating
 * NUL, so AddressSanitizer reports any read past the end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ac_json_fast.h"

static const size_t JANSSON_FLAGS = JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL;

/* Returns whether the fast way built the value (checked against jansson). */
static bool agrees(const char *text, size_t len)
{
	char *copy = malloc(len ? len : 1);
	json_t *fast, *slow;
	bool built;

	assert_non_null(copy);
	memcpy(copy, text, len);
	fast = ac_json_fast_load(copy, len);
	slow = json_loadb(copy, len, JANSSON_FLAGS, NULL);
	built = fast != NULL;
	if (fast) {
		char *a, *b;

		if (!slow)
			fail_msg("built a value jansson refuses: %.*s", (int)len, text);
		assert_true(json_equal(fast, slow));
		a = json_dumps(fast, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
		b = json_dumps(slow, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
		if (strcmp(a, b) != 0)
			fail_msg("dumps differ for %.*s:\n%s\n%s", (int)len, text, a, b);
		free(a);
		free(b);
	}
	json_decref(fast);
	json_decref(slow);
	free(copy);
	return built;
}

#define BUILT(t) assert_true(agrees((t), strlen(t)))
#define LEFT(t) assert_false(agrees((t), strlen(t)))

static void test_records_as_appends_write_them(void **state)
{
	(void)state;
	BUILT("{\"seq\":1,\"at\":\"2025-09-03T10:00:00.000Z\",\"data\":{\"type\":\"step\",\"i\":7}}");
	BUILT("{\"seq\":123456789012345678,\"at\":\"x\",\"data\":{}}");
	BUILT("{\"seq\":-0,\"n\":-123,\"z\":0,\"a\":[],\"o\":{},\"t\":true,\"f\":false,\"u\":null}");
	BUILT("[1,[2,[3,[]]],{\"k\":[{\"k\":\"v\"}]}]");
	BUILT(" \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } } \n");
	BUILT("{\"\":\"empty key\",\"e\":\"\"}");
}

static void test_strings_decode_as_jansson_does(void **state)
{
	(void)state;
	BUILT("{\"s\":\"line\\nbreak \\\"q\\\" \\\\ \\/ \\b\\f\\r\\t\"}");
	BUILT("{\"s\":\"caf\\u00e9 \\u65e5\\u672c \\ud83d\\ude00 raw 日本 \xf0\x9f\x98\x80\"}");
	BUILT("{\"s\":\"nul \\u0000 inside a value\"}");
	BUILT("{\"s\":\"ends in a backslash \\\\\"}");
	BUILT("{\"s\":\"\\\\\\\"\"}");
	/* An escaped key, then values with escapes: the key is kept while
	 * later strings are decoded. */
	BUILT("{\"k\\u00e9y\":\"v\\u00e0lue\",\"k\\n2\":{\"in\\tner\":\"x\\ty\"},\"k3\":[\"\\u0041\"]}");
}

static void test_what_is_left_to_jansson(void **state)
{
	char deep[400];
	size_t n = 0;

	(void)state;
	/* Values jansson might give otherwise. */
	LEFT("{\"r\":1.5}");
	LEFT("{\"r\":1e3}");
	LEFT("{\"r\":-2E-2}");
	LEFT("{\"big\":1234567890123456789}");
	LEFT("{\"big\":-99999999999999999999}");
	/* Text jansson refuses. */
	LEFT("{\"a\":1,\"a\":2}");
	LEFT("{\"o\":{\"k\":1,\"k\":1}}");
	LEFT("{\"a\\u0000b\":1}");
	LEFT("{\"a\":1,}");
	LEFT("{\"a\":1} x");
	LEFT("{\"a\":01}");
	LEFT("{\"a\":\"\\ud800\"}");
	LEFT("{\"a\":\"bad \xff\"}");
	LEFT("{\"a\":\"torn");
	LEFT("");
	/* Scalars at the top need JSON_DECODE_ANY. */
	LEFT("5");
	LEFT("\"s\"");
	LEFT("null");
	/* A lone surrogate jansson refuses: kept as WTF-8 only when asked
	 * (ac_json_exact.h dumps it back). */
	{
		static const char text[] = "{\"a\\ud800\":[\"\\ud83d\"]}";
		json_t *kept = ac_json_fast_load_wtf8(text, sizeof(text) - 1);

		assert_non_null(kept);
		assert_memory_equal(json_string_value(json_array_get(json_object_get(kept, "a\xed\xa0\x80"), 0)),
				    "\xed\xa0\xbd", 4);
		json_decref(kept);
	}
	/* Nesting past the fast way's depth, still valid. */
	for (int i = 0; i < 100; i++)
		deep[n++] = '[';
	for (int i = 0; i < 100; i++)
		deep[n++] = ']';
	assert_false(agrees(deep, n));
}

/* Every one-byte change of a few records, at every position: wherever
 * the fast way builds something, it is jansson's value. */
static void test_mutations_agree(void **state)
{
	static const char *const seeds[] = {
		"{\"seq\":12,\"at\":\"2025-09-03T10:00:00.000Z\",\"data\":{\"type\":\"x\",\"s\":\"a\\nb\\u00e9\"}}",
		"[{\"k\":[1,-2,true,false,null]},{\"\":{}}]",
	};
	static const char bytes[] = {'"', '\\', '{', '}', '[', ']', ':', ',', '0', '9', '-', '.', 'e',
				     ' ', 'u', 'n', 't', '\0', '\x7f', '\xc3', '\xff'};
	char text[128];

	(void)state;
	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		size_t len = strlen(seeds[s]);

		for (size_t at = 0; at < len; at++)
			for (size_t b = 0; b < sizeof(bytes); b++) {
				memcpy(text, seeds[s], len);
				text[at] = bytes[b];
				agrees(text, len);
				agrees(text, at); /* cut short there */
			}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_as_appends_write_them),
		cmocka_unit_test(test_strings_decode_as_jansson_does),
		cmocka_unit_test(test_what_is_left_to_jansson),
		cmocka_unit_test(test_mutations_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
