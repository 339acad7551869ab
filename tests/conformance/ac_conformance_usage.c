/* Conformance cases for per-turn usage (issue 16): every store keeps one
 * row per recorded turn with every field of the seed's Usage, unknown
 * fields included, and its totals are the rows' sums. */
#include "ac_conformance.h"

#include "ac_backend_sys.h"
#include "ac_turn_usage.h"

#include <string.h>

static json_int_t count(const json_t *usage, const char *key)
{
	return json_integer_value(json_object_get(usage, key));
}

void conform_turn_usage_rows(const ac_backend *b)
{
	char *id = conform_new_session(b, "t1", "u1", "usage-1");
	json_t *fields = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:f, s:s}", "inputTokens",
				   (json_int_t)900, "outputTokens", (json_int_t)900,
				   "cacheCreationInputTokens", (json_int_t)300,
				   "cacheReadInputTokens", (json_int_t)4000, "reasoningTokens",
				   (json_int_t)50, "totalTokens", (json_int_t)4470, "model",
				   "claude-sonnet-4-5", "costUsd", 0.25, "x-vendor", "kept");
	json_t *bad = json_pack("{s:f}", "cacheReadInputTokens", 1.5);
	json_t *neg = json_pack("{s:I}", "reasoningTokens", (json_int_t)-1);
	json_t *loaded = NULL, *turns, *row, *totals, *doc = NULL;
	ac_usage first = {100, 20, fields}, second = {7, 3, NULL}, refused = {1, 1, bad};
	ac_usage negative = {1, 1, neg};

	assert_non_null(fields);
	OK(b->session.record_turn(b->impl, "t1", id, NULL, &first));
	OK(b->session.record_turn(b->impl, "t1", id, NULL, &second));
	/* Counts that are not whole numbers: refused, nothing written. */
	assert_int_equal(b->session.record_turn(b->impl, "t1", id, NULL, &refused), AC_EINVAL);
	assert_int_equal(b->session.record_turn(b->impl, "t1", id, NULL, &negative), AC_EINVAL);
	OK(b->session.load_usage(b->impl, &loaded, "t1", id));
	turns = json_object_get(loaded, "turns");
	assert_int_equal(json_array_size(turns), 2);
	/* Row 1: every field, the two counts from the call, the rest as given. */
	row = json_array_get(turns, 0);
	assert_int_equal(count(row, "turn"), 1);
	assert_non_null(json_string_value(json_object_get(row, "timestamp")));
	row = json_object_get(row, "usage");
	assert_int_equal(count(row, "inputTokens"), 100);
	assert_int_equal(count(row, "outputTokens"), 20);
	assert_int_equal(count(row, "cacheCreationInputTokens"), 300);
	assert_int_equal(count(row, "cacheReadInputTokens"), 4000);
	assert_int_equal(count(row, "reasoningTokens"), 50);
	assert_int_equal(count(row, "totalTokens"), 4470);
	assert_string_equal(json_string_value(json_object_get(row, "model")), "claude-sonnet-4-5");
	assert_true(json_number_value(json_object_get(row, "costUsd")) == 0.25);
	/* Unknown fields are kept. */
	assert_string_equal(json_string_value(json_object_get(row, "x-vendor")), "kept");
	/* Row 2: the two counts only. */
	row = json_array_get(turns, 1);
	assert_int_equal(count(row, "turn"), 2);
	assert_int_equal(count(json_object_get(row, "usage"), "inputTokens"), 7);
	assert_null(json_object_get(json_object_get(row, "usage"), "model"));
	/* Totals are the sums; no cost total when a row has none. */
	totals = json_object_get(loaded, "totals");
	assert_int_equal(count(totals, "turns"), 2);
	assert_int_equal(count(totals, "inputTokens"), 107);
	assert_int_equal(count(totals, "outputTokens"), 23);
	assert_int_equal(count(totals, "cacheReadInputTokens"), 4000);
	assert_int_equal(count(totals, "cacheCreationInputTokens"), 300);
	assert_int_equal(count(totals, "reasoningTokens"), 50);
	assert_null(json_object_get(totals, "costUsd"));
	/* The document's totals (what other readers know) agree. */
	OK(b->session.get(b->impl, &doc, "t1", id));
	assert_int_equal(count(json_object_get(json_object_get(doc, "metadata"), "usage"),
			       "inputTokens"), 107);
	assert_int_equal(count(json_object_get(json_object_get(doc, "metadata"), "usage"),
			       "turns"), 2);
	/* Another tenant sees nothing. */
	json_decref(loaded);
	loaded = NULL;
	assert_int_equal(b->session.load_usage(b->impl, &loaded, "t2", id), AC_ENOTFOUND);
	assert_int_equal(b->session.load_usage(b->impl, &loaded, "t1", "no-such"), AC_ENOTFOUND);
	assert_null(loaded);
	json_decref(doc);
	json_decref(fields);
	json_decref(bad);
	json_decref(neg);
	free(id);
}

/* A session with no turn has no rows and zero totals. */
void conform_turn_usage_empty(const ac_backend *b)
{
	char *id = conform_new_session(b, "t1", "u1", "usage-0");
	json_t *loaded = NULL;

	OK(b->session.load_usage(b->impl, &loaded, "t1", id));
	assert_int_equal(json_array_size(json_object_get(loaded, "turns")), 0);
	assert_int_equal(count(json_object_get(loaded, "totals"), "turns"), 0);
	assert_int_equal(count(json_object_get(loaded, "totals"), "inputTokens"), 0);
	json_decref(loaded);
	free(id);
}
