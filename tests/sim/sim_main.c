/* agentctl-sim: explores seeds of the deterministic simulator (sim.h).
 *
 *   agentctl-sim [--seeds N] [--first S] [--scenario NAME] [--steps N] [--faults R]
 *   agentctl-sim --seed S --scenario NAME [--steps N] [--ops PCT]
 *                [--kill-rate R] [--power-losses N] [--faults R] [--verbose]   (replay)
 *   agentctl-sim --mutations [--seeds N]    (every planted bug caught?)
 *
 * SEEDS and SIM_MUTATION in the environment stand for --seeds and
 * --mutation. Each seed runs in a child process of its own (a killed
 * actor's thread is parked, never resumed: it dies with the child). A
 * failure prints its seed, then the smallest run that still fails it
 * (fewer operations, no kills, power losses or faults where it still
 * fails, cut at the failing step) with its trace and the command that replays it. */
#include "sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
	sim_config config;
	int ops_percent;
	const sim_scenario *scenario;
} run_spec;

typedef struct {
	int status;   /* 0 held, 1 violated, 2 the child itself failed */
	int step;     /* the failing step, from the report */
	char *output; /* what the child printed */
} run_result;

static const char *mutation;

/* Without --faults, every third seed runs with faults (ENOSPC and EIO on
 * agentctl's writes and fsyncs) and the others without, so that a run
 * explores both at no extra cost. */
#define FAULTS_BY_SEED (-1.0)
#define SEED_FAULT_RATE 0.003

static void faults_of_seed(run_spec *spec)
{
	if (spec->config.fault_rate == FAULTS_BY_SEED)
		spec->config.fault_rate = spec->config.seed % 3 == 0 ? SEED_FAULT_RATE : 0;
}

/* Runs spec in a child; its output is captured. */
static run_result run_child(const run_spec *spec)
{
	run_result r = {2, 0, NULL};
	size_t len = 0, cap = 0;
	int pipe_fds[2], wstatus;
	pid_t pid;
	ssize_t n;

	fflush(stdout);
	if (pipe(pipe_fds) != 0 || (pid = fork()) < 0) {
		perror("agentctl-sim");
		exit(2);
	}
	if (pid == 0) {
		close(pipe_fds[0]);
		dup2(pipe_fds[1], STDOUT_FILENO);
		alarm(300); /* a hang is a failure of the simulator, not a pass */
		sim_mutation_set(mutation);
		sim_ops_percent = spec->ops_percent;
		int rc = sim_run(spec->scenario, &spec->config);
		fflush(stdout);
		_exit(rc); /* parked threads and their memory go with the process */
	}
	close(pipe_fds[1]);
	for (;;) {
		if (len + 4096 + 1 > cap && !(r.output = realloc(r.output, cap = 2 * cap + 8192)))
			abort();
		n = read(pipe_fds[0], r.output + len, 4096);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	r.output[len] = '\0';
	close(pipe_fds[0]);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	r.status = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) <= 1 ? WEXITSTATUS(wstatus) : 2;
	{
		const char *at = strstr(r.output, " at step ");

		r.step = at ? atoi(at + 9) : 0;
	}
	return r;
}

static void print_replay(const run_spec *spec)
{
	printf("replay: %s%s%sagentctl-sim --scenario %s --seed %llu --steps %d --ops %d "
	       "--kill-rate %g --power-losses %d --faults %g --verbose\n",
	       mutation ? "SIM_MUTATION=" : "", mutation ? mutation : "", mutation ? " " : "",
	       spec->scenario->name,
	       (unsigned long long)spec->config.seed, spec->config.max_steps, spec->ops_percent,
	       spec->config.kill_rate, spec->config.power_losses, spec->config.fault_rate);
}

/* Greedily makes a failing run smaller while it still fails. */
static void shrink(run_spec *spec, run_result *failed)
{
	static const int percents[] = {50, 25, 12};
	run_spec trial;
	run_result r;

	for (size_t i = 0; i < sizeof(percents) / sizeof(percents[0]); i++) {
		trial = *spec;
		trial.ops_percent = percents[i];
		r = run_child(&trial);
		if (r.status == 1) {
			*spec = trial;
			free(failed->output);
			*failed = r;
		} else {
			free(r.output);
		}
	}
	for (int pass = 0; pass < 3; pass++) {
		trial = *spec;
		if (pass == 0)
			trial.config.kill_rate = 0;
		else if (pass == 1)
			trial.config.power_losses = 0;
		else if (trial.config.fault_rate > 0)
			trial.config.fault_rate = 0;
		else
			continue;
		r = run_child(&trial);
		if (r.status == 1) {
			*spec = trial;
			free(failed->output);
			*failed = r;
		} else {
			free(r.output);
		}
	}
	/* Cut at the failing step: the same run, stopped where it failed. */
	if (failed->step >= 0) {
		trial = *spec;
		trial.config.max_steps = failed->step + 1;
		r = run_child(&trial);
		if (r.status == 1) {
			*spec = trial;
			free(failed->output);
			*failed = r;
		} else {
			free(r.output);
		}
	}
}

static const sim_scenario *scenario_named(const char *name)
{
	for (size_t i = 0; i < sim_nscenarios; i++)
		if (!strcmp(sim_scenarios[i].name, name))
			return &sim_scenarios[i];
	fprintf(stderr, "agentctl-sim: no scenario '%s' (", name);
	for (size_t i = 0; i < sim_nscenarios; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", sim_scenarios[i].name);
	fprintf(stderr, ")\n");
	exit(2);
}

static void usage(void)
{
	fprintf(stderr, "usage: agentctl-sim [--seeds N] [--first S] [--scenario NAME] [--steps N] [--faults R]\n"
			"       agentctl-sim --seed S --scenario NAME [--steps N] [--ops PCT]\n"
			"                    [--kill-rate R] [--power-losses N] [--faults R] [--verbose]\n"
			"       agentctl-sim --mutations [--seeds N]\n");
	exit(2);
}

/* Explores seeds [first, first + n) of the scenarios; the first failure
 * is shrunk and printed. Returns the failing seed's index + 1, or 0. */
static long explore(const run_spec *base, const sim_scenario *only, uint64_t first, long n,
		    bool quiet, const char **out_scenario)
{
	for (long i = 0; i < n; i++) {
		for (size_t s = 0; s < sim_nscenarios; s++) {
			run_spec spec = *base;
			run_result r;

			if (only && only != &sim_scenarios[s])
				continue;
			spec.scenario = &sim_scenarios[s];
			spec.config.seed = first + (uint64_t)i;
			faults_of_seed(&spec);
			r = run_child(&spec);
			if (r.status == 0) {
				free(r.output);
				continue;
			}
			if (!quiet) {
				printf("seed %llu of scenario %s: %s\n",
				       (unsigned long long)spec.config.seed, spec.scenario->name,
				       r.status == 1 ? "VIOLATION" : "the simulator failed");
				if (r.status == 1)
					shrink(&spec, &r);
				fputs(r.output, stdout);
				print_replay(&spec);
			}
			free(r.output);
			if (out_scenario)
				*out_scenario = spec.scenario->name;
			return i + 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	run_spec base = {{0, 4000, 12, 0.004, 2, 0.0008, FAULTS_BY_SEED, 0.0005, false}, 100, NULL};
	const sim_scenario *only = NULL;
	const char *env_seeds = getenv("SEEDS");
	long seeds = env_seeds && *env_seeds ? atol(env_seeds) : 100;
	uint64_t first = 1;
	bool one_seed = false, mutations = false;

	mutation = getenv("SIM_MUTATION");
	if (mutation && !*mutation)
		mutation = NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(arg, "--verbose")) {
			base.config.verbose = true;
			continue;
		}
		if (!strcmp(arg, "--mutations")) {
			mutations = true;
			continue;
		}
		if (!value)
			usage();
		i++;
		if (!strcmp(arg, "--seeds"))
			seeds = atol(value);
		else if (!strcmp(arg, "--first"))
			first = strtoull(value, NULL, 10);
		else if (!strcmp(arg, "--seed"))
			first = strtoull(value, NULL, 10), one_seed = true;
		else if (!strcmp(arg, "--scenario"))
			only = scenario_named(value);
		else if (!strcmp(arg, "--steps"))
			base.config.max_steps = atoi(value);
		else if (!strcmp(arg, "--ops"))
			base.ops_percent = atoi(value);
		else if (!strcmp(arg, "--kill-rate"))
			base.config.kill_rate = atof(value);
		else if (!strcmp(arg, "--power-losses"))
			base.config.power_losses = atoi(value);
		else if (!strcmp(arg, "--faults"))
			base.config.fault_rate = atof(value);
		else if (!strcmp(arg, "--mutation"))
			mutation = value;
		else
			usage();
	}
	if (mutation) {
		bool known = false;

		for (const char *const *m = sim_mutation_names(); *m; m++)
			known = known || !strcmp(*m, mutation);
		if (!known) {
			fprintf(stderr, "agentctl-sim: no mutation '%s'\n", mutation);
			return 2;
		}
	}
	if (one_seed) {
		run_spec spec = base;
		run_result r;

		if (!only)
			usage();
		spec.scenario = only;
		spec.config.seed = first;
		faults_of_seed(&spec);
		if (base.config.verbose) {
			/* In this process: the trace as it happens, even of a hang. */
			int rc;

			sim_mutation_set(mutation);
			sim_ops_percent = spec.ops_percent;
			rc = sim_run(spec.scenario, &spec.config);
			printf("seed %llu of scenario %s: %s\n", (unsigned long long)first,
			       only->name, rc == 0 ? "held" : "VIOLATION");
			fflush(stdout);
			_exit(rc); /* parked threads of killed actors end here */
		}
		r = run_child(&spec);
		fputs(r.output, stdout);
		free(r.output);
		printf("seed %llu of scenario %s: %s\n", (unsigned long long)first, only->name,
		       r.status == 0 ? "held" : "VIOLATION");
		return r.status;
	}
	if (mutations) {
		int missed = 0;

		printf("| mutation | caught by | seeds needed (of %ld) |\n|---|---|---:|\n", seeds);
		for (const char *const *m = sim_mutation_names(); *m; m++) {
			const char *by = NULL;
			long needed;

			mutation = *m;
			needed = explore(&base, only, first, seeds, true, &by);
			printf("| %s | %s | %s%ld |\n", *m, needed ? by : "NOT CAUGHT",
			       needed ? "" : "> ", needed ? needed : seeds);
			missed += needed == 0;
		}
		return missed ? 1 : 0;
	}
	{
		long failed = explore(&base, only, first, seeds, false, NULL);

		if (failed)
			return 1;
		printf("agentctl-sim: %ld seeds x %zu scenarios held%s%s\n", seeds,
		       only ? (size_t)1 : sim_nscenarios, mutation ? " with SIM_MUTATION=" : "",
		       mutation ? mutation : "");
		/* With a mutation planted, holding is the failure. */
		return mutation ? 1 : 0;
	}
}
