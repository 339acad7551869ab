/* The PostgreSQL backend's two listings, the user lister and the
 * inspector (with find, one session by id): the columns only, read from
 * the covering listing indexes, never a document or a message. Each
 * session's task comes from the indexes' head of it (task_head, schema
 * 5); the few tasks that may be longer are read from their rows. */
#include "ac_backend_pg_impl.h"

#include "ac_error.h"
#include "ac_pg_schema.h"
#include "ac_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The writing agent is read for one session only: every listed column
 * costs a 100,000-row listing (docs/BENCHMARKS.md). The task comes from
 * the indexes' head of it (task_head); the few tasks that may be longer
 * are read from their rows afterwards (whole_tasks). */
#define LIST_SELECT                                                                         \
	"SELECT tenant, id, user_id, agent, status,"                                          \
	" (extract(epoch FROM updated_at) * 1000)::bigint, message_count, tokens,"           \
	" input_tokens, output_tokens, turns, written_by_host, task_head,"                   \
	" (extract(epoch FROM created_at) * 1000)::bigint"
#define LIST_COLUMNS LIST_SELECT " FROM sessions "
#define LIST_ORDER "ORDER BY created_at DESC, id"

static char *copy(const char *s)
{
	return strdup(s ? s : "");
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Replaces each listed task that is a whole head long (it may have been
 * cut) with the task its row holds: one query for all of them, each row
 * naming its place in the list. */
static int whole_tasks(ac_backend_pg *b, ac_backend_session_info *list, size_t n)
{
	json_t *ids = json_array();
	size_t *at = NULL, n_at = 0;
	const char *values[1] = {NULL};
	PGresult *res = NULL;
	char *text = NULL;
	int rc = 0;

	if (!ids || (n && !(at = calloc(n, sizeof(*at))))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		if (utf8_chars(list[i].task) < AC_PG_TASK_HEAD)
			continue;
		if (json_array_append_new(ids, json_string(list[i].session_id))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		at[n_at++] = i;
	}
	if (n_at == 0)
		goto done;
	if (!(text = json_dumps(ids, JSON_COMPACT))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	values[0] = text;
	if ((rc = ac_pg_exec(b->pg, &res, "reading long tasks",
			     "SELECT e.ord, s.task FROM json_array_elements_text($1::json)"
			     " WITH ORDINALITY AS e(id, ord) JOIN sessions s ON s.id = e.id",
			     1, values, NULL)))
		goto done;
	for (int row = 0; row < sym_PQntuples(res); row++) {
		uint64_t ord = ac_pg_u64(res, row, 0);
		ac_backend_session_info *info;
		char *task;

		if (ord < 1 || ord > n_at)
			continue;
		info = &list[at[ord - 1]];
		if (!(task = copy(ac_pg_text(res, row, 1)))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		free(info->task);
		info->task = task;
	}
done:
	sym_PQclear(res);
	free(text);
	free(at);
	json_decref(ids);
	return rc;
}

/* Fills list[0..n) from res's rows (LIST_SELECT's columns, a 15th the
 * writing agent), the long tasks read whole. On failure nothing is left
 * to free. */
static int rows_of(ac_backend_pg *b, ac_backend_session_info *list, const PGresult *res, size_t n)
{
	int rc;

	for (size_t i = 0; i < n; i++) {
		ac_backend_session_info *info = &list[i];
		char updated[AC_TIME_ISO_LEN + 1];
		int row = (int)i;

		info->tenant = copy(ac_pg_text(res, row, 0));
		info->session_id = copy(ac_pg_text(res, row, 1));
		info->user = copy(ac_pg_text(res, row, 2));
		info->agent = copy(ac_pg_text(res, row, 3));
		info->status = copy(ac_pg_text(res, row, 4));
		/* Formatted here, as the file store writes it: cheaper than to_char(). */
		ac_time_format_iso(updated, (int64_t)ac_pg_u64(res, row, 5));
		info->updated_at = copy(updated);
		info->host = copy(ac_pg_text(res, row, 11));
		info->task = copy(ac_pg_text(res, row, 12));
		ac_time_format_iso(updated, (int64_t)ac_pg_u64(res, row, 13));
		info->created_at = copy(updated);
		info->writer = copy(sym_PQnfields(res) > 14 ? ac_pg_text(res, row, 14) : "");
		if (!info->tenant || !info->session_id || !info->user || !info->agent ||
		    !info->status || !info->updated_at || !info->host || !info->writer ||
		    !info->task || !info->created_at) {
			for (size_t j = 0; j <= i; j++)
				ac_backend_session_info_clear(&list[j]);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		info->messages = (size_t)ac_pg_u64(res, row, 6);
		info->tokens = ac_pg_u64(res, row, 7);
		info->input_tokens = ac_pg_u64(res, row, 8);
		info->output_tokens = ac_pg_u64(res, row, 9);
		info->turns = ac_pg_u64(res, row, 10);
	}
	if ((rc = whole_tasks(b, list, n)))
		for (size_t j = 0; j < n; j++)
			ac_backend_session_info_clear(&list[j]);
	return rc;
}

/* The listing of tenant's (NULL: every tenant's) sessions of user (NULL:
 * every user's), or with id the one session id whatever its tenant.
 * Newest createdAt first, then by id, as the file store lists
 * (ac_session_index.h). */
static int list_sessions(ac_backend_pg *b, ac_backend_session_info **out, size_t *out_n,
			 const char *tenant, const char *user, const char *id)
{
	const char *values[2] = {tenant, user};
	ac_backend_session_info *list = NULL;
	PGresult *res = NULL;
	size_t n;
	int rc;

	*out = NULL;
	*out_n = 0;
	if (id)
		rc = ac_pg_exec(b->pg, &res, "looking a session up", LIST_SELECT ", written_by_agent FROM sessions WHERE id = $1", 1,
				&id, NULL);
	else if (user)
		rc = ac_pg_exec(b->pg, &res, "listing a user's sessions",
				LIST_COLUMNS "WHERE tenant = $1 AND user_id = $2 " LIST_ORDER,
				2, values, NULL);
	else if (tenant)
		rc = ac_pg_exec(b->pg, &res, "listing sessions",
				LIST_COLUMNS "WHERE tenant = $1 " LIST_ORDER, 1, values, NULL);
	else
		rc = ac_pg_exec(b->pg, &res, "listing sessions", LIST_COLUMNS LIST_ORDER, 0, NULL,
				NULL);
	if (rc)
		return rc;
	n = (size_t)sym_PQntuples(res);
	if (n && !(list = calloc(n, sizeof(*list)))) {
		sym_PQclear(res);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	rc = rows_of(b, list, res, n);
	sym_PQclear(res);
	if (rc) {
		free(list);
		return rc;
	}
	*out = list;
	*out_n = n;
	return 0;
}

/* Rows a streamed listing holds at a time: few enough that 100,000
 * sessions cost no more memory than 1,000, enough that the round trips
 * cost little beside the rows. */
#define STREAM_BATCH 500

/* Every session (tenant NULL) or tenant's, in list_sessions' order,
 * handed to fn batch by batch through a cursor in one read-only
 * transaction (one snapshot: the same rows the whole listing gives). */
int ac_backend_pg_each_session(const ac_backend *backend, const char *tenant,
			       ac_backend_session_fn fn, void *ctx)
{
	ac_backend_pg *b = backend->impl;
	ac_backend_session_info list[STREAM_BATCH];
	char fetch[64];
	PGresult *res = NULL;
	size_t n;
	int rc;

	if (tenant && (rc = ac_backend_id_check("tenant", tenant)))
		return rc;
	if ((rc = ac_pg_begin(b->pg, "listing sessions")))
		return rc;
	if (tenant)
		rc = ac_pg_exec(b->pg, NULL, "listing sessions",
				"DECLARE ac_listing NO SCROLL CURSOR FOR " LIST_COLUMNS
				"WHERE tenant = $1 " LIST_ORDER, 1, &tenant, NULL);
	else
		rc = ac_pg_exec(b->pg, NULL, "listing sessions",
				"DECLARE ac_listing NO SCROLL CURSOR FOR " LIST_COLUMNS LIST_ORDER,
				0, NULL, NULL);
	snprintf(fetch, sizeof(fetch), "FETCH %d FROM ac_listing", STREAM_BATCH);
	do {
		n = 0;
		if (rc || (rc = ac_pg_exec(b->pg, &res, "listing sessions", fetch, 0, NULL, NULL)))
			break;
		n = (size_t)sym_PQntuples(res);
		n = n < STREAM_BATCH ? n : STREAM_BATCH;
		memset(list, 0, sizeof(list));
		rc = rows_of(b, list, res, n);
		sym_PQclear(res);
		res = NULL;
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = fn(&list[i], ctx);
		for (size_t i = 0; i < n; i++)
			ac_backend_session_info_clear(&list[i]);
	} while (rc == 0 && n == STREAM_BATCH);
	if (rc == 0)
		return ac_pg_commit(b->pg, "listing sessions");
	ac_pg_rollback(b->pg);
	return rc;
}

/* The listing lines of the sessions ids names (each id once), whatever
 * their tenants, in one statement, handed to fn in no particular order;
 * an id with no session is left out. */
int ac_backend_pg_find_sessions(const ac_backend *backend, const char *const *ids, size_t n,
				ac_backend_session_fn fn, void *ctx)
{
	ac_backend_pg *b = backend->impl;
	ac_backend_session_info *list = NULL;
	json_t *array = json_array();
	const char *values[1] = {NULL};
	PGresult *res = NULL;
	char *text = NULL;
	size_t found = 0;
	int rc = 0;

	for (size_t i = 0; array && i < n && rc == 0; i++)
		if (!(rc = ac_backend_id_check("session", ids[i])) &&
		    json_array_append_new(array, json_string(ids[i])))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
	if (rc == 0 && (!array || !(text = json_dumps(array, JSON_COMPACT))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	values[0] = text;
	if (rc == 0 && n &&
	    (rc = ac_pg_exec(b->pg, &res, "looking sessions up",
			     LIST_SELECT ", written_by_agent FROM sessions WHERE id IN"
			     " (SELECT json_array_elements_text($1::json))", 1, values, NULL)) == 0) {
		found = (size_t)sym_PQntuples(res);
		if (found && !(list = calloc(found, sizeof(*list))))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		else if ((rc = rows_of(b, list, res, found)))
			found = 0;
	}
	for (size_t i = 0; i < found && rc == 0; i++)
		rc = fn(&list[i], ctx);
	ac_backend_sessions_free(list, found);
	sym_PQclear(res);
	free(text);
	json_decref(array);
	return rc;
}

static int pg_list_user_sessions(void *impl, ac_backend_session_info **out, size_t *out_n,
				 const char *tenant, const char *user)
{
	int rc;

	*out = NULL;
	*out_n = 0;
	if ((rc = ac_backend_id_check("tenant", tenant)) || (rc = ac_backend_id_check("user", user)))
		return rc;
	return list_sessions(impl, out, out_n, tenant, user, NULL);
}

static int pg_inspector_list(void *impl, ac_backend_session_info **out, size_t *out_n,
			     const char *tenant)
{
	int rc;

	*out = NULL;
	*out_n = 0;
	if (tenant && (rc = ac_backend_id_check("tenant", tenant)))
		return rc;
	return list_sessions(impl, out, out_n, tenant, NULL, NULL);
}

static int pg_inspector_find(void *impl, ac_backend_session_info *out, const char *session_id)
{
	ac_backend_session_info *list = NULL;
	size_t n = 0;
	int rc;

	*out = (ac_backend_session_info){0};
	if ((rc = ac_backend_id_check("session", session_id)) ||
	    (rc = list_sessions(impl, &list, &n, NULL, NULL, session_id)))
		return rc;
	if (n == 0)
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' not found", session_id);
	else
		*out = list[0];
	free(list); /* its one line's strings now belong to *out */
	return rc;
}

void ac_backend_pg_fill_listings(ac_backend *b)
{
	b->users.list = pg_list_user_sessions;
	b->inspector.list_sessions = pg_inspector_list;
	b->inspector.find = pg_inspector_find;
}
