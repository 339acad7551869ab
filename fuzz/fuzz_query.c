/* Fuzz target: query terms (one per input line) parsed, then matched
 * against the fixed journal lines below. */
#include "ac_journal_scan.h"
#include "ac_json_scan.h"
#include "ac_query.h"
#include "ac_search.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The prefilter's promise: a matching line holds the needle, or an escape
 * that could spell it differently; and the finder agrees with memmem. */
static void check_needle(const char *needle, size_t needle_len, const char *line, size_t len)
{
	ac_finder f;
	const char *found;

	if (!needle)
		return;
	ac_finder_init(&f, needle, needle_len, NULL);
	found = ac_finder_find(&f, line, len);
	if (found != memmem(line, len, needle, needle_len))
		abort();
	if (!found && !strstr(line, "\\u") && !strstr(line, "\\/")) {
		fprintf(stderr, "a matching line lacks the needle '%.*s'\n", (int)needle_len,
			needle);
		abort();
	}
}

static const char *const lines[] = {
	"{\"id\":\"evt_20250903142510_f4a9b1c8\",\"timestamp\":\"2025-09-03T14:25:10.591Z\","
	"\"agent\":\"Claude\",\"status\":\"SUCCESS\",\"action\":{\"type\":\"FILE_CREATE\","
	"\"params\":{\"path\":\"a\\/b.c\",\"n\":5}},\"result\":{\"message\":\"\\u0043reated \\\"x\\\" 한국\"},"
	"\"trace\":{\"correlation_id\":\"c1\"}}",
	"{\"id\":\"evt_20250903142511_0000000a\",\"timestamp\":\"2025-09-04T00:00:00.000Z\","
	"\"agent\":\"Codex\",\"status\":\"FAILED\",\"action\":{\"type\":\"CMD_RUN\",\"params\":{}},"
	"\"result\":{\"message\":\"server failed\"}}",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *terms[16], *p;
	size_t nterms = 0, npaths;
	ac_json_span spans[AC_JSON_MAX_PATHS];
	ac_query *q = NULL;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (p = text; nterms < 16;) {
		char *nl = strchr(p, '\n');

		terms[nterms++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	if (ac_query_parse(&q, (const char *const *)terms, nterms) == 0) {
		const ac_json_path *paths = ac_query_paths(q, &npaths);
		size_t needle_len = 0;
		const char *needle = ac_query_needle(q, &needle_len);

		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
			if (ac_json_scan(spans, lines[i], strlen(lines[i]), paths, npaths, NULL) == 0 &&
			    ac_query_matches(q, lines[i], strlen(lines[i]), spans))
				check_needle(needle, needle_len, lines[i], strlen(lines[i]));
		ac_query_free(q);
	}
	free(text);
	return 0;
}
