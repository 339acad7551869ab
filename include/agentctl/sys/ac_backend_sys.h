/* The storage backend, implementer's tier: the vtable a backend fills.
 *
 * Not included by <agentctl/agentctl.h>. An application holds an
 * ac_backend as a handle (ac_backend.h: ac_workspace_store() makes one,
 * ac_backend_close() releases it) and calls its operations through
 * ac_backend.h's ac_backend_<table>_<op>(); a backend's author includes
 * this header as <agentctl/sys/ac_backend_sys.h>, as libgit2's git2/sys/
 * headers. The promises every implementation keeps (tenancy, ids, errors,
 * consistency, threads, ownership) are ac_backend.h's opening comment.
 *
 * Every operation takes the object first (impl, or the backend itself for
 * the optional ones), then its out-parameters, then its inputs; a
 * callback and its ctx come after the out-parameters.
 *
 * ABI: struct ac_backend begins with its version. A backend starts from
 * ac_backend_init(b, AC_BACKEND_VERSION) (or AC_BACKEND_INIT), then fills
 * in its operations; the library refuses a backend of another version
 * (AC_EINVAL, "backend version N: ...") wherever it is handed one, so a
 * later version can add members at the end without breaking a backend
 * built against this one. */
#ifndef AC_BACKEND_SYS_H
#define AC_BACKEND_SYS_H

#include "../ac_backend.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The version of struct ac_backend these headers describe (2: the
 * optional memo_write_if). */
#define AC_BACKEND_VERSION 2

/* A backend with nothing filled in but its version. */
#define AC_BACKEND_INIT { .version = AC_BACKEND_VERSION }

/* ---- 1. The session store (the reference AgentrailSessionStore) ---- */
typedef struct {
	/* Loads session_id when it exists and belongs to tenant, else creates
	 * it (session_id NULL: a new random id) with tenant, user and agent
	 * (user and agent may be NULL). *out_id (allocated) names the
	 * session. Another tenant's session_id is AC_ENOTFOUND. */
	int (*get_or_create)(void *impl, char **out_id, const char *tenant, const char *user,
			     const char *agent, const char *session_id);
	/* Creates a new session (session_id NULL: a new random id) of tenant
	 * with task ("" or NULL: none), user and agent (may be NULL), as the
	 * seed's create: never adopts an existing one. A session_id that
	 * exists already, whatever its tenant, is AC_EINVAL ("exists
	 * already") and nothing is written. *out_id (allocated) names it. */
	int (*create)(void *impl, char **out_id, const char *tenant, const char *user,
		      const char *agent, const char *session_id, const char *task);
	/* Creates tenant's session doc.id from a whole document as get gives
	 * one (conversationHistory, task, status, metadata with tenantId =
	 * tenant, parent...), all or nothing: on a database one transaction,
	 * on files one atomic create. Never adopts an existing session: an id
	 * that exists already, whatever its tenant, is AC_EINVAL ("exists
	 * already") and nothing is written. A fork is made this way. */
	int (*create_document)(void *impl, const char *tenant, const json_t *doc);
	/* The whole history, an array. */
	int (*load_all)(void *impl, json_t **out, const char *tenant, const char *session_id);
	/* The last n messages, moved earlier so no tool result loses its call. */
	int (*load_last)(void *impl, json_t **out, const char *tenant, const char *session_id,
			 size_t n);
	/* The newest messages that fit in budget estimated tokens (ac_messages.h).
	 * 0 is the seed's default, AC_BACKEND_TOKEN_BUDGET (loadMessagesWithBudget's
	 * tokenBudget = 100_000), never "no messages". */
	int (*load_within)(void *impl, json_t **out, const char *tenant, const char *session_id,
			   uint64_t budget);
	/* Appends the array messages, all or none. */
	int (*append)(void *impl, const char *tenant, const char *session_id,
		      const json_t *messages);
	/* Records one turn: appends messages (an array; NULL or empty: none),
	 * then keeps usage as the turn's row (every field; numbered, dated)
	 * and counts the turn; the session's totals are derived from the
	 * rows. A crash between the writes leaves the messages stored and the
	 * turn not counted (usage totals one turn behind); never a counted
	 * turn whose messages are missing. usage's fields that are counts
	 * must check (ac_turn_usage_check), else AC_EINVAL, nothing written. */
	int (*record_turn)(void *impl, const char *tenant, const char *session_id,
			   const json_t *messages, const ac_usage *usage);
	/* The turn rows and their totals: *out = {"turns": [{"turn": N,
	 * "timestamp": ISO, "usage": {...}}, ...], "totals": {counts summed,
	 * "turns": N}} (ac_turn_usage.h). */
	int (*load_usage)(void *impl, json_t **out, const char *tenant, const char *session_id);
	/* Keeps the session small without losing anything: first every tool
	 * result over opts->artifact_threshold bytes is written as an artifact
	 * (by its tool-call id) and replaced in the message by
	 *   "[artifact ID: N bytes; agentctl artifact show SESSION ID]";
	 * then, when the history passes the trigger, its oldest fraction is
	 * summarised (the replaced messages archived first). Each step is
	 * written before the next starts: a crash leaves an artifact or an
	 * archive nothing refers to yet, never a reference without its
	 * artifact. A result whose id already has a different artifact stays
	 * inline. opts may be NULL (defaults); out may be NULL. */
	int (*compact_if_needed)(void *impl, ac_backend_compact_result *out, const char *tenant,
				 const char *session_id, const ac_backend_compact_options *opts);
	/* The whole session as a session file holds it (the reference
	 * document: id, task, status, timestamps, conversationHistory,
	 * metadata with tenancy and usage, unknown keys kept), as stored now. */
	int (*get)(void *impl, json_t **out, const char *tenant, const char *session_id);
	/* A status change as a compare-and-set: to `to` only while the status
	 * is `from`; AC_ECONFLICT (nothing written) when it is not any more.
	 * Both are one of running, paused, completed, failed (else AC_EINVAL);
	 * which changes make sense is the caller's rule
	 * (ac_session_status_change_allowed). */
	int (*set_status)(void *impl, const char *tenant, const char *session_id, const char *from,
			  const char *to);
	/* For a reader that keeps a copy of the history (the dashboard), so
	 * its work follows what changed: *out (an array) the messages appended
	 * after *cursor, which is moved past them. A cursor of all zero reads
	 * the whole history. When anything but appends changed the history
	 * since the cursor's read (a compaction, a rollback, a session made
	 * anew), AC_ECONFLICT, *out NULL and the cursor left: read it whole (a
	 * zeroed cursor). Exact, in one snapshot. NULL in a backend without a
	 * way to tell (the files). */
	int (*load_after)(void *impl, json_t **out, ac_backend_history_cursor *cursor,
			  const char *tenant, const char *session_id);
} ac_backend_session_ops;

/* The block, record and session callbacks (ac_backend_block_fn,
 * ac_backend_record_fn, ac_backend_session_fn) are ac_backend.h's. */

/* ---- 2. Memory documents: (tenant, owner, scope, name) -> bytes ----
 * owner is the session id for scope "session", the user id for "user",
 * the agent id for "agent". */
typedef struct {
	/* *out (allocated, NUL-terminated after out_len bytes) holds the
	 * document. AC_ENOTFOUND when there is none. */
	int (*read)(void *impl, char **out, size_t *out_len, const char *tenant,
		    const char *owner, const char *scope, const char *name);
	/* The document as read gives it, handed to fn in blocks as it is
	 * read, so a reader's memory does not grow with the document. NULL
	 * in a backend that has no such way: use read. */
	int (*stream)(void *impl, ac_backend_block_fn fn, void *ctx, const char *tenant,
		      const char *owner, const char *scope, const char *name);
	/* Replaces the document atomically: readers see the old or the new. */
	int (*write)(void *impl, const char *tenant, const char *owner, const char *scope,
		     const char *name, const char *data, size_t len);
	/* Appends data (creating the document); concurrent appends from any
	 * number of processes all land, each whole and once. */
	int (*append)(void *impl, const char *tenant, const char *owner, const char *scope,
		      const char *name, const char *data, size_t len);
	/* The documents' names, sorted (free with ac_backend_names_free). */
	int (*list)(void *impl, char ***out_names, size_t *out_n, const char *tenant,
		    const char *owner, const char *scope);
} ac_backend_memo_ops;

/* ---- 3. Tool-result artifacts: a tool call's full output ---- */
typedef struct {
	/* Stores (replacing) the output of tool call tool_call_id, atomically. */
	int (*write)(void *impl, const char *tenant, const char *session_id,
		     const char *tool_call_id, const char *data, size_t len);
	/* *out as for memo read. AC_ENOTFOUND when there is none. */
	int (*read)(void *impl, char **out, size_t *out_len, const char *tenant,
		    const char *session_id, const char *tool_call_id);
	/* The output handed to fn in blocks, as memo stream; may be NULL. */
	int (*stream)(void *impl, ac_backend_block_fn fn, void *ctx, const char *tenant,
		      const char *session_id, const char *tool_call_id);
	/* The session's artifact ids, sorted (free with ac_backend_names_free). */
	int (*list)(void *impl, char ***out_ids, size_t *out_n, const char *tenant,
		    const char *session_id);
} ac_backend_artifact_ops;

/* ---- 4. User session lister ---- */
typedef struct {
	/* tenant's sessions of user, newest first; session_id and updated_at
	 * (and the rest of the info) filled. Free with ac_backend_sessions_free. */
	int (*list)(void *impl, ac_backend_session_info **out, size_t *out_n, const char *tenant,
		    const char *user);
} ac_backend_user_ops;

/* ---- 5. Trace store and 6. orchestration: ordered logs ----
 * A record is {"seq": N, "at": "<ISO-8601 UTC>", "data": <the caller's
 * object, unchanged>}. seq is per log, assigned by the backend: 1, then
 * one more than the highest stored, strictly increasing whatever number of
 * processes append at once. Loads return records sorted by seq, skipping
 * any torn or corrupt one (*out_skipped, may be NULL, counts them). */
typedef struct {
	/* Appends envelope (a JSON object) to the session's trace; *out_seq
	 * (may be NULL) receives its seq. */
	int (*append)(void *impl, uint64_t *out_seq, const char *tenant, const char *session_id,
		      const json_t *envelope);
	/* The records with seq > after_seq (0: all), in order. A session with
	 * no trace has an empty one. */
	int (*load)(void *impl, json_t **out, size_t *out_skipped, const char *tenant,
		    const char *session_id, uint64_t after_seq);
	/* All the records, as load gives them, handed to fn one at a time
	 * (each borrowed for the call), so a reader's memory does not grow
	 * with the trace. A non-zero return from fn stops and is returned;
	 * *out_skipped as for load. NULL in a backend without it: use load. */
	int (*each)(void *impl, size_t *out_skipped, ac_backend_record_fn fn, void *ctx,
		    const char *tenant, const char *session_id);
} ac_backend_trace_ops;

typedef struct {
	/* Appends event (a JSON object) to run's log; *out_seq may be NULL. */
	int (*append_event)(void *impl, uint64_t *out_seq, const char *tenant, const char *run_id,
			    const json_t *event);
	/* The records with seq > after_seq (0: all), in order. */
	int (*load_events)(void *impl, json_t **out, size_t *out_skipped, const char *tenant,
			   const char *run_id, uint64_t after_seq);
	/* Replaces the run's snapshot atomically with state (any JSON value),
	 * recording covers_seq, the last event it includes. Refused with
	 * AC_ECONFLICT when a stored snapshot covers more (snapshots never go
	 * back) and AC_EINVAL when covers_seq is past the last event. */
	int (*write_snapshot)(void *impl, const char *tenant, const char *run_id,
			      uint64_t covers_seq, const json_t *state);
	/* The latest snapshot's state and the seq it covers; AC_ENOTFOUND when
	 * none was written. After a crash the state is this snapshot plus the
	 * events load_events(after_seq = *out_covers_seq) returns. */
	int (*load_snapshot)(void *impl, json_t **out_state, uint64_t *out_covers_seq,
			     const char *tenant, const char *run_id);
} ac_backend_orch_ops;

/* ---- 7. Inspector data source (read-only) ---- */
typedef struct {
	/* Every session (tenant NULL) or one tenant's, newest first, with the
	 * counts. Sessions that belong to no tenant are listed with tenant "".
	 * Free with ac_backend_sessions_free. */
	int (*list_sessions)(void *impl, ac_backend_session_info **out, size_t *out_n,
			     const char *tenant);
	/* The listing line of session_id, whatever its tenant (the operator
	 * names a session by id alone): *out filled as list_sessions fills
	 * one, freed with ac_backend_session_info_clear(). AC_ENOTFOUND when
	 * there is no such session. */
	int (*find)(void *impl, ac_backend_session_info *out, const char *session_id);
	/* Every tenant's recorded turn usage (session.record_turn's rows)
	 * summed by session, model and UTC hour, for `agentctl usage`: *out a
	 * new array of [session, model ("" when none), hour, first, last (ms
	 * since the epoch), turns, input, output, cache creation, cache read,
	 * reasoning tokens]. Rows with no time (totals carried from before
	 * rows were kept) are left out. NULL in the file store, whose rows
	 * ac_usage_scan() reads from their files itself. */
	int (*usage_by_hour)(void *impl, json_t **out);
} ac_backend_inspector_ops;

/* ---- 8. Copying between stores (agentctl storage migrate) ----
 * What a copy needs beyond the contracts above: every key a store holds,
 * and writes that keep what the source says (a session's whole document,
 * a record's seq and time) instead of starting afresh. The walks hand fn
 * borrowed strings; a non-zero return from fn stops and is returned. */
typedef int (*ac_backend_key_fn)(const char *const *key, void *ctx);

typedef struct {
	/* Stores doc (a whole session document as session.get gives it, its
	 * conversationHistory included) as tenant's session doc.id, all or
	 * nothing, only when no session has that id: *out_created tells
	 * which (false: nothing written). */
	int (*put_session)(void *impl, bool *out_created, const char *tenant, const json_t *doc);
	/* A session whose document names no tenant (a seed-style session
	 * file: the inspector lists it with tenant ""), which no tenant's call
	 * can reach: *out_doc as session.get gives a document, *out_usage as
	 * session.load_usage gives usage (new references). AC_ENOTFOUND when
	 * there is no such session or it has a tenant. NULL in a store that
	 * keeps every session under a tenant (a database). */
	int (*get_untenanted)(void *impl, json_t **out_doc, json_t **out_usage,
			      const char *session_id);
	/* Every memo document: key = {tenant, owner, scope, name}. */
	int (*each_memo)(void *impl, ac_backend_key_fn fn, void *ctx);
	/* Every artifact: key = {tenant, session, tool call id}. */
	int (*each_artifact)(void *impl, ac_backend_key_fn fn, void *ctx);
	/* Every trace and orchestration run (with events or a snapshot):
	 * key = {tenant, "trace" or "run", session or run id}. */
	int (*each_log)(void *impl, ac_backend_key_fn fn, void *ctx);
	/* Adds records (an array of {seq, at, data}, seqs ascending and above
	 * any the log holds) to tenant's log as they are: all or none in the
	 * database, in order one line each in a file (a crash leaves a prefix);
	 * the log's next append takes the seq after the highest. */
	int (*put_records)(void *impl, const char *tenant, const char *kind, const char *log,
			   const json_t *records);
	/* The session's turn usage rows as stored: session.load_usage's,
	 * without the row a file store shows for totals counted before rows
	 * were kept (made up from the document, not stored): *out a new
	 * array. AC_ENOTFOUND when tenant has no such session. */
	int (*usage_rows)(void *impl, json_t **out, const char *tenant, const char *session);
	/* Adds turn usage rows (as session.load_usage gives them: {"turn",
	 * "timestamp", "usage", ...}, every member kept) to the session's as
	 * they are,
	 * turn numbers and timestamps kept, nothing re-derived from them but
	 * the totals the store keeps beside them: all or none (one statement
	 * in the database; one append in a file, where a crash may leave a
	 * prefix of whole rows). AC_ECONFLICT when a turn is there already,
	 * AC_ENOTFOUND when the session is not. */
	int (*put_usage_rows)(void *impl, const char *tenant, const char *session,
			      const json_t *rows);
	/* Every archive of removed messages (a compaction's, or a checkpoint
	 * rollback's): key = {tenant, session, kind ("compaction" or
	 * "rollback"), name}. The name is the archive file's without ".json"
	 * (its UTC stamp); an archive the database wrote itself has none and
	 * is named from its time and first seq ("<UTC stamp>-s<first seq>"). */
	int (*each_archive)(void *impl, ac_backend_key_fn fn, void *ctx);
	/* The archive under key as a document: {"sessionId", "createdAt",
	 * "messages", ...} as ac_archive.c writes it. AC_ENOTFOUND. */
	int (*get_archive)(void *impl, json_t **out, const char *const *key);
	/* Stores doc under key, whole or not at all, only when nothing holds
	 * the key (AC_ECONFLICT then: nothing written). */
	int (*put_archive)(void *impl, const char *const *key, const json_t *doc);
} ac_backend_copy_ops;

/* ---- 9. Safe retries: idempotency keys (optional) ----
 * An agent whose write committed but whose answer was lost (a connection
 * dropped after COMMIT, a server restart) retries it under the same
 * request id and gets the first answer, the write made once. The key is
 * (tenant, request id); the store keeps it with the operation, a digest of
 * the write's arguments and its answer for at least
 * AC_BACKEND_REQUEST_KEEP_S seconds (older keys are removed as new ones
 * are written). The same id with another operation or other arguments is
 * refused (AC_EINVAL, nothing written). NULL members: the store keeps no
 * keys (the files: a retried write there writes again). */
#define AC_BACKEND_REQUEST_KEEP_S (24 * 3600)
/* A request id: ac_backend_id_check()'s rules ("request id"). */
#define AC_BACKEND_REQUEST_ID_MAX AC_BACKEND_ID_MAX

typedef struct {
	/* The next session write of this backend value (session.create,
	 * append, record_turn, set_status, compact_if_needed) is made under
	 * request_id (copied), in the same transaction as the key: either
	 * both are stored or neither. That call clears it, whatever its
	 * outcome; NULL clears it. Done already with the same operation and
	 * arguments: the call writes nothing, returns 0 and gives the first
	 * answer (create's *out_id, compact's *out). AC_EINVAL for a bad id. */
	int (*use)(void *impl, const char *request_id);
	/* The answer of the last write made under a request id (new
	 * reference): {"id"} for create, {"messages", "turns"} (the row's
	 * counts after the write) for append and record_turn, {"status"} for
	 * set_status, the compaction's counts for compact; *out_replayed: it
	 * is a retry's (nothing was written). AC_ENOTFOUND when none. */
	int (*answer)(void *impl, json_t **out, bool *out_replayed);
	/* Whether tenant's request_id was used: AC_ENOTFOUND when not; 0 and
	 * *out its answer (new reference) when for operation (e.g.
	 * "session.set_status") with these arguments (JSON, as the write
	 * digests them: {"session", "to"} for set_status); AC_EINVAL naming
	 * the operation it was used for otherwise. For callers that judge a
	 * write before making it (a status change allowed from the status
	 * read), so a retry is answered before that judgement refuses it. */
	int (*check)(void *impl, json_t **out, const char *tenant, const char *request_id,
		     const char *operation, const json_t *arguments);
} ac_backend_request_ops;

/* A change to a session document, as ac_session_update() takes one: 0
 * (changed), AC_SESSION_UNCHANGED, or AC_E* (nothing written). */
typedef int (*ac_backend_document_fn)(json_t *root, void *ctx);

struct ac_store_watch;

/* What optional.unfold is handed as its ctx: the session whose compaction
 * to unfold (all borrowed) and seq, the unfold's own (zero it). */
typedef struct {
	const struct ac_backend *backend;
	const char *tenant;
	const char *session_id;
	long long seq;
} ac_backend_unfold_ctx;
/* ---- 10. What only some stores can do ----
 * Each member is NULL in a store that cannot do it: a caller asks for the
 * operation (is it there?) and never for the store's name. They take the
 * backend itself (they may use its other operations and its connection). */
typedef struct {
	/* The session files' folder when the store keeps each session as a
	 * file in the workspace that local agents write (the files): operator
	 * actions then wait for the file to be quiet, leave pause requests
	 * beside it and signal the agent agentctl started (ac_control.h).
	 * NULL in a store that hosts share, whose agents may run anywhere and
	 * read their status from it: a status change is its compare-and-set. */
	const char *(*local_sessions)(const struct ac_backend *b);
	/* Holds (hold true) or lets go of session_id's operator lock on b's
	 * connection, so gc leaves the session's records alone meanwhile. */
	int (*hold_session)(const struct ac_backend *b, const char *session_id, bool hold);
	/* A lease one connection holds at a time (ac_backend_pg_lease()). */
	int (*lease)(const struct ac_backend *b, bool *out_held, const char *name);
	/* Applies change to tenant's session_id's document in one
	 * transaction under the session's row lock. */
	int (*update_document)(const struct ac_backend *b, const char *tenant,
			       const char *session_id, ac_backend_document_fn change, void *ctx);
	/* A checkpoint rollback's cut in one transaction: when session_id
	 * still holds exactly planned, the messages after the first keep are
	 * archived in the store and removed, note recording it in the
	 * document (ac_backend_pg_cut_history()); AC_ECONFLICT otherwise. */
	int (*cut_history)(const struct ac_backend *b, const char *tenant, const char *session_id,
			   const json_t *planned, size_t keep, ac_backend_document_fn note,
			   void *note_ctx);
	/* The same behind a compaction: every message goes (removed is
	 * archived as the rollback's) and kept takes their place
	 * (ac_backend_pg_replace_history()). */
	int (*replace_history)(const struct ac_backend *b, const char *tenant,
			       const char *session_id, const json_t *planned, const json_t *kept,
			       const json_t *removed, ac_backend_document_fn note, void *note_ctx);
	/* An ac_checkpoint_unfold_fn (ac_checkpoint.h) for a session the
	 * store keeps, ctx an ac_backend_unfold_ctx: the messages the
	 * compaction behind the history's summary archived, so a checkpoint
	 * rollback reaches behind it (ac_backend_pg_unfold()). NULL in a store
	 * whose session document unfolds itself (the files:
	 * ac_checkpoint_plan_rollback() reads the archives beside it). */
	int (*unfold)(json_t **out, size_t depth, const json_t *history, void *ctx);
	/* Starts following what every host writes to the store as it commits
	 * (ac_store_watch.h), on a connection of its own: *out, freed with
	 * ac_store_watch_free(). NULL in a store whose changes the workspace's
	 * file watcher sees (the files: ac_watch.h). */
	int (*watch)(const struct ac_backend *b, struct ac_store_watch **out);
	/* inspector.list_sessions' rows handed to fn one by one as they are
	 * read, a batch at a time (one snapshot), so a listing of any size
	 * holds a batch in memory (ac_backend_pg_each_session()); fn's
	 * non-zero return stops it and is returned. NULL in a store whose
	 * listing is read whole. */
	int (*each_session)(const struct ac_backend *b, const char *tenant,
			    ac_backend_session_fn fn, void *ctx);
	/* inspector.find for n sessions at once (ids: each once), in one
	 * round trip: fn is handed the listing line of each that exists, in
	 * no particular order (those not handed are gone). NULL in a store
	 * that reads one at a time. */
	int (*find_sessions)(const struct ac_backend *b, const char *const *ids, size_t n,
			     ac_backend_session_fn fn, void *ctx);
	/* memo.write when the document is still as the caller last saw it:
	 * its SHA-256 (hex) is expected, or, expected NULL, there is none;
	 * AC_ECONFLICT, nothing written, otherwise. The compare and the
	 * write are one step for every writer of the store (the sandbox's
	 * write-back of an agent's edit must not replace a document another
	 * host wrote since it looked). NULL in a store that cannot: the
	 * caller compares and writes in two steps. */
	int (*memo_write_if)(const struct ac_backend *b, const char *tenant, const char *owner,
			     const char *scope, const char *name, const char *expected,
			     const char *data, size_t len);
} ac_backend_optional_ops;

struct ac_backend {
	unsigned int version;              /* AC_BACKEND_VERSION: set by ac_backend_init() */
	const char *name;                   /* "fs", ... (static): for messages, never to choose a path */
	void *impl;                         /* handed to every function */
	ac_backend_session_ops session;
	ac_backend_memo_ops memo;
	ac_backend_artifact_ops artifact;
	ac_backend_user_ops users;
	ac_backend_trace_ops trace;
	ac_backend_orch_ops orch;
	ac_backend_inspector_ops inspector;
	ac_backend_copy_ops copy;
	ac_backend_optional_ops optional;
	void (*free)(void *impl);           /* releases impl */
	ac_backend_request_ops request;     /* optional (NULLs): idempotency keys */
};

/* Clears *b and sets its version, for a backend about to fill its
 * operations in. version is the AC_BACKEND_VERSION the caller was built
 * with: another one is refused (AC_EINVAL, *b cleared). */
int ac_backend_init(ac_backend *b, unsigned int version);

/* 0 when b is a backend of this library's version (AC_BACKEND_VERSION);
 * AC_EINVAL naming both versions otherwise (a NULL b too). */
int ac_backend_version_check(const ac_backend *b);

#endif
