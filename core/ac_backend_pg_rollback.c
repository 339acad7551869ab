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
 * retention), then are deleted, and the session's counts follow; the
 * stored document records the rollback (metadata.rollbacks, the execution
 * point) in the same transaction, as the session file's rewrite does.
 *
 * A rollback to a checkpoint older than the last compaction replaces the
 * messages with the checkpoint's instead (under new seqs), and the plan
 * reaches it by unfolding summaries from the compactions table
 * (ac_backend_pg_unfold: a summary holds its compaction's last_seq).
 *
 * The document change is also what `checkpoint auto` needs (a metadata
 * key, metadata.persistence.automatic): under the row lock a read, a
 * change and a write are one step no other writer can come between. */
#include "ac_backend_pg_impl.h"

#include "ac_backend_pg.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_messages.h"
#include "ac_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ac_backend_pg_change_document(ac_backend_pg *b, const char *tenant, const char *session_id,
				  ac_backend_pg_document_fn change, void *ctx)
{
	const char *values[3] = {tenant, session_id, NULL};
	json_t *doc = NULL;
	char *text = NULL;
	size_t len;
	PGresult *res = NULL;
	int rc;

	if ((rc = ac_pg_exec(b->pg, &res, "loading a session's document",
			     "SELECT document FROM session_documents WHERE tenant = $1"
			     " AND session_id = $2",
			     2, values, NULL)))
		goto done;
	if (sym_PQntuples(res) != 1) {
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' has no stored document", session_id);
		goto done;
	}
	if ((rc = ac_backend_pg_stored_document(&doc, res, session_id)))
		goto done;
	if ((rc = change(doc, ctx)) == AC_SESSION_UNCHANGED) {
		rc = 0;
		goto done;
	}
	if (rc)
		goto done;
	/* The history never goes in the document (put_session's rule). */
	if ((rc = ac_backend_pg_history_slot(doc)))
		goto done;
	if (!(text = ac_json_exact_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER, &len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	values[2] = text;
	rc = ac_pg_exec(b->pg, NULL, "saving a session's document",
			"UPDATE session_documents SET document = $3::json WHERE tenant = $1"
			" AND session_id = $2",
			3, values, NULL);
done:
	sym_PQclear(res);
	json_decref(doc);
	free(text);
	return rc;
}

/* The messages after the first keep of now (seqs: theirs) are archived
 * (the compactions table, kind rollback) and removed; the counts follow. */
static int trim(ac_backend_pg *b, const char *tenant, const char *session_id, const json_t *now,
		const long long *seqs, size_t keep)
{
	size_t n = json_array_size(now);
	char first[24], last[24];
	const char *values[3] = {tenant, session_id, first};
	json_t *removed;
	int rc;

	/* Nothing after the checkpoint: nothing to archive or remove. */
	if (keep >= n)
		return 0;
	if (!(removed = json_array()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = keep; i < n; i++)
		json_array_append(removed, json_array_get(now, i));
	snprintf(first, sizeof(first), "%lld", seqs[keep]);
	snprintf(last, sizeof(last), "%lld", seqs[n - 1]);
	if ((rc = ac_backend_pg_archive(b, NULL, tenant, session_id, "rollback", first,
					last)) == 0 &&
	    (rc = ac_pg_exec(b->pg, NULL, "removing the messages after the checkpoint",
			     "DELETE FROM messages WHERE tenant = $1 AND session_id = $2"
			     " AND seq >= $3::bigint",
			     3, values, NULL)) == 0)
		rc = ac_backend_pg_bump_session(b, tenant, session_id, -(long long)(n - keep),
						-(long long)ac_messages_tokens(removed), "rollback");
	json_decref(removed);
	return rc;
}

/* A rollback behind compactions: every message of now goes (archived as
 * the rollback's: removed, the ones after the checkpoint in the unfolded
 * history) and kept, the checkpoint's, takes their place under new seqs,
 * so no compaction row's last_seq names them (none is unfolded again). */
static int replace(ac_backend_pg *b, const char *tenant, const char *session_id,
		   const json_t *now, const long long *seqs, const json_t *kept,
		   const json_t *removed)
{
	size_t n = json_array_size(now), len;
	char first[24], last[24], count[24], *kept_text = NULL, *removed_text = NULL;
	const char *values[5] = {tenant, session_id, first, last, NULL};
	int rc;

	if (!(kept_text = ac_json_exact_dumps(kept, JSON_COMPACT, &len)) ||
	    !(removed_text = ac_json_exact_dumps(removed, JSON_COMPACT, &len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	snprintf(first, sizeof(first), "%lld", n ? seqs[0] : 0);
	snprintf(last, sizeof(last), "%lld", n ? seqs[n - 1] : 0);
	snprintf(count, sizeof(count), "%zu", json_array_size(kept));
	values[4] = removed_text;
	if ((rc = ac_pg_exec(b->pg, NULL, "archiving the messages removed",
			     "INSERT INTO compactions (tenant, session_id, first_seq, last_seq,"
			     " messages, kind) VALUES ($1, $2, $3::bigint, $4::bigint, $5::json,"
			     " 'rollback')",
			     5, values, NULL)) ||
	    (rc = ac_pg_exec(b->pg, NULL, "removing the session's messages",
			     "DELETE FROM messages WHERE tenant = $1 AND session_id = $2", 2, values,
			     NULL)))
		goto done;
	values[2] = count;
	values[3] = kept_text;
	if ((rc = ac_pg_exec(b->pg, NULL, "putting the checkpoint's messages back",
			     "WITH s AS (UPDATE sessions SET last_seq = last_seq + $3::bigint"
			     " WHERE tenant = $1 AND id = $2 RETURNING last_seq - $3::bigint AS base)"
			     " INSERT INTO messages (tenant, session_id, seq, message)"
			     " SELECT $1, $2, s.base + e.ord, e.elem"
			     " FROM s, json_array_elements($4::json) WITH ORDINALITY AS e(elem, ord)",
			     4, values, NULL)) == 0)
		rc = ac_backend_pg_bump_session(b, tenant, session_id,
						(long long)json_array_size(kept) - (long long)n,
						(long long)ac_messages_tokens(kept) -
							(long long)ac_messages_tokens(now),
						"rollback");
done:
	free(kept_text);
	free(removed_text);
	return rc;
}

/* One rollback's change to the messages, in one transaction under the
 * session's row lock, refused when they are no longer the planned ones:
 * trimmed to the first keep, or (kept non-NULL) replaced by kept. */
static int change_history(ac_backend_pg *b, const char *tenant, const char *session_id,
			  const json_t *planned, size_t keep, const json_t *kept,
			  const json_t *removed, ac_backend_pg_document_fn note, void *note_ctx)
{
	json_t *now = NULL;
	long long *seqs = NULL;
	int rc;

	if ((rc = ac_pg_begin(b->pg, "rolling a session back")) ||
	    (rc = ac_backend_pg_lock_session(b, tenant, session_id)) ||
	    (rc = ac_backend_pg_load_messages(b, &now, &seqs, tenant, session_id)))
		goto done;
	if (!json_equal(now, planned) || (!kept && keep > json_array_size(now))) {
		rc = ac_error_set(AC_ECONFLICT, "session '%s' changed during the rollback (another "
				  "writer added or changed messages); its history was left as that "
				  "writer made it", session_id);
		goto done;
	}
	rc = kept ? replace(b, tenant, session_id, now, seqs, kept, removed)
		  : trim(b, tenant, session_id, now, seqs, keep);
	if (rc || (note && (rc = ac_backend_pg_change_document(b, tenant, session_id, note,
								 note_ctx))))
		goto done;
	rc = ac_pg_commit(b->pg, "rolling a session back");
done:
	if (rc)
		ac_pg_rollback(b->pg);
	json_decref(now);
	free(seqs);
	return rc;
}

static int is_pg(const ac_backend *backend, const char *what)
{
	if (!backend || !backend->name || strcmp(backend->name, "pg") != 0)
		return ac_error_set(AC_EINVAL, "%s: not a PostgreSQL backend", what);
	return 0;
}

/* The messages the compaction whose summary sits at seq archived, and the
 * seq of its first (where an older compaction's summary would be). */
static int archived_at(ac_backend_pg *b, json_t **out, long long *out_first, const char *tenant,
		       const char *session_id, long long seq)
{
	char seq_text[24];
	const char *values[3] = {tenant, session_id, seq_text};
	PGresult *res = NULL;
	int rc;

	*out = NULL;
	snprintf(seq_text, sizeof(seq_text), "%lld", seq);
	if ((rc = ac_pg_exec(b->pg, &res, "reading a compaction archive",
			     "SELECT first_seq, messages FROM compactions WHERE tenant = $1"
			     " AND session_id = $2 AND kind = 'compaction' AND last_seq = $3::bigint"
			     " ORDER BY at DESC LIMIT 1",
			     3, values, NULL)))
		goto done;
	if (sym_PQntuples(res) == 0) {
		rc = ac_error_set(AC_ENOTFOUND, "session '%s': no compaction to unfold", session_id);
		goto done;
	}
	*out_first = strtoll(sym_PQgetvalue(res, 0, 0), NULL, 10);
	if ((rc = ac_json_exact_load(out, sym_PQgetvalue(res, 0, 1),
				     (size_t)sym_PQgetlength(res, 0, 1), 0, "compactions.messages")))
		goto done;
	if (!json_is_array(*out)) {
		json_decref(*out);
		*out = NULL;
		rc = ac_error_set(AC_ECORRUPT, "session '%s': a compaction archive is not an array",
				  session_id);
	}
done:
	sym_PQclear(res);
	return rc;
}

int ac_backend_pg_unfold(json_t **out, size_t depth, const json_t *history, void *ctx)
{
	ac_backend_pg_unfold_ctx *u = ctx;
	ac_backend_pg *b;
	json_t *now = NULL;
	long long *seqs = NULL;
	int rc;

	(void)history; /* the summary is found by its seq */
	*out = NULL;
	if ((rc = is_pg(u->backend, "unfolding a compaction")))
		return rc;
	b = u->backend->impl;
	/* The first message's seq: a summary takes its compaction's last_seq. */
	if (depth == 0) {
		if ((rc = ac_backend_pg_load_messages(b, &now, &seqs, u->tenant, u->session_id)))
			goto done;
		if (json_array_size(now) == 0) {
			rc = ac_error_set(AC_ENOTFOUND, "session '%s': no messages", u->session_id);
			goto done;
		}
		u->seq = seqs[0];
	}
	rc = archived_at(b, out, &u->seq, u->tenant, u->session_id, u->seq);
done:
	json_decref(now);
	free(seqs);
	return rc;
}

int ac_backend_pg_cut_history(const ac_backend *backend, const char *tenant,
			      const char *session_id, const json_t *planned, size_t keep,
			      ac_backend_pg_document_fn note, void *note_ctx)
{
	int rc = is_pg(backend, "rollback");

	return rc ? rc : change_history(backend->impl, tenant, session_id, planned, keep, NULL, NULL,
					note, note_ctx);
}

int ac_backend_pg_update_document(const ac_backend *backend, const char *tenant,
				  const char *session_id, ac_backend_pg_document_fn change,
				  void *ctx)
{
	ac_backend_pg *b;
	int rc;

	if ((rc = is_pg(backend, "session update")) ||
	    (rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session_id)))
		return rc;
	b = backend->impl;
	if ((rc = ac_pg_begin(b->pg, "changing a session's document")) ||
	    (rc = ac_backend_pg_lock_session(b, tenant, session_id)) ||
	    (rc = ac_backend_pg_change_document(b, tenant, session_id, change, ctx)))
		goto done;
	rc = ac_pg_commit(b->pg, "changing a session's document");
done:
	if (rc)
		ac_pg_rollback(b->pg);
	return rc;
}

int ac_backend_pg_replace_history(const ac_backend *backend, const char *tenant,
				  const char *session_id, const json_t *planned, const json_t *kept,
				  const json_t *removed, ac_backend_pg_document_fn note,
				  void *note_ctx)
{
	int rc = is_pg(backend, "rollback");

	return rc ? rc : change_history(backend->impl, tenant, session_id, planned, 0, kept, removed,
					note, note_ctx);
}
