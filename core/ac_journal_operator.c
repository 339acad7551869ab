/* The operator's events in the journal: what a person did to a session
 * (paused it, rolled it back, compacted it), as agent "Human". Below the
 * operator's actions (ac_operator.h) and the operation log (ac_oplog.h),
 * which both record through it; not for an agent's own events
 * (ac_event_prepare() and ac_journal_store_append()). */
#include "ac_journal_store.h"

#include "ac_error.h"

#include <jansson.h>
#include <stdlib.h>

int ac_journal_operator_event(const ac_workspace *ws, const char *action_type, const char *status,
			      const char *session_id, json_t *params, const char *message)
{
	json_t *event = json_pack("{s:s, s:s, s:{s:s, s:o}, s:{s:s}, s:{s:s}}",
				  "agent", "Human", "status", status,
				  "action", "type", action_type, "params", params,
				  "result", "message", message,
				  "trace", "correlation_id", session_id);
	char id[AC_EVENT_ID_LEN + 1], *text = NULL, *line = NULL;
	ac_journal_store *store = NULL;
	size_t len;
	int rc;

	if (!event)
		return ac_error_set(AC_ENOMEM, "out of memory");
	text = json_dumps(event, JSON_COMPACT);
	json_decref(event);
	if (!text)
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* The workspace's journal wherever it lives: with storage.url, the
	 * database's, beside the sessions the operator changed there. */
	rc = ac_event_prepare(&line, &len, id, text, &ws->schema);
	if (rc == 0 && (rc = ac_journal_store_open(&store, ws)) == 0)
		rc = ac_journal_store_append(store, line, len, NULL);
	ac_journal_store_free(store);
	free(text);
	free(line);
	return rc;
}
