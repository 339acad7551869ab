/* Planted bugs for the simulator (tests/sim/, docs/RELIABILITY.md): each
 * past data-loss bug is a switch at the place it was fixed, so the
 * simulator can show it still catches it. Only a build with
 * AC_SIM_MUTATIONS (the simulator's own copy of the core) can turn one
 * on; in the library every AC_MUTATION() is the constant false. */
#ifndef AC_MUTATION_H
#define AC_MUTATION_H

#include <stdbool.h>

#ifdef AC_SIM_MUTATIONS
/* True when SIM_MUTATION names this mutation (tests/sim/sim_mutation.c). */
bool ac_sim_mutation(const char *name);
#define AC_MUTATION(name) ac_sim_mutation(name)
#else
#define AC_MUTATION(name) false
#endif

#endif
