/* A checkpoint rollback from the dashboard on either store (ckpt_rollback.h). */
#include "ckpt_rollback.h"

#include "ac_backend_pg.h"
#include "ac_error.h"
#include "ac_operator.h"

#include <stdio.h>
#include <string.h>

/* The database store's backend, opened, and session's tenant, when
 * storage.url names one: 1; 0 for the files; negative on failure. */
static int open_store(ac_backend *b, char tenant[AC_BACKEND_ID_MAX + 1], const ac_workspace *ws,
		      const char *session)
{
	ac_backend_session_info info = {0};
	const char *url = NULL;
	int rc;

	if (ws->config && (rc = ac_storage_url(&url, ws->config)))
		return rc;
	if (!url || !*url)
		return 0;
	if ((rc = ac_backend_open(b, ws->config, ws->sessions_dir, ws->sessions_dir)))
		return rc;
	/* The operator names a session by id; its tenant comes from the store. */
	if ((rc = b->inspector.find(b->impl, &info, session))) {
		ac_backend_close(b);
		return rc;
	}
	snprintf(tenant, AC_BACKEND_ID_MAX + 1, "%s", info.tenant);
	ac_backend_session_info_clear(&info);
	return 1;
}

int ui_ckpt_plan(ac_checkpoint_plan *out, ac_checkpoint_store *store, const ac_workspace *ws,
		 const char *session, const char *checkpoint)
{
	char tenant[AC_BACKEND_ID_MAX + 1];
	const json_t *tools = NULL;
	json_t *doc = NULL;
	ac_backend b;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_workspace_rollback_tools(&tools, ws)))
		return rc;
	if ((rc = open_store(&b, tenant, ws, session)) < 0)
		return rc;
	if (rc == 0)
		return ac_checkpoint_plan_rollback(out, store, ws->sessions_dir, session, checkpoint,
						   tools);
	if ((rc = b.session.get(b.impl, &doc, tenant, session)) == 0)
		rc = ac_checkpoint_plan_rollback_history(out, store, session, checkpoint,
							 json_object_get(doc, "conversationHistory"),
							 tools);
	json_decref(doc);
	ac_backend_close(&b);
	return rc;
}

int ui_ckpt_rollback(const ac_workspace *ws, const char *session, ac_checkpoint_plan *plan,
		     ac_checkpoint_rollback_result *out, ac_buf *notes)
{
	char tenant[AC_BACKEND_ID_MAX + 1];
	ac_backend b;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = open_store(&b, tenant, ws, session)) < 0)
		return rc;
	if (rc == 0)
		return ac_operator_rollback_checkpoint(ws, session, plan, out, notes);
	rc = ac_operator_rollback_checkpoint_in(ws, &b, tenant, session, plan, out, notes);
	ac_backend_close(&b);
	return rc;
}
