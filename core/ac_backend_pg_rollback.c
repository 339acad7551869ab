/* The PostgreSQL backend's half of a checkpoint rollback: cutting a
 * session's history back to the checkpoint's, the removed messages
 * archived in the same transaction.
 *
 * The plan was read with no transaction open (a rollback may first run
 * compensations for minutes), so the cut takes the session's row lock
 * (which every append takes too, on every host) and checks the messages
 * are still exactly the ones planned: another writer's change since is
 * AC_ECONFLICT and nothing changes. The removed messages go to the
 * compactions table (the archive a compaction writes too, with the same
 * retention), then are deleted, and the session's counts follow. */
#include "ac_backend_pg_impl.h"

#include "ac_backend_pg.h"
#include "ac_error.h"
#include "ac_messages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cut(ac_backend_pg *b, const char *tenant, const char *session_id,
	       const json_t *planned, size_t keep)
{
	json_t *now = NULL, *removed = NULL;
	long long *seqs = NULL;
	char first[24], last[24];
	const char *values[3] = {tenant, session_id, first};
	size_t n;
	int rc;

	if ((rc = ac_pg_begin(b->pg, "rolling a session back")) ||
	    (rc = ac_backend_pg_lock_session(b, tenant, session_id)) ||
	    (rc = ac_backend_pg_load_messages(b, &now, &seqs, tenant, session_id)))
		goto done;
	n = json_array_size(now);
	if (!json_equal(now, planned) || keep > n) {
		rc = ac_error_set(AC_ECONFLICT, "session '%s' changed during the rollback (another "
				  "writer added or changed messages); its history was left as that "
				  "writer made it", session_id);
		goto done;
	}
	/* Nothing after the checkpoint: nothing to archive or remove. */
	if (keep < n && !(removed = json_array())) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = keep; i < n; i++)
		json_array_append(removed, json_array_get(now, i));
	if (keep < n) {
		snprintf(first, sizeof(first), "%lld", seqs[keep]);
		snprintf(last, sizeof(last), "%lld", seqs[n - 1]);
		if ((rc = ac_backend_pg_archive(b, tenant, session_id, first, last)) ||
		    (rc = ac_pg_exec(b->pg, NULL, "removing the messages after the checkpoint",
				     "DELETE FROM messages WHERE tenant = $1 AND session_id = $2"
				     " AND seq >= $3::bigint",
				     3, values, NULL)) ||
		    (rc = ac_backend_pg_bump_session(b, tenant, session_id, -(long long)(n - keep),
						     -(long long)ac_messages_tokens(removed),
						     "rollback")))
			goto done;
	}
	rc = ac_pg_commit(b->pg, "rolling a session back");
done:
	if (rc)
		ac_pg_rollback(b->pg);
	json_decref(now);
	json_decref(removed);
	free(seqs);
	return rc;
}

int ac_backend_pg_cut_history(const ac_backend *backend, const char *tenant,
			      const char *session_id, const json_t *planned, size_t keep)
{
	if (!backend || !backend->name || strcmp(backend->name, "pg") != 0)
		return ac_error_set(AC_EINVAL, "rollback: not a PostgreSQL backend");
	return cut(backend->impl, tenant, session_id, planned, keep);
}
