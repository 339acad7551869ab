/* The JSON scanner's copies (core/ac_json_scan_loop.h) on a journal's
 * lines with the event paths, as journal check scans them, without the
 * rest of the check: which copy is faster, on this CPU, for this data.
 *
 *   bench_json_scan JOURNAL [ROUNDS]
 *
 * Rounds (default 5) run the copies in turn, so a busy machine slows
 * them alike; prints each copy's best CPU seconds and its rate. */
#include "ac_event.h"
#include "ac_json_scan.h"
#include "ac_json_scan_impl.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const names[] = {"scalar", "sse2"};
#define NIMPLS (sizeof(names) / sizeof(names[0]))

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Scans every line of data[0..len) with impl; returns the valid count. */
static size_t scan_lines(ac_json_scan_impl impl, const char *data, size_t len,
			 const ac_json_paths *paths)
{
	ac_json_span spans[AC_EV_NFIELDS];
	const char *p = data, *end = data + len, *nl;
	size_t valid = 0;

	for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1)
		valid += ac_json_scan_prepared_with(impl, spans, p, (size_t)(nl - p), paths,
						    NULL, NULL) == 0;
	return valid;
}

int main(int argc, char **argv)
{
	double best[NIMPLS];
	ac_json_paths paths;
	struct stat st;
	const char *data;
	int rounds = argc > 2 ? atoi(argv[2]) : 5, fd;

	if (argc < 2 || rounds < 1) {
		fprintf(stderr, "usage: bench_json_scan JOURNAL [ROUNDS]\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) != 0 || st.st_size == 0 ||
	    (data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd,
			 0)) == MAP_FAILED) {
		perror(argv[1]);
		return 1;
	}
	if (ac_json_paths_prepare(&paths, ac_event_paths(), AC_EV_NFIELDS) != 0)
		return 1;
	for (size_t i = 0; i < NIMPLS; i++)
		best[i] = -1;
	for (int r = 0; r < rounds; r++) {
		for (size_t i = 0; i < NIMPLS; i++) {
			double t;
			size_t valid;

			if (!ac_json_scan_has_impl((ac_json_scan_impl)i))
				continue;
			t = cpu_seconds();
			valid = scan_lines((ac_json_scan_impl)i, data, (size_t)st.st_size, &paths);
			t = cpu_seconds() - t;
			if (best[i] < 0 || t < best[i])
				best[i] = t;
			if (r == 0)
				printf("%s: %zu valid lines\n", names[i], valid);
		}
	}
	for (size_t i = 0; i < NIMPLS; i++)
		if (best[i] >= 0)
			printf("%-6s %.3f s CPU (best of %d)  %.0f MB/s\n", names[i], best[i], rounds,
			       (double)st.st_size / best[i] / 1e6);
	munmap((void *)data, (size_t)st.st_size);
	close(fd);
	return 0;
}
