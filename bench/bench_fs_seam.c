/* What the file-system seam (agentctl/sys/ac_fs.h) costs a system call:
 * fstat(2) and a 1-byte pread(2) called directly and through the seam's
 * kernel table (the indirect call every core protocol call now makes),
 * in alternating rounds so that load falls on both alike.
 *   bench_fs_seam [CALLS_PER_ROUND] [ROUNDS]
 * Prints the median ns per call of each and the difference. */
#include "ac_fs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 200000;
	int rounds = argc > 2 ? atoi(argv[2]) : 21;
	const ac_fs *fs = ac_fs_real();
	/* volatile: the compiler may not see through the table either */
	const ac_fs *volatile seam = fs;
	double *direct = calloc((size_t)rounds, sizeof(double));
	double *through = calloc((size_t)rounds, sizeof(double));
	int fd = open("/proc/self/exe", O_RDONLY);
	struct stat st;
	char byte;

	if (fd < 0 || !direct || !through)
		return 1;
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ns();

		for (long i = 0; i < calls; i++) {
			fstat(fd, &st);
			(void)!pread(fd, &byte, 1, 0);
		}
		direct[r] = (now_ns() - t0) / (double)(2 * calls);
		t0 = now_ns();
		for (long i = 0; i < calls; i++) {
			seam->fstat(seam->ctx, fd, &st);
			seam->pread(seam->ctx, fd, &byte, 1, 0);
		}
		through[r] = (now_ns() - t0) / (double)(2 * calls);
	}
	qsort(direct, (size_t)rounds, sizeof(double), compare);
	qsort(through, (size_t)rounds, sizeof(double), compare);
	printf("direct %.1f ns/call, through the seam %.1f ns/call, difference %+.1f ns "
	       "(%+.2f%%), medians of %d rounds of %ld fstat+pread pairs\n",
	       direct[rounds / 2], through[rounds / 2], through[rounds / 2] - direct[rounds / 2],
	       100.0 * (through[rounds / 2] - direct[rounds / 2]) / direct[rounds / 2], rounds,
	       calls);
	close(fd);
	free(direct);
	free(through);
	return 0;
}
