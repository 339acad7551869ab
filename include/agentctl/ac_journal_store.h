/* Where the journal lives: its files (ac_journal.h, ac_journal_scan.h) or
 * a PostgreSQL table, behind one interface the journal commands use.
 *
 * Every store takes events completed and checked by ac_event_prepare()
 * (the same validation, ids and timestamps whatever the store), hands out
 * the events a query matches oldest first (or the last N of them) through
 * the scan engine's format/write callbacks, and checks what it holds. */
#ifndef AC_JOURNAL_STORE_H
#define AC_JOURNAL_STORE_H

#include "ac_event.h"
#include "ac_journal.h"
#include "ac_journal_scan.h"
#include "ac_query.h"
#include "ac_workspace.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ac_journal_store ac_journal_store;

/* Told, after a part of the store is checked (a file; the table), how
 * many events were valid and invalid. Non-zero stops the check. */
typedef int (*ac_journal_checked_fn)(const char *part, uint64_t valid, uint64_t invalid,
				     void *ctx);

/* What a journal store implements. Every operation takes the store
 * first, then its out-parameters, then its inputs (as every storage
 * vtable: ac_backend's, the checkpoint, journal and gc stores). */
/* The version of ac_journal_store_ops this header describes. A store's
 * ops begin with .version = AC_JOURNAL_STORE_OPS_VERSION; the library
 * refuses a store of another version (AC_EINVAL) wherever it is handed
 * one, so operations can be added at the end. */
#define AC_JOURNAL_STORE_OPS_VERSION 1

typedef struct {
	unsigned int version; /* AC_JOURNAL_STORE_OPS_VERSION */
	const char *name; /* "file", "postgresql" */
	/* Appends line[0..len), an event ac_event_prepare() gave. info (may
	 * be NULL) as ac_journal_append() fills it. */
	int (*append)(ac_journal_store *store, ac_journal_append_info *info, const char *line,
		      size_t len);
	/* ac_journal_scan_format() over the store: all includes what
	 * rotation moved aside. The paths in stats stay valid until the next
	 * scan or the store is freed. */
	int (*scan)(ac_journal_store *store, ac_scan_stats *stats, bool all, const ac_query *q,
		    size_t last_n, ac_scan_format_fn format, const void *format_ctx,
		    ac_scan_write_fn write, void *write_ctx);
	/* Validates every event: bad (may be NULL) for each invalid one, in
	 * order, then checked for the part. */
	int (*check)(ac_journal_store *store, bool all, ac_check_fn bad,
		     ac_journal_checked_fn checked, void *ctx);
	/* Optional (NULL: AC_EINVAL): ac_journal_rotate(). */
	int (*rotate)(ac_journal_store *store, char **out_rotated);
	void (*free)(ac_journal_store *store);
	/* Optional (NULL: append one by one): appends lines[0..n) (each as
	 * append takes it, NUL-terminated) in order, all or none, in one
	 * short transaction; storage migrate's batches. */
	int (*append_batch)(ac_journal_store *store, const char *const *lines, const size_t *lens,
			    size_t n);
	/* Optional (NULL: the store leaves nothing unread): what "all" leaves
	 * out, one allocated "<part>: why" line each (free with
	 * ac_journal_files_free()). */
	int (*unread)(ac_journal_store *store, char ***out, size_t *out_n);
	/* Optional (NULL: AC_ENOTSUP): ac_journal_store_follow(). */
	int (*follow)(ac_journal_store *store, ac_scan_stats *stats, uint64_t *seq,
		      size_t backlog, ac_scan_fn fn, void *ctx);
} ac_journal_store_ops;

/* The part every store starts with. */
struct ac_journal_store {
	const ac_journal_store_ops *ops;
	ac_event_schema schema; /* borrowed names (journal.agents) */
};

/* The journal at path with opts (copied; path too). */
int ac_journal_store_file_new(ac_journal_store **out, const char *path,
			      const ac_journal_options *opts, const ac_event_schema *schema);

/* The journal_events table of the PostgreSQL store at url (schema NULL:
 * "agentctl"; host NULL: gethostname()), brought up to date on opening.
 * Seqs are assigned in the database, gap-free; every append notifies
 * (kind "journal"). */
int ac_journal_store_pg_new(ac_journal_store **out, const char *url, const char *schema,
			    const char *host, const ac_event_schema *schema_names);

/* Appends line[0..len), an event ac_event_prepare() completed and checked
 * (NUL-terminated), so every store takes what the file journal takes.
 * info (may be NULL; the caller frees info->rotated_to) as
 * ac_journal_append() fills it. */
int ac_journal_store_append(ac_journal_store *store, const char *line, size_t len,
			    ac_journal_append_info *info);

/* The workspace's journal: PostgreSQL when storage.url is set (trusted
 * configuration, AGENT_STORAGE_URL, --storage), else its journal file. */
int ac_journal_store_open(ac_journal_store **out, const ac_workspace *ws);

/* For a live view of a store whose events carry a seq (PostgreSQL): hands
 * fn the events stored after *seq, oldest first, and advances *seq to the
 * last one handed. When *seq is 0 (nothing read yet) only the newest
 * `backlog` are handed, so the first look costs what the journal's end
 * costs; after that, only what is new (rows read in pages by seq). An
 * event that no longer checks is handed too, marked as the file follower
 * marks it (ac_scan_match.invalid says why, offset is the seq); stats
 * (may be NULL) counts nothing else. Returns 0, fn's non-zero return, or
 * a negative code (AC_ENOTSUP: the file store, follow it with
 * ac_journal_follow.h). */
int ac_journal_store_follow(ac_journal_store *store, uint64_t *seq, size_t backlog,
			    ac_scan_stats *stats, ac_scan_fn fn, void *ctx);

void ac_journal_store_free(ac_journal_store *store);

/* 0 when store's ops are of this library's version
 * (AC_JOURNAL_STORE_OPS_VERSION); AC_EINVAL naming both otherwise (a NULL
 * store or ops too). */
int ac_journal_store_version_check(const ac_journal_store *store);

/* Appends an operator event to the workspace's journal, wherever it lives
 * (ac_journal_store_open()): agent "Human", status "SUCCESS", "FAILED" or
 * "IN_PROGRESS", action {type: action_type, params}, result {message},
 * trace {correlation_id: session_id}. params is stolen; the strings are
 * borrowed. The operator's actions and
 * the operation log record what they did through it. */
int ac_journal_operator_event(const ac_workspace *ws, const char *action_type, const char *status,
			      const char *session_id, json_t *params, const char *message);

#endif
