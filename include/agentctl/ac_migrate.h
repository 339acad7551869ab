/* Copying everything one store holds into another (agentctl storage
 * migrate): a workspace's files into a PostgreSQL database or back, through
 * the stores' own interfaces (ac_backend.h, the checkpoint provider, the
 * journal store), so one copy serves both directions.
 *
 * Each item is recognised by its natural key: a session by id (its
 * messages belong to its document), a memo by (tenant, owner, scope,
 * name), a turn usage row by (tenant, session, turn), an artifact by
 * (tenant, session, tool call), a trace record or
 * orchestration event by (tenant, log, seq), a snapshot by (tenant, run),
 * a checkpoint by (session, checkpoint id), an archive of removed messages
 * (a compaction's or a rollback's) by (tenant, session, kind, name: the
 * file's UTC stamp, or for one the database wrote, its time and first
 * seq), a journal event by its line's
 * bytes (and its id, for conflicts; a line repeated in the source is
 * copied as often as it appears). What the destination already holds,
 * equal, is left alone; what it holds under the same key with other
 * content is a conflict, reported and never overwritten; the rest is
 * copied. Running it again copies nothing; after a crash it completes
 * what was begun: every write is whole or absent (a session, a batch of
 * journal lines or records in one transaction, a file by rename), never
 * half of one.
 *
 * Not copied: the operation log and git history (they stay with the
 * worktree).
 *
 * Memory: the journal is streamed; what grows with it is a hash table of
 * two 16-byte entries per distinct event (its line's hash and its id's,
 * with counts), at most half full: up to 64 bytes an event. A session, a
 * log or a document is held one at a time. */
#ifndef AC_MIGRATE_H
#define AC_MIGRATE_H

#include "ac_backend.h"
#include "ac_checkpoint.h"
#include "ac_journal_store.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum {
	AC_MIGRATE_SESSIONS,
	AC_MIGRATE_USAGE,     /* turn usage rows */
	AC_MIGRATE_MEMOS,
	AC_MIGRATE_ARTIFACTS,
	AC_MIGRATE_TRACES,    /* trace records */
	AC_MIGRATE_EVENTS,    /* orchestration events */
	AC_MIGRATE_SNAPSHOTS, /* orchestration snapshots */
	AC_MIGRATE_CHECKPOINTS,
	AC_MIGRATE_ARCHIVES,  /* compaction (and rollback) archives */
	AC_MIGRATE_JOURNAL,   /* journal events */
	AC_MIGRATE_NKINDS
} ac_migrate_kind;

/* "sessions", "memos", ... (static). */
const char *ac_migrate_kind_name(ac_migrate_kind kind);

typedef struct {
	uint64_t copied;    /* written to the destination (dry run: would be) */
	uint64_t present;   /* already there, equal */
	uint64_t conflicts; /* there with other content: left alone, reported */
	uint64_t failed;    /* not copied for another reason, reported */
	uint64_t source;    /* items in the source */
	uint64_t verified;  /* of them, found equal at the destination afterwards */
	uint64_t skipped;   /* source records no reader could take (torn lines,
			       invalid journal lines): not items, not copied */
} ac_migrate_count;

/* One side of the copy; every pointer borrowed. */
typedef struct {
	ac_backend *backend;
	ac_checkpoint_store *checkpoints;
	ac_journal_store *journal;
} ac_migrate_store;

/* Hears of each item not copied: kind, its key ("tenant/session" ...,
 * borrowed for the call) and why (a conflict, or an error's message). */
typedef void (*ac_migrate_problem_fn)(ac_migrate_kind kind, const char *key, bool conflict,
				      const char *why, void *ctx);

/* Options start from AC_MIGRATE_OPTIONS_INIT (a real copy, no tenant, no
 * callbacks); ac_migrate_run() and ac_migrate_journal() refuse options of
 * another version with AC_EINVAL naming the struct. */
#define AC_MIGRATE_OPTIONS_VERSION 1
#define AC_MIGRATE_OPTIONS_INIT { .version = AC_MIGRATE_OPTIONS_VERSION }

typedef struct {
	unsigned int version;          /* AC_MIGRATE_OPTIONS_VERSION */
	bool dry_run;                  /* count, write nothing, verify nothing */
	/* The tenant a source session that names none (a seed-style session
	 * file) has at the destination: its document gains metadata.tenantId
	 * = tenant there, and its turn rows and archives go with it. NULL:
	 * such a session is reported and not copied (a database keeps every
	 * session under a tenant). */
	const char *tenant;
	/* Copy only this tenant's items (NULL: every tenant's): its sessions
	 * with their turn rows, archives and checkpoints, its memos,
	 * artifacts, traces and runs. The journal, which names no tenant, is
	 * copied whole. `storage migrate --from URL --tenant T`. */
	const char *only_tenant;
	ac_migrate_problem_fn problem; /* may be NULL */
	void *ctx;
	/* Test seam: called after each write with the kind; a test kills the
	 * process there. NULL in production. */
	void (*after_write)(ac_migrate_kind kind, void *ctx);
} ac_migrate_options;

/* Copies what from holds into to, then (unless dry_run) counts again, for
 * every item of from, whether to holds it equal: out[kind] for each kind.
 * Returns 0 when the copy ran to the end (conflicts and failed items are
 * in the counts, not errors); a negative AC_E* when a store could not be
 * read or written at all (the counts say how far it got). */
int ac_migrate_run(ac_migrate_count out[AC_MIGRATE_NKINDS], const ac_migrate_store *from,
		   const ac_migrate_store *to, const ac_migrate_options *opts);

/* The journal part of ac_migrate_run() (ac_migrate_journal.c). */
int ac_migrate_journal(ac_migrate_count *out, ac_journal_store *from, ac_journal_store *to,
		       const ac_migrate_options *opts);

#endif
