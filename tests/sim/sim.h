/* The deterministic simulator of agentctl's file protocols (issue 30,
 * docs/RELIABILITY.md "Simulation").
 *
 * One seed decides everything: which actor runs next, what each system
 * call costs in simulated time, when a process is killed or the machine
 * loses power, which write fails. Actors are threads, but only one runs at
 * a time: each call through the file-system seam (agentctl/sys/ac_fs.h)
 * hands control back to the scheduler, which picks the actor whose next
 * step is due first. The same seed therefore replays the same run, step
 * for step.
 *
 * Files live in an in-memory tree (sim_fs.c) that keeps, for every file
 * and folder, what was written apart from what was made durable (fsync):
 * a power loss keeps only the durable state, plus whatever the "disk"
 * happened to write back on its own (decided by the seed, per file and per
 * folder, so a rename can survive without its data). */
#ifndef SIM_H
#define SIM_H

#include "ac_fs.h"

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- randomness (sim_sched.c) ---- */

uint64_t sim_rand(void);                  /* the seed's next number */
uint64_t sim_below(uint64_t n);           /* 0 <= x < n (n > 0) */
bool sim_chance(double p);                /* true with probability p */
/* The same from the mishaps' own stream (faults, clock jumps). */
uint64_t sim_mishap_below(uint64_t n);
bool sim_mishap_chance(double p);

/* ---- the in-memory file system (sim_fs.c) ---- */

void sim_fs_reset(void);
/* The file's current bytes (allocated, NUL-ended), or NULL when absent. */
char *sim_fs_slurp(const char *path, size_t *out_len);
/* Creates or replaces path with data, durable at once (the set-up). */
int sim_fs_put(const char *path, const char *data, size_t len);
int sim_fs_mkdirs(const char *path);
/* Calls fn with each name in folder dir (current state, unsorted). */
void sim_fs_list(const char *dir, void (*fn)(const char *name, void *ctx), void *ctx);
/* Changes with every change to the tree: equal, nothing changed. */
uint64_t sim_fs_generation(void);
/* Closes every descriptor of pid (its flocks go with them). */
void sim_fs_drop_pid(pid_t pid);
/* A power loss: every file and folder goes back to its durable state,
 * except those the disk wrote back on its own (the seed's coin). */
void sim_fs_power_loss(void);
/* The table the core calls through while the simulator runs. */
extern const ac_fs sim_fs_table; /* sim_ops.c */
/* The operations, without a step (the set-up's and the checks' own). */
int sim_fs_openat(int dirfd, const char *path, int flags, mode_t mode);
int sim_fs_close(int fd);
ssize_t sim_fs_read(int fd, void *buf, size_t len);
ssize_t sim_fs_pread(int fd, void *buf, size_t len, off_t at);
ssize_t sim_fs_write(int fd, const void *buf, size_t len);
ssize_t sim_fs_pwrite(int fd, const void *buf, size_t len, off_t at);
int sim_fs_fsync(int fd);
int sim_fs_ftruncate(int fd, off_t len);
int sim_fs_fstat(int fd, struct stat *st);
int sim_fs_fstatat(int dirfd, const char *path, struct stat *st, int flags);
int sim_fs_renameat2(int from_dir, const char *from, int to_dir, const char *to,
		     unsigned int flags);
int sim_fs_linkat(int from_dir, const char *from, int to_dir, const char *to, int flags);
int sim_fs_unlinkat(int dirfd, const char *path, int flags);
int sim_fs_mkdirat(int dirfd, const char *path, mode_t mode);
int sim_fs_flock(int fd, int operation);
int sim_fs_fcntl(int fd, int cmd, int arg);
void *sim_fs_fdopendir(int fd);
const char *sim_fs_readdir(void *dir);
int sim_fs_closedir(void *dir);
char *sim_fs_realpath(const char *path);
/* Faults: a write or fsync of an agentctl actor fails with this errno
 * with probability sim_fault_rate (0: never). */
extern double sim_fault_rate;
/* Holds faults back while the world outside agentctl writes (a
 * compensation's effect): only agentctl's own calls fail. */
void sim_fs_faults_hold(bool held);

/* ---- actors and the scheduler (sim_sched.c) ---- */

typedef struct sim_actor sim_actor;
typedef void (*sim_role_fn)(sim_actor *a);

struct sim_actor {
	int index;         /* in the world's table */
	const char *role;  /* "agentctl-append", "seed000", ... */
	int role_slot;     /* which of the scenario's roles this incarnation plays */
	pid_t pid;         /* simulated; a restart gets a new one */
	sim_role_fn run;
	bool agentctl;     /* runs the library (faults are injected into it) */
	bool crashable;
	int64_t wake_ns;   /* when its next step is due */
	int64_t clock_skew_ns; /* its wall clock minus true time */
	enum { A_WAITING, A_RUNNING, A_DONE, A_DEAD } state;
	pthread_t thread;
	int ops_left;      /* the role's operations still to do */
};

/* The actor whose thread is calling (NULL on the scheduler's thread). */
sim_actor *sim_current(void);
/* One step of the calling actor: costs cost_ns of simulated time, and
 * the scheduler may run others (or kill this one) before it returns. */
void sim_step(int64_t cost_ns, const char *what, const char *path);
int64_t sim_now_ns(void);
void sim_sleep_ns(int64_t ns);
bool sim_pid_alive(pid_t pid);
/* The calling actor finished one of its role's operations. */
void sim_op_done(sim_actor *a);

typedef struct {
	uint64_t seed;
	int max_steps;        /* the run's length in steps */
	int ops_per_actor;    /* operations each role does */
	double kill_rate;     /* chance a step of a crashable actor is its last */
	int power_losses;     /* at most this many */
	double power_loss_rate;
	double fault_rate;    /* chance an agentctl write or fsync fails (ENOSPC, EIO) */
	double clock_jump_rate; /* chance a step first jumps its process's wall clock */
	bool verbose;         /* print every step */
} sim_config;

typedef struct {
	const char *name;
	const char *about;
	/* Builds the files and the roles; returns the role count. */
	int (*setup)(void);
	/* Checks the invariants; a violation fills why and returns false. */
	bool (*check)(char *why, size_t size, bool after_power_loss);
	/* After a power loss: forget the acknowledgements the scenario's
	 * promise does not cover (writers that never fsync). */
	void (*power_lost)(void);
	bool power_can_fail; /* false: a writer that never fsyncs is in it */
	/* A scenario that runs itself instead of the scheduler's actors
	 * (ops: real processes over the kernel's file system); NULL for the
	 * others. Returns as sim_run() does. */
	int (*run)(const sim_config *config);
} sim_scenario;

/* Adds a role that plays fn; restarts after a kill play it again. */
void sim_add_role(const char *name, sim_role_fn fn, bool agentctl, bool crashable, int ops);
/* Each role's operations, in percent of what its scenario asks (100; a
 * shrinking failure tries fewer). */
extern int sim_ops_percent;
/* Runs one seed of scenario; 0 when every check held, 1 with the
 * violation printed (the trace's tail and the seed). */
int sim_run(const sim_scenario *scenario, const sim_config *config);

/* The trace: every step, kept for the report of a failure. */
void sim_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints a violation with the trace's tail, as sim_run() does (for a
 * scenario's own run). */
void sim_report_violation(const sim_config *config, const char *scenario, int step,
			  const char *why);

/* ---- scenarios (sim_scenarios.c) and planted bugs (sim_mutation.c) ---- */

/* What the scenarios share (sim_scenarios.c): the acknowledgements, each
 * a marker that must be found, and agentctl's appender on SIM_SESSION. */
#define SIM_SESSIONS "/ws/.agent/sessions"
#define SIM_SESSION SIM_SESSIONS "/s1.json"
void sim_ack(sim_actor *a, const char *marker, bool durable);
void sim_acks_reset(void);
int sim_acks_count(void);
const char *sim_ack_marker(int k);
void sim_forget_undurable(void);
void sim_agentctl_append(sim_actor *a);
/* One appending operation of a: messages (taken) appended to SIM_SESSION,
 * marker acknowledged when that succeeded, then a pause. */
void sim_append_acked(sim_actor *a, const char *marker, json_t *messages);
extern const char sim_initial_session[];
extern const size_t sim_initial_session_len;

/* Loads path's JSON from the tree, without a step (NULL, with why, when
 * absent or not JSON; sim_scenario_compact.c). */
json_t *sim_load_json(const char *path, char *why, size_t size);

/* The compaction scenario (sim_scenario_compact.c). */
int sim_compact_setup(void);
bool sim_compact_check(char *why, size_t size, bool after_power_loss);

/* The checkpoint scenario (sim_scenario_checkpoint.c). */
int sim_checkpoint_setup(void);
bool sim_checkpoint_check(char *why, size_t size, bool after_power_loss);

/* The sandbox scenario (sim_scenario_sandbox.c). */
int sim_sandbox_setup(void);
bool sim_sandbox_check(char *why, size_t size, bool after_power_loss);
void sim_sandbox_power_lost(void);

/* The ops scenario (sim_scenario_ops.c): its own run. */
int sim_ops_run(const sim_config *config);

/* The kernel's file system as the seam, each write a kill point
 * (sim_real_seam.c, for the ops scenario). install: for the workspace
 * (left out of traced paths) with the seed's random bytes, libgit2's
 * writes counted and its signatures at the simulated time. arm: in an
 * attempt's process, die by SIGKILL at kill point kill_at (-1: count,
 * never die; 0: the set-up, not counted). points: how many the last
 * armed attempt passed. drain: the points' trace into sim_trace(). */
int sim_real_seam_install(const char *workspace, uint64_t seed);
void sim_real_seam_arm(long kill_at);
long sim_real_seam_points(void);
void sim_real_seam_drain(void);

extern const sim_scenario sim_scenarios[];
extern const size_t sim_nscenarios;
/* The SIM_MUTATION in force (NULL: none). */
void sim_mutation_set(const char *name);
const char *const *sim_mutation_names(void);

#endif
