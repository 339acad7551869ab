/* The runtime half of checkpoints (seed 002, Koog's Persistence): the
 * provider a workspace uses, automatic persistence per session, and the
 * execution point (node, input, history) that setExecutionPoint and a
 * rollback restore.
 *
 * The execution point lives in the session file, in the seed's format plus
 * one metadata key other writers keep untouched:
 *   metadata.executionPoint = {"nodeId", "lastInput", "lastInputType",
 *                              "checkpointId" (after a rollback), "at"}
 * Automatic persistence is asked for per session:
 *   metadata.persistence = {"automatic": true}
 * and makes a checkpoint after every completed turn (record-turn). */
#ifndef AC_CHECKPOINT_RUNTIME_H
#define AC_CHECKPOINT_RUNTIME_H

#include "ac_checkpoint.h"
#include "ac_workspace.h"

#include <jansson.h>
#include <stdbool.h>

/* The provider the workspace's configuration names ("checkpoint.provider":
 * "file", the default, in checkpointDir; "none", the seed's
 * NoPersistenceStorageProvider, which saves and lists nothing). */
int ac_checkpoint_store_open(ac_checkpoint_store **out, const ac_workspace *ws);

/* True when the provider keeps nothing ("none"). */
bool ac_checkpoint_store_is_none(const ac_checkpoint_store *store);

/* Puts the execution point into a session document's metadata (creating
 * it): node and input_type may be NULL (left out), input NULL is JSON
 * null, checkpoint_id NULL is left out. 0, AC_ECORRUPT (metadata is not an
 * object) or AC_ENOMEM. */
int ac_checkpoint_put_execution_point(json_t *root, const char *node, const json_t *input,
				      const char *input_type, const char *checkpoint_id);

/* setExecutionPoint: sets session session_id's execution point and, when
 * history is not NULL, replaces its conversation with history (an array of
 * messages). A compare-and-swap on the file (ac_session_update): another
 * writer's save is never lost. */
int ac_checkpoint_set_execution_point(const char *sessions_dir, const char *session_id,
				      const char *node, const json_t *input,
				      const char *input_type, const json_t *history);

/* Whether the session asked for automatic persistence. */
bool ac_checkpoint_automatic(const json_t *session_root);

/* The change ac_checkpoint_set_automatic() makes, as an ac_session_update()
 * callback (ctx: a bool, on or off), for any store that changes a session
 * document that way: metadata.persistence.automatic; AC_SESSION_UNCHANGED
 * when it says so already. */
int ac_checkpoint_automatic_change(json_t *root, void *ctx);

/* Turns automatic persistence for session_id on or off. */
int ac_checkpoint_set_automatic(const char *sessions_dir, const char *session_id, bool on);

/* After a completed turn: when the session asked for automatic persistence
 * and store keeps checkpoints, saves one (node "turn-<turns>"); *out_id
 * (may be NULL) receives its id, or NULL when none was due. */
int ac_checkpoint_after_turn(char **out_id, ac_checkpoint_store *store,
			     const char *sessions_dir, const char *session_id);

/* The same for a session document the caller read (root, borrowed: a
 * database store's session.get), saved with ac_checkpoint_create_from(). */
int ac_checkpoint_after_turn_from(char **out_id, ac_checkpoint_store *store,
				  const char *session_id, const json_t *root);

#endif
