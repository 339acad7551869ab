/* Retention: a policy (keep the newest N, remove what is older than an age)
 * applied to a store's old checkpoints, compaction and rollback archives,
 * traces and rotated journals, in two steps: a plan that says what would
 * go, with its size and why, and an apply step that removes exactly that.
 *
 * Each store is a provider behind ac_gc_store: the files, and the
 * PostgreSQL database storage.url names. What the file provider never
 * removes:
 * - a checkpoint tombstone, nor a session's highest-version checkpoint
 *   (both keep versions from being reused), nor any of the newest N
 *   checkpoints that are not tombstones;
 * - an archive a session's metadata.compactions or metadata.rollbacks
 *   names (a restore reads it), nor the rollback bookkeeping
 *   (compensated.json), nor an archive younger than AC_GC_GRACE_MS (it may
 *   be one a compaction wrote and is about to name);
 * - any checkpoint or archive of a session an operator action (compaction,
 *   checkpoint rollback) is working on, whatever the clocks say: before
 *   each removal gc takes the session's lock (ac_lock_session()) without
 *   waiting, skips the session while an action holds it (AC_ECONFLICT
 *   saying so), and under the lock leaves an archive the session names by
 *   now;
 * - the live journal, nor a trace whose session is still running or paused;
 * - anything that is not a whole regular file with its final name (temp
 *   files, symbolic links, folders), or that lies outside the store's
 *   folders: nothing is followed through a symbolic link.
 * Each removal is one unlink, oldest first, so a process killed in the
 * middle leaves every remaining file whole. Agent state is not rewound:
 * sessions, messages, the operation log and the live journal are never
 * touched.
 *
 * This module neither prints nor parses command lines. */
#ifndef AC_GC_H
#define AC_GC_H

#include "ac_config.h"
#include "ac_workspace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An archive younger than this (by its name's time and its mtime) stays:
 * a compaction writes its archive before the session names it. */
#define AC_GC_GRACE_MS (10 * 60 * 1000)

typedef enum {
	AC_GC_CHECKPOINT,
	AC_GC_COMPACTION, /* <sessions>/.compactions/<id>/<UTC>.json */
	AC_GC_ROLLBACK,   /* <sessions>/.rollbacks/<id>/<UTC>.json */
	AC_GC_TRACE,      /* a whole trace of a finished session */
	AC_GC_JOURNAL,    /* a rotated journal, JOURNAL-<UTC>.jsonl */
	AC_GC_EVENTS,     /* orchestration events a snapshot covers (PostgreSQL) */
	AC_GC_JOURNAL_EVENTS, /* journal events older than the age (PostgreSQL) */
} ac_gc_kind;

/* "checkpoint", "compaction archive", ... (static). */
const char *ac_gc_kind_name(ac_gc_kind kind);

/* What may go. An item goes when every rule given holds for it. */
typedef struct {
	bool has_keep;     /* --keep N given */
	size_t keep;       /* per session (checkpoints, archives) or in all
			    * (rotated journals): the newest keep stay */
	int64_t older_than_ms; /* > 0: only what is older than this; traces
				* go only by age */
	int64_t now_ms;    /* the clock ages are judged against */
} ac_gc_policy;

/* Parses an age "<digits><unit>", unit m (minutes), h, d or w, into
 * *out_ms (> 0). AC_EINVAL with the reason otherwise. */
int ac_gc_parse_age(int64_t *out_ms, const char *text);

/* One file (or record set) a plan removes. */
typedef struct {
	ac_gc_kind kind;
	char *path;     /* owned: what to show (the file's path) */
	char *owner;    /* owned: the session id, or NULL (a journal) */
	char *why;      /* owned: the rule that let it go */
	uint64_t bytes;
	int64_t time_ms; /* its recorded time, else its mtime */
	/* Provider's own: where it is and what it was when planned, so that
	 * a file replaced since is left alone. */
	char *base;     /* owned: the store folder the walk starts from */
	char *relative; /* owned: below base, each part opened without
			 * following a link */
	uint64_t dev, ino;
} ac_gc_item;

typedef struct {
	ac_gc_item *items; /* owned */
	size_t count, capacity;
	uint64_t bytes;    /* the sum of the items' bytes */
} ac_gc_plan;

/* Frees the items; plan is left empty. */
void ac_gc_plan_free(ac_gc_plan *plan);

/* Hears of each item as apply reaches it: rc 0, removed; AC_ENOTFOUND or
 * AC_ECONFLICT, left alone (gone, replaced or in use since the plan, or,
 * heard after the rc 0 of the same item, the part of it that was left; the
 * reason is in ac_error_last()). */
typedef void (*ac_gc_report_fn)(const ac_gc_item *item, int rc, void *ctx);

typedef struct ac_gc_store ac_gc_store;

/* What a gc store implements. Every operation takes the store
 * first, then its out-parameters, then its inputs (as every storage
 * vtable: ac_backend's, the checkpoint, journal and gc stores). */
/* The version of ac_gc_store_ops this header describes. A store's ops
 * begin with .version = AC_GC_STORE_OPS_VERSION; the library refuses a
 * store of another version (AC_EINVAL) wherever it is handed one, so
 * operations can be added at the end. */
#define AC_GC_STORE_OPS_VERSION 1

typedef struct {
	unsigned int version; /* AC_GC_STORE_OPS_VERSION */
	const char *name;
	/* Appends to *out what policy removes from the store. */
	int (*plan)(ac_gc_store *store, ac_gc_plan *out, const ac_gc_policy *policy);
	/* Removes item, or returns AC_ENOTFOUND / AC_ECONFLICT (skipped:
	 * gone, or replaced since the plan) naming it. */
	int (*remove)(ac_gc_store *store, const ac_gc_item *item);
	/* Optional: after item was removed, true when part of it was left
	 * (records of sessions an operator action holds), ac_error_last()
	 * saying which. */
	bool (*skipped)(ac_gc_store *store, const ac_gc_item *item);
	void (*free)(ac_gc_store *store);
} ac_gc_store_ops;

struct ac_gc_store {
	const ac_gc_store_ops *ops;
};

/* The file store's folders (borrowed for the call; copied). Options
 * start from AC_GC_FILES_OPTIONS_INIT; another version is refused
 * (AC_EINVAL naming it). */
#define AC_GC_FILES_OPTIONS_VERSION 1
#define AC_GC_FILES_OPTIONS_INIT { .version = AC_GC_FILES_OPTIONS_VERSION }

typedef struct {
	unsigned int version;        /* AC_GC_FILES_OPTIONS_VERSION */
	const char *sessions_dir;    /* sessions, .compactions, .rollbacks */
	const char *checkpoints_dir; /* <sessionId>/<checkpointId>.json */
	const char *data_dir;        /* the workspace's .agent: traces/ */
	const char *journal_path;    /* its rotated files beside it */
	const char *root;            /* the workspace: a folder above inside it is never
				      * followed through a link out of it; NULL: as given */
} ac_gc_files_options;

/* The file store's provider. Free with ac_gc_store_free(). */
int ac_gc_store_files_new(ac_gc_store **out, const ac_gc_files_options *opts);

/* The PostgreSQL store's provider (url: a postgresql:// URL or libpq
 * connection string; schema NULL: "agentctl"), one item per kind of
 * record (trace records of finished sessions, orchestration events a
 * snapshot covers and journal events, by age only; compaction archives
 * and checkpoints, per session, with the file provider's rules), each
 * removed by one DELETE in one transaction. A database without the schema
 * holds nothing to remove (and it is not created). AC_EIO when the server
 * cannot be reached, one line without the password. */
int ac_gc_store_pg_new(ac_gc_store **out, const char *url, const char *schema);

/* The PostgreSQL provider for ws's store when it is a database
 * (ac_workspace_store_url(): AC_EDENIED for an untrusted storage.url);
 * *out NULL when the workspace's files are its only store. */
int ac_gc_store_open_workspace(ac_gc_store **out, const ac_workspace *ws);

void ac_gc_store_free(ac_gc_store *store);

/* 0 when store's ops are of this library's version
 * (AC_GC_STORE_OPS_VERSION); AC_EINVAL naming both otherwise (a NULL store
 * or ops too). ac_gc_plan_make() and ac_gc_apply() check it. */
int ac_gc_store_version_check(const ac_gc_store *store);

/* *out (zero it first; the caller frees it with ac_gc_plan_free(), also
 * after a failure): what policy removes from store, by kind, oldest
 * first. Nothing
 * is changed. AC_EINVAL when policy has neither rule. */
int ac_gc_plan_make(ac_gc_plan *out, ac_gc_store *store, const ac_gc_policy *policy);

/* Removes plan's items in order; report (may be NULL) hears of each.
 * *out_removed / *out_bytes (may be NULL) receive what went. Stops at the
 * first real failure (AC_EIO ...), which is returned. */
int ac_gc_apply(size_t *out_removed, uint64_t *out_bytes, ac_gc_store *store,
		const ac_gc_plan *plan, ac_gc_report_fn report, void *ctx);

#endif
