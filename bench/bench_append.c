/* Journal append rate: WRITERS processes each append COUNT events of about
 * 300 bytes through ac_journal_append (lock file + flock + one write).
 *
 *   bench_append JOURNAL WRITERS COUNT [always]   ("always": fdatasync each)
 * prints: writers, events, seconds, events_per_second */
#include "ac_error.h"
#include "ac_journal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_events(const char *journal, int writer, int count, const ac_journal_options *opts)
{
	char line[512];

	for (int i = 0; i < count; i++) {
		int n = snprintf(line, sizeof(line),
				 "{\"id\":\"evt_20250903142510_%02x%06x\",\"timestamp\":\"2025-09-03T14:25:10.591Z\","
				 "\"agent\":\"Claude\",\"status\":\"SUCCESS\",\"action\":{\"type\":\"FILE_EDIT\","
				 "\"params\":{\"path\":\"src/server.c\"}},\"result\":{\"message\":\"edited the "
				 "request handler to check the config before use (writer %d, event %d)\"}}",
				 writer, i, writer, i);

		if (ac_journal_append(NULL, journal, line, (size_t)n, opts) != 0) {
			fprintf(stderr, "%s\n", ac_error_last());
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	ac_journal_options opts;
	int writers, count, failed = 0;
	double start, seconds;

	if (argc < 4) {
		fprintf(stderr, "usage: %s JOURNAL WRITERS COUNT [always]\n", argv[0]);
		return 2;
	}
	writers = atoi(argv[2]);
	count = atoi(argv[3]);
	ac_journal_options_init(&opts);
	if (argc > 4 && !strcmp(argv[4], "always"))
		opts.fsync = AC_FSYNC_ALWAYS;
	start = now_s();
	for (int w = 0; w < writers; w++)
		if (fork() == 0)
			_exit(write_events(argv[1], w, count, &opts));
	for (int w = 0; w < writers; w++) {
		int status;

		wait(&status);
		failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	seconds = now_s() - start;
	printf("writers %d events %d seconds %.3f events_per_second %.0f\n", writers,
	       writers * count, seconds, writers * count / seconds);
	return failed;
}
