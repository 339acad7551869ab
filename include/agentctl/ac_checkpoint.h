/* Checkpoints: a session's message history and position saved under an id,
 * and rolling a session back to one, undoing the side effects of the tool
 * calls made since through configured compensating commands.
 *
 * A checkpoint is the whole JSON document {checkpointId, sessionId,
 * agentId, createdAt, version, parentId, nodeId, lastInput, lastInputType,
 * lastOutput, messageHistory, properties}; keys agentctl does not know are
 * kept. Checkpoints are ordered by version (a per-session counter), never
 * by createdAt. A tombstone marks a finished run: it counts for the next
 * version but is never "latest", nor a rollback's target. Both forms are
 * read: nodeId "tombstone" (DESIGN.md) and Koog's properties.tombstone =
 * true; agentctl writes both marks, with an empty history, as Koog does.
 *
 * Storage is a provider behind ac_checkpoint_store (memory, file,
 * PostgreSQL, none, or your own). This module does not write sessions itself (ac_session.h
 * does), nor draw or print anything. */
#ifndef AC_CHECKPOINT_H
#define AC_CHECKPOINT_H

#include "ac_buf.h"

#include "ac_session.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AC_CHECKPOINT_TOMBSTONE "tombstone"
#define AC_CHECKPOINT_TIMEOUT_MS 60000 /* per compensating command */
/* The largest version agentctl continues from: 2^53 - 1, the largest
 * integer the seeds' JavaScript reads exactly. A checkpoint beyond it is a
 * planted or corrupt file, named when the next version is asked for. */
#define AC_CHECKPOINT_VERSION_MAX INT64_C(9007199254740991)

/* ---- one checkpoint document ------------------------------------------ */

/* 0 when id can name a checkpoint file (the rules of ac_session_id_check());
 * AC_EINVAL with the reason otherwise. Checked before any path is built. */
int ac_checkpoint_id_check(const char *id);

/* 0 when doc is a checkpoint this module can use: an object with string
 * checkpointId (a valid id) and sessionId, a non-negative integer version
 * and a messageHistory array. Otherwise AC_ECORRUPT; the reason (without a
 * file name) is the message. */
int ac_checkpoint_validate(const json_t *doc);

/* Fields of a checkpoint; borrowed, "" (0 for the version, NULL for the
 * history, which jansson treats as an empty array) when absent. */
const char *ac_checkpoint_id(const json_t *doc);
const char *ac_checkpoint_session(const json_t *doc);
const char *ac_checkpoint_node(const json_t *doc);
int64_t ac_checkpoint_version(const json_t *doc);
json_t *ac_checkpoint_history(const json_t *doc);
bool ac_checkpoint_is_tombstone(const json_t *doc);

/* Sorts an array of checkpoints in place by version, then checkpointId
 * (never by clock). 0 or AC_ENOMEM. */
int ac_checkpoint_sort(json_t *array);

/* The fields a listing shows, taken from a checkpoint without keeping it:
 * listing a session's checkpoints this way holds one document at a time. */
typedef struct {
	char *checkpoint_id; /* owned */
	char *node_id;       /* owned; "" when absent or not a string */
	char *created_at;    /* owned; NULL when absent or not a string */
	char *parent_id;     /* owned; NULL when absent or not a string */
	size_t parent_id_len; /* parent_id's length (it may hold \u0000) */
	int64_t version;
	size_t messages;     /* messageHistory's length */
	bool tombstone;      /* ac_checkpoint_is_tombstone() */
} ac_checkpoint_header;

/* Headers, ordered as ac_checkpoint_sort() orders checkpoints. */
typedef struct {
	ac_checkpoint_header *items; /* owned */
	size_t count;
	size_t capacity;
} ac_checkpoint_header_list;

/* Fills *out with doc's header fields (doc is borrowed; validate it first).
 * 0 or AC_ENOMEM; on failure *out holds nothing to free. */
int ac_checkpoint_header_get(ac_checkpoint_header *out, const json_t *doc);

/* Frees h's strings and zeroes it. */
void ac_checkpoint_header_clear(ac_checkpoint_header *h);

/* Appends *h to list, taking its strings (on failure too, when they are
 * freed). 0 or AC_ENOMEM. */
int ac_checkpoint_header_list_take(ac_checkpoint_header_list *list, ac_checkpoint_header *h);

/* Frees the headers' strings and the array; list is left empty. */
void ac_checkpoint_header_list_free(ac_checkpoint_header_list *list);

/* ---- storage providers ------------------------------------------------ */

/* Which checkpoints a listing keeps. Koog's provider filter is a type of
 * the caller's choosing; here it is a predicate over each checkpoint's
 * header, with the caller's context. */
typedef struct {
	const char *session_id;  /* required */
	bool include_tombstones; /* false: tombstones are left out */
	/* Optional: keep only the checkpoints for which match returns true. */
	bool (*match)(const ac_checkpoint_header *header, void *ctx);
	void *match_ctx;
} ac_checkpoint_filter;

/* Hears of a stored checkpoint that cannot be read (a corrupt file, a
 * planted symlink, FIFO or folder); path names it. It is skipped. */
typedef void (*ac_checkpoint_problem_fn)(const char *path, const char *reason, void *ctx);

typedef struct ac_checkpoint_store ac_checkpoint_store;

/* What a provider implements. Every pointer but latest is required. Documents passed
 * in are borrowed (a provider keeps its own copy); documents handed out are
 * new references the caller owns and may change freely. Every operation
 * takes the store first, then its out-parameters, then its inputs (as
 * every storage vtable: ac_backend's, the checkpoint, journal and gc
 * stores). */
/* The version of ac_checkpoint_store_ops this header describes. A
 * provider's ops begin with .version = AC_CHECKPOINT_STORE_OPS_VERSION;
 * the library refuses a store of another version (AC_EINVAL) wherever it
 * is handed one, so operations can be added at the end. */
#define AC_CHECKPOINT_STORE_OPS_VERSION 1

typedef struct {
	unsigned int version; /* AC_CHECKPOINT_STORE_OPS_VERSION */
	const char *name;
	/* Stores doc (validated by the caller), replacing one of the same
	 * session and checkpointId. */
	int (*save)(ac_checkpoint_store *store, const json_t *doc);
	/* *out: a new array of the session's checkpoints, in any order. */
	int (*list)(ac_checkpoint_store *store, json_t **out, const ac_checkpoint_filter *filter);
	/* Optional (NULL: the last of list without tombstones): *out, the
	 * highest-version checkpoint that is not a tombstone, or AC_ENOTFOUND. */
	int (*latest)(ac_checkpoint_store *store, json_t **out, const char *session_id);
	/* *out: one checkpoint, or AC_ENOTFOUND naming the id. */
	int (*get)(ac_checkpoint_store *store, json_t **out, const char *session_id,
		   const char *checkpoint_id);
	/* Removes one checkpoint, or AC_ENOTFOUND naming the id. */
	int (*remove)(ac_checkpoint_store *store, const char *session_id, const char *checkpoint_id);
	/* Frees the provider and everything it holds. */
	void (*free)(ac_checkpoint_store *store);
	/* Optional (NULL: derived from list): appends to *out (empty on entry)
	 * the headers of the session's checkpoints, in any order, reporting and
	 * skipping what list would report and skip. */
	int (*list_headers)(ac_checkpoint_store *store, ac_checkpoint_header_list *out,
			    const ac_checkpoint_filter *filter);
	/* Optional (NULL: the store cannot say; storage migrate needs it):
	 * the ids of the sessions that have checkpoints, sorted; free each
	 * and the array. */
	int (*sessions)(ac_checkpoint_store *store, char ***out, size_t *out_n);
} ac_checkpoint_store_ops;

/* The part every provider starts with. */
struct ac_checkpoint_store {
	const ac_checkpoint_store_ops *ops;
	ac_checkpoint_problem_fn problem; /* may be NULL */
	void *problem_ctx;
	size_t keep_last;                 /* retention; 0 keeps everything */
};

/* In memory: lost when freed. */
int ac_checkpoint_store_memory_new(ac_checkpoint_store **out);

/* Files "<dir>/<sessionId>/<checkpointId>.json", each replaced atomically
 * (ac_atomic.h). dir is copied; it is created when the first checkpoint is
 * saved. Files that are not regular files, or not checkpoints, are
 * reported to the store's problem callback and skipped. */
int ac_checkpoint_store_file_new(ac_checkpoint_store **out, const char *dir);

/* In PostgreSQL (url: a postgresql:// URL or libpq connection string;
 * schema NULL: "agentctl"), the checkpoints table of the store's schema,
 * brought up to date on opening (docs/POSTGRES.md). A version belongs to
 * one checkpoint of a session: saving a second is AC_ECONFLICT. */
int ac_checkpoint_store_pg_new(ac_checkpoint_store **out, const char *url, const char *schema);

/* Saves nothing and lists nothing. */
int ac_checkpoint_store_none_new(ac_checkpoint_store **out);

void ac_checkpoint_store_free(ac_checkpoint_store *store);

/* 0 when store's ops are of this library's version
 * (AC_CHECKPOINT_STORE_OPS_VERSION); AC_EINVAL naming both otherwise (a
 * NULL store or ops too). Every ac_checkpoint_store_*() call checks it. */
int ac_checkpoint_store_version_check(const ac_checkpoint_store *store);

/* Where unreadable stored checkpoints are reported (fn may be NULL). */
void ac_checkpoint_store_set_problem(ac_checkpoint_store *store, ac_checkpoint_problem_fn fn,
				     void *ctx);

/* Retention: after each save, only the last keep_last non-tombstone
 * checkpoints of that session are kept, plus always the first (lowest
 * version) one. Tombstones are kept so that versions are never reused.
 * 0 (the default) keeps everything. */
void ac_checkpoint_store_set_retention(ac_checkpoint_store *store, size_t keep_last);

/* Validates doc and saves it, then applies retention to its session. */
int ac_checkpoint_store_save(ac_checkpoint_store *store, const json_t *doc);

/* *out: a new array of the session's checkpoints ordered by version. */
int ac_checkpoint_store_list(json_t **out, ac_checkpoint_store *store,
			     const ac_checkpoint_filter *filter);

/* The headers of what ac_checkpoint_store_list() gives, in its order,
 * without keeping the documents. *out is the caller's (zero it first) to
 * free with ac_checkpoint_header_list_free(), also after a failure. */
int ac_checkpoint_store_list_headers(ac_checkpoint_header_list *out, ac_checkpoint_store *store,
				     const ac_checkpoint_filter *filter);

/* *out: the highest-version checkpoint that is not a tombstone (a new
 * reference); AC_ENOTFOUND when the session has none. */
int ac_checkpoint_store_latest(json_t **out, ac_checkpoint_store *store, const char *session_id);

/* getLatestCheckpoint with a filter: the highest-version checkpoint that
 * filter keeps (tombstones only with include_tombstones); AC_ENOTFOUND
 * when it keeps none. */
int ac_checkpoint_store_latest_matching(json_t **out, ac_checkpoint_store *store,
					const ac_checkpoint_filter *filter);

/* *out: one checkpoint (a new reference). Ids are checked first. */
int ac_checkpoint_store_get(json_t **out, ac_checkpoint_store *store, const char *session_id,
			    const char *checkpoint_id);

int ac_checkpoint_store_delete(ac_checkpoint_store *store, const char *session_id,
			       const char *checkpoint_id);

/* *out: the version the session's next checkpoint gets: the highest
 * existing one (tombstones included) plus 1; 1 for the first. */
int ac_checkpoint_store_next_version(int64_t *out, ac_checkpoint_store *store,
				     const char *session_id);

/* Applies retention (keep_last > 0) to one session now. *out_removed (may
 * be NULL) receives how many checkpoints were deleted. */
int ac_checkpoint_store_retain(size_t *out_removed, ac_checkpoint_store *store,
			       const char *session_id, size_t keep_last);

/* ---- creating and rolling back ---------------------------------------- */

/* Saves a checkpoint of session session_id's current state (read from
 * sessions_dir): messageHistory is its conversationHistory, agentId its
 * metadata.agentId, parentId the previous latest checkpoint's id (null when
 * none), nodeId node (NULL: "manual"), lastInput the last user text,
 * lastOutput the last assistant text, a new UUID v4 checkpointId and the
 * next version. agentctl processes take turns here, so two creates never
 * share a version. *out (may be NULL) receives the document saved. */
int ac_checkpoint_create(json_t **out, ac_checkpoint_store *store, const char *sessions_dir,
			 const char *session_id, const char *node);

/* What ac_checkpoint_create_with() may set instead of its defaults.
 * Options start from AC_CHECKPOINT_CREATE_OPTIONS_INIT:
 * ac_checkpoint_create()'s defaults. Everything is borrowed. The calls
 * that take them refuse options of another version with AC_EINVAL naming
 * the struct, before anything is read. */
#define AC_CHECKPOINT_CREATE_OPTIONS_VERSION 1
#define AC_CHECKPOINT_CREATE_OPTIONS_INIT { .version = AC_CHECKPOINT_CREATE_OPTIONS_VERSION }

typedef struct {
	unsigned int version;      /* AC_CHECKPOINT_CREATE_OPTIONS_VERSION (the
				    * struct's, not the checkpoint's) */
	const char *node;          /* nodeId; NULL: "manual" */
	const char *checkpoint_id; /* NULL: a new UUID v4; an id the session's
				    * checkpoints hold already is AC_EINVAL */
	const json_t *last_input;  /* lastInput (any JSON, copied); NULL: the
				    * last user text */
	const char *last_input_type; /* lastInputType; NULL: "text" */
	bool set_version;          /* true: checkpoint_version below instead of
				    * the next one */
	int64_t checkpoint_version; /* 0..AC_CHECKPOINT_VERSION_MAX, not taken by
				     * another checkpoint of the session (AC_EINVAL) */
} ac_checkpoint_create_options;

/* ac_checkpoint_create() with opts (may be NULL). Ids and the node are
 * checked (AC_EINVAL) before anything is read. */
int ac_checkpoint_create_with(json_t **out, ac_checkpoint_store *store, const char *sessions_dir,
			      const char *session_id, const ac_checkpoint_create_options *opts);

/* The same from a session document the caller read (root, borrowed: its
 * conversationHistory and metadata.agentId; a database store's
 * session.get), for a store that keeps its sessions apart from the
 * workspace's files. Two creates for one session are not serialised here
 * (the file variant's folder lock): the caller's store decides. */
int ac_checkpoint_create_from(json_t **out, ac_checkpoint_store *store, const char *session_id,
			      const json_t *root, const ac_checkpoint_create_options *opts);

/* 0 when checkpoint_history is a prefix of session_history (message by
 * message, json_equal). Otherwise AC_EINVAL saying why: the index of the
 * first message that differs, or that the checkpoint is longer. */
int ac_checkpoint_prefix_check(const json_t *checkpoint_history, const json_t *session_history);

/* One tool call made after the checkpoint, and how it is undone. */
typedef struct {
	char *tool;          /* owned; "" when the call names none */
	char *call_id;       /* owned */
	json_t *input;       /* owned: the call's arguments as sent on stdin */
	const char **argv;   /* owned array, NULL-terminated, strings borrowed from
			      * the rollback_tools given to the plan; NULL when no
			      * compensation is configured for tool */
	size_t message_index;
} ac_checkpoint_compensation;

/* What a rollback does with a compensation an earlier attempt started
 * and never recorded as finished (killed while it ran): it may or may not
 * have taken effect. */
typedef enum {
	AC_CHECKPOINT_UNCERTAIN_STOP,  /* the default: stop before it, naming it */
	AC_CHECKPOINT_UNCERTAIN_SKIP,  /* go on as if it had run (recorded so) */
	AC_CHECKPOINT_UNCERTAIN_RERUN, /* run it again */
} ac_checkpoint_uncertain;

/* Everything a rollback will do, decided before anything runs. */
typedef struct {
	char *session_id;      /* owned */
	json_t *checkpoint;    /* owned reference: the target */
	json_t *history;       /* owned reference: the session's history as planned */
	size_t keep;           /* messages kept (the checkpoint's) */
	size_t remove;         /* messages removed */
	ac_checkpoint_compensation *calls; /* owned; newest first */
	size_t n_calls;
	size_t n_unconfigured; /* calls with no compensation configured (not run) */
	ac_checkpoint_uncertain uncertain; /* the operator's choice; 0: stop */
	/* A checkpoint older than the session's last compaction (Koog
	 * restores it too). history is then the session as it is, unfolded
	 * the same with the compactions the rollback goes behind unfolded
	 * back into the messages their archives hold: keep and remove count
	 * in it, and the history becomes its first keep messages. */
	json_t *unfolded;      /* owned reference; NULL when no compaction is undone */
	size_t compactions;    /* compactions the rollback goes behind */
	/* Tool calls after the checkpoint made before those compactions: not
	 * in calls, their compensations are skipped, as Koog skips every
	 * compensation when the history it rolls back is not the checkpoint's
	 * continuation. */
	size_t n_before_compaction;
} ac_checkpoint_plan;

/* Plans rolling session_id back to checkpoint_id (NULL: the newest one,
 * tombstones included, as Koog's rollbackToLatestCheckpoint: AC_EINVAL
 * when that is a tombstone, the run being finished), validating everything
 * first: ids, that the checkpoint's history is a
 * prefix of the session's (AC_EINVAL saying why not), each tool call after
 * it, newest first, with its rollbackTools command (rollback_tools: object
 * tool name -> argv array, borrowed, may be NULL; a malformed entry that
 * would be used is AC_EINVAL naming it), and parsed arguments (OpenAI's
 * argument strings are parsed; one that is not JSON is AC_EINVAL naming the
 * call). Nothing is run or changed. Free *out with
 * ac_checkpoint_plan_free(), also after a failure. */
int ac_checkpoint_plan_rollback(ac_checkpoint_plan *out, ac_checkpoint_store *store,
				const char *sessions_dir, const char *session_id,
				const char *checkpoint_id, const json_t *rollback_tools);

/* ac_checkpoint_plan_rollback() reaches behind the session file's
 * compactions as ac_checkpoint_plan_rollback_unfolding() does, from the
 * archives metadata.compactions names. The same plan for a session whose
 * history the caller read (a database store's session.get), without
 * unfolding: history is borrowed (the plan takes a reference). */
int ac_checkpoint_plan_rollback_history(ac_checkpoint_plan *out, ac_checkpoint_store *store,
					const char *session_id, const char *checkpoint_id,
					json_t *history, const json_t *rollback_tools);

/* Unfolds the newest compaction still in history (a borrowed array, the
 * session's as far as unfolded): *out, a new array the caller owns and
 * may change, the messages that compaction archived, which its summary
 * (history's first message) stands for. depth: how many were unfolded
 * before. AC_ENOTFOUND when there is none (the first message is no
 * summary, or no compaction is left); any other error stops the plan. */
typedef int (*ac_checkpoint_unfold_fn)(json_t **out, size_t depth, const json_t *history,
				       void *ctx);

/* ac_checkpoint_plan_rollback_history() that, when the checkpoint's
 * history is no prefix of the session's, unfolds compactions one at a
 * time (newest first) until it is, and plans against that (plan->unfolded,
 * ->compactions, ->n_before_compaction); when unfolding never makes it a
 * prefix, the refusal is the one without unfolding. unfold may be NULL. */
int ac_checkpoint_plan_rollback_unfolding(ac_checkpoint_plan *out, ac_checkpoint_store *store,
					  const char *session_id, const char *checkpoint_id,
					  json_t *history, const json_t *rollback_tools,
					  ac_checkpoint_unfold_fn unfold, void *unfold_ctx);

void ac_checkpoint_plan_free(ac_checkpoint_plan *plan);

/* How a rollback runs. Options start from
 * AC_CHECKPOINT_ROLLBACK_OPTIONS_INIT (the defaults);
 * ac_checkpoint_rollback() refuses options of another version, or a write
 * of another, with AC_EINVAL naming the struct, before anything runs. */
#define AC_CHECKPOINT_ROLLBACK_OPTIONS_VERSION 1
#define AC_CHECKPOINT_ROLLBACK_OPTIONS_INIT { .version = AC_CHECKPOINT_ROLLBACK_OPTIONS_VERSION }

typedef struct {
	unsigned int version; /* AC_CHECKPOINT_ROLLBACK_OPTIONS_VERSION */
	int timeout_ms; /* per compensation; 0: AC_CHECKPOINT_TIMEOUT_MS */
	/* How the session file is rewritten (quiet wait); NULL: at once. */
	const ac_session_write_options *write;
	/* Told of every compensation attempt, failed ones too (rc 0: it ran;
	 * otherwise message says how it failed). May be NULL. */
	void (*attempted)(const ac_checkpoint_compensation *call, int rc, const char *message,
			  void *ctx);
	void *ctx;
	/* When the session is not a file (a database store): cuts the
	 * history to plan->keep messages, archiving the rest, refusing
	 * (AC_ECONFLICT) when it is no longer plan->history; then no archive
	 * file is written (archive_path stays NULL). NULL: the session file. */
	int (*cut)(const ac_checkpoint_plan *plan, void *cut_ctx);
	void *cut_ctx;
} ac_checkpoint_rollback_options;

typedef struct {
	size_t ran;          /* compensations this call ran */
	size_t skipped;      /* compensations an earlier, failed attempt had run */
	size_t uncertain;    /* of those, started but never recorded as finished
			      * (skipped or run again as plan->uncertain says) */
	char *archive_path;  /* owned: the removed messages; NULL when none */
} ac_checkpoint_rollback_result;

/* Carries out plan: runs each configured compensation, newest first, with
 * the call's arguments as JSON on stdin, in cwd (NULL: the current folder).
 * Each one is recorded in <sessions_dir>/.rollbacks/<id>/compensated.json
 * (atomically, fsync'd) as started before it runs and as done once it
 * succeeded, so a retry after a failure or a crash runs only the ones
 * still due, and one found started but not done (its run was killed: it
 * may or may not have taken effect) is not run again unless
 * plan->uncertain says so: by default the rollback stops there (AC_EIO,
 * one line naming the session, checkpoint, tool, call and command). The
 * record goes when the rollback completes. The first that fails stops the
 * rollback (AC_EIO naming the tool, call id and how the command failed)
 * and the session is left as it was. Then the removed messages are archived
 * (ac_archive.h, folder ".rollbacks") and the history is cut to the
 * checkpoint's through ac_session_update_with(), recording
 * metadata.rollbacks [{at, checkpointId, version, removedMessages,
 * archive}], refusing (AC_ECONFLICT) if another writer changed the history
 * since the plan. An archive a published version names is never removed.
 * opts may be NULL. Free out with ac_checkpoint_rollback_result_free(),
 * also after a failure. */
int ac_checkpoint_rollback(ac_checkpoint_rollback_result *out, const ac_checkpoint_plan *plan,
			   const char *sessions_dir, const char *cwd,
			   const ac_checkpoint_rollback_options *opts);

/* Records a rollback carried out by plan in the session document root
 * (with or without its history): metadata.rollbacks gains {at,
 * checkpointId, version, removedMessages, archive} (archive omitted when
 * NULL: a store that archives in its own table), and the execution point
 * becomes the checkpoint's. AC_ECORRUPT when metadata or
 * metadata.rollbacks has the wrong type. */
int ac_checkpoint_note_rollback(json_t *root, const ac_checkpoint_plan *plan, const char *at,
				const char *archive);

void ac_checkpoint_rollback_result_free(ac_checkpoint_rollback_result *result);

#endif
