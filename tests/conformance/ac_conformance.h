/* The storage-backend conformance suite: the promises of ac_backend.h,
 * checked through the ac_backend struct alone, so any backend runs it.
 *
 * A backend's test gives a factory that makes a fresh, empty backend for
 * each case and releases it afterwards, and calls
 * ac_backend_conformance_run(): each contract, tenant isolation with
 * crafted ids, two processes appending to one memory document and one
 * trace at once, a process that records a turn while the parent reads,
 * rebuilding orchestration state from a snapshot plus later events, and
 * compaction moving a large tool result to an artifact without losing a
 * byte. The cases are cmocka tests; the conform_*() checks are exported
 * too, for tests that add what only one backend can show (files on disk,
 * a crash at a named point). */
#ifndef AC_CONFORMANCE_H
#define AC_CONFORMANCE_H

#include "ac_backend.h"
#include "ac_error.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define OK(expr)                                                                   \
	do {                                                                           \
		int rc_ = (expr);                                                          \
		if (rc_ != 0)                                                              \
			fail_msg("%s: %d (%s)", #expr, rc_, ac_error_last());              \
	} while (0)

typedef struct {
	const char *name;
	/* Makes a fresh, empty backend in *out: 0, or non-zero to fail the case. */
	int (*make)(ac_backend *out, void *ctx);
	/* Releases it and whatever make set up for it. */
	void (*release)(ac_backend *b, void *ctx);
	void *ctx;
} ac_backend_factory;

/* Runs every case on backends from factory; cmocka's count of failures. */
int ac_backend_conformance_run(const ac_backend_factory *factory);

/* ---- the checks, one per case ---- */
void conform_session_store(const ac_backend *b);
void conform_memo(const ac_backend *b);
void conform_artifacts(const ac_backend *b);
void conform_listers(const ac_backend *b);
void conform_trace(const ac_backend *b);
void conform_long_trace(const ac_backend *b);
void conform_orchestration(const ac_backend *b);
void conform_tenant_isolation(const ac_backend *b);
void conform_crafted_ids(const ac_backend *b);
void conform_concurrent_memo_appends(const ac_backend *b);
void conform_memo_write_if(const ac_backend *b);
void conform_concurrent_memo_write_if(const ac_backend *b);
void conform_concurrent_trace_appends(const ac_backend *b);
/* Runs record_turn in a child that arm() (may be NULL) may make die
 * half-way; returns the child's wait status. */
int conform_crash_in_record_turn(const ac_backend *b, void (*arm)(void));
void conform_compaction_externalizes(const ac_backend *b);
void conform_get_and_status(const ac_backend *b);
void conform_create(const ac_backend *b);
/* Per-turn usage rows (ac_conformance_usage.c). */
void conform_turn_usage_rows(const ac_backend *b);
void conform_turn_usage_empty(const ac_backend *b);
/* A session created whole from a document (ac_conformance_fork.c). */
void conform_create_document(const ac_backend *b);

/* ---- helpers that use only the interface ---- */
char *conform_new_session(const ac_backend *b, const char *tenant, const char *user,
			  const char *id);
json_t *conform_msgs(const char *json);
size_t conform_history_size(const ac_backend *b, const char *tenant, const char *session);
/* The inspector's line for session, which must exist; *list to free. */
ac_backend_session_info conform_find_info(const ac_backend *b, const char *session,
					  ac_backend_session_info **list, size_t *n);
/* The backend's trace each (when it has one) walks exactly what load
 * (after 0) returns, with the same skipped count. */
void conform_expect_each_as_load(const ac_backend *b, const char *tenant, const char *session);
/* n bytes of c, NUL-terminated; free(). */
char *conform_big(size_t n, char c);

#endif
