/* The simulator's scheduler: actors are threads, one runs at a time, and
 * the seed alone decides the order.
 *
 * An actor runs until its next step through the seam (sim_step()), which
 * sets when that step is due (now plus the step's simulated cost) and
 * hands control back. The scheduler then picks the actor due first (ties
 * by the seed), and before resuming it may instead kill it (its thread is
 * parked for good, its descriptors closed, a new process plays its role
 * later) or cut the power (every actor killed, the files put back to what
 * was durable, then every role restarted). Invariants are checked after
 * every step. Parked threads die with the process: each seed runs in a
 * child process of its own (sim_main.c). */
#include "sim.h"

#include "ac_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ACTORS 256
#define MAX_ROLES 16
#define MAIN_TURN (-1)

typedef struct {
	const char *name;
	sim_role_fn run;
	bool agentctl, crashable;
	int ops;      /* operations each incarnation is asked to do */
	int ops_done; /* by every incarnation so far */
	int64_t restart_at; /* a killed role's next incarnation, or -1 */
} role;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* One condition a thread: a handover wakes only the thread whose turn it
 * is (parked threads of killed actors are never woken again). */
static pthread_cond_t main_wakes = PTHREAD_COND_INITIALIZER;
static pthread_cond_t actor_wakes[MAX_ACTORS];
static int turn = MAIN_TURN;
static sim_actor actors[MAX_ACTORS];
static int nactors;
static role roles[MAX_ROLES];
static int nroles;
static int64_t now_ns;
static uint64_t rng_state;
/* Faults and clock jumps draw from a stream of their own, so that turning
 * them on or off leaves every other choice of a seed as it was. */
static uint64_t mishap_state;
static pid_t next_pid;
static __thread sim_actor *current;

/* The trace: every line, for the report of a failure. */
static char *trace_text;
static size_t trace_len, trace_cap;
static bool trace_echo;

/* splitmix64: small, and every seed gives its own stream. */
static uint64_t next_of(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t sim_rand(void)
{
	return next_of(&rng_state);
}

uint64_t sim_mishap_below(uint64_t n)
{
	return next_of(&mishap_state) % n;
}

bool sim_mishap_chance(double p)
{
	return (double)(next_of(&mishap_state) >> 11) * 0x1.0p-53 < p;
}

uint64_t sim_below(uint64_t n)
{
	return sim_rand() % n;
}

bool sim_chance(double p)
{
	return (double)(sim_rand() >> 11) * 0x1.0p-53 < p;
}

void sim_trace(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n, head;

	head = snprintf(line, sizeof(line), "%10.3f ms ", (double)now_ns / 1e6);
	va_start(ap, fmt);
	n = vsnprintf(line + head, sizeof(line) - (size_t)head - 1, fmt, ap);
	va_end(ap);
	n = n < 0 ? 0 : n + head;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (trace_len + (size_t)n + 1 > trace_cap) {
		trace_cap = (trace_len + (size_t)n + 1) * 2;
		if (!(trace_text = realloc(trace_text, trace_cap)))
			abort();
	}
	memcpy(trace_text + trace_len, line, (size_t)n);
	trace_len += (size_t)n;
	trace_text[trace_len] = '\0';
	if (trace_echo)
		fwrite(line, 1, (size_t)n, stdout);
}

sim_actor *sim_current(void)
{
	return current;
}

int64_t sim_now_ns(void)
{
	return now_ns;
}

bool sim_pid_alive(pid_t pid)
{
	for (int i = 0; i < nactors; i++)
		if (actors[i].pid == pid)
			return actors[i].state != A_DEAD && actors[i].state != A_DONE;
	return pid == 1; /* the scheduler itself */
}

/* Hands the turn to who and waits (on the caller's side) until it is the
 * caller's again. */
static pthread_cond_t *wakes_of(int who)
{
	return who == MAIN_TURN ? &main_wakes : &actor_wakes[who];
}

static void pass_turn(int who, int me)
{
	pthread_mutex_lock(&lock);
	turn = who;
	pthread_cond_signal(wakes_of(who));
	while (turn != me)
		pthread_cond_wait(wakes_of(me), &lock);
	pthread_mutex_unlock(&lock);
}

void sim_step(int64_t cost_ns, const char *what, const char *path)
{
	sim_actor *a = current;

	if (!a)
		return; /* the scheduler's own reads are not steps */
	a->wake_ns = now_ns + cost_ns;
	pass_turn(MAIN_TURN, a->index);
	/* Running again: the scheduler has set now to our wake time. */
	if (what)
		sim_trace("%s/%d %s %s", a->role, (int)a->pid, what, path ? path : "");
}

void sim_sleep_ns(int64_t ns)
{
	sim_step(ns, NULL, NULL);
}

static void *actor_main(void *arg)
{
	sim_actor *a = arg;

	current = a;
	pthread_mutex_lock(&lock);
	while (turn != a->index)
		pthread_cond_wait(wakes_of(a->index), &lock);
	pthread_mutex_unlock(&lock);
	a->run(a);
	a->state = A_DONE;
	sim_trace("%s/%d done", a->role, (int)a->pid);
	pthread_mutex_lock(&lock);
	turn = MAIN_TURN;
	pthread_cond_signal(&main_wakes);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int sim_ops_percent = 100;

void sim_add_role(const char *name, sim_role_fn fn, bool agentctl, bool crashable, int ops)
{
	if (nroles == MAX_ROLES)
		abort();
	ops = ops * sim_ops_percent / 100;
	roles[nroles++] = (role){name, fn, agentctl, crashable, ops > 0 ? ops : 1, 0, -1};
}

/* A new process plays role r, from now. */
static void start_actor(int r)
{
	sim_actor *a;

	if (nactors == MAX_ACTORS)
		return; /* enough incarnations for one seed */
	a = &actors[nactors];
	memset(a, 0, sizeof(*a));
	pthread_cond_init(&actor_wakes[nactors], NULL);
	a->index = nactors++;
	a->role = roles[r].name;
	a->role_slot = r;
	a->pid = next_pid++;
	a->run = roles[r].run;
	a->agentctl = roles[r].agentctl;
	a->crashable = roles[r].crashable;
	a->wake_ns = now_ns + (int64_t)sim_below(2000000);
	/* Clocks that disagree: up to 3 s either way, per process. */
	a->clock_skew_ns = sim_chance(0.3) ? (int64_t)sim_below(6000000000ULL) - 3000000000LL : 0;
	a->ops_left = roles[r].ops - roles[r].ops_done;
	a->state = A_WAITING;
	roles[r].restart_at = -1;
	sim_trace("start %s/%d (clock %+.3f s)", a->role, (int)a->pid,
		  (double)a->clock_skew_ns / 1e9);
	if (pthread_create(&a->thread, NULL, actor_main, a) != 0)
		abort();
	pthread_detach(a->thread);
}

/* An actor killed where it stands: its thread is never resumed. */
static void kill_actor(sim_actor *a, int64_t restart_after)
{
	a->state = A_DEAD;
	sim_fs_drop_pid(a->pid);
	sim_trace("KILL %s/%d", a->role, (int)a->pid);
	if (roles[a->role_slot].ops_done < roles[a->role_slot].ops && restart_after >= 0)
		roles[a->role_slot].restart_at = now_ns + restart_after;
}

void sim_op_done(sim_actor *a)
{
	roles[a->role_slot].ops_done++;
	a->ops_left--;
}

void sim_report_violation(const sim_config *config, const char *scenario, int step,
			  const char *why)
{
	const char *tail = trace_text ? trace_text : "";
	size_t lines = 0;

	/* The last 80 lines of the trace. */
	for (const char *p = tail + trace_len; p > tail; p--)
		if (p[-1] == '\n' && ++lines > 80) {
			tail = p;
			break;
		}
	printf("VIOLATION in scenario %s, seed %llu, at step %d (%.3f ms): %s\n", scenario,
	       (unsigned long long)config->seed, step, (double)now_ns / 1e6, why);
	printf("--- the trace's last steps ---\n%s--- end of trace ---\n", tail);
}

int sim_run(const sim_scenario *scenario, const sim_config *config)
{
	char why[1024] = "";
	int losses = 0, steps = 0;

	rng_state = config->seed * 0x2545F4914F6CDD1DULL + 1;
	mishap_state = config->seed * 0x9E3779B97F4A7C15ULL + 7;
	now_ns = 1700000000LL * 1000000000LL; /* a wall-clock-like start */
	next_pid = 1000;
	nactors = nroles = 0;
	trace_len = 0;
	trace_echo = config->verbose;
	if (scenario->run)
		return scenario->run(config);
	sim_fs_reset();
	sim_fault_rate = config->fault_rate;
	if (ac_fs_use(&sim_fs_table) != 0) {
		printf("sim: %s\n", ac_error_last());
		return 2;
	}
	scenario->setup();
	for (int r = 0; r < nroles; r++)
		start_actor(r);
	while (steps < config->max_steps) {
		sim_actor *next = NULL;
		int ties = 0;

		for (int r = 0; r < nroles; r++)
			if (roles[r].restart_at >= 0 && roles[r].restart_at <= now_ns)
				start_actor(r);
		for (int i = 0; i < nactors; i++) {
			sim_actor *a = &actors[i];

			if (a->state != A_WAITING)
				continue;
			if (!next || a->wake_ns < next->wake_ns) {
				next = a;
				ties = 1;
			} else if (a->wake_ns == next->wake_ns && sim_below((uint64_t)++ties) == 0) {
				next = a;
			}
		}
		if (!next) {
			int64_t soonest = -1;

			for (int r = 0; r < nroles; r++)
				if (roles[r].restart_at >= 0 &&
				    (soonest < 0 || roles[r].restart_at < soonest))
					soonest = roles[r].restart_at;
			if (soonest < 0)
				break; /* every role has done its operations */
			now_ns = soonest;
			continue;
		}
		if (next->wake_ns > now_ns)
			now_ns = next->wake_ns;
		if (scenario->power_can_fail && losses < config->power_losses &&
		    sim_chance(config->power_loss_rate)) {
			losses++;
			sim_trace("POWER LOSS");
			for (int i = 0; i < nactors; i++)
				if (actors[i].state == A_WAITING)
					kill_actor(&actors[i], -1);
			sim_fs_power_loss();
			if (scenario->power_lost)
				scenario->power_lost();
			if (!scenario->check(why, sizeof(why), true))
				goto failed;
			for (int r = 0; r < nroles; r++)
				if (roles[r].ops_done < roles[r].ops)
					roles[r].restart_at = now_ns + 1000000 + (int64_t)sim_below(50000000);
			continue;
		}
		if (next->crashable && steps > 0 && sim_chance(config->kill_rate)) {
			kill_actor(next, 1000000 + (int64_t)sim_below(200000000));
			if (!scenario->check(why, sizeof(why), false))
				goto failed;
			continue;
		}
		/* A wall clock stepped (NTP, an operator's date): up to 10 s
		 * either way; monotonic clocks do not move. */
		if (config->clock_jump_rate > 0 && sim_mishap_chance(config->clock_jump_rate)) {
			int64_t jump = (int64_t)sim_mishap_below(20000000001ULL) - 10000000000LL;

			next->clock_skew_ns += jump;
			sim_trace("CLOCK JUMP %s/%d %+.3f s", next->role, (int)next->pid,
				  (double)jump / 1e9);
		}
		next->state = A_RUNNING;
		pass_turn(next->index, MAIN_TURN);
		if (next->state == A_RUNNING)
			next->state = A_WAITING;
		steps++;
		if (!scenario->check(why, sizeof(why), false))
			goto failed;
	}
	ac_fs_use(NULL);
	return 0;
failed:
	sim_report_violation(config, scenario->name, steps, why);
	return 1;
}
