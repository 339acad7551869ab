/* The PostgreSQL backend's private parts, shared by core/ac_backend_pg*.c
 * (one implementation split by contract); not API. */
#ifndef AC_BACKEND_PG_IMPL_H
#define AC_BACKEND_PG_IMPL_H

#include "ac_backend_sys.h"
#include "ac_backend_pg.h"
#include "ac_pg.h"

typedef struct {
	ac_pg *pg;
	char *host;   /* written to rows as the writer */
	char *agent;  /* recorded on sessions as the last writing agent */
	unsigned long leased_on; /* pg->connects when ac_backend_pg_lease took
				    its lock; 0: not held */
	char lease_name[64];     /* the lease it took (one at a time) */
	char *request_id;        /* the next session write's key (request.use) */
	char *request_tenant;    /* while a request is open: its key, */
	char *request_key;
	const char *request_op;  /* (static) */
	char *request_args;      /* canonical JSON */
	json_t *answer;          /* the last request's answer */
	bool replayed;           /* ...a retry's */
} ac_backend_pg;

/* ---- idempotency keys (ac_backend_pg_request.c; schema 12) ----
 * A session write with a request id set calls request_begin first: with
 * no id, *out_open false and nothing happens; else a transaction is begun
 * and the key taken (*out_open true: the write's statements join the
 * transaction, then request_end records answer and commits it, or rolls
 * it back when rc is an error) unless the key was used: then
 * *out_replayed true, b->answer the first answer, nothing to write.
 * operation names the write ("session.append"), arguments (JSON) what it
 * writes: a retry must give the same. */
int ac_backend_pg_request_begin(ac_backend_pg *b, bool *out_open, bool *out_replayed,
				const char *tenant, const char *operation, const json_t *arguments);
/* Takes answer (stolen, may be NULL on error). Returns rc, or the error of
 * recording the key or of the commit. */
int ac_backend_pg_request_end(ac_backend_pg *b, int rc, json_t *answer);
/* For a write that runs its own transactions (compaction, whose summary
 * may take longer than a transaction may stay idle): the key is checked
 * by request_begin, then released, and request_end adds it after the
 * write. A crash between the write and the key leaves no key: a retry
 * writes again (compaction, run again, finds nothing to do). */
int ac_backend_pg_request_defer(ac_backend_pg *b);
void ac_backend_pg_fill_request(ac_backend *b);
void ac_backend_pg_request_free(ac_backend_pg *b);

/* Sorted names from a one-column result (free with ac_backend_names_free). */
int ac_backend_pg_names(char ***out, size_t *out_n, const PGresult *res);

/* The messages of tenant's session_id, in seq order, with their seqs
 * (*out_seqs, may be NULL; allocated). AC_ENOTFOUND for another tenant's
 * or no session. */
int ac_backend_pg_load_messages(ac_backend_pg *b, json_t **out, long long **out_seqs,
				const char *tenant, const char *session_id);

/* optional.memo_write_if: the compare and the write in one statement. */
int ac_backend_pg_memo_write_if(const ac_backend *backend, const char *tenant, const char *owner,
				const char *scope, const char *name, const char *expected,
				const char *data, size_t len);

/* Stores an artifact unless one with other bytes is there already: 0 when
 * the artifact now holds data, AC_ECONFLICT when it holds something else. */
int ac_backend_pg_artifact_put(ac_backend_pg *b, const char *tenant, const char *session_id,
			       const char *tool_call_id, const char *data, size_t len);

/* *out: the session document (an object, without its history) in the
 * first column of res's first row; AC_ECORRUPT naming session_id when it
 * is not one. */
int ac_backend_pg_stored_document(json_t **out, const PGresult *res, const char *session_id);

/* Makes doc (a session document about to be stored) hold no history: its
 * conversationHistory, when present, becomes null where it stands, so the
 * messages put back on reading take the same place in the keys' order
 * (the seed's: ..., status, conversationHistory, metadata). 0 or AC_ENOMEM. */
int ac_backend_pg_history_slot(json_t *doc);

/* Locks the session's row for the rest of the transaction (every append
 * takes it too); AC_ENOTFOUND when it is not tenant's. */
int ac_backend_pg_lock_session(ac_backend_pg *b, const char *tenant, const char *session_id);

/* An archive's name (the key's last part, as a copy to files names its
 * file): a copied one's own, else made from its time and first seq, which
 * its row's key (session, at, first_seq) makes unique. */
#define AC_BACKEND_PG_ARCHIVE_NAME                                                    \
	"coalesce(name, to_char(at AT TIME ZONE 'UTC', 'YYYYMMDD\"T\"HH24MISS.US\"Z\"')" \
	" || '-s' || first_seq)"

/* Copies tenant's session_id's messages first..last (seqs, as text) to
 * the compactions table, the archive of what compaction and rollback
 * remove (kind "compaction" or "rollback", as the files' folders tell
 * them apart; schema 8), in the caller's transaction. With res, *res
 * holds one row: the archive's name and its time (ISO 8601, UTC). */
int ac_backend_pg_archive(ac_backend_pg *b, PGresult **res, const char *tenant,
			  const char *session_id, const char *kind, const char *first,
			  const char *last);

/* Applies change to tenant's session_id's stored document (its metadata,
 * task...; the history is the messages table's) in the caller's
 * transaction, with the session's row locked. AC_SESSION_UNCHANGED from
 * change writes nothing and is 0. */
int ac_backend_pg_change_document(ac_backend_pg *b, const char *tenant, const char *session_id,
				  ac_backend_pg_document_fn change, void *ctx);

/* Moves the session's message count and tokens by the deltas (never
 * below 0), records this host and agent as its writer, moves its history
 * epoch on (schema 10: the messages were changed or removed, not only
 * appended; every such write calls this in its transaction), and tells
 * listeners (kind). */
int ac_backend_pg_bump_session(ac_backend_pg *b, const char *tenant, const char *session_id,
			       long long message_delta, long long token_delta, const char *kind);

int ac_backend_pg_compact(void *impl, ac_backend_compact_result *out, const char *tenant,
			  const char *session_id, const ac_backend_compact_options *opts);

/* A turn's Usage as record_turn's statement binds it (schema 6): the
 * three further counts, the reported total (has_reported_total false:
 * NULL) and the other fields as JSON text (allocated). */
typedef struct {
	char counts[3][24]; /* cache creation, cache read, reasoning */
	char reported_total[24];
	bool has_reported_total;
	char *fields;
} ac_backend_pg_usage;

/* Fills *out from usage, which must check (ac_turn_usage_check): else
 * AC_EINVAL. Clear with ac_backend_pg_usage_clear() either way. */
int ac_backend_pg_usage_params(ac_backend_pg_usage *out, const ac_usage *usage);
void ac_backend_pg_usage_clear(ac_backend_pg_usage *params);

/* session.load_usage. */
int ac_backend_pg_load_usage(void *impl, json_t **out, const char *tenant, const char *session_id);
/* AC_EINVAL when the session's usage totals with usage's row added would
 * pass AC_SESSION_COUNT_MAX: record_turn asks before it writes, as the file
 * store does, so a refused turn leaves nothing behind. */
int ac_backend_pg_usage_room(void *impl, const char *tenant, const char *session_id,
			     const ac_usage *usage);
/* inspector.usage_by_hour (ac_backend_pg_usage.c). */
int ac_backend_pg_usage_by_hour(void *impl, json_t **out);
/* copy.usage_rows and copy.put_usage_rows (ac_backend_pg_usage.c). */
int ac_backend_pg_usage_rows(void *impl, json_t **out, const char *tenant, const char *session);
int ac_backend_pg_put_usage_rows(void *impl, const char *tenant, const char *session,
				 const json_t *rows);

/* Fill in the listings (users, inspector), the memo and artifact groups,
 * and the trace and orchestration. */
void ac_backend_pg_fill_listings(ac_backend *b);
int ac_backend_pg_each_session(const ac_backend *backend, const char *tenant,
			       ac_backend_session_fn fn, void *ctx);
int ac_backend_pg_find_sessions(const ac_backend *backend, const char *const *ids, size_t n,
				ac_backend_session_fn fn, void *ctx);
void ac_backend_pg_fill_files(ac_backend *b);
void ac_backend_pg_fill_logs(ac_backend *b);
/* ...and what a copy between stores needs (ac_backend_pg_copy.c). */
void ac_backend_pg_fill_copy(ac_backend *b);

#endif
