/* What the checkpoint files share (core/ac_checkpoint*.c: one module
 * split by concern); not API. */
#ifndef AC_CHECKPOINT_IMPL_H
#define AC_CHECKPOINT_IMPL_H

#include "ac_checkpoint.h"
#include "ac_proc.h"

#include <jansson.h>
#include <stddef.h>

/* The string member key of doc, or "" when it is missing or not a string
 * (ac_checkpoint.c; creating reads message blocks with it too). */
const char *ac_checkpoint_str_member(const json_t *doc, const char *key);

/* The session file's unfolding (ac_checkpoint_unfold.c), an
 * ac_checkpoint_unfold_fn: ctx is one of these, all borrowed. */
typedef struct {
	const char *sessions_dir;
	const char *id;
	const json_t *root; /* the session document the history was read from */
} ac_checkpoint_unfold_file_ctx;

int ac_checkpoint_unfold_file(json_t **out, size_t depth, const json_t *history, void *ctx);

/* Marks the n newest compaction records of root no rollback undid as
 * undone by a rollback at at (ac_checkpoint_rollback.c, when it goes
 * behind them). 0, AC_ECONFLICT (fewer records) or AC_ENOMEM. */
int ac_checkpoint_mark_undone(json_t *root, size_t n, const char *at);

/* The messages a rollback removes: after the first plan->keep of the
 * history it goes back in (unfolded or not). *out: a new array. */
int ac_checkpoint_removed(json_t **out, const ac_checkpoint_plan *plan);

/* Sets root's history to plan->unfolded's first plan->keep messages and
 * marks the compactions it went behind (a rollback behind compactions). */
int ac_checkpoint_unfolded_history(json_t *root, const ac_checkpoint_plan *plan, const char *at);

/* How a rollback runs one compensation (ac_checkpoint_rollback.c): as
 * ac_proc_run_for_session() does, which it is. Only the simulator
 * (tests/sim/) puts another in: a side effect in its simulated tree, so a
 * compensation run twice shows there. */
typedef int (*ac_checkpoint_run_fn)(ac_proc_result *out, const char *const *argv,
				    const char *session_id, const char *cwd, const char *input,
				    size_t input_len, int timeout_ms);
extern ac_checkpoint_run_fn ac_checkpoint_compensation_run;

#endif
