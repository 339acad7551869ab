/* The intent of a workspace rollback or revert (`ops rollback|revert`):
 * `.agent/rollback-intent.json`, written durably (the file and its folder
 * synced) after the snapshot commit and before the first file is touched,
 * removed once the last file is written and the operation log names the
 * rollback. While it exists a rollback is running or was stopped midway
 * (a crash, a kill) and the worktree may be half old, half new: it names
 * the operation, the kind, the snapshot that holds the state before and
 * the plan (every path and what happens to it), so the rollback can be
 * finished, or the snapshot put back, exactly.
 *
 * The file is agent state (under `.agent/`: never staged, never rewound)
 * and lives beside the workspace's files whatever the store (files or
 * PostgreSQL): it describes the worktree, which is on disk either way.
 * This module reads, describes and acts on it; the git side is ac_git.h's
 * (ac_git_finish(), ac_git_restore_snapshot()). It never prints. */
#ifndef AC_OPLOG_INTENT_H
#define AC_OPLOG_INTENT_H

#include "ac_buf.h"
#include "ac_git.h"
#include "ac_oplog.h"
#include "ac_workspace.h"

#include <jansson.h>
#include <stdbool.h>

/* The intent file's name under the workspace's `.agent/`. */
#define AC_OPLOG_INTENT_FILE "rollback-intent.json"

typedef struct {
	bool revert;              /* ops revert, else ops rollback */
	char *op_id;              /* the operation rolled back or reverted (owned) */
	char *session_id;         /* its session, "" when none (owned) */
	char *started_at;         /* ISO-8601 UTC (owned) */
	char *message;            /* the rollback's own commit message (owned) */
	long pid;                 /* the process that wrote it */
	long *attempts;           /* the runs that finished or undid it since (owned) */
	size_t n_attempts;
	char op_commit[AC_GIT_HASH_LEN + 1];
	ac_git_rollback_result plan; /* items, counts, target, target_tree, snapshot */
} ac_oplog_intent;

/* The intent file's path for ws into out. 0 or AC_ENOMEM. */
int ac_oplog_intent_path(ac_buf *out, const ac_workspace *ws);

/* Reads ws's intent: *out is NULL when there is none, else an intent
 * freed with ac_oplog_intent_free(). AC_ECORRUPT naming the file when it
 * is not an intent agentctl wrote. */
int ac_oplog_intent_read(ac_oplog_intent **out, const ac_workspace *ws);

void ac_oplog_intent_free(ac_oplog_intent *intent);

/* True while the process that wrote intent still runs (the rollback is in
 * progress rather than interrupted). A guess for display: acting on an
 * intent always waits for the repository's lock first. */
bool ac_oplog_intent_running(const ac_oplog_intent *intent);

/* One line for people: "rollback to before operation X: snapshot S holds
 * the state before; N files planned (...); started T by pid P". Not sanitised (the
 * operation id comes from the log). 0 or AC_ENOMEM. */
int ac_oplog_intent_describe(ac_buf *out, const ac_oplog_intent *intent);

/* The commands that finish and undo intent, for people to copy. */
int ac_oplog_intent_commands(ac_buf *finish, ac_buf *undo, const ac_oplog_intent *intent);

/* intent as the record `ops list --json` puts first: {type:
 * "interrupted_rollback"|"interrupted_revert", operationId, sessionId,
 * snapshot, target, startedAt, pid, running, files, removed, restored,
 * changed, finish, undo}. A new reference, NULL when out of memory. */
json_t *ac_oplog_intent_json(const ac_oplog_intent *intent);

/* 0 when ws has no intent; else AC_ECONFLICT with one line naming it (the
 * operation, the snapshot) and the commands that finish or undo it, what
 * being the command refused ("ops record"). Callers that change the
 * workspace ask first. */
int ac_oplog_intent_refuse(const ac_workspace *ws, const char *what);

/* Finishes ws's interrupted rollback or revert: the same as running
 * ac_oplog_rollback() (or ac_oplog_revert()) again on its operation, which
 * writes every path of the recorded plan from its target (the files the
 * stopped run wrote included), commits, records the operation and journal
 * event as an uninterrupted run does, removes the stopped run's temp files
 * (only agentctl's own names, of its pid, beside the plan's paths) and the
 * intent. AC_ENOTFOUND when there is none. With dry_run, out->git holds the
 * recorded plan and nothing changes. */
int ac_oplog_finish_interrupted(ac_oplog_rollback_result *out, const ac_workspace *ws,
				bool dry_run, ac_buf *notes);

/* Undoes ws's interrupted rollback or revert instead: every path of the
 * recorded plan is put back as the snapshot holds it (so the worktree is
 * the state before the rollback), the temp files are removed as above,
 * the undo is journalled (ROLLBACK, details {operationId, snapshot,
 * undone: true}) and the intent removed. out->git.items lists what that
 * does to each path (a removed file restored, a restored one removed),
 * out->git.snapshot the snapshot and, when HEAD already was the
 * rollback's own commit, out->git.commit the commit that puts the
 * snapshot's tree back on it. AC_ENOTFOUND when there is none. With
 * dry_run, only out->git is filled. Free out with
 * ac_oplog_rollback_result_free(). */
int ac_oplog_undo_interrupted(ac_oplog_rollback_result *out, const ac_workspace *ws, bool dry_run);

#endif
