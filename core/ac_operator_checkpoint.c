/* The operator's checkpoint actions (ac_operator.h), wherever the
 * sessions live: the workspace's files, or the database storage.url names,
 * where a session is named by id alone (its tenant is the store's), read
 * through ac_backend and changed in the store's own transactions. The
 * command line and the dashboard both call these, so a rollback, a
 * checkpoint or the automatic flag behave the same from either. */
#include "ac_operator.h"

#include "ac_backend_sys.h"
#include "ac_checkpoint_impl.h"
#include "ac_checkpoint_runtime.h"
#include "ac_error.h"
#include "ac_journal_store.h"
#include "ac_session.h"
#include "ac_time.h"

#include <stdio.h>
#include <string.h>

/* The workspace's store (*b, to release) and, when it is one hosts share
 * (no local session files), the session's tenant: 1; 0 for the local
 * files, whose functions take the session folder; negative on failure (a
 * bad session id first of all). */
static int open_store(ac_backend **b, char tenant[AC_BACKEND_ID_MAX + 1], const ac_workspace *ws,
		      const char *session)
{
	ac_backend_session_info info = {0};
	int rc;

	*b = NULL;
	if ((rc = ac_session_id_check(session)) || (rc = ac_workspace_store(b, ws)))
		return rc;
	if ((*b)->optional.local_sessions)
		return 0;
	if ((rc = (*b)->inspector.find((*b)->impl, &info, session))) {
		ac_workspace_store_release(ws, *b);
		*b = NULL;
		return rc;
	}
	snprintf(tenant, AC_BACKEND_ID_MAX + 1, "%s", info.tenant);
	ac_backend_session_info_clear(&info);
	return 1;
}

int ac_operator_plan_rollback(ac_checkpoint_plan *out, ac_checkpoint_store *store,
			      const ac_workspace *ws, const char *session, const char *checkpoint)
{
	char tenant[AC_BACKEND_ID_MAX + 1];
	const json_t *tools = NULL;
	json_t *doc = NULL;
	ac_backend *b;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_workspace_rollback_tools(&tools, ws)))
		return rc;
	if ((rc = open_store(&b, tenant, ws, session)) < 0)
		return rc;
	if (rc == 0)
		rc = ac_checkpoint_plan_rollback(out, store, ws->sessions_dir, session, checkpoint,
						 tools);
	else if ((rc = b->session.get(b->impl, &doc, tenant, session)) == 0) {
		/* A store's compactions keep what they replaced: the plan may
		 * reach behind them. */
		ac_backend_unfold_ctx unfold = {.backend = b, .tenant = tenant,
						.session_id = session};

		rc = ac_checkpoint_plan_rollback_unfolding(out, store, session, checkpoint,
							   json_object_get(doc, "conversationHistory"),
							   tools, b->optional.unfold, &unfold);
	}
	json_decref(doc);
	ac_workspace_store_release(ws, b);
	return rc;
}

/* Creates racing for versions on one session: more than agentctl
 * processes that start at once on a host or two. */
#define CREATE_ATTEMPTS 32

int ac_operator_create_checkpoint(json_t **out, ac_checkpoint_store *store,
				  const ac_workspace *ws, const char *session,
				  const ac_checkpoint_create_options *opts)
{
	char tenant[AC_BACKEND_ID_MAX + 1];
	json_t *doc = NULL;
	ac_backend *b;
	int rc;

	if ((rc = open_store(&b, tenant, ws, session)) < 0)
		return rc;
	if (rc == 0) {
		rc = ac_checkpoint_create_with(out, store, ws->sessions_dir, session, opts);
		goto done;
	}
	if ((rc = b->session.get(b->impl, &doc, tenant, session)))
		goto done;
	/* No folder lock across hosts: the store's constraint refuses a
	 * version taken meanwhile (AC_ECONFLICT), and the next is chosen. */
	for (int attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
		rc = ac_checkpoint_create_from(out, store, session, doc, opts);
		if (rc != AC_ECONFLICT || (opts && opts->set_version))
			break;
	}
done:
	json_decref(doc);
	ac_workspace_store_release(ws, b);
	return rc;
}

int ac_operator_set_checkpoint_auto(const ac_workspace *ws, const char *session, bool on)
{
	char tenant[AC_BACKEND_ID_MAX + 1];
	ac_backend *b;
	int rc;

	if ((rc = open_store(&b, tenant, ws, session)) < 0)
		return rc;
	if (rc == 0)
		rc = ac_checkpoint_set_automatic(ws->sessions_dir, session, on);
	else if (!b->optional.update_document)
		rc = ac_error_set(AC_EINVAL, "session '%s': the %s store cannot change a document "
				  "in place", session, b->name);
	else
		rc = b->optional.update_document(b, tenant, session, ac_checkpoint_automatic_change,
						 &on);
	ac_workspace_store_release(ws, b);
	return rc;
}

/* Journals each compensation attempt, the failed ones too, so that what
 * ran is on record whatever happens next. */
typedef struct {
	const ac_workspace *ws;
	const char *session_id;
	const char *checkpoint_id;
	ac_buf *notes;
} compensation_journal;

static void journal_compensation(const ac_checkpoint_compensation *call, int rc,
				 const char *message, void *ctx)
{
	compensation_journal *j = ctx;
	ac_buf text = AC_BUF_INIT;

	if (rc)
		ac_buf_printf(&text, "Compensation for %s call %s failed: %s", call->tool,
			      call->call_id, message);
	else
		ac_buf_printf(&text, "Compensation for %s call %s ran", call->tool, call->call_id);
	if (ac_journal_operator_event(j->ws, "CMD_RUN", rc ? "FAILED" : "SUCCESS", j->session_id,
				      json_pack("{s:s, s:s, s:s, s:s, s:s}", "sessionId",
						j->session_id, "checkpointId", j->checkpoint_id,
						"tool", call->tool, "callId", call->call_id,
						"command", call->argv[0]),
				      text.data ? text.data : "") != 0 && j->notes)
		ac_buf_printf(j->notes, "%sthe journal was not written: %s",
			      j->notes->len ? "; " : "", ac_error_last());
	ac_buf_free(&text);
}

/* A shared store's session. */
typedef struct {
	const ac_backend *b;
	const char *tenant;
} store_cut;

typedef struct {
	const ac_checkpoint_plan *plan;
	const char *at;
} rollback_note;

/* The stored document records the rollback as the session file does,
 * without an archive path: the removed messages are a compactions row. */
static int note_in_document(json_t *root, void *ctx)
{
	const rollback_note *n = ctx;

	return ac_checkpoint_note_rollback(root, n->plan, n->at, NULL);
}

static int cut_in_store(const ac_checkpoint_plan *plan, void *ctx)
{
	const store_cut *c = ctx;
	char at[AC_TIME_ISO_LEN + 1];
	rollback_note note = {plan, at};

	json_t *kept = NULL, *removed = NULL;
	int rc;

	ac_time_format_iso(at, ac_time_now_ms());
	if (!plan->unfolded)
		return c->b->optional.cut_history(c->b, c->tenant, plan->session_id, plan->history,
						  plan->keep, note_in_document, &note);
	/* Behind a compaction: the checkpoint's history replaces the session's. */
	if (!c->b->optional.replace_history)
		return ac_error_set(AC_EINVAL, "session '%s': the %s store cannot replace a history",
				    plan->session_id, c->b->name);
	if ((rc = ac_checkpoint_removed(&removed, plan)) == 0 &&
	    !(kept = json_deep_copy(ac_checkpoint_history(plan->checkpoint))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	if (rc == 0)
		rc = c->b->optional.replace_history(c->b, c->tenant, plan->session_id,
						    plan->history, kept, removed,
						    note_in_document, &note);
	json_decref(kept);
	json_decref(removed);
	return rc;
}

static int rollback_checkpoint(const ac_workspace *ws, const store_cut *store,
			       const char *session_id, ac_checkpoint_plan *plan,
			       ac_checkpoint_rollback_result *out, ac_buf *notes)
{
	compensation_journal journal = {ws, session_id, ac_checkpoint_id(plan->checkpoint), notes};
	ac_checkpoint_rollback_options opts = {
		.version = AC_CHECKPOINT_ROLLBACK_OPTIONS_VERSION,
		.write = &ws->session_write,
		.attempted = journal_compensation,
		.ctx = &journal,
		.cut = store ? cut_in_store : NULL,
		.cut_ctx = (void *)store,
	};
	ac_buf message = AC_BUF_INIT;
	int rc;

	if ((rc = ac_checkpoint_rollback(out, plan, ws->sessions_dir, ws->root, &opts)))
		return rc;
	ac_buf_printf(&message, "Rolled back session %s to checkpoint %s (version %lld): "
		      "%zu messages removed (archived), %zu compensations ran, %zu had run before",
		      session_id, ac_checkpoint_id(plan->checkpoint),
		      (long long)ac_checkpoint_version(plan->checkpoint), plan->remove, out->ran,
		      out->skipped);
	if (ac_journal_operator_event(ws, "ROLLBACK", "SUCCESS", session_id,
				      json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:s?}", "sessionId",
						session_id, "checkpointId",
						ac_checkpoint_id(plan->checkpoint), "version",
						(json_int_t)ac_checkpoint_version(plan->checkpoint),
						"removedMessages", (json_int_t)plan->remove,
						"compensations", (json_int_t)out->ran,
						"compensationsBefore", (json_int_t)out->skipped,
						"archive", out->archive_path),
				      message.data) != 0 && notes)
		ac_buf_printf(notes, "%sthe journal was not written: %s", notes->len ? "; " : "",
			      ac_error_last());
	ac_buf_free(&message);
	return 0;
}

int ac_operator_rollback_checkpoint(const ac_workspace *ws, const char *session_id,
				    ac_checkpoint_plan *plan, ac_checkpoint_rollback_result *out,
				    ac_buf *notes)
{
	char tenant[AC_BACKEND_ID_MAX + 1];
	store_cut store;
	ac_backend *b;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = open_store(&b, tenant, ws, session_id)) < 0)
		return rc;
	if (rc == 0) {
		rc = rollback_checkpoint(ws, NULL, session_id, plan, out, notes);
		goto done;
	}
	if (!b->optional.cut_history) {
		rc = ac_error_set(AC_EINVAL, "session '%s': the %s store cannot cut a history",
				  session_id, b->name);
		goto done;
	}
	store = (store_cut){b, tenant};
	/* The session's operator lock: gc leaves its records alone meanwhile. */
	if (b->optional.hold_session && (rc = b->optional.hold_session(b, session_id, true)))
		goto done;
	rc = rollback_checkpoint(ws, &store, session_id, plan, out, notes);
	if (b->optional.hold_session)
		b->optional.hold_session(b, session_id, false);
done:
	ac_workspace_store_release(ws, b);
	return rc;
}
