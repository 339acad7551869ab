/* The per-turn usage table `session show` prints (both stores), and the
 * --usage argument of `session record-turn`: the seed's Usage object. */
#include "cli.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_turn_usage.h"

#include <stdio.h>
#include <string.h>

static unsigned long long count(const json_t *usage, const char *key)
{
	return (unsigned long long)json_integer_value(json_object_get(usage, key));
}

/* One line of counts, in ac_turn_usage_counts' order, then cost and model. */
static void put_counts(ac_buf *text, const json_t *usage)
{
	const json_t *cost = json_object_get(usage, "costUsd");
	const char *model = json_string_value(json_object_get(usage, "model"));

	for (size_t k = 0; ac_turn_usage_counts[k]; k++)
		ac_buf_printf(text, "%10llu ",
			      !strcmp(ac_turn_usage_counts[k], "totalTokens")
				      ? (unsigned long long)ac_turn_usage_total(usage)
				      : count(usage, ac_turn_usage_counts[k]));
	if (json_is_number(cost))
		ac_buf_printf(text, "%9.4f ", json_number_value(cost));
	else
		ac_buf_printf(text, "%9s ", "-");
	ac_buf_printf(text, "%s\n", model ? model : "-");
}

void cli_turn_usage_table(ac_buf *text, const json_t *usage)
{
	const json_t *turns = json_object_get(usage, "turns"), *row;
	const json_t *totals = json_object_get(usage, "totals");
	size_t i;

	ac_buf_printf(text, "usage    %llu turns (%zu rows)\n", count(totals, "turns"),
		      json_array_size(turns));
	ac_buf_printf(text, "  TURN TIMESTAMP                     INPUT     OUTPUT  CACHE-NEW "
			    "CACHE-READ  REASONING      TOTAL   COST-USD MODEL\n");
	json_array_foreach(turns, i, row) {
		const char *at = json_string_value(json_object_get(row, "timestamp"));

		ac_buf_printf(text, "%6llu %-24s ", count(row, "turn"),
			      json_is_true(json_object_get(row, "carried")) ? "(before per-turn rows)"
									: (at ? at : "-"));
		put_counts(text, json_object_get(row, "usage"));
	}
	ac_buf_printf(text, "%6s %-24s ", "total", "");
	put_counts(text, totals);
}

/* Plain jansson, not the exact loader: a Usage is the agent's own
 * numbers, stored as parsed (costUsd a double), and a count that is not a
 * whole number is refused rather than kept as written. */
int cli_turn_usage_parse(json_t **out, const char *text, const char *what)
{
	json_error_t jerr;

	*out = json_loads(text, 0, &jerr);
	if (!*out)
		return cli_error(CLI_USAGE, "%s: not JSON: line %d column %d: %s", what, jerr.line,
				 jerr.column, jerr.text);
	if (ac_turn_usage_check(*out, what) != 0) {
		json_decref(*out);
		*out = NULL;
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	}
	return CLI_OK;
}
