/* Conversation search: the case-folded finder, the needle's JSON forms,
 * the raw prefilter over files written by different JSON writers, order,
 * limit, snippets, bad files, and a second provider. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_error.h"
#include "ac_search.h"
#include "ac_session_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_fold_finder(void **state)
{
	char hay[200];
	ac_finder f;

	(void)state;
	memset(hay, '.', sizeof(hay));
	/* Past the 16-byte blocks and in the scalar tail alike. */
	memcpy(hay + 37, "CoNfIg", 6);
	ac_finder_init_fold(&f, "config", 6, NULL);
	assert_ptr_equal(ac_finder_find_fold(&f, hay, sizeof(hay)), hay + 37);
	assert_null(ac_finder_find_fold(&f, hay, 40));
	memcpy(hay + 190, "CONFIG", 6);
	assert_ptr_equal(ac_finder_find_fold(&f, hay + 100, 100), hay + 190);
	/* '@' | 0x20 is '`': only letters are folded. */
	memset(hay, '.', sizeof(hay));
	memcpy(hay + 50, "@b", 2);
	ac_finder_init_fold(&f, "`b", 2, NULL);
	assert_null(ac_finder_find_fold(&f, hay, sizeof(hay)));
	/* Non-ASCII bytes are compared as they are. */
	ac_finder_init_fold(&f, "\xc3\xa9", 2, NULL);
	assert_null(ac_finder_find_fold(&f, "caf\xc3\x89", 5));
	assert_non_null(ac_finder_find_fold(&f, "caf\xc3\xa9", 5));
}

static void test_forms(void **state)
{
	char *forms[AC_SEARCH_FORMS];
	size_t n;

	(void)state;
	assert_int_equal(ac_session_search_forms(forms, &n, "Plain", 5), 0);
	assert_int_equal(n, 1);
	assert_string_equal(forms[0], "plain");
	free(forms[0]);
	assert_int_equal(ac_session_search_forms(forms, &n, "say \"Hi\"\n", 9), 0);
	assert_int_equal(n, 2);
	assert_string_equal(forms[1], "say \\\"hi\\\"\\n");
	free(forms[0]);
	free(forms[1]);
	/* é and an emoji above the BMP: raw, and as an ASCII-only writer
	 * puts them (a surrogate pair). */
	assert_int_equal(ac_session_search_forms(forms, &n, "\xc3\xa9\xf0\x9f\x98\x80", 6), 0);
	assert_int_equal(n, 2);
	assert_string_equal(forms[0], "\xc3\xa9\xf0\x9f\x98\x80");
	assert_string_equal(forms[1], "\\u00e9\\ud83d\\ude00");
	free(forms[0]);
	free(forms[1]);
	/* <, > and & as Go writes them. */
	assert_int_equal(ac_session_search_forms(forms, &n, "<a & b>", 7), 0);
	assert_int_equal(n, 2);
	assert_string_equal(forms[1], "\\u003ca \\u0026 b\\u003e");
	free(forms[0]);
	free(forms[1]);
}

typedef struct {
	char *dir;
	ac_search_item items[8];
	char *paths[8];
	size_t n;
	char problems[512];
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_make_temp_dir();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	for (size_t i = 0; i < f->n; i++)
		free(f->paths[i]);
	tu_remove_tree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* A session file id.json holding history (JSON text of the array) as the
 * given writer put it, updated at updated. */
static void add(fixture *f, const char *id, const char *updated, const char *history)
{
	char name[64], *text;
	size_t len = strlen(history) + 256;

	text = malloc(len);
	snprintf(text, len, "{\"id\":\"%s\",\"createdAt\":\"%s\",\"updatedAt\":\"%s\",\"task\":\"t\","
		 "\"status\":\"running\",\"conversationHistory\":%s,\"metadata\":{}}",
		 id, updated, updated, history);
	snprintf(name, sizeof(name), "%s.json", id);
	tu_put(f->dir, name, text);
	free(text);
	f->paths[f->n] = tu_path(f->dir, name);
	f->items[f->n] = (ac_search_item){.id = strdup(id), .source = "file",
					  .path = f->paths[f->n], .updated_at = strdup(updated),
					  .provider = &ac_session_search_file_provider};
	f->n++;
}

static void free_items(fixture *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free((char *)f->items[i].id);
		free((char *)f->items[i].updated_at);
	}
}

static void note(const char *message, void *ctx)
{
	fixture *f = ctx;

	snprintf(f->problems + strlen(f->problems), sizeof(f->problems) - strlen(f->problems),
		 "%s;", message);
}

static const char *hit_id(const fixture *f, const ac_search_results *r, size_t i)
{
	return f->items[r->hits[i].item].id;
}

static void test_writers_escape_differently(void **state)
{
	fixture *f = *state;
	ac_search_results r;

	/* JSON.stringify: raw UTF-8, \" and \n. Python's json.dumps: \u00e9
	 * (here with capital hex, as some writers do). */
	add(f, "raw", "2026-01-01T00:00:03.000Z",
	    "[{\"role\":\"user\",\"content\":\"le caf\xc3\xa9 \\\"noir\\\"\\nsvp\"}]");
	add(f, "ascii", "2026-01-01T00:00:02.000Z",
	    "[{\"role\":\"user\",\"content\":\"un CAF\\u00E9 \\\"Noir\\\"\\nmerci\"}]");
	add(f, "none", "2026-01-01T00:00:01.000Z",
	    "[{\"role\":\"user\",\"content\":\"du th\\u00e9\"}]");
	/* Go's encoding/json: <, > and & escaped, the rest raw. */
	add(f, "go", "2026-01-01T00:00:00.500Z",
	    "[{\"role\":\"user\",\"content\":\"x \\u003cb\\u003e caf\xc3\xa9 \\\"noir\\\"\\n\"}]");
	assert_int_equal(ac_session_search(&r, f->items, f->n, "caf\xc3\xa9 \"noir\"\n", 13, 0, false,
					   note, f), 0);
	assert_int_equal(r.n, 3);
	assert_string_equal(hit_id(f, &r, 0), "raw");
	assert_string_equal(hit_id(f, &r, 1), "ascii");
	assert_string_equal(hit_id(f, &r, 2), "go");
	assert_int_equal(r.files_read, 4);
	assert_int_equal(r.files_parsed, 3); /* "none" never parsed */
	/* The match on one line: the newline became a space. */
	assert_string_equal(r.hits[0].snippet, "le caf\xc3\xa9 \"noir\" svp");
	assert_int_equal(r.hits[0].match_start, 3);
	assert_int_equal(r.hits[0].match_len, 13);
	assert_string_equal(r.hits[1].role, "user");
	ac_search_results_free(&r);
	/* Found only through the HTML-safe form. */
	assert_int_equal(ac_session_search(&r, f->items, f->n, "<B> caf\xc3\xa9", 9, 0, false,
					   note, f), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(hit_id(f, &r, 0), "go");
	assert_string_equal(r.hits[0].snippet, "x <b> caf\xc3\xa9 \"noir\" ");
	ac_search_results_free(&r);
	free_items(f);
}

static void test_order_limit_and_snippet(void **state)
{
	fixture *f = *state;
	char long_text[600], history[800];
	ac_search_results r;

	memset(long_text, 'x', sizeof(long_text) - 1);
	long_text[sizeof(long_text) - 1] = '\0';
	memcpy(long_text + 300, "NEEDLE", 6);
	memcpy(long_text + 290, "\\u001b[2J", 9); /* an escape sequence near it */
	snprintf(history, sizeof(history),
		 "[{\"role\":\"user\",\"content\":\"no\"},"
		 "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]},"
		 "{\"role\":\"user\",\"content\":\"needle again\"}]", long_text);
	add(f, "old", "2026-01-01T00:00:01.000Z", "[{\"role\":\"user\",\"content\":\"a needle\"}]");
	add(f, "new", "2026-03-01T00:00:00.000Z", history);
	add(f, "bad", "2026-02-01T00:00:00.000Z", "[{\"role\":\"user\",\"content\":\"needle\"");
	assert_int_equal(ac_session_search(&r, f->items, f->n, "needle", 6, 0, false, note, f), 0);
	assert_int_equal(r.n, 3);
	assert_string_equal(hit_id(f, &r, 0), "new");
	assert_int_equal(r.hits[0].message, 1);
	assert_int_equal(r.hits[1].message, 2);
	assert_string_equal(hit_id(f, &r, 2), "old");
	/* Cut around the match, the escape made visible. */
	assert_memory_equal(r.hits[0].snippet, "...", 3);
	assert_non_null(strstr(r.hits[0].snippet, "^[[2J"));
	assert_memory_equal(r.hits[0].snippet + r.hits[0].match_start, "NEEDLE", 6);
	assert_int_equal(strcmp(r.hits[0].snippet + strlen(r.hits[0].snippet) - 3, "..."), 0);
	assert_true(strlen(r.hits[0].snippet) < 120);
	/* The torn file is named, the others still searched. */
	assert_non_null(strstr(f->problems, "bad.json"));
	ac_search_results_free(&r);


	assert_int_equal(ac_session_search(&r, f->items, f->n, "needle", 6, 2, false, NULL, NULL), 0);
	assert_int_equal(r.n, 2);
	assert_true(r.limited);
	ac_search_results_free(&r);
	/* The first match of each session only. */
	assert_int_equal(ac_session_search(&r, f->items, f->n, "needle", 6, 0, true, NULL, NULL), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(hit_id(f, &r, 0), "new");
	assert_int_equal(r.hits[0].message, 1);
	assert_string_equal(hit_id(f, &r, 1), "old");
	assert_false(r.limited);
	ac_search_results_free(&r);
	assert_int_equal(ac_session_search(&r, f->items, f->n, "", 0, 0, false, NULL, NULL), AC_EINVAL);
	assert_int_equal(ac_session_search(&r, f->items, f->n, "\xff", 1, 0, false, NULL, NULL), AC_EINVAL);
	/* Not a session: a top-level array, a history that is no array. */
	f->problems[0] = '\0';
	tu_put(f->dir, "old.json", "  [{\"role\":\"user\",\"content\":\"needle\"}]");
	tu_put(f->dir, "bad.json", "{\"conversationHistory\":{\"content\":\"needle\"}}");
	assert_int_equal(ac_session_search(&r, f->items, f->n, "needle", 6, 0, false, note, f), 0);
	assert_int_equal(r.n, 2); /* "new" only */
	assert_non_null(strstr(f->problems, "old.json: not a session"));
	assert_non_null(strstr(f->problems, "bad.json: not a session"));
	ac_search_results_free(&r);
	free_items(f);
}

/* Items listed without their update (the command line lists files, not
 * sessions): every file is read once, then the hits are ordered by the
 * updatedAt each file holds and cut to the limit. */
static void test_unordered_items(void **state)
{
	fixture *f = *state;
	ac_search_results r;
	char *saved[8];

	add(f, "a", "2026-01-01T00:00:00.000Z", "[{\"role\":\"user\",\"content\":\"needle a\"}]");
	add(f, "b", "2026-03-01T00:00:00.000Z",
	    "[{\"role\":\"user\",\"content\":\"needle b1\"},"
	    "{\"role\":\"user\",\"content\":\"needle b2\"}]");
	add(f, "c", "2026-02-01T00:00:00.000Z", "[{\"role\":\"user\",\"content\":\"needle c\"}]");
	for (size_t i = 0; i < f->n; i++) {
		saved[i] = (char *)f->items[i].updated_at;
		f->items[i].updated_at = NULL;
	}
	assert_int_equal(ac_session_search(&r, f->items, f->n, "needle", 6, 3, false, NULL, NULL), 0);
	assert_int_equal(r.n, 3);
	assert_true(r.limited);
	assert_string_equal(hit_id(f, &r, 0), "b");
	assert_int_equal(r.hits[0].message, 0);
	assert_int_equal(r.hits[1].message, 1);
	assert_string_equal(hit_id(f, &r, 2), "c");
	assert_string_equal(r.hits[2].updated_at, "2026-02-01T00:00:00.000Z");
	assert_int_equal(r.files_read, 3);
	ac_search_results_free(&r);
	for (size_t i = 0; i < f->n; i++)
		f->items[i].updated_at = saved[i];
	free_items(f);
}

/* Another tool's transcript, one JSON text per line: plugs in as a provider. */
static int lines_messages(const char *bytes, size_t len, const char *path,
			  ac_search_message_fn fn, void *ctx)
{
	size_t index = 0;
	const char *p = bytes, *end = bytes + len;

	(void)path;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int rc = fn(ctx, index++, "assistant", p, n);

		if (rc)
			return rc;
		p += n + 1;
	}
	return 0;
}

static void test_other_provider(void **state)
{
	fixture *f = *state;
	const ac_search_provider lines = {.name = "lines", .messages = lines_messages};
	ac_search_results r;

	add(f, "s", "2026-01-01T00:00:00.000Z", "[]");
	tu_put(f->dir, "t.jsonl", "first\nsecond Match\n");
	f->paths[f->n] = tu_path(f->dir, "t.jsonl");
	f->items[f->n] = (ac_search_item){.id = strdup("t"), .source = "lines",
					  .path = f->paths[f->n], .updated_at = strdup("2026"),
					  .provider = &lines};
	f->n++;
	assert_int_equal(ac_session_search(&r, f->items, f->n, "match", 5, 0, false, NULL, NULL), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(hit_id(f, &r, 0), "t");
	assert_int_equal(r.hits[0].message, 1);
	assert_string_equal(r.hits[0].snippet, "second Match");
	ac_search_results_free(&r);
	free_items(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold_finder),
		cmocka_unit_test(test_forms),
		cmocka_unit_test_setup_teardown(test_writers_escape_differently, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order_limit_and_snippet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unordered_items, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_provider, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
