/*
 * pairtime: times two commands in alternation, for bench/compare.sh.
 *
 *   pairtime RUNS WARMUP 'COMMAND A' ['COMMAND B']
 *   pairtime --protocol      prints 2 (the fields below; 1 had only seven)
 *
 * A command line is split into words as a shell would (quotes and
 * variables), never through a shell: wordexp(3) with command substitution
 * refused. A run of A and a run of B make a pair; the order inside a pair
 * alternates so that neither side always runs on a cache the other warmed.
 * Each command's standard output is read through a pipe and discarded here
 * (not sent to /dev/null, where GNU grep stops at its first match), unless
 * the line ends in " >/dev/null": then it goes there, as a user's
 * `cat FILE >/dev/null` does (a pipe would time the copy into it too).
 *
 * Prints one line of tab-separated fields:
 *   a_median_s a_min_s a_maxrss_kib b_median_s b_min_s b_maxrss_kib
 *   median_of_pair_ratios min_of_pair_ratios max_of_pair_ratios
 *   a_median_cpu_s b_median_cpu_s
 * (cpu: user + system time of the command and its children; the b_ fields
 * and the ratios are "-" without COMMAND B). Exits 1 when a
 * command could not run, died of a signal or exited with a status above 1
 * (1 is grep's "nothing matched"), naming it on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

enum { MAX_RUNS = 1000 };

typedef struct {
	const char *line;
	wordexp_t words;
	int to_null; /* the line ended in " >/dev/null" */
	double seconds[MAX_RUNS];
	double cpu_seconds[MAX_RUNS];
	long maxrss_kib;
} timed_command;

static const char TO_NULL[] = " >/dev/null";

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int split_command(timed_command *cmd)
{
	size_t len = strlen(cmd->line), tail = sizeof TO_NULL - 1;
	char *words = strdup(cmd->line);
	if (!words) {
		perror("pairtime");
		return -1;
	}
	/* wordexp refuses '>': the redirection is taken off here. */
	if (len > tail && !strcmp(words + len - tail, TO_NULL)) {
		words[len - tail] = '\0';
		cmd->to_null = 1;
	}
	int rc = wordexp(words, &cmd->words, WRDE_NOCMD | WRDE_SHOWERR);
	free(words);
	if (rc != 0 || cmd->words.we_wordc == 0) {
		fprintf(stderr, "pairtime: cannot split command: %s\n", cmd->line);
		return -1;
	}
	return 0;
}

static void discard_output(int fd)
{
	static char sink[1 << 20];
	for (;;) {
		ssize_t n = read(fd, sink, sizeof sink);
		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
}

static void exec_child(timed_command *cmd, int out_fd)
{
	int null_fd = open("/dev/null", O_RDONLY);
	if (null_fd >= 0) {
		dup2(null_fd, STDIN_FILENO);
		close(null_fd);
	}
	if (cmd->to_null) {
		close(out_fd);
		out_fd = open("/dev/null", O_WRONLY);
		if (out_fd < 0)
			_exit(127);
	}
	dup2(out_fd, STDOUT_FILENO);
	close(out_fd);
	execvp(cmd->words.we_wordv[0], cmd->words.we_wordv);
	fprintf(stderr, "pairtime: cannot run %s: %s\n", cmd->words.we_wordv[0],
	        strerror(errno));
	_exit(127);
}

/* One run: wall time from fork to the child's exit, output drained. */
static int run_once(timed_command *cmd, int run)
{
	int pipe_fds[2];
	if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
		perror("pairtime: pipe");
		return -1;
	}
	double start = now_seconds();
	pid_t pid = fork();
	if (pid < 0) {
		perror("pairtime: fork");
		return -1;
	}
	if (pid == 0) {
		close(pipe_fds[0]);
		exec_child(cmd, pipe_fds[1]);
	}
	close(pipe_fds[1]);
	discard_output(pipe_fds[0]);
	close(pipe_fds[0]);
	int status = 0;
	struct rusage usage;
	while (wait4(pid, &status, 0, &usage) < 0) {
		if (errno != EINTR) {
			perror("pairtime: wait4");
			return -1;
		}
	}
	double elapsed = now_seconds() - start;
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
		fprintf(stderr, "pairtime: `%s` failed (%s %d)\n", cmd->line,
		        WIFEXITED(status) ? "exit status" : "signal",
		        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -1;
	}
	if (run >= 0) {
		cmd->seconds[run] = elapsed;
		cmd->cpu_seconds[run] =
			(double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 +
			(double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;
		if (usage.ru_maxrss > cmd->maxrss_kib)
			cmd->maxrss_kib = usage.ru_maxrss;
	}
	return 0;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *values, int n)
{
	qsort(values, (size_t)n, sizeof *values, compare_doubles);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/* The least (sign 1) or the greatest (sign -1) of the values. */
static double extreme(const double *values, int n, int sign)
{
	double m = values[0];
	for (int i = 1; i < n; i++)
		if (sign * values[i] < sign * m)
			m = values[i];
	return m;
}

static int parse_count(const char *text, int low, int high, int *out)
{
	char *end = NULL;
	long value = strtol(text, &end, 10);
	if (end == text || *end != '\0' || value < low || value > high)
		return -1;
	*out = (int)value;
	return 0;
}

int main(int argc, char **argv)
{
	int runs = 0, warmup = 0;
	if (argc == 2 && !strcmp(argv[1], "--protocol")) {
		puts("2");
		return 0;
	}
	if (argc < 4 || argc > 5 || parse_count(argv[1], 1, MAX_RUNS, &runs) ||
	    parse_count(argv[2], 0, MAX_RUNS, &warmup)) {
		fprintf(stderr, "usage: pairtime RUNS(1-%d) WARMUP 'COMMAND A' "
		                "['COMMAND B']\n", MAX_RUNS);
		return 2;
	}
	static timed_command commands[2];
	int count = argc - 3;
	for (int c = 0; c < count; c++) {
		commands[c].line = argv[3 + c];
		if (split_command(&commands[c]))
			return 1;
	}
	for (int w = 0; w < warmup; w++)
		for (int c = 0; c < count; c++)
			if (run_once(&commands[c], -1))
				return 1;
	double ratios[MAX_RUNS];
	for (int r = 0; r < runs; r++) {
		for (int k = 0; k < count; k++) {
			int c = (r % 2) ? count - 1 - k : k;
			if (run_once(&commands[c], r))
				return 1;
		}
		if (count == 2)
			ratios[r] = commands[0].seconds[r] / commands[1].seconds[r];
	}
	for (int c = 0; c < 2; c++) {
		if (c < count) {
			double least = extreme(commands[c].seconds, runs, 1);
			printf("%.6f\t%.6f\t%ld\t", median(commands[c].seconds, runs),
			       least, commands[c].maxrss_kib);
		} else {
			printf("-\t-\t-\t");
		}
	}
	if (count == 2)
		printf("%.4f\t%.4f\t%.4f", median(ratios, runs), extreme(ratios, runs, 1),
		       extreme(ratios, runs, -1));
	else
		printf("-\t-\t-");
	for (int c = 0; c < 2; c++) {
		if (c < count)
			printf("\t%.6f", median(commands[c].cpu_seconds, runs));
		else
			printf("\t-");
	}
	putchar('\n');
	for (int c = 0; c < count; c++)
		wordfree(&commands[c].words);
	return 0;
}
