/* The storage backend: one interface for everything an agent host keeps.
 *
 * An agent host persists through six contracts: the session store (with
 * compaction), memory documents, tool-result artifacts, a user's session
 * list, the workflow trace, orchestration state, plus a read-only inspector
 * listing. Each is a group of function pointers in one struct, ac_backend,
 * with a `void *impl` the functions receive and a `free` for it: a second
 * backend (a database) is a matter of filling in the struct. This header is
 * the application's tier: the handle, the values the contracts exchange,
 * what frees them, and the operations as calls (ac_backend_<table>_<op>(),
 * ac_backend_has_*()). The vtable itself, for a backend's author, is the
 * implementer's tier, <agentctl/sys/ac_backend_sys.h>, not in the
 * umbrella; the file-system backend's init and test seam are
 * <agentctl/sys/ac_backend_fs.h>.
 * tests/test_backend.c is the conformance suite any backend can run, since
 * it touches a backend only through the struct.
 *
 * What every implementation promises:
 *
 * - Tenancy. Every call names a tenant, and one tenant can never read or
 *   write another's data: a session of another tenant is AC_ENOTFOUND (its
 *   existence is not revealed); memo documents, artifacts, traces and runs
 *   live in the tenant's own space. The inspector (the operator's view) is
 *   the only reader across tenants.
 * - Ids and names (tenant, user, agent, session, owner, document name,
 *   tool-call id, run id) follow ac_backend_id_check(); anything else is
 *   refused with AC_EINVAL before anything is read or written. Scopes are
 *   "session", "user" or "agent".
 * - Errors: 0 or a negative AC_E* code with ac_error_last(). Traces and
 *   orchestration are side writes: a failure is returned to the caller, who
 *   logs it and carries on; nothing aborts.
 * - Consistency: no transaction spans two contracts or two calls. A call
 *   that writes two things says what a crash between them leaves (see
 *   record_turn and compact_if_needed); what it leaves always loads.
 * - Threads: a backend value is used by one thread at a time. Processes may
 *   share the storage freely.
 *
 * Ownership: returned json_t values are new references (json_decref);
 * returned strings, buffers and arrays are malloc'ed for the caller, freed
 * with free(), ac_backend_names_free() or ac_backend_sessions_free(), which
 * every backend's results are compatible with. Inputs are borrowed. */
#ifndef AC_BACKEND_H
#define AC_BACKEND_H

#include "ac_compact.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Longest id or name, in bytes: short enough that every file name built
 * from one (temp files, "<id>.jsonl.lock") fits the file system's limit. */
#define AC_BACKEND_ID_MAX 200

/* loadMessagesWithBudget's default budget in the seed (001). */
#define AC_BACKEND_TOKEN_BUDGET 100000

/* The budget load_within uses for budget: 0 stands for the default. */
static inline uint64_t ac_backend_token_budget(uint64_t budget)
{
	return budget ? budget : AC_BACKEND_TOKEN_BUDGET;
}

/* Tool results larger than this are moved to artifacts by compaction. */
#define AC_BACKEND_ARTIFACT_THRESHOLD 4096

/* 0 when id may be used as what (for the message: "tenant", "session"...):
 * ac_session_id_check()'s rules (not empty, no '/', not starting with
 * '.'), no control bytes (which a session file's name may hold, but not
 * an id made through a store), at most AC_BACKEND_ID_MAX bytes, and not
 * ending in ".tmp" or ".lock" (names the stores keep for themselves). Otherwise
 * AC_EINVAL, the message naming what and why. */
int ac_backend_id_check(const char *what, const char *id);

/* 0 when from and to are both one of running, paused, completed, failed;
 * AC_EINVAL naming them otherwise. */
int ac_backend_status_check(const char *from, const char *to);

/* 0 when scope is "session", "user" or "agent"; AC_EINVAL otherwise. */
int ac_backend_scope_check(const char *scope);

/* One turn's usage: the seed's Usage. The two counts every agent reports,
 * and fields (borrowed, may be NULL): the whole Usage object as the agent
 * gave it (cacheCreationInputTokens, cacheReadInputTokens, reasoningTokens,
 * totalTokens, model, costUsd, ...; ac_turn_usage.h), kept per turn. The
 * two counts win over fields' inputTokens and outputTokens. */
typedef struct {
	uint64_t input_tokens;
	uint64_t output_tokens;
	const json_t *fields;
} ac_usage;

/* Compaction as the backend does it: the core's options (ac_compact.h:
 * trigger, fraction, force and the summariser, a callback or a command,
 * with their defaults) plus the artifact step. The backend supplies its
 * own compact.guard and compact.after_archive; the caller's are ignored.
 * Options start from AC_BACKEND_COMPACT_OPTIONS_INIT (the defaults, as
 * ac_backend_compact_options_init()); a compaction refuses options of
 * another version, or a compact member of another, with AC_EINVAL naming
 * the struct, before anything is written. */
#define AC_BACKEND_COMPACT_OPTIONS_VERSION 1
#define AC_BACKEND_COMPACT_OPTIONS_INIT                                                    \
	{                                                                                  \
		.version = AC_BACKEND_COMPACT_OPTIONS_VERSION,                               \
		.compact = AC_COMPACT_OPTIONS_INIT,                                          \
		.artifact_threshold = AC_BACKEND_ARTIFACT_THRESHOLD                          \
	}

typedef struct {
	unsigned int version; /* AC_BACKEND_COMPACT_OPTIONS_VERSION */
	ac_compact_options compact;
	size_t artifact_threshold; /* tool results over this many bytes become
				      artifacts; default AC_BACKEND_ARTIFACT_THRESHOLD,
				      SIZE_MAX: never */
} ac_backend_compact_options;

typedef struct {
	size_t externalized;      /* tool results moved to artifacts */
	uint64_t artifact_bytes;  /* their total size */
	bool compacted;           /* a summary replaced the oldest messages */
	size_t summarized;        /* how many */
	size_t messages_before;   /* before the summary (after externalising) */
	size_t messages_after;
	uint64_t tokens_before;   /* before anything was done */
	uint64_t tokens_after;
	const char *why_not;      /* not compacted: why (static text, as
				     ac_compact_result's); NULL otherwise */
} ac_backend_compact_result;

/* Fills opts with the defaults: ac_compact_options_init()'s and the
 * artifact threshold: AC_BACKEND_COMPACT_OPTIONS_INIT. */
void ac_backend_compact_options_init(ac_backend_compact_options *opts);

/* A session as listed. All strings owned by the list, "" when unknown. */
typedef struct {
	char *tenant;
	char *session_id;
	char *user;
	char *agent;
	char *status;
	char *updated_at;         /* ISO-8601 UTC */
	size_t messages;
	uint64_t tokens;          /* estimated over the current history */
	uint64_t input_tokens;    /* recorded usage, summed over turns */
	uint64_t output_tokens;
	uint64_t turns;
	char *host;               /* the host that last wrote it ("" when the
				     store does not record it: the files) */
	char *writer;             /* the agent that last wrote it (likewise;
				     filled by inspector.find, "" in listings) */
	char *task;               /* the session's task ("" when none) */
	char *created_at;         /* ISO-8601 UTC */
} ac_backend_session_info;

/* Where a reader's copy of a session's history stands (session.load_after):
 * the history's epoch when read, the last message's seq and how many
 * messages the copy holds. All zero: nothing held. Opaque to callers. */
typedef struct {
	int64_t epoch;
	int64_t seq;
	uint64_t count;
} ac_backend_history_cursor;

/* The store handle: made by ac_workspace_store() (or a backend's own init),
 * released with ac_backend_close(). An application reaches its operations
 * through the calls below; the vtable behind them (sys/ac_backend_sys.h)
 * is the implementer's. */
typedef struct ac_backend ac_backend;

/* Releases b's implementation and clears b (b itself is the caller's).
 * Safe on a cleared backend and on NULL. */
void ac_backend_close(ac_backend *b);

/* Frees names[0..n) and names. */
static inline void ac_backend_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* Frees info's strings and clears it. */
static inline void ac_backend_session_info_clear(ac_backend_session_info *info)
{
	free(info->tenant);
	free(info->session_id);
	free(info->user);
	free(info->agent);
	free(info->status);
	free(info->updated_at);
	free(info->host);
	free(info->writer);
	free(info->task);
	free(info->created_at);
	*info = (ac_backend_session_info){0};
}

static inline void ac_backend_sessions_free(ac_backend_session_info *list, size_t n)
{
	for (size_t i = 0; list && i < n; i++)
		ac_backend_session_info_clear(&list[i]);
	free(list);
}

/* ---- The store's operations, for an application ----
 * Each call is the vtable operation of the same name
 * (sys/ac_backend_sys.h says what it does), with the same arguments in the
 * same order (the handle first, then out-parameters, then inputs), so a
 * program needs no implementer's tier to use a store. b is borrowed. An
 * operation the store leaves unset is AC_ENOTSUP naming the store and the
 * operation, never a call through NULL; the ac_backend_has_*() queries tell
 * beforehand, for a caller that takes another way then. */

/* Receives a document's bytes block by block (memo and artifact stream);
 * a non-zero return stops the read and is returned by it. */
typedef int (*ac_backend_block_fn)(const char *bytes, size_t len, void *ctx);

/* Receives one log record (borrowed for the call) from a trace's each; a
 * non-zero return stops the walk and is returned by it. */
typedef int (*ac_backend_record_fn)(const json_t *record, void *ctx);

/* Receives one listed session (borrowed for the call) from
 * ac_backend_each_session() and ac_backend_find_sessions(); a non-zero
 * return stops them and is returned. */
typedef int (*ac_backend_session_fn)(const ac_backend_session_info *info, void *ctx);

int ac_backend_session_create(const ac_backend *b, char **out_id, const char *tenant,
			      const char *user, const char *agent, const char *session_id,
			      const char *task);
int ac_backend_session_create_document(const ac_backend *b, const char *tenant,
				       const json_t *doc);
int ac_backend_session_load_all(const ac_backend *b, json_t **out, const char *tenant,
				const char *session_id);
int ac_backend_session_append(const ac_backend *b, const char *tenant, const char *session_id,
			      const json_t *messages);
int ac_backend_session_record_turn(const ac_backend *b, const char *tenant,
				   const char *session_id, const json_t *messages,
				   const ac_usage *usage);
int ac_backend_session_load_usage(const ac_backend *b, json_t **out, const char *tenant,
				  const char *session_id);
int ac_backend_session_get(const ac_backend *b, json_t **out, const char *tenant,
			   const char *session_id);
int ac_backend_session_set_status(const ac_backend *b, const char *tenant,
				  const char *session_id, const char *from, const char *to);
/* Optional (ac_backend_has_load_after()). */
int ac_backend_session_load_after(const ac_backend *b, json_t **out,
				  ac_backend_history_cursor *cursor, const char *tenant,
				  const char *session_id);

int ac_backend_memo_read(const ac_backend *b, char **out, size_t *out_len, const char *tenant,
			 const char *owner, const char *scope, const char *name);
/* Optional (ac_backend_has_memo_stream()): else read it whole. */
int ac_backend_memo_stream(const ac_backend *b, ac_backend_block_fn fn, void *ctx,
			   const char *tenant, const char *owner, const char *scope,
			   const char *name);
int ac_backend_memo_write(const ac_backend *b, const char *tenant, const char *owner,
			  const char *scope, const char *name, const char *data, size_t len);
int ac_backend_memo_append(const ac_backend *b, const char *tenant, const char *owner,
			   const char *scope, const char *name, const char *data, size_t len);
int ac_backend_memo_list(const ac_backend *b, char ***out_names, size_t *out_n,
			 const char *tenant, const char *owner, const char *scope);

int ac_backend_artifact_read(const ac_backend *b, char **out, size_t *out_len,
			     const char *tenant, const char *session_id, const char *tool_call_id);
/* Optional (ac_backend_has_artifact_stream()): else read it whole. */
int ac_backend_artifact_stream(const ac_backend *b, ac_backend_block_fn fn, void *ctx,
			       const char *tenant, const char *session_id,
			       const char *tool_call_id);
int ac_backend_artifact_list(const ac_backend *b, char ***out_ids, size_t *out_n,
			     const char *tenant, const char *session_id);

int ac_backend_trace_load(const ac_backend *b, json_t **out, size_t *out_skipped,
			  const char *tenant, const char *session_id, uint64_t after_seq);
/* Optional (ac_backend_has_trace_each()): else load it whole. */
int ac_backend_trace_each(const ac_backend *b, size_t *out_skipped, ac_backend_record_fn fn,
			  void *ctx, const char *tenant, const char *session_id);

int ac_backend_inspector_list_sessions(const ac_backend *b, ac_backend_session_info **out,
				       size_t *out_n, const char *tenant);
int ac_backend_inspector_find(const ac_backend *b, ac_backend_session_info *out,
			      const char *session_id);

/* Idempotency keys, optional all three (ac_backend_has_request_keys()). */
int ac_backend_request_use(const ac_backend *b, const char *request_id);
int ac_backend_request_answer(const ac_backend *b, json_t **out, bool *out_replayed);
int ac_backend_request_check(const ac_backend *b, json_t **out, const char *tenant,
			     const char *request_id, const char *operation,
			     const json_t *arguments);

/* What only some stores can do (the vtable's optional table). */
/* The session files' folder (borrowed from b) when the store keeps each
 * session as a file local agents write, else NULL (a shared store). */
const char *ac_backend_local_sessions(const ac_backend *b);
/* Optional (ac_backend_has_each_session()): inspector.list_sessions' rows
 * handed to fn a batch at a time. */
int ac_backend_each_session(const ac_backend *b, const char *tenant, ac_backend_session_fn fn,
			    void *ctx);
/* Optional (ac_backend_has_find_sessions()): inspector.find for n ids in
 * one round trip; fn gets those that exist, in no particular order. */
int ac_backend_find_sessions(const ac_backend *b, const char *const *ids, size_t n,
			     ac_backend_session_fn fn, void *ctx);
struct ac_store_watch;
/* Optional (ac_backend_has_watch()): follows what every host commits
 * (ac_store_watch.h); *out freed with ac_store_watch_free(). */
int ac_backend_watch(const ac_backend *b, struct ac_store_watch **out);

/* Whether b has the operation (false for a NULL b). */
bool ac_backend_has_local_sessions(const ac_backend *b);
bool ac_backend_has_load_after(const ac_backend *b);
bool ac_backend_has_memo_stream(const ac_backend *b);
bool ac_backend_has_artifact_stream(const ac_backend *b);
bool ac_backend_has_trace_each(const ac_backend *b);
bool ac_backend_has_request_keys(const ac_backend *b);
bool ac_backend_has_each_session(const ac_backend *b);
bool ac_backend_has_find_sessions(const ac_backend *b);
bool ac_backend_has_watch(const ac_backend *b);

/* The kind of a trace envelope as people see it: its first non-empty
 * string among "type", "kind", "event" and "name", else "-". Borrowed from
 * envelope. */
const char *ac_backend_trace_kind(const json_t *envelope);

#endif
