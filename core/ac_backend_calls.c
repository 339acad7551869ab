/* The store's operations as calls of the application tier
 * (ac_backend.h): each hands its arguments to the vtable member of the
 * same name, after making sure the store has it. What an operation does
 * is each backend's (ac_backend_fs*.c, ac_backend_pg*.c); the vtable is
 * sys/ac_backend_sys.h. */
#include "ac_backend_sys.h"

#include "ac_error.h"

/* 0 when b has the operation (set: its member is not NULL); AC_ENOTSUP
 * naming the store and the operation otherwise, so a program asking a
 * store for what it cannot do gets an error, not a call through NULL. */
static int have(const ac_backend *b, bool set, const char *op)
{
	if (!b)
		return ac_error_set(AC_EINVAL, "backend: missing (%s)", op);
	if (!set)
		return ac_error_set(AC_ENOTSUP, "the %s store cannot %s",
				    b->name ? b->name : "unnamed", op);
	return 0;
}

/* Checks b->TABLE.OP, then returns it called with b->impl and the rest. */
#define CALL_IMPL(b, table, op, ...)                                              \
	do {                                                                        \
		int rc_ = have((b), (b) && (b)->table.op, #table "." #op);         \
		if (rc_)                                                            \
			return rc_;                                                 \
		return (b)->table.op((b)->impl, __VA_ARGS__);                       \
	} while (0)

/* The same for an optional member, which takes the backend itself. */
#define CALL_SELF(b, op, ...)                                                     \
	do {                                                                        \
		int rc_ = have((b), (b) && (b)->optional.op, "optional." #op);     \
		if (rc_)                                                            \
			return rc_;                                                 \
		return (b)->optional.op((b), __VA_ARGS__);                          \
	} while (0)

/* ---- session ---- */

int ac_backend_session_create(const ac_backend *b, char **out_id, const char *tenant,
			      const char *user, const char *agent, const char *session_id,
			      const char *task)
{
	CALL_IMPL(b, session, create, out_id, tenant, user, agent, session_id, task);
}

int ac_backend_session_create_document(const ac_backend *b, const char *tenant,
				       const json_t *doc)
{
	CALL_IMPL(b, session, create_document, tenant, doc);
}

int ac_backend_session_load_all(const ac_backend *b, json_t **out, const char *tenant,
				const char *session_id)
{
	CALL_IMPL(b, session, load_all, out, tenant, session_id);
}

int ac_backend_session_append(const ac_backend *b, const char *tenant, const char *session_id,
			      const json_t *messages)
{
	CALL_IMPL(b, session, append, tenant, session_id, messages);
}

int ac_backend_session_record_turn(const ac_backend *b, const char *tenant,
				   const char *session_id, const json_t *messages,
				   const ac_usage *usage)
{
	CALL_IMPL(b, session, record_turn, tenant, session_id, messages, usage);
}

int ac_backend_session_load_usage(const ac_backend *b, json_t **out, const char *tenant,
				  const char *session_id)
{
	CALL_IMPL(b, session, load_usage, out, tenant, session_id);
}

int ac_backend_session_get(const ac_backend *b, json_t **out, const char *tenant,
			   const char *session_id)
{
	CALL_IMPL(b, session, get, out, tenant, session_id);
}

int ac_backend_session_set_status(const ac_backend *b, const char *tenant,
				  const char *session_id, const char *from, const char *to)
{
	CALL_IMPL(b, session, set_status, tenant, session_id, from, to);
}

int ac_backend_session_load_after(const ac_backend *b, json_t **out,
				  ac_backend_history_cursor *cursor, const char *tenant,
				  const char *session_id)
{
	CALL_IMPL(b, session, load_after, out, cursor, tenant, session_id);
}

/* ---- memo ---- */

int ac_backend_memo_read(const ac_backend *b, char **out, size_t *out_len, const char *tenant,
			 const char *owner, const char *scope, const char *name)
{
	CALL_IMPL(b, memo, read, out, out_len, tenant, owner, scope, name);
}

int ac_backend_memo_stream(const ac_backend *b, ac_backend_block_fn fn, void *ctx,
			   const char *tenant, const char *owner, const char *scope,
			   const char *name)
{
	CALL_IMPL(b, memo, stream, fn, ctx, tenant, owner, scope, name);
}

int ac_backend_memo_write(const ac_backend *b, const char *tenant, const char *owner,
			  const char *scope, const char *name, const char *data, size_t len)
{
	CALL_IMPL(b, memo, write, tenant, owner, scope, name, data, len);
}

int ac_backend_memo_append(const ac_backend *b, const char *tenant, const char *owner,
			   const char *scope, const char *name, const char *data, size_t len)
{
	CALL_IMPL(b, memo, append, tenant, owner, scope, name, data, len);
}

int ac_backend_memo_list(const ac_backend *b, char ***out_names, size_t *out_n,
			 const char *tenant, const char *owner, const char *scope)
{
	CALL_IMPL(b, memo, list, out_names, out_n, tenant, owner, scope);
}

/* ---- artifact ---- */

int ac_backend_artifact_read(const ac_backend *b, char **out, size_t *out_len,
			     const char *tenant, const char *session_id, const char *tool_call_id)
{
	CALL_IMPL(b, artifact, read, out, out_len, tenant, session_id, tool_call_id);
}

int ac_backend_artifact_stream(const ac_backend *b, ac_backend_block_fn fn, void *ctx,
			       const char *tenant, const char *session_id,
			       const char *tool_call_id)
{
	CALL_IMPL(b, artifact, stream, fn, ctx, tenant, session_id, tool_call_id);
}

int ac_backend_artifact_list(const ac_backend *b, char ***out_ids, size_t *out_n,
			     const char *tenant, const char *session_id)
{
	CALL_IMPL(b, artifact, list, out_ids, out_n, tenant, session_id);
}

/* ---- trace ---- */

int ac_backend_trace_load(const ac_backend *b, json_t **out, size_t *out_skipped,
			  const char *tenant, const char *session_id, uint64_t after_seq)
{
	CALL_IMPL(b, trace, load, out, out_skipped, tenant, session_id, after_seq);
}

int ac_backend_trace_each(const ac_backend *b, size_t *out_skipped, ac_backend_record_fn fn,
			  void *ctx, const char *tenant, const char *session_id)
{
	CALL_IMPL(b, trace, each, out_skipped, fn, ctx, tenant, session_id);
}

/* ---- inspector ---- */

int ac_backend_inspector_list_sessions(const ac_backend *b, ac_backend_session_info **out,
				       size_t *out_n, const char *tenant)
{
	CALL_IMPL(b, inspector, list_sessions, out, out_n, tenant);
}

int ac_backend_inspector_find(const ac_backend *b, ac_backend_session_info *out,
			      const char *session_id)
{
	CALL_IMPL(b, inspector, find, out, session_id);
}

/* ---- request (idempotency keys) ---- */

int ac_backend_request_use(const ac_backend *b, const char *request_id)
{
	CALL_IMPL(b, request, use, request_id);
}

int ac_backend_request_answer(const ac_backend *b, json_t **out, bool *out_replayed)
{
	CALL_IMPL(b, request, answer, out, out_replayed);
}

int ac_backend_request_check(const ac_backend *b, json_t **out, const char *tenant,
			     const char *request_id, const char *operation,
			     const json_t *arguments)
{
	CALL_IMPL(b, request, check, out, tenant, request_id, operation, arguments);
}

/* ---- what only some stores can do ---- */

const char *ac_backend_local_sessions(const ac_backend *b)
{
	return ac_backend_has_local_sessions(b) ? b->optional.local_sessions(b) : NULL;
}

int ac_backend_each_session(const ac_backend *b, const char *tenant, ac_backend_session_fn fn,
			    void *ctx)
{
	CALL_SELF(b, each_session, tenant, fn, ctx);
}

int ac_backend_find_sessions(const ac_backend *b, const char *const *ids, size_t n,
			     ac_backend_session_fn fn, void *ctx)
{
	CALL_SELF(b, find_sessions, ids, n, fn, ctx);
}

int ac_backend_watch(const ac_backend *b, struct ac_store_watch **out)
{
	CALL_SELF(b, watch, out);
}

bool ac_backend_has_local_sessions(const ac_backend *b)
{
	return b && b->optional.local_sessions;
}

bool ac_backend_has_load_after(const ac_backend *b)
{
	return b && b->session.load_after;
}

bool ac_backend_has_memo_stream(const ac_backend *b)
{
	return b && b->memo.stream;
}

bool ac_backend_has_artifact_stream(const ac_backend *b)
{
	return b && b->artifact.stream;
}

bool ac_backend_has_trace_each(const ac_backend *b)
{
	return b && b->trace.each;
}

bool ac_backend_has_request_keys(const ac_backend *b)
{
	return b && b->request.use && b->request.answer && b->request.check;
}

bool ac_backend_has_each_session(const ac_backend *b)
{
	return b && b->optional.each_session;
}

bool ac_backend_has_find_sessions(const ac_backend *b)
{
	return b && b->optional.find_sessions;
}

bool ac_backend_has_watch(const ac_backend *b)
{
	return b && b->optional.watch;
}
