/* Times listing a session folder with one ac_session_index: the first
 * refresh (cold: nothing cached, every file read) and the next ones (warm:
 * only stat calls), as the dashboard does on every change.
 *
 *   bench_session_list DIR [WARM_RUNS]
 * prints: sessions, problems, cold_ms, cold_parsed, warm_ms (median), warm_parsed */
#include "ac_error.h"
#include "ac_session_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	ac_session_index *index;
	size_t n, parsed_cold, parsed_warm = 0;
	int runs = argc > 2 ? atoi(argv[2]) : 10;
	double start, cold, *warm;

	if (argc < 2 || runs < 1) {
		fprintf(stderr, "usage: %s DIR [WARM_RUNS]\n", argv[0]);
		return 2;
	}
	warm = calloc((size_t)runs, sizeof(double));
	if (!warm || ac_session_index_new(&index, argv[1]) != 0)
		return 1;
	start = now_ms();
	if (ac_session_index_refresh(index, NULL, NULL, &parsed_cold) != 0) {
		fprintf(stderr, "%s\n", ac_error_last());
		return 1;
	}
	cold = now_ms() - start;
	for (int i = 0; i < runs; i++) {
		start = now_ms();
		ac_session_index_refresh(index, NULL, NULL, &parsed_warm);
		warm[i] = now_ms() - start;
	}
	qsort(warm, (size_t)runs, sizeof(double), compare_doubles);
	ac_session_index_list(index, &n);
	printf("sessions %zu problems %zu cold_ms %.1f cold_parsed %zu warm_ms %.1f warm_parsed %zu\n",
	       n, ac_session_index_problems(index), cold, parsed_cold, warm[runs / 2], parsed_warm);
	ac_session_index_free(index);
	free(warm);
	return 0;
}
