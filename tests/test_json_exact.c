/* Tests for ac_json_exact.h's lone surrogates: what JSON.stringify writes
 * for text cut with .slice() inside an emoji ("\ud83d") loads, is held as
 * its WTF-8 bytes, and dumps back byte for byte, whichever way the text
 * is parsed (the fast walk, or jansson when a number or the flags send it
 * there). The texts are JSON.stringify(o, null, 2) and JSON.stringify(o)
 * of o = {id: "s1", task: "ship🚀🚀".slice(0, 5), n: 1.5,
 * conversationHistory: [{role: "user", content: "🚀ok".slice(1)},
 * {role: "assistant", content: "a🚀b"}], metadata: {["k" + "🚀".slice(0, 1)]:
 * "v"}}, as Node 18+ prints them (checked with node when written). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_text.h"

/* With "n": 1.5, a number jansson would not give back as read: marked,
 * so the load goes through jansson. */
static const char pretty_real[] =
	"{\n  \"id\": \"s1\",\n  \"task\": \"ship\\ud83d\",\n  \"n\": 1.5,\n"
	"  \"conversationHistory\": [\n    {\n      \"role\": \"user\",\n"
	"      \"content\": \"\\ude80ok\"\n    },\n    {\n      \"role\": \"assistant\",\n"
	"      \"content\": \"a\xf0\x9f\x9a\x80" "b\"\n    }\n  ],\n  \"metadata\": {\n"
	"    \"k\\ud83d\": \"v\"\n  }\n}";
/* The same without the real: the fast walk takes it. */
static const char pretty_plain[] =
	"{\n  \"id\": \"s1\",\n  \"task\": \"ship\\ud83d\",\n"
	"  \"conversationHistory\": [\n    {\n      \"role\": \"user\",\n"
	"      \"content\": \"\\ude80ok\"\n    },\n    {\n      \"role\": \"assistant\",\n"
	"      \"content\": \"a\xf0\x9f\x9a\x80" "b\"\n    }\n  ],\n  \"metadata\": {\n"
	"    \"k\\ud83d\": \"v\"\n  }\n}";
static const char compact_real[] =
	"{\"id\":\"s1\",\"task\":\"ship\\ud83d\",\"n\":1.5,\"conversationHistory\":"
	"[{\"role\":\"user\",\"content\":\"\\ude80ok\"},{\"role\":\"assistant\",\"content\":"
	"\"a\xf0\x9f\x9a\x80" "b\"}],\"metadata\":{\"k\\ud83d\":\"v\"}}";

static json_t *load(const char *text, size_t flags)
{
	json_t *root = NULL;

	if (ac_json_exact_load(&root, text, strlen(text), flags, "test") != 0)
		fail_msg("load: %s", ac_error_last());
	return root;
}

static void expect_dump(const json_t *root, size_t flags, const char *want)
{
	size_t len = 0;
	char *got = ac_json_exact_dumps(root, flags, &len);

	assert_non_null(got);
	assert_int_equal(len, strlen(want));
	assert_string_equal(got, want);
	free(got);
}

/* The values JSON.parse gives, with each lone surrogate as WTF-8. */
static void expect_values(const json_t *root)
{
	const json_t *history = json_object_get(root, "conversationHistory");
	const json_t *first = json_object_get(json_array_get(history, 0), "content");

	assert_string_equal(json_string_value(json_object_get(root, "task")), "ship\xed\xa0\xbd");
	assert_int_equal(json_string_length(first), 5);
	assert_memory_equal(json_string_value(first), "\xed\xba\x80ok", 5);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(history, 1), "content")), "a\xf0\x9f\x9a\x80" "b");
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(root, "metadata"), "k\xed\xa0\xbd")), "v");
}

static void test_seed_text_round_trips(void **state)
{
	const char *texts[] = {pretty_real, pretty_plain};
	json_t *root;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		root = load(texts[i], 0);
		expect_values(root);
		expect_dump(root, JSON_INDENT(2), texts[i]);
		json_decref(root);
	}
	root = load(compact_real, 0);
	expect_values(root);
	expect_dump(root, JSON_COMPACT, compact_real);
	/* Escaping all non-ASCII: the pair as jansson writes it, the lone
	 * one as JSON.stringify does. */
	expect_dump(json_object_get(root, "conversationHistory"), JSON_COMPACT | JSON_ENSURE_ASCII,
		    "[{\"role\":\"user\",\"content\":\"\\ude80ok\"},"
		    "{\"role\":\"assistant\",\"content\":\"a\\uD83D\\uDE80b\"}]");
	json_decref(root);
}

/* Wherever jansson parses (a scalar at the top, flags the fast walk does
 * not take), and however the escape is spelt, it comes out as
 * JSON.stringify spells it. */
static void test_jansson_path_and_spelling(void **state)
{
	json_t *root;

	(void)state;
	root = load("\"\\uD83D\"", JSON_DECODE_ANY);
	assert_int_equal(json_string_length(root), 3);
	assert_memory_equal(json_string_value(root), "\xed\xa0\xbd", 3);
	expect_dump(root, JSON_ENCODE_ANY, "\"\\ud83d\"");
	json_decref(root);
	/* A pair stays a pair; a high one before a high one, two lone ones. */
	root = load("[\"\\ud83d\\ude80\",\"\\ud83d\\ud83d\",\"\\\\ud83d\",\"x\\udfff\"]",
		    JSON_REJECT_DUPLICATES);
	assert_string_equal(json_string_value(json_array_get(root, 0)), "\xf0\x9f\x9a\x80");
	assert_string_equal(json_string_value(json_array_get(root, 1)), "\xed\xa0\xbd\xed\xa0\xbd");
	assert_string_equal(json_string_value(json_array_get(root, 2)), "\\ud83d");
	expect_dump(root, JSON_COMPACT,
		    "[\"\xf0\x9f\x9a\x80\",\"\\ud83d\\ud83d\",\"\\\\ud83d\",\"x\\udfff\"]");
	json_decref(root);
	/* However spelt, a repeated key is one. */
	assert_int_equal(ac_json_exact_load(&root, "{\"\\uD83D\":1.5,\"\\ud83d\":2}", 25,
					    JSON_REJECT_DUPLICATES, "dup"), AC_ECORRUPT);
	/* Keys keep their order when one is rewritten. */
	root = load("{\"a\":1.5,\"\\udc00\":2,\"z\":3}", 0);
	expect_dump(root, JSON_COMPACT, "{\"a\":1.5,\"\\udc00\":2,\"z\":3}");
	json_decref(root);
}

/* A fault after a lone surrogate is reported where it is in the file. */
static void test_error_position(void **state)
{
	static const char bad[] = "{\"a\":\"\\ud83d\",\"b\":1.5,}";
	json_t *root = NULL;

	(void)state;
	assert_int_equal(ac_json_exact_load(&root, bad, strlen(bad), 0, "f.json"), AC_ECORRUPT);
	assert_null(root);
	/* jansson names the '}' after the trailing comma: column 23. */
	assert_non_null(strstr(ac_error_last(), "f.json: line 1 column 23:"));
}

/* Nested dumps (archives, compaction) and text copied into new values. */
static void test_nested_and_new_strings(void **state)
{
	ac_buf out = AC_BUF_INIT;
	json_t *root, *s;

	(void)state;
	root = load("{\"m\":[\"\\ud83d\"]}", 0);
	assert_int_equal(ac_buf_append(&out, "[", 1), 0);
	assert_int_equal(ac_json_exact_dump_nested(&out, root, JSON_INDENT(2), 2), 0);
	assert_string_equal(out.data, "[{\n    \"m\": [\n      \"\\ud83d\"\n    ]\n  }");
	ac_buf_free(&out);
	json_decref(root);
	/* json_string() refuses WTF-8; the exact one takes it, and only it. */
	assert_null(json_stringn("ship\xed\xa0\xbd", 7));
	s = ac_json_exact_stringn("ship\xed\xa0\xbd and \xed\x9f\xbf", 15);
	assert_non_null(s);
	expect_dump(s, JSON_ENCODE_ANY, "\"ship\\ud83d and \xed\x9f\xbf\"");
	json_decref(s);
	assert_null(ac_json_exact_stringn("bad \xff", 5));
	assert_null(ac_json_exact_stringn("cut \xed\xa0", 6));
	assert_null(ac_json_exact_stringn("\xed\xa0\xbd\xc0\xaf", 5));
	/* What a terminal is shown: the escape, not the bytes. */
	assert_int_equal(ac_text_sanitize(&out, "ship\xed\xa0\xbd", 7), 0);
	assert_string_equal(out.data, "ship\\ud83d");
	ac_buf_free(&out);
}

/* Other Node programs' records (Claude Code's transcript lines): the
 * lone surrogate taken, numbers as jansson reads them (a cost stays a
 * real), whichever way the line is parsed. */
static void test_load_js(void **state)
{
	static const char fast[] = "{\"text\":\"cut \\ud83d\",\"n\":2}";
	static const char slow[] = "{\"text\":\"cut \\ud83d\",\"costUSD\":1.50}";
	json_t *v;

	(void)state;
	v = ac_json_load_js(fast, sizeof(fast) - 1, JSON_ALLOW_NUL);
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v, "text")), "cut \xed\xa0\xbd");
	json_decref(v);
	v = ac_json_load_js(slow, sizeof(slow) - 1, JSON_ALLOW_NUL);
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v, "text")), "cut \xed\xa0\xbd");
	assert_true(json_is_real(json_object_get(v, "costUSD")));
	json_decref(v);
	assert_null(ac_json_load_js("{\"a\":\"\\ud83d\",}", 15, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_text_round_trips),
		cmocka_unit_test(test_jansson_path_and_spelling),
		cmocka_unit_test(test_error_position),
		cmocka_unit_test(test_nested_and_new_strings),
		cmocka_unit_test(test_load_js),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
