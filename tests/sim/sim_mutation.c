/* The planted bugs (core/ac_mutation.h): one at a time, named by
 * SIM_MUTATION or --mutation. Each stands for a data-loss bug agentctl had
 * or could have at that place; docs/RELIABILITY.md lists how many seeds
 * the simulator needs to catch each. */
#include "sim.h"

#include "ac_mutation.h"

#include <string.h>

static const char *const names[] = {
	/* a change published without comparing the file first (the
	 * compaction of issue 10, the pause overwritten between a read and
	 * a rename) */
	"publish_without_compare",
	/* the folder not fsynced after the exchange: acknowledged, then
	 * lost with the power */
	"swap_dir_not_synced",
	/* a dead writer's torn line not ended before the next append (the
	 * merged records of D1) */
	"journal_no_torn_repair",
	/* journal.fsync "always" not honoured */
	"journal_no_fsync",
	/* a lock whose holder is dead kept until it is old */
	"lock_dead_holder_kept",
	/* gc removing an archive the session names: its reading of the
	 * session at planning trusted, not re-read under the session's lock,
	 * so an archive a compaction named since goes (ac_gc_files.c
	 * hold_owner(); caught by "compact") */
	"archive_deleted_after_publish",
	/* gc not taking the session's lock, so a fresh archive is kept only
	 * by its age on gc's own clock: a host whose clock runs ahead removes
	 * the archive a compaction is about to name (ac_gc_files.c
	 * hold_owner(); caught by "compact", whose gc runs 20 min ahead) */
	"gc_clock_ahead",
	/* a compensation recorded only after it exited, not as started
	 * before it runs: a kill between the two runs it again on the retry
	 * (ac_checkpoint_rollback.c run_compensations(); caught by
	 * "checkpoint") */
	"compensation_recorded_after_exit",
	/* a workspace rollback's intent recorded after its files, not
	 * before the first: a kill among them leaves old and new files mixed
	 * with nothing that says which (ac_git_rollback.c ac_git_undo();
	 * caught by "ops") */
	"ops_intent_after_files",
	/* a rollback run again after a kill just after its snapshot takes
	 * that snapshot (the user's untracked files in it) for what git knew
	 * before, and removes them (ac_git_rollback.c load_states(); found
	 * by "ops", seed 20) */
	"rerun_trusts_stopped_snapshot",
	NULL,
};

static const char *active;

void sim_mutation_set(const char *name)
{
	active = name && name[0] ? name : NULL;
}

const char *const *sim_mutation_names(void)
{
	return names;
}

bool ac_sim_mutation(const char *name)
{
	return active && !strcmp(active, name);
}
