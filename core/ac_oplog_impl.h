/* What the operation log's two files share: ac_oplog.c (record, roll
 * back) and ac_oplog_intent.c (the record of a rollback in progress).
 * Not a public header. */
#ifndef AC_OPLOG_IMPL_H
#define AC_OPLOG_IMPL_H

#include "ac_oplog.h"
#include "ac_oplog_intent.h"

/* The seed's commit message for an operation of type with details
 * (ac_oplog_message.c), appended to out. 0 or AC_ENOMEM. */
int ac_oplog_commit_message(ac_buf *out, const char *type, const json_t *details);

/* How long a rollback or record waits for another one's git lock. */
#define AC_OPLOG_LOCK_TIMEOUT_MS 30000

/* Writes ws's intent durably (the file, then its folder, synced) for a
 * rollback (revert: a revert) of target with the rollback commit's
 * message and plan (snapshot and target_tree set). 0 or AC_E*, naming the
 * file. */
int ac_oplog_intent_write(const ac_workspace *ws, const ac_op *target, bool revert,
			  const char *message, const ac_git_rollback_result *plan);

/* Removes ws's intent (and syncs its folder). 0 when it is gone. */
int ac_oplog_intent_remove(const ac_workspace *ws);

/* Adds this process to ws's intent as a run that finishes or undoes it,
 * before it touches a file, so that a later run removes its temp files
 * if it is killed too (ac_oplog_intent_clean_temps()). 0 or AC_E*,
 * naming the file. */
int ac_oplog_intent_note_attempt(const ac_workspace *ws);

/* Removes the temp files the run that wrote intent (and each attempt to
 * finish or undo it) left beside the plan's paths: only agentctl's own
 * names (".<name>.<pid>.<8 hex>.tmp" of ac_atomic_write(),
 * "<name>.agentctl-<pid>.tmp" of a symbolic link), of those pids, for a
 * name the plan writes. Returns how many. */
size_t ac_oplog_intent_clean_temps(const ac_git *g, const ac_oplog_intent *intent);

/* A deep copy of in's items and fields into out (freed with
 * ac_git_rollback_result_free()). 0 or AC_ENOMEM. */
int ac_oplog_plan_copy(ac_git_rollback_result *out, const ac_git_rollback_result *in);

#endif
