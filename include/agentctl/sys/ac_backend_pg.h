/* The PostgreSQL backend (implementer's tier, not in the umbrella): the
 * storage contracts of ac_backend.h kept in one database that agents on
 * any number of hosts share (docs/POSTGRES.md).
 *
 * Same promises as the file backend, with the database's concurrency:
 * seqs (messages, traces, orchestration events) are assigned in the
 * database inside the appending transaction, serialised per log by a row
 * lock on the log's row, so they are strictly increasing and gap-free
 * whatever the number of writers and hosts; an append is one transaction
 * (all or none); record_turn stores its messages and its usage row in one
 * transaction (so a crash leaves both or neither); compaction reads,
 * summarises with no transaction open, then replaces the summarised
 * messages in one transaction only if they are still there unchanged
 * (else AC_ECONFLICT). Every query names the tenant. Every writing
 * transaction sends pg_notify('agentctl', {"kind","tenant","session"}).
 *
 * Opening connects and brings the schema up to date (ac_pg_schema.c's
 * migrations, under an advisory lock). A backend value holds one
 * connection; after fork() a child uses its own. */
#ifndef AC_BACKEND_PG_H
#define AC_BACKEND_PG_H

#include "ac_backend_sys.h"
#include "../ac_config.h"

/* The version of ac_backend_pg_options this header describes: options
 * start from AC_BACKEND_PG_OPTIONS_INIT, and ac_backend_pg_init() refuses
 * another version (AC_EINVAL), so members can be added at the end. */
#define AC_BACKEND_PG_OPTIONS_VERSION 1
#define AC_BACKEND_PG_OPTIONS_INIT { .version = AC_BACKEND_PG_OPTIONS_VERSION }

typedef struct {
	unsigned int version; /* AC_BACKEND_PG_OPTIONS_VERSION */
	const char *url;    /* postgresql://... URL or libpq connection string */
	const char *schema; /* NULL: "agentctl" */
	const char *host;   /* written to rows as the writer; NULL: gethostname() */
	const char *agent;  /* the writing agent recorded on sessions; NULL: "agentctl" */
} ac_backend_pg_options;

/* Fills *out with the PostgreSQL backend. 0, or AC_EIO (unreachable, one
 * line naming the store without its password), AC_EINVAL (options of
 * another version among them), AC_ENOMEM. */
int ac_backend_pg_init(ac_backend *out, const ac_backend_pg_options *opts);

/* A session's status changed as a compare-and-set: to `to` only when it is
 * `from` now; AC_ECONFLICT (nothing changed) when it is not, AC_ENOTFOUND
 * for another tenant's or no session. b must be a PostgreSQL backend.
 * The same as b->session.set_status, kept for callers that hold a
 * PostgreSQL backend by name. */
int ac_backend_pg_set_status(const ac_backend *b, const char *tenant, const char *session_id,
			     const char *from, const char *to);

/* A lease only one connection to the store holds at a time: the
 * session-level advisory lock pg_try_advisory_lock(hashtext(name || ' ' ||
 * schema)) (e.g. "agentctl hooks agentctl"), held by b's connection until
 * it ends (the process quits or dies, the server or network drops it).
 * *out_held: b holds it now (taken by this call or an earlier one on the
 * same connection; after a reconnection it is tried again). One name per
 * backend (asking for another forgets the first, which stays taken until
 * the connection ends). Never waits for another holder. 0, or AC_EIO (the store unreachable), AC_EINVAL
 * when b is not the PostgreSQL backend. */
int ac_backend_pg_lease(const ac_backend *b, bool *out_held, const char *name);

/* The key of a session's operator lock in SQL, $1 being the session id
 * and the schema's name following it: what operator actions hold shared
 * (ac_backend_pg_hold_session) and gc takes exclusive, without waiting,
 * before it removes a session's records. */
#define AC_BACKEND_PG_SESSION_LOCK_KEY(id, schema) \
	"hashtext('agentctl session ' || " schema " || ' ' || " id ")"

/* Holds (hold true) or lets go (false) session_id's operator lock on b's
 * connection: pg_advisory_lock_shared, so operator actions (compaction,
 * checkpoint rollback) overlap one another while gc skips that session's
 * records (ac_gc.h), whatever the clocks say. Waits only while a gc
 * removes that session's records (one statement). The server lets it go
 * when the connection ends. 0, AC_EIO, or AC_EINVAL when b is not the
 * PostgreSQL backend. */
int ac_backend_pg_hold_session(const ac_backend *b, const char *session_id, bool hold);

/* A change to a session document (ac_backend.h's ac_backend_document_fn). */
typedef ac_backend_document_fn ac_backend_pg_document_fn;

/* Applies change to tenant's session_id's stored document (everything a
 * session file holds but the history: task, metadata...) in one
 * transaction under the session's row lock, so no other writer's change
 * comes between the read and the write (the compare-and-set a file gets
 * from ac_session_update). AC_ENOTFOUND when the session is not tenant's;
 * AC_EINVAL when b is not the PostgreSQL backend. */
int ac_backend_pg_update_document(const ac_backend *b, const char *tenant,
				  const char *session_id, ac_backend_pg_document_fn change,
				  void *ctx);

/* A checkpoint rollback's cut on the PostgreSQL backend b: in one
 * transaction under the session's row lock, when tenant's session_id
 * still holds exactly the messages planned (else AC_ECONFLICT, nothing
 * changed), the messages after the first keep are archived (the
 * compactions table) and removed, the session's counts follow, and
 * listeners are told (kind "rollback"); note (may be NULL) then records
 * the rollback in the stored document in the same transaction (as
 * ac_backend_pg_update_document's change). AC_EINVAL when b is not the
 * PostgreSQL backend. planned is borrowed. */
int ac_backend_pg_cut_history(const ac_backend *b, const char *tenant, const char *session_id,
			      const json_t *planned, size_t keep, ac_backend_pg_document_fn note,
			      void *note_ctx);

/* A checkpoint rollback behind compactions (ac_checkpoint_plan's
 * unfolded): as ac_backend_pg_cut_history(), but every message goes
 * (removed, borrowed, is archived as the rollback's) and kept (borrowed:
 * the checkpoint's history) takes their place under new seqs. */
int ac_backend_pg_replace_history(const ac_backend *b, const char *tenant,
				  const char *session_id, const json_t *planned, const json_t *kept,
				  const json_t *removed, ac_backend_pg_document_fn note,
				  void *note_ctx);

/* An ac_checkpoint_unfold_fn for a session of the PostgreSQL backend
 * (its optional.unfold): a summary holds the seq of the last message its
 * compaction archived (the compactions table), and the first of those is
 * where the summary of the compaction before sits; a rollback behind one
 * puts the checkpoint's messages back under new seqs, so its summary is
 * never found again. ctx: an ac_backend_unfold_ctx (seq is the
 * function's). */
typedef ac_backend_unfold_ctx ac_backend_pg_unfold_ctx;

int ac_backend_pg_unfold(json_t **out, size_t depth, const json_t *history, void *ctx);

/* *out: storage.url (borrowed from config), trusted as a command is:
 * agents write the project file, and a URL there could send every session
 * to a database they chose. NULL when unset: the workspace's files. */
int ac_storage_url(const char **out, const ac_config *config);

/* What `storage check` says of the database url names: *out_version found (0: no schema
 * yet), *out_latest expected, *out_missing not applied. Changes nothing. */
int ac_storage_check_url(const char *url, int *out_version, int *out_latest, int *out_missing);

#endif
