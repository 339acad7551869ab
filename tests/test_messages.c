/* Tests for the token estimate (ac_tokens_estimate) and for conversation
 * messages (ac_message*): text rendering, tool call/result pairing in the
 * Anthropic and OpenAI shapes, token counts and the safe-cut searches.
 * Histories are written inline as JSON; the cut searches are also checked
 * against brute-force definitions taken straight from the header. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_messages.h"
#include "ac_tokens.h"

/* ---- helpers --------------------------------------------------------- */

static json_t *parse(const char *text)
{
	json_error_t err;
	json_t *value = json_loads(text, JSON_DECODE_ANY, &err);

	if (!value)
		fail_msg("bad test JSON at %d:%d: %s", err.line, err.column, err.text);
	return value;
}

static uint64_t est(const char *text)
{
	return ac_tokens_estimate(text, strlen(text));
}

/* text repeated n times, in an allocated string. */
static char *repeat(const char *text, size_t n)
{
	size_t len = strlen(text);
	char *out = malloc(len * n + 1);

	assert_non_null(out);
	for (size_t i = 0; i < n; i++)
		memcpy(out + i * len, text, len);
	out[len * n] = '\0';
	return out;
}

/* ac_message_text() of msg (given as JSON), compared with want. */
static void assert_text(const char *msg_json, const char *want)
{
	json_t *msg = parse(msg_json);
	ac_buf out = AC_BUF_INIT;

	assert_int_equal(ac_message_text(&out, msg), 0);
	assert_string_equal(out.data ? out.data : "", want);
	ac_buf_free(&out);
	json_decref(msg);
}

/* The header's definition of a safe cut, checked pair by pair: no result
 * at or after index answers a call before index. O(n^2 * calls), for
 * comparison only; ids are unique in the histories it is used on. */
typedef struct {
	const char *ids[64];
	size_t n;
} id_list;

static void list_call(const char *id, const char *name, const json_t *input, void *ctx)
{
	id_list *l = ctx;

	(void)name;
	(void)input;
	assert_true(l->n < 64);
	l->ids[l->n++] = id;
}

static void list_result(const char *id, void *ctx)
{
	list_call(id, NULL, NULL, ctx);
}

static bool brute_safe(const json_t *messages, size_t index)
{
	size_t size = json_array_size(messages);

	for (size_t r = index; r < size; r++) {
		id_list results = {0};

		ac_message_tool_results(json_array_get(messages, r), list_result, &results);
		for (size_t c = 0; c < index; c++) {
			id_list calls = {0};

			ac_message_tool_calls(json_array_get(messages, c), list_call, &calls);
			for (size_t a = 0; a < results.n; a++)
				for (size_t b = 0; b < calls.n; b++)
					if (strcmp(results.ids[a], calls.ids[b]) == 0)
						return false;
		}
	}
	return true;
}

/* Checks ac_messages_safe_cut() at indices 0..size + 1 against want, a
 * string of 0/1 such as "11000110", and, when ids are unique, against the
 * header's definition. */
static void assert_cuts(const json_t *messages, const char *want, bool unique_ids)
{
	size_t size = json_array_size(messages);
	char map[64];

	assert_true(size + 2 < sizeof(map));
	for (size_t i = 0; i <= size + 1; i++)
		map[i] = ac_messages_safe_cut(messages, i) ? '1' : '0';
	map[size + 2] = '\0';
	assert_string_equal(map, want);
	for (size_t i = 0; unique_ids && i <= size; i++)
		assert_int_equal(ac_messages_safe_cut(messages, i), brute_safe(messages, i));
}

/* Two calls answered in the order they were made, interleaved:
 * cuts 2, 3 and 4 would each orphan a result. */
static const char interleaved[] =
	"["
	"{\"role\":\"user\",\"content\":\"fix the bug\"},"
	"{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"read\","
	"\"input\":{\"path\":\"a.c\"}}]},"
	"{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"b\",\"name\":\"read\","
	"\"input\":{\"path\":\"b.c\"}}]},"
	"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"a\","
	"\"content\":\"int a;\"}]},"
	"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"b\","
	"\"content\":\"int b;\"}]},"
	"{\"role\":\"assistant\",\"content\":\"done\"}"
	"]";

/* ---- the estimate ---------------------------------------------------- */

static void test_estimate_empty_and_ascii(void **state)
{
	char *text = repeat("abcd", 100);

	(void)state;
	assert_int_equal(ac_tokens_estimate("", 0), 0);
	assert_int_equal(ac_tokens_estimate(NULL, 0), 0);
	assert_int_equal(est("a"), 1); /* rounded up: only empty text is 0 */
	assert_int_equal(est("abcd"), 1);
	assert_int_equal(est("abcde"), 2);
	assert_int_equal(est(text), 100);
	/* len, not the NUL, ends the text */
	assert_int_equal(ac_tokens_estimate(text, 8), 2);
	assert_int_equal(ac_tokens_estimate("abcd\0abcd", 9), 3);
	free(text);
}

static void test_estimate_white_space_runs_count_once(void **state)
{
	char *spaced = repeat("word \t\r\n      ", 100);
	char *single = repeat("word ", 100);

	(void)state;
	assert_int_equal(est("a b"), 1);      /* 3 quarters */
	assert_int_equal(est("ab    cd"), 2); /* 5 quarters */
	assert_int_equal(est("        "), 1);
	assert_int_equal(est(spaced), est(single));
	assert_int_equal(est(single), 125);
	free(spaced);
	free(single);
}

/* A session as agents write it, mostly text. Pretty-printing adds one
 * white-space run and one space after the colon per member, about half a
 * token each, so the two forms differ by a few tokens where bytes/4 would
 * differ by dozens. */
static void test_estimate_pretty_and_compact_json_alike(void **state)
{
	json_t *doc = json_pack(
		"{s:s, s:s, s:[{s:s, s:s}, {s:s, s:s}], s:{s:s}}", "id", "s1", "task",
		"Refactor the session parser so that unknown keys survive a rewrite, then add tests for it.",
		"conversationHistory", "role", "user", "content",
		"The parser drops keys it does not know when it rewrites a session file. Please keep "
		"them, in order, and add a regression test.",
		"role", "assistant", "content",
		"I will read ac_session.c first, then change the rewrite path to copy unknown members "
		"through, and finally add a test that round-trips a file.",
		"metadata", "tenantId", "t1");
	char *compact = json_dumps(doc, JSON_COMPACT);
	char *pretty = json_dumps(doc, JSON_INDENT(8));
	uint64_t c = est(compact), p = est(pretty);
	const uint64_t few = 8;

	(void)state;
	assert_true(c > 100);
	/* a rule that counted every space would be far outside "a few" */
	assert_true((strlen(pretty) - strlen(compact)) / 4 > 3 * few);
	assert_true(p >= c);
	assert_true(p - c <= few);
	free(compact);
	free(pretty);
	json_decref(doc);
}

static void test_estimate_cjk_hangul_and_other_scripts(void **state)
{
	char *cjk = repeat("\xE6\xBC\xA2", 100); /* 漢 x100: 300 bytes */
	char *english = repeat("abc", 100);      /* 300 bytes */

	(void)state;
	assert_int_equal(est(cjk), 100);
	assert_int_equal(est(english), 75);
	assert_true(est(cjk) >= est(english) * 4 / 3);
	assert_int_equal(est("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"), 3); /* 日本語 */
	/* 안녕하세요: five Hangul syllables */
	assert_int_equal(est("\xEC\x95\x88\xEB\x85\x95\xED\x95\x98\xEC\x84\xB8\xEC\x9A\x94"), 5);
	/* 2-byte characters weigh half: Cyrillic привет is 6 characters */
	assert_int_equal(est("\xD0\xBF\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82"), 3);
	assert_int_equal(est("\xC3\xA9"), 1);                 /* é, rounded up */
	assert_int_equal(est("\xC3\xA9\xC3\xA9\xC3\xA9"), 2); /* 6 quarters */
	free(cjk);
	free(english);
}

static void test_estimate_emoji(void **state)
{
	char *ten = repeat("\xF0\x9F\x98\x80", 10); /* 😀 x10 */

	(void)state;
	assert_int_equal(est("\xF0\x9F\x98\x80"), 2);
	assert_int_equal(est(ten), 20);
	assert_int_equal(est("ok \xF0\x9F\x91\x8D"), 3); /* 3 quarters + 8 */
	free(ten);
}

static void test_estimate_invalid_bytes(void **state)
{
	(void)state;
	assert_int_equal(est("\xFF"), 1);
	assert_int_equal(est("\xFF\xFE\xC0\xC1\xF5\xF8\xFA\xFF"), 2);
	assert_int_equal(est("\x80\x80\x80\x80\xBF\xBF\xBF\xBF"), 2); /* stray continuations */
	/* surrogates (ED A0..BF) and overlong forms are 3 invalid bytes, not
	 * one 3-byte character: 4 x 3 quarters = 3 tokens, not 4 */
	assert_int_equal(est("\xED\xA0\x80\xED\xA0\x80\xED\xBF\xBF\xED\xA0\x80"), 3);
	assert_int_equal(est("\xE0\x80\x80\xE0\x9F\xBF\xE0\x80\x80\xE0\x80\x80"), 3);
	/* past U+10FFFF and overlong 4-byte forms: 4 quarters each, not 8 */
	assert_int_equal(est("\xF4\x90\x80\x80\xF0\x8F\xBF\xBF"), 2);
	/* a truncated character costs its bytes, and the next one is whole:
	 * E6 (1) + 漢 (4) + E6 97 (2) + "a" (1) = 8 quarters */
	assert_int_equal(est("\xE6\xE6\xBC\xA2\xE6\x97" "a"), 2);
	/* a character cut by len is invalid bytes; bytes past len are never
	 * used, or the emoji would weigh 2 */
	assert_int_equal(ac_tokens_estimate("\xF0\x9F\x98\x80", 3), 1);
	assert_int_equal(ac_tokens_estimate("\xE6\xBC\xA2", 2), 1);
	assert_int_equal(ac_tokens_estimate("\xF0\x9F\x98\x80\xF0\x9F\x98\x80", 7), 3);
}

/* A plain reading of the header's rules, byte by byte, to compare the fast
 * estimator with on inputs that cross its eight-byte words. */
static uint64_t reference_estimate(const unsigned char *s, size_t len)
{
	uint64_t q = 0;
	bool prev_space = false;
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3
			   : c >= 0xC2 && c <= 0xDF ? 2 : 1;
		bool space = c == ' ' || (c >= '\t' && c <= '\r');
		uint32_t cp = c;
		bool ok = n > 1 && i + n <= len;

		if (c < 0x80) {
			q += space && prev_space ? 0 : 1;
			prev_space = space;
			i++;
			continue;
		}
		prev_space = false;
		cp = c & (0x7F >> n);
		for (size_t k = 1; ok && k < n; k++) {
			ok = (s[i + k] & 0xC0) == 0x80;
			cp = cp << 6 | (s[i + k] & 0x3Fu);
		}
		if (ok && ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
			   (cp >= 0xD800 && cp <= 0xDFFF)))
			ok = false;
		if (ok) {
			q += n == 2 ? 2 : n == 3 ? 4 : 8;
			i += n;
		} else {
			q += 1;
			i++;
		}
	}
	return (q + 3) / 4;
}

static void test_estimate_matches_reference(void **state)
{
	static const char *const pieces[] = {
		"a", "bc", "word", " ", "  ", "\n\t", "{\"k\":", "\xC3\xA9", "\xE6\xBC\xA2",
		"\xED\x95\x9C", "\xF0\x9F\x98\x80", "\xFF", "\x80", "\xE6\xBC", "\xF0\x9F",
		"\xED\xA0\x80", "\xE0\x80\xAF", "\xF4\x90\x80\x80", "\xC1\xBF", "0123456789",
	};
	unsigned char buf[512];
	uint32_t seed = 12345;

	(void)state;
	for (int round = 0; round < 3000; round++) {
		size_t len = 0;

		seed = seed * 1103515245u + 12345u;
		for (size_t k = (seed >> 16) % 60; k > 0; k--) {
			const char *p;
			size_t n;

			seed = seed * 1103515245u + 12345u;
			p = pieces[(seed >> 16) % (sizeof(pieces) / sizeof(pieces[0]))];
			n = strlen(p);
			if (len + n > sizeof(buf))
				break;
			memcpy(buf + len, p, n);
			len += n;
		}
		/* every prefix, so characters are cut at every position */
		for (size_t cut = 0; cut <= len; cut += 1 + cut / 16)
			if (ac_tokens_estimate((const char *)buf, cut) != reference_estimate(buf, cut))
				fail_msg("round %d, %zu bytes: %llu, reference %llu", round, cut,
					 (unsigned long long)ac_tokens_estimate((const char *)buf, cut),
					 (unsigned long long)reference_estimate(buf, cut));
	}
}

/* ---- text ------------------------------------------------------------ */

static void test_text_of_string_content(void **state)
{
	json_t *msg = parse("{\"role\":\"user\",\"content\":\"hello\\nworld\"}");
	ac_buf out = AC_BUF_INIT;

	(void)state;
	assert_text("{\"role\":\"user\",\"content\":\"hello\\nworld\"}", "hello\nworld");
	/* appends rather than replaces */
	assert_int_equal(ac_buf_append(&out, "> ", 2), 0);
	assert_int_equal(ac_message_text(&out, msg), 0);
	assert_string_equal(out.data, "> hello\nworld");
	ac_buf_free(&out);
	json_decref(msg);
}

static void test_text_of_blocks(void **state)
{
	(void)state;
	assert_text("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Let me look.\"},"
		    "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"read_file\","
		    "\"input\":{\"path\":\"a.c\",\"lines\":[1,2]}}]}",
		    "Let me look. [tool_use read_file {\"path\":\"a.c\",\"lines\":[1,2]}]");
	assert_text("{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"ls\"}]}",
		    "[tool_use ls]");
	assert_text("{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\","
		    "\"content\":\"int main;\"}]}",
		    "[tool_result t1: int main;]");
	assert_text("{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\","
		    "\"content\":[{\"type\":\"text\",\"text\":\"line 1\\nline 2\"},"
		    "{\"type\":\"image\",\"source\":{}}]}]}",
		    "[tool_result t1: line 1\nline 2 [image]]");
	assert_text("{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\"},"
		    "{\"type\":\"text\",\"text\":\"ok\"}]}",
		    "[thinking] ok");
	/* a block that renders to nothing leaves no double space */
	assert_text("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
		    "{\"type\":\"text\"},{\"type\":\"text\",\"text\":\"b\"},{\"type\":\"text\"}]}",
		    "a b");
}

static void test_text_of_openai_messages(void **state)
{
	(void)state;
	assert_text("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\","
		    "\"type\":\"function\",\"function\":{\"name\":\"ls\",\"arguments\":\"{\\\"dir\\\":\\\".\\\"}\"}},"
		    "{\"id\":\"c2\",\"name\":\"cat\",\"input\":{\"f\":1}}]}",
		    "[tool_use ls {\"dir\":\".\"}] [tool_use cat {\"f\":1}]");
	assert_text("{\"role\":\"assistant\",\"content\":\"Listing.\",\"tool_calls\":[{\"id\":\"c1\","
		    "\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}}]}",
		    "Listing. [tool_use ls {}]");
	assert_text("{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"a.c b.c\"}",
		    "[tool_result c1: a.c b.c]");
	assert_text("{\"role\":\"tool\",\"toolCallId\":\"c9\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}",
		    "[tool_result c9: x]");
}

static void test_text_of_unknown_shapes(void **state)
{
	(void)state;
	assert_text("{\"role\":\"user\"}", "");
	assert_text("{\"role\":\"user\",\"content\":null}", "");
	assert_text("{\"role\":\"user\",\"content\":42}", "42");
	assert_text("{\"role\":\"user\",\"content\":{\"parts\":[\"a\"]}}", "{\"parts\":[\"a\"]}");
	assert_text("{\"role\":\"user\",\"content\":[\"plain\",7,{\"text\":\"untyped\"},{}]}",
		    "plain [?] untyped [?]");
	assert_text("[1,2]", "");
	assert_text("\"just a string\"", "");
	assert_text("{\"role\":\"user\",\"content\":[],\"tool_calls\":\"nope\"}", "");
}

static void test_role(void **state)
{
	json_t *user = parse("{\"role\":\"user\",\"content\":\"x\"}");
	json_t *tool = parse("{\"role\":\"tool\"}");
	json_t *odd = parse("{\"role\":5}");
	json_t *none = parse("{\"content\":\"x\"}");
	json_t *array = parse("[]");

	(void)state;
	assert_string_equal(ac_message_role(user), "user");
	assert_string_equal(ac_message_role(tool), "tool");
	assert_string_equal(ac_message_role(odd), "?");
	assert_string_equal(ac_message_role(none), "?");
	assert_string_equal(ac_message_role(array), "?");
	assert_string_equal(ac_message_role(NULL), "?");
	json_decref(user);
	json_decref(tool);
	json_decref(odd);
	json_decref(none);
	json_decref(array);
}

/* ---- pairing --------------------------------------------------------- */

/* "id name input; " per call, "id; " per result. */
static void record_call(const char *id, const char *name, const json_t *input, void *ctx)
{
	char *json = input ? json_dumps(input, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

	assert_int_equal(ac_buf_printf(ctx, "%s %s %s; ", id, name ? name : "-", json ? json : "-"), 0);
	free(json);
}

static void record_result(const char *id, void *ctx)
{
	assert_int_equal(ac_buf_printf(ctx, "%s; ", id), 0);
}

enum { CALLS, RESULTS };

/* The calls or results ac_message_tool_calls/_results() report for msg. */
static void assert_ids(const char *msg_json, int kind, size_t want_n, const char *want)
{
	json_t *msg = parse(msg_json);
	ac_buf out = AC_BUF_INIT;
	size_t n = kind == CALLS ? ac_message_tool_calls(msg, record_call, &out)
				 : ac_message_tool_results(msg, record_result, &out);

	assert_int_equal(n, want_n);
	assert_string_equal(out.data ? out.data : "", want);
	ac_buf_free(&out);
	json_decref(msg);
}

#define assert_calls(json, n, want) assert_ids(json, CALLS, n, want)
#define assert_results(json, n, want) assert_ids(json, RESULTS, n, want)

static void test_pairing_anthropic_blocks(void **state)
{
	(void)state;
	assert_calls("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"two reads\"},"
		     "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"read\",\"input\":{\"p\":\"a\"}},"
		     "{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"read\",\"input\":{\"p\":\"b\"}},"
		     "{\"type\":\"tool_use\",\"name\":\"no_id\"},"
		     "{\"type\":\"text\",\"text\":\"x\",\"id\":\"not_a_call\"},"
		     "{\"type\":\"tool_result\",\"tool_use_id\":\"t0\"}]}",
		     2, "t1 read {\"p\":\"a\"}; t2 read {\"p\":\"b\"}; ");
	assert_results("{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t2\","
		       "\"content\":\"B\"},{\"type\":\"tool_result\",\"tool_use_id\":\"t1\"},"
		       "{\"type\":\"tool_result\"},{\"type\":\"tool_use\",\"id\":\"t3\"},"
		       "{\"type\":\"text\",\"tool_use_id\":\"not_a_result\"}]}",
		       2, "t2; t1; ");
	assert_calls("{\"role\":\"user\",\"content\":\"tool_use\"}", 0, "");
	assert_results("{\"role\":\"user\",\"content\":\"tool_result\"}", 0, "");
	/* fn may be NULL to count only */
	{
		json_t *msg = parse("{\"content\":[{\"type\":\"tool_use\",\"id\":\"x\"}]}");

		assert_int_equal(ac_message_tool_calls(msg, NULL, NULL), 1);
		json_decref(msg);
	}
}

static void test_pairing_openai_style(void **state)
{
	(void)state;
	assert_calls("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
		     "{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}},"
		     "{\"id\":\"c2\",\"name\":\"cat\",\"arguments\":{\"f\":\"x\"}},"
		     "{\"id\":\"c3\"},{\"function\":{\"name\":\"no_id\"}}]}",
		     3, "c1 ls \"{}\"; c2 cat {\"f\":\"x\"}; c3 - -; ");
	assert_results("{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"x\"}", 1, "c1; ");
	assert_results("{\"role\":\"tool\",\"toolCallId\":\"c2\",\"content\":\"x\"}", 1, "c2; ");
	/* the id counts only on a tool message */
	assert_results("{\"role\":\"user\",\"tool_call_id\":\"c1\",\"content\":\"x\"}", 0, "");
	assert_results("{\"role\":\"tool\",\"content\":\"no id\"}", 0, "");
	/* both styles in one message are both seen */
	assert_calls("{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"a\"}],"
		     "\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"name\":\"b\"}}]}",
		     2, "t1 a -; c1 b -; ");
}

/* ---- tokens ---------------------------------------------------------- */

static void test_message_tokens(void **state)
{
	json_t *msg = parse("{\"role\":\"user\",\"content\":\"Please refactor src/main.c\","
			    "\"meta\":{\"a\":[1,2,3]}}");
	json_t *cjk = parse("{\"role\":\"user\",\"content\":\"\xE6\xBC\xA2\xE5\xAD\x97\xE6\xBC\xA2\xE5\xAD\x97"
			    "\xE6\xBC\xA2\xE5\xAD\x97\xE6\xBC\xA2\xE5\xAD\x97\"}"); /* 8 ideographs */
	json_t *latin = parse("{\"role\":\"user\",\"content\":\"abcdefghijklmnopqrstuvwx\"}");
	json_t *bare = json_string("hello");
	char *compact = json_dumps(msg, JSON_COMPACT);

	(void)state;
	assert_int_equal(ac_message_tokens(msg), est(compact) + 4);
	/* same bytes, more tokens */
	assert_true(ac_message_tokens(cjk) > ac_message_tokens(latin));
	/* a message of unknown shape still counts what it holds: "hello" with
	 * its quotes is 7 characters */
	assert_int_equal(ac_message_tokens(bare), 2 + 4);
	free(compact);
	json_decref(msg);
	json_decref(cjk);
	json_decref(latin);
	json_decref(bare);
}

static void test_messages_tokens_sum(void **state)
{
	json_t *messages = parse(interleaved);
	json_t *empty = parse("[]");
	json_t *object = parse("{\"role\":\"user\",\"content\":\"x\"}");
	uint64_t sum = 0;

	(void)state;
	for (size_t i = 0; i < json_array_size(messages); i++)
		sum += ac_message_tokens(json_array_get(messages, i));
	assert_true(sum > 6 * 4);
	assert_int_equal(ac_messages_tokens(messages), sum);
	assert_int_equal(ac_messages_tokens(empty), 0);
	assert_int_equal(ac_messages_tokens(object), 0);
	assert_int_equal(ac_messages_tokens(NULL), 0);
	json_decref(messages);
	json_decref(empty);
	json_decref(object);
}

/* The index estimates from a file's text, show and compaction from the
 * parsed document: pretty-printing, \u escapes, \/ and surrogate pairs
 * in the text must not change the count. */
static void test_history_text_counts_as_parsed(void **state)
{
	static const char pretty[] =
		"[\n  {\n    \"role\": \"user\",\n    \"content\": \"caf\\u00e9 \\/ \\ud83d\\ude00 "
		"tab\\there \\u0001 \\\"q\\\" \\\\ \\u65e5\\u672c\"\n  },\n"
		"  { \"role\" : \"assistant\", \"content\" : [ { \"type\": \"text\", \"text\": \"ok  done\" } ],"
		"\n    \"n\": 1.50, \"t\": true, \"z\": null, \"e\": [ ] }\n]";
	json_t *messages = NULL;
	uint64_t sum = 0;

	(void)state;
	/* As sessions are loaded: numbers keep their bytes (1.50). */
	assert_int_equal(ac_json_exact_load(&messages, pretty, strlen(pretty), 0, "test"), 0);
	for (size_t i = 0; i < json_array_size(messages); i++) {
		json_t *msg = json_array_get(messages, i);
		size_t len = 0;
		char *compact = ac_json_exact_dumps(msg, JSON_COMPACT, &len);

		assert_int_equal(ac_tokens_message_json(compact, len),
				 ac_message_tokens(msg));
		sum += ac_message_tokens(msg);
		free(compact);
	}
	assert_int_equal(ac_tokens_history_json(pretty, strlen(pretty)), sum);
	assert_int_equal(ac_messages_tokens(messages), sum);
	/* An empty history costs nothing, whichever way it is read. */
	assert_int_equal(ac_tokens_history_json(" [ \n ] ", 8), 0);
	assert_int_equal(ac_tokens_history_json("{}", 2), 0);
	json_decref(messages);
}

/* ---- cuts ------------------------------------------------------------ */

static void test_safe_cut_interleaved_pairs(void **state)
{
	json_t *messages = parse(interleaved);

	(void)state;
	/* indices 0..6 (the size), then 7, which is past the end */
	assert_cuts(messages, "11000110", true);
	json_decref(messages);
}

static void test_safe_cut_openai_and_orphans(void **state)
{
	json_t *messages = parse(
		"["
		"{\"role\":\"user\",\"content\":\"list files\"},"
		"{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"x\",\"type\":\"function\","
		"\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}},{\"id\":\"y\",\"function\":{\"name\":\"pwd\"}}]},"
		"{\"role\":\"tool\",\"tool_call_id\":\"x\",\"content\":\"a.c\"},"
		"{\"role\":\"assistant\",\"content\":\"waiting\"},"
		"{\"role\":\"tool\",\"toolCallId\":\"y\",\"content\":\"/w\"},"
		"{\"role\":\"tool\",\"tool_call_id\":\"gone\",\"content\":\"its call was compacted\"},"
		"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"gone2\"}]},"
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"self\"},"
		"{\"type\":\"tool_result\",\"tool_use_id\":\"self\"}]}"
		"]");

	(void)state;
	/* y, answered at 4, holds 2..4; the orphans at 5 and 6 and the
	 * message that answers itself hold nothing */
	assert_cuts(messages, "110001111" "0", true);
	json_decref(messages);
}

/* Some agents number calls per turn and reuse ids ("call_0"); a result
 * answers the latest call with its id (its own message's included), so a
 * later pair does not hold the cuts of an earlier one. */
static void test_safe_cut_reused_ids(void **state)
{
	json_t *messages = parse(
		"["
		"{\"role\":\"user\",\"content\":\"go\"},"
		"{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"call_0\",\"function\":{\"name\":\"ls\"}}]},"
		"{\"role\":\"tool\",\"tool_call_id\":\"call_0\",\"content\":\"a\"},"
		"{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"call_0\",\"function\":{\"name\":\"cat\"}}]},"
		"{\"role\":\"tool\",\"tool_call_id\":\"call_0\",\"content\":\"b\"},"
		"{\"role\":\"assistant\",\"content\":\"done\"},"
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"call_0\"},"
		"{\"type\":\"tool_result\",\"tool_use_id\":\"call_0\"}]}"
		"]");

	(void)state;
	/* the last message answers its own call, not the one at 3 */
	assert_cuts(messages, "11010111" "0", false);
	assert_int_equal(ac_messages_last_start(messages, 4), 3);
	json_decref(messages);
}

/* Random histories of both styles, checked against the header's
 * definition at every index. */
static void test_safe_cut_matches_definition(void **state)
{
	uint32_t seed = 777;

	(void)state;
	for (int round = 0; round < 200; round++) {
		json_t *messages = json_array();
		char pending[40][8];
		size_t npending = 0, next_id = 0;

		for (int m = 0; m < 30; m++) {
			json_t *msg = NULL;

			seed = seed * 1103515245u + 12345u;
			switch ((seed >> 16) % 6) {
			case 0:
				msg = json_pack("{s:s, s:s}", "role", "user", "content", "text");
				break;
			case 1: /* Anthropic calls */
			case 2: { /* OpenAI calls */
				bool openai = (seed >> 16) % 6 == 2;
				json_t *list = json_array();

				for (int k = 0; k < 1 + (int)((seed >> 20) % 3) && npending < 40; k++) {
					snprintf(pending[npending], sizeof(pending[0]), "i%zu", next_id++);
					json_array_append_new(list, openai
						? json_pack("{s:s, s:{s:s}}", "id", pending[npending], "function", "name", "f")
						: json_pack("{s:s, s:s, s:s}", "type", "tool_use", "id", pending[npending], "name", "f"));
					npending++;
				}
				msg = openai ? json_pack("{s:s, s:n, s:o}", "role", "assistant", "content", "tool_calls", list)
					     : json_pack("{s:s, s:o}", "role", "assistant", "content", list);
				break;
			}
			case 3: /* Anthropic results for a random pending subset */
			case 4: { /* one OpenAI tool message */
				size_t pick;

				if (npending == 0)
					continue;
				pick = (seed >> 20) % npending;
				if ((seed >> 16) % 6 == 4) {
					msg = json_pack("{s:s, s:s, s:s}", "role", "tool",
							(seed >> 25) & 1 ? "toolCallId" : "tool_call_id",
							pending[pick], "content", "r");
				} else {
					msg = json_pack("{s:s, s:[{s:s, s:s}]}", "role", "user", "content",
							"type", "tool_result", "tool_use_id", pending[pick]);
				}
				memmove(pending[pick], pending[npending - 1], sizeof(pending[0]));
				npending--;
				break;
			}
			default: /* unknown shapes and orphans */
				msg = (seed >> 20) & 1 ? json_integer(m)
						       : json_pack("{s:s, s:s}", "role", "tool", "tool_call_id", "orphan");
				break;
			}
			assert_non_null(msg);
			json_array_append_new(messages, msg);
		}
		for (size_t i = 0; i <= json_array_size(messages); i++)
			if (ac_messages_safe_cut(messages, i) != brute_safe(messages, i))
				fail_msg("round %d, cut %zu", round, i);
		/* The cut finder, fed one message at a time (each a copy, freed
		 * before the next: it must keep what it needs), cuts alike. */
		for (int tenth = 1; tenth <= 10; tenth++) {
			ac_cut_finder *finder = NULL;
			json_t *msg;
			size_t i;

			assert_int_equal(ac_cut_finder_new(&finder), 0);
			json_array_foreach (messages, i, msg) {
				json_t *copy = json_deep_copy(msg);

				assert_int_equal(ac_cut_finder_add(finder, copy), 0);
				json_decref(copy);
			}
			if (ac_cut_finder_cut(finder, tenth / 10.0) !=
			    ac_messages_compaction_cut(messages, tenth / 10.0))
				fail_msg("round %d, fraction %d/10: the finder cuts elsewhere", round, tenth);
			ac_cut_finder_free(finder);
		}
		json_decref(messages);
	}
}

static void test_last_start_keeps_pairs(void **state)
{
	json_t *messages = parse(interleaved);

	(void)state;
	assert_int_equal(ac_messages_last_start(messages, 0), 6);
	assert_int_equal(ac_messages_last_start(messages, 1), 5);
	/* 4 and 3 hold results whose calls are at 1 and 2: back to 1 */
	assert_int_equal(ac_messages_last_start(messages, 2), 1);
	assert_int_equal(ac_messages_last_start(messages, 3), 1);
	assert_int_equal(ac_messages_last_start(messages, 5), 1);
	assert_int_equal(ac_messages_last_start(messages, 6), 0);
	assert_int_equal(ac_messages_last_start(messages, 100), 0);
	json_decref(messages);
}

static void test_budget_start(void **state)
{
	json_t *messages = parse(interleaved);
	size_t size = json_array_size(messages);
	uint64_t cost[6], total = ac_messages_tokens(messages);

	(void)state;
	for (size_t i = 0; i < size; i++)
		cost[i] = ac_message_tokens(json_array_get(messages, i));
	/* room for 4 and 5, but 4 needs its call at 2, which needs 1 */
	assert_int_equal(ac_messages_budget_start(messages, cost[4] + cost[5]), 5);
	assert_int_equal(ac_messages_budget_start(messages, cost[5]), 5);
	assert_int_equal(ac_messages_budget_start(messages, cost[5] - 1), size);
	assert_int_equal(ac_messages_budget_start(messages, 0), size);
	assert_int_equal(ac_messages_budget_start(messages, total), 0);
	assert_int_equal(ac_messages_budget_start(messages, UINT64_MAX), 0);
	assert_int_equal(ac_messages_budget_start(messages, total - cost[0]), 1);
	/* every budget: a safe cut, within budget, and the longest such */
	for (uint64_t budget = 0; budget <= total + 1; budget++) {
		size_t start = ac_messages_budget_start(messages, budget);
		uint64_t used = 0;

		assert_true(start <= size);
		assert_true(ac_messages_safe_cut(messages, start));
		for (size_t i = start; i < size; i++)
			used += cost[i];
		assert_true(used <= budget);
		for (size_t earlier = 0; earlier < start; earlier++) {
			uint64_t more = 0;

			for (size_t i = earlier; i < size; i++)
				more += cost[i];
			assert_false(more <= budget && ac_messages_safe_cut(messages, earlier));
		}
	}
	json_decref(messages);
}

static void test_compaction_cut(void **state)
{
	json_t *messages = parse(interleaved);
	json_t *ten = parse("[1,2,3,4,5,6,7,8,9,10]");
	json_t *hundred = json_array();
	json_t *one = parse("[{\"role\":\"user\",\"content\":\"x\"}]");
	json_t *tail = parse("[{\"role\":\"user\",\"content\":\"x\"},"
			     "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\"}]},"
			     "{\"role\":\"tool\",\"tool_call_id\":\"c\"}]");

	(void)state;
	/* floor(0.5 * 6) = 3 would split both pairs: forward past them */
	assert_int_equal(ac_messages_compaction_cut(messages, 0.5), 5);
	assert_int_equal(ac_messages_compaction_cut(messages, 0.1), 1);
	assert_int_equal(ac_messages_compaction_cut(messages, 0.9), 5); /* floor(5.4) */
	assert_int_equal(ac_messages_compaction_cut(messages, 1.0), 6);
	assert_int_equal(ac_messages_compaction_cut(ten, 0.3), 3);
	for (int i = 0; i < 100; i++)
		json_array_append_new(hundred, json_integer(i));
	/* Seed 001's Math.floor of the double product: 0.07 * 100 is
	 * 7.000000000000001 (7), 0.29 * 100 is 28.999999999999996 (28). */
	assert_int_equal(ac_messages_compaction_cut(hundred, 0.07), 7);
	assert_int_equal(ac_messages_compaction_cut(hundred, 0.29), 28);
	assert_int_equal(ac_messages_compaction_cut(hundred, 0.55), 55);
	json_array_remove(hundred, 99);
	assert_int_equal(ac_messages_compaction_cut(hundred, 0.5), 49); /* floor(49.5) */
	assert_int_equal(ac_messages_compaction_cut(ten, 0.25), 2); /* floor(2.5) */
	assert_int_equal(ac_messages_compaction_cut(ten, 0.01), 1); /* at least one */
	assert_int_equal(ac_messages_compaction_cut(ten, 0.0), 1);
	assert_int_equal(ac_messages_compaction_cut(ten, 5.0), 10);
	assert_int_equal(ac_messages_compaction_cut(one, 0.5), 1);
	/* floor(0.7 * 3) = 2: no safe cut after 2 but the end */
	assert_int_equal(ac_messages_compaction_cut(tail, 0.7), 3);
	json_decref(messages);
	json_decref(ten);
	json_decref(hundred);
	json_decref(one);
	json_decref(tail);
}

static void test_empty_and_non_arrays(void **state)
{
	json_t *empty = parse("[]");
	json_t *object = parse("{\"conversationHistory\":[]}");

	(void)state;
	assert_true(ac_messages_safe_cut(empty, 0));
	assert_false(ac_messages_safe_cut(empty, 1));
	assert_int_equal(ac_messages_last_start(empty, 3), 0);
	assert_int_equal(ac_messages_budget_start(empty, 100), 0);
	assert_int_equal(ac_messages_compaction_cut(empty, 0.5), 0);
	/* anything else reads as no messages */
	assert_true(ac_messages_safe_cut(object, 0));
	assert_false(ac_messages_safe_cut(NULL, 1));
	assert_int_equal(ac_messages_last_start(NULL, 3), 0);
	assert_int_equal(ac_messages_budget_start(object, 100), 0);
	assert_int_equal(ac_messages_compaction_cut(NULL, 0.5), 0);
	json_decref(empty);
	json_decref(object);
}

static void test_unknown_shapes_are_kept_and_counted(void **state)
{
	json_t *messages = parse("[null, 17, \"text\", [1,2], {}, {\"role\":7,\"content\":{\"a\":1}},"
				 "{\"role\":\"user\",\"content\":[{\"type\":\"tool_use\"},"
				 "{\"type\":\"tool_result\",\"tool_use_id\":5}]}]");
	size_t size = json_array_size(messages);
	ac_buf out = AC_BUF_INIT;

	(void)state;
	for (size_t i = 0; i < size; i++) {
		const json_t *msg = json_array_get(messages, i);

		/* null alone has nothing but framing: 4 + "null" */
		assert_true(ac_message_tokens(msg) >= 5);
		assert_int_equal(ac_message_text(&out, msg), 0);
		assert_int_equal(ac_message_tool_calls(msg, NULL, NULL), 0);
		assert_int_equal(ac_message_tool_results(msg, NULL, NULL), 0);
		assert_true(ac_messages_safe_cut(messages, i));
	}
	assert_string_equal(out.data, "{\"a\":1}[tool_use ?] [tool_result ?]");
	assert_int_equal(ac_messages_last_start(messages, 2), size - 2);
	assert_int_equal(ac_messages_compaction_cut(messages, 0.5), 3); /* floor(3.5) */
	assert_int_equal(ac_messages_budget_start(messages, ac_messages_tokens(messages)), 0);
	ac_buf_free(&out);
	json_decref(messages);
}

/* A string jansson holds but cannot encode (made without its UTF-8
 * check) is shown as "?" in place of the whole input, and a message that
 * cannot be serialised costs its framing only. */
static void test_unencodable_values(void **state)
{
	json_t *input = json_pack("{s:o}", "k", json_stringn_nocheck("\xFF", 1));
	json_t *msg = json_pack("{s:s, s:[{s:s, s:s, s:s, s:o}]}", "role", "assistant", "content",
				"type", "tool_use", "id", "t1", "name", "edit", "input", input);
	ac_buf out = AC_BUF_INIT;

	(void)state;
	assert_non_null(msg);
	assert_int_equal(ac_message_text(&out, msg), 0);
	assert_string_equal(out.data, "[tool_use edit ?]");
	assert_int_equal(ac_message_tokens(msg), 4);
	ac_buf_free(&out);
	json_decref(msg);
}

/* A call at 1 answered at the very end holds every cut in between: the
 * searches must see it however far apart the two are. */
static void test_long_history_with_a_far_pair(void **state)
{
	json_t *messages = json_array();
	const size_t size = 20000;

	(void)state;
	json_array_append_new(messages, json_pack("{s:s, s:s}", "role", "user", "content", "go"));
	json_array_append_new(messages, json_pack("{s:s, s:[{s:s, s:s, s:s}]}", "role", "assistant",
						  "content", "type", "tool_use", "id", "far", "name", "wait"));
	while (json_array_size(messages) < size - 1)
		json_array_append_new(messages, json_pack("{s:s, s:s}", "role", "assistant", "content", "..."));
	json_array_append_new(messages, json_pack("{s:s, s:s, s:s}", "role", "tool", "tool_call_id", "far",
						  "content", "done"));
	assert_int_equal(json_array_size(messages), size);
	assert_true(ac_messages_safe_cut(messages, 1));
	assert_false(ac_messages_safe_cut(messages, 2));
	assert_false(ac_messages_safe_cut(messages, size - 1));
	assert_true(ac_messages_safe_cut(messages, size));
	assert_int_equal(ac_messages_last_start(messages, 10), 1);
	assert_int_equal(ac_messages_compaction_cut(messages, 0.5), size);
	assert_int_equal(ac_messages_budget_start(messages, 1000), size);
	json_decref(messages);
}


/* ---- what a writer may append ----------------------------------------- */

/* ac_message_check's verdict on text: 0, or AC_EINVAL with the message
 * holding want. */
static void check_message(const char *text, const char *want)
{
	json_t *msg = parse(text);
	int rc = ac_message_check(msg, "m");

	if (!want) {
		if (rc != 0)
			fail_msg("%s refused: %s", text, ac_error_last());
	} else {
		assert_int_equal(rc, AC_EINVAL);
		if (!strstr(ac_error_last(), want))
			fail_msg("%s: '%s' does not hold '%s'", text, ac_error_last(), want);
	}
	json_decref(msg);
}

static void test_check_accepts_every_shape_the_readers_know(void **state)
{
	(void)state;
	check_message("{\"role\":\"user\",\"content\":\"hi\"}", NULL);
	check_message("{\"role\":\"system\",\"content\":\"\",\"x-kept\":1}", NULL);
	check_message("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
		      "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":{}},"
		      "{\"type\":\"image\",\"source\":{}}]}", NULL);
	check_message("{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
		      "\"tool_use_id\":\"t1\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}]}", NULL);
	check_message("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\","
		      "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}", NULL);
	check_message("{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\"}]}", NULL);
	check_message("{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"r\"}", NULL);
	check_message("{\"role\":\"tool\",\"toolCallId\":\"c1\",\"content\":\"r\"}", NULL);
}

static void test_check_names_the_member_at_fault(void **state)
{
	json_t *list;

	(void)state;
	check_message("[]", "m: must be an object");
	check_message("{\"content\":\"x\"}", "m.role: missing");
	check_message("{\"role\":1,\"content\":\"x\"}", "m.role: must be a string");
	check_message("{\"role\":\"bot\",\"content\":\"x\"}", "m.role: 'bot' is not one of");
	check_message("{\"role\":\"user\"}", "m.content: missing");
	check_message("{\"role\":\"user\",\"content\":null}", "m.content: null");
	check_message("{\"role\":\"user\",\"content\":7}", "m.content: must be a string or an array");
	check_message("{\"role\":\"user\",\"content\":[\"x\"]}", "m.content[0]: must be an object");
	check_message("{\"role\":\"user\",\"content\":[{\"text\":\"x\"}]}", "m.content[0].type: missing");
	check_message("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
		      "{\"type\":\"text\",\"text\":3}]}", "m.content[1].text: must be a string");
	check_message("{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"name\":\"f\"}]}",
		      "m.content[0].id");
	check_message("{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t\"}]}",
		      "m.content[0].name");
	check_message("{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\"}]}",
		      "m.content[0].tool_use_id");
	check_message("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":{}}",
		      "m.tool_calls: must be an array");
	check_message("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"function\":{}}]}",
		      "m.tool_calls[0].id");
	check_message("{\"role\":\"tool\",\"content\":\"r\"}", "toolCallId or tool_call_id");
	/* In an array, the element is named by its index. */
	list = parse("[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"b\"},"
		     "{\"role\":\"user\",\"content\":[{\"type\":\"text\"}]}]");
	assert_int_equal(ac_messages_check(list, "messages"), AC_EINVAL);
	assert_string_equal(ac_error_last(), "messages[2].content[0].text: missing (a text block)");
	json_array_remove(list, 2);
	assert_int_equal(ac_messages_check(list, "messages"), 0);
	assert_int_equal(ac_messages_check(json_array_get(list, 0), "messages"), AC_EINVAL);
	json_decref(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_estimate_empty_and_ascii),
		cmocka_unit_test(test_estimate_white_space_runs_count_once),
		cmocka_unit_test(test_estimate_pretty_and_compact_json_alike),
		cmocka_unit_test(test_estimate_cjk_hangul_and_other_scripts),
		cmocka_unit_test(test_estimate_emoji),
		cmocka_unit_test(test_estimate_invalid_bytes),
		cmocka_unit_test(test_estimate_matches_reference),
		cmocka_unit_test(test_text_of_string_content),
		cmocka_unit_test(test_text_of_blocks),
		cmocka_unit_test(test_text_of_openai_messages),
		cmocka_unit_test(test_text_of_unknown_shapes),
		cmocka_unit_test(test_role),
		cmocka_unit_test(test_pairing_anthropic_blocks),
		cmocka_unit_test(test_pairing_openai_style),
		cmocka_unit_test(test_message_tokens),
		cmocka_unit_test(test_messages_tokens_sum),
		cmocka_unit_test(test_history_text_counts_as_parsed),
		cmocka_unit_test(test_safe_cut_interleaved_pairs),
		cmocka_unit_test(test_safe_cut_openai_and_orphans),
		cmocka_unit_test(test_safe_cut_reused_ids),
		cmocka_unit_test(test_safe_cut_matches_definition),
		cmocka_unit_test(test_last_start_keeps_pairs),
		cmocka_unit_test(test_budget_start),
		cmocka_unit_test(test_compaction_cut),
		cmocka_unit_test(test_empty_and_non_arrays),
		cmocka_unit_test(test_unknown_shapes_are_kept_and_counted),
		cmocka_unit_test(test_unencodable_values),
		cmocka_unit_test(test_long_history_with_a_far_pair),
		cmocka_unit_test(test_check_accepts_every_shape_the_readers_know),
		cmocka_unit_test(test_check_names_the_member_at_fault),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
