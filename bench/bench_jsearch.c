/* The dashboard's whole-journal search (tui/jsearch.h) on a large journal:
 * how long it takes to read every file, how long one step of the loop
 * takes at most (what a key waits for while a search runs), and how soon
 * the first page of matches is there.
 *
 *   bench_jsearch WORKSPACE "TERMS"
 *
 * Prints one line per figure. Built with everything; docs/BENCHMARKS.md
 * has the figures for the 1 GiB journal of bench/gen_journal.py. */
#include "jsearch.h"
#include "model.h"

#include "ac_config.h"
#include "ac_error.h"
#include "ac_time.h"
#include "ac_workspace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define STEP_MS 30 /* the dashboard's share per loop (tui/drill.c) */

static ui_model m; /* large (the journal ring): not on the stack */

int main(int argc, char **argv)
{
	ac_config *config = NULL;
	ac_workspace ws;
	ui_jsearch_engine *e = NULL;
	int64_t start, first_page = -1, longest = 0, t;
	size_t steps = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s WORKSPACE \"TERMS\"\n", argv[0]);
		return 2;
	}
	if (ac_config_load(&config, argv[1]) != 0 || ac_workspace_init(&ws, config) != 0) {
		fprintf(stderr, "%s\n", ac_error_last());
		return 1;
	}
	start = ac_time_now_ms();
	if (ui_jsearch_start(&e, &m, &ws, argv[2]) != 0 || m.search.error) {
		fprintf(stderr, "%s\n", m.search.error ? m.search.error : ac_error_last());
		return 1;
	}
	ui_jsearch_want(e, &m, SIZE_MAX); /* read every file, as n does page after page */
	while (m.search.running) {
		t = ac_time_now_ms();
		ui_jsearch_step(e, &m, STEP_MS);
		t = ac_time_now_ms() - t;
		longest = t > longest ? t : longest;
		steps++;
		if (first_page < 0 && (m.search.n >= 50 || m.search.complete))
			first_page = ac_time_now_ms() - start;
	}
	printf("query: %s\n", argv[2]);
	printf("bytes: %llu in %zu files\n", (unsigned long long)m.search.bytes_total,
	       m.search.n_files);
	printf("matches: %zu%s\n", m.search.n, m.search.error ? " (stopped by an error)" : "");
	printf("whole search: %.3f s\n", (double)(ac_time_now_ms() - start) / 1000);
	printf("first page (50 matches or the end): %.3f s\n", (double)first_page / 1000);
	printf("loop steps: %zu, longest %lld ms (budget %d ms)\n", steps, (long long)longest,
	       STEP_MS);
	ui_jsearch_close(&e, &m);
	ui_model_free(&m);
	ac_workspace_free(&ws);
	ac_config_free(config);
	return 0;
}
