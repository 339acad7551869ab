/* The demo's simulated agents (see cli/demo_sim.c). */
#ifndef DEMO_SIM_H
#define DEMO_SIM_H

#include "cli.h"

#include "ac_checkpoint.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define DEMO_AGENTS 3

typedef struct {
	char session[64]; /* the current session's id; "" while idle */
	unsigned next_id; /* the number the next session gets */
	unsigned task;    /* index into the persona's tasks */
	unsigned turns;   /* turns in the current session */
	unsigned limit;   /* turns after which it finishes */
	int64_t idle_until;
	unsigned tool_calls;
} demo_agent;

typedef struct {
	const ac_workspace *ws;
	ac_checkpoint_store *store;
	demo_agent agents[DEMO_AGENTS];
	uint64_t rng;
	unsigned failures;
} demo_sim;

/* Set by SIGINT/SIGTERM once demo_catch_stop_signals() has run. */
extern volatile sig_atomic_t demo_stop_requested;

/* Makes SIGINT and SIGTERM set demo_stop_requested (sleeps return early). */
void demo_catch_stop_signals(void);

/* A first piece of everything (sessions, turns, commits, a checkpoint), so
 * the dashboard's first screen is already full. 0 or -1. */
int demo_sim_seed(demo_sim *s);

/* The forked simulator's whole life: steps with naps until asked to stop;
 * dies with parent; notes go to log_path (NULL: stderr). Never returns. */
void demo_sim_main(demo_sim *s, pid_t parent, const char *title, const char *log_path)
	__attribute__((noreturn));

/* Asks the simulator to stop, reaps it (SIGKILL if it lingers); returns its
 * exit status, or 128 + signal. */
int demo_sim_stop(pid_t pid);

#endif
