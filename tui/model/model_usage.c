/* The open conversation's recorded usage as lines for the inspector: the
 * totals, then one line per turn (ac_turn_usage.h's rows). Made here, once
 * per read, so the view only draws; every string from a file (the model
 * name) is made safe on the way in. */
#include "model.h"

#include "ac_buf.h"
#include "ac_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void clear(ui_model *m)
{
	for (size_t i = 0; i < m->n_conv_usage_rows; i++)
		ui_sfree(m->conv_usage_rows[i]);
	free(m->conv_usage_rows);
	ui_sfree(m->conv_usage_total);
	m->conv_usage_rows = NULL;
	m->n_conv_usage_rows = 0;
	m->conv_usage_total = NULL;
}

static unsigned long long count(const json_t *usage, const char *key)
{
	return (unsigned long long)json_integer_value(json_object_get(usage, key));
}

/* "in N out N cache N new/N read" and, when given, reasoning, cost and
 * model; short (cache N/N, r N) for a turn's row in a narrow pane. */
static char *counts_line(const char *lead, const json_t *usage, bool brief)
{
	ac_buf b = AC_BUF_INIT;
	const json_t *cost = json_object_get(usage, "costUsd");
	const char *model = json_string_value(json_object_get(usage, "model"));
	char *line;

	ac_buf_printf(&b, brief ? "%s in %llu out %llu cache %llu/%llu"
				: "%s in %llu  out %llu  cache %llu new/%llu read",
		      lead, count(usage, "inputTokens"), count(usage, "outputTokens"),
		      count(usage, "cacheCreationInputTokens"), count(usage, "cacheReadInputTokens"));
	if (count(usage, "reasoningTokens"))
		ac_buf_printf(&b, brief ? " r %llu" : "  reasoning %llu",
			      count(usage, "reasoningTokens"));
	if (json_is_number(cost))
		ac_buf_printf(&b, brief ? " $%.4f" : "  $%.4f", json_number_value(cost));
	if (model)
		ac_buf_printf(&b, brief ? " %s" : "  %s", model);
	line = ui_safe_str(b.data ? b.data : "");
	ac_buf_free(&b);
	return line;
}

int ui_model_set_usage(ui_model *m, const json_t *usage)
{
	const json_t *turns = json_object_get(usage, "turns"), *row;
	char lead[64];
	size_t i;

	clear(m);
	if (!usage)
		return 0;
	snprintf(lead, sizeof(lead), "%llu turns:", count(json_object_get(usage, "totals"), "turns"));
	if (!(m->conv_usage_total = counts_line(lead, json_object_get(usage, "totals"), false)) ||
	    (json_array_size(turns) &&
	     !(m->conv_usage_rows = calloc(json_array_size(turns), sizeof(char *))))) {
		clear(m);
		return AC_ENOMEM;
	}
	json_array_foreach(turns, i, row) {
		const char *at = json_string_value(json_object_get(row, "timestamp"));

		/* The time of day: the date is in "updated" above, and the
		 * pane is narrow. */
		snprintf(lead, sizeof(lead), "#%llu %.8s", count(row, "turn"),
			 json_is_true(json_object_get(row, "carried")) ? "earlier"
			 : at && strlen(at) >= 19 ? at + 11 : "-");
		if (!(m->conv_usage_rows[i] = counts_line(lead, json_object_get(row, "usage"), true))) {
			clear(m);
			return AC_ENOMEM;
		}
		m->n_conv_usage_rows = i + 1;
	}
	return 0;
}
