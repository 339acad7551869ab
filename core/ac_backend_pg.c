/* The PostgreSQL backend: set-up, the session store and status changes.
 * The two listings are in ac_backend_pg_list.c, memo documents and artifacts in
 * ac_backend_pg_files.c, traces and orchestration in ac_backend_pg_logs.c,
 * compaction in ac_backend_pg_compact.c, the schema in ac_pg_schema.c.
 *
 * A write is one statement where it can be: a data-modifying WITH whose
 * first step updates the session's row (the row lock that orders writers
 * of one session and hands out seqs), then inserts, then pg_notify. One
 * statement is one transaction: all or none, and no round trip is made
 * while a lock is held. */
#include "ac_backend_pg_impl.h"

#include "ac_backend_check.h"
#include "ac_backend_pg.h"
#include "ac_error.h"
#include "ac_struct_version.h"
#include "ac_json_exact.h"
#include "ac_messages.h"
#include "ac_pg_schema.h"
#include "ac_store_watch.h"
#include "ac_time.h"
#include "ac_turn_usage.h"
#include "ac_uuid.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The notification every writing statement ends with. */
#define NOTIFY(kind, tenant, session)                                                  \
	"pg_notify('agentctl', json_build_object('kind', '" kind "', 'tenant', " tenant  \
	", 'session', " session ")::text)"


static int check_session(const char *tenant, const char *session_id)
{
	int rc;

	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session_id)))
		return rc;
	return 0;
}

static int not_found(const char *tenant, const char *session_id)
{
	return ac_error_set(AC_ENOTFOUND, "session '%s' not found for tenant '%s'", session_id,
			    tenant);
}

/* 0 when tenant's session_id exists, else AC_ENOTFOUND (or the query's error). */
static int session_exists(ac_backend_pg *b, const char *tenant, const char *session_id)
{
	const char *values[2] = {tenant, session_id};
	PGresult *res = NULL;
	int rc = ac_pg_exec(b->pg, &res, "looking a session up",
			    "SELECT 1 FROM sessions WHERE tenant = $1 AND id = $2", 2, values, NULL);

	if (!rc && sym_PQntuples(res) == 0)
		rc = not_found(tenant, session_id);
	sym_PQclear(res);
	return rc;
}

int ac_backend_pg_names(char ***out, size_t *out_n, const PGresult *res)
{
	size_t n = (size_t)sym_PQntuples(res);
	char **names = n ? calloc(n, sizeof(*names)) : NULL;

	*out = NULL;
	*out_n = 0;
	if (n && !names)
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (!(names[i] = strdup(sym_PQgetvalue(res, (int)i, 0)))) {
			ac_backend_names_free(names, i);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
	*out = names;
	*out_n = n;
	return 0;
}

/* ---- the session store ---- */

/* The session document as the file store starts it, minus its history
 * (the messages table holds that; its place kept, ac_backend_pg_history_slot):
 * the reference keys, tenancy in metadata. */
static char *new_document(const char *id, const char *now, const char *task, const char *tenant,
			  const char *user, const char *agent)
{
	json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:s, s:n, s:{s:s, s:s*, s:s*}}", "id", id,
				"createdAt", now, "updatedAt", now, "task", task, "status", "running",
				"conversationHistory", "metadata", "tenantId", tenant, "userId", user,
				"agentId", agent);
	char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(doc);
	return text;
}

/* Inserts a new session (a new random id when session_id is NULL) unless
 * its id is taken: *out_created says which. *out_id (allocated) names it. */
static int insert_session(ac_backend_pg *b, char **out_id, bool *out_created, const char *tenant,
			  const char *user, const char *agent, const char *session_id,
			  const char *task)
{
	char fresh[AC_UUID_LEN + 1], now[AC_TIME_ISO_LEN + 1], *doc;
	const char *values[9];
	PGresult *res = NULL;
	int rc;

	*out_id = NULL;
	*out_created = false;
	if ((rc = ac_backend_new_session_check(tenant, user, agent, session_id)))
		return rc;
	if (!session_id) {
		ac_uuid_v4(fresh);
		session_id = fresh;
	}
	if (!task)
		task = "";
	ac_time_format_iso(now, ac_time_now_ms());
	if (!(doc = new_document(session_id, now, task, tenant, user, agent)))
		return ac_error_set(AC_ENOMEM, "out of memory (or a task that is not UTF-8)");
	values[0] = tenant;
	values[1] = session_id;
	values[2] = user;
	values[3] = agent;
	values[4] = now;
	values[5] = b->host;
	values[6] = agent ? agent : b->agent;
	values[7] = doc;
	values[8] = task;
	rc = ac_pg_exec(b->pg, &res, "creating a session",
			"WITH created AS ("
			" INSERT INTO sessions (tenant, id, user_id, agent, status, created_at, updated_at,"
			"  written_by_host, written_by_agent, task)"
			" VALUES ($1, $2, coalesce($3, ''), coalesce($4, ''), 'running', $5::timestamptz,"
			"  $5::timestamptz, $6, $7, $9)"
			" ON CONFLICT (id) DO NOTHING RETURNING id),"
			" document AS ("
			" INSERT INTO session_documents (tenant, session_id, document)"
			" SELECT $1, id, $8::json FROM created)"
			" SELECT " NOTIFY("session", "$1::text", "$2::text") " FROM created",
			9, values, NULL);
	free(doc);
	if (!rc)
		*out_created = sym_PQntuples(res) > 0;
	sym_PQclear(res);
	if (!rc && !(*out_id = strdup(session_id)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	return rc;
}

static int pg_get_or_create(void *impl, char **out_id, const char *tenant, const char *user,
			    const char *agent, const char *session_id)
{
	bool created;
	int rc = insert_session(impl, out_id, &created, tenant, user, agent, session_id, "");

	/* Already there: then it must be tenant's. */
	if (!rc && !created && (rc = session_exists(impl, tenant, *out_id))) {
		free(*out_id);
		*out_id = NULL;
	}
	return rc;
}

static int pg_create(void *impl, char **out_id, const char *tenant, const char *user,
		     const char *agent, const char *session_id, const char *task)
{
	ac_backend_pg *b = impl;
	json_t *args = json_pack("{s:s?, s:s?, s:s?, s:s?, s:s?}", "tenant", tenant, "user", user,
				 "agent", agent, "id", session_id, "task", task ? task : "");
	bool created, open, replayed;
	int rc;

	*out_id = NULL;
	if (!args)
		return ac_error_set(AC_ENOMEM, "out of memory (or a task that is not UTF-8)");
	rc = ac_backend_pg_request_begin(b, &open, &replayed, tenant ? tenant : "", "session.create",
					 args);
	json_decref(args);
	if (rc || replayed) {
		/* A retry: the session the first call made, a random id included. */
		const char *first = json_string_value(json_object_get(b->answer, "id"));

		if (!rc && !(*out_id = strdup(first ? first : "")))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		return rc;
	}
	rc = insert_session(impl, out_id, &created, tenant, user, agent, session_id, task);
	/* As a session file: an id is taken whatever tenant holds it. */
	if (!rc && !created) {
		rc = ac_error_set(AC_EINVAL, "session '%s' exists already", *out_id);
		free(*out_id);
		*out_id = NULL;
	}
	rc = ac_backend_pg_request_end(b, rc, rc ? NULL : json_pack("{s:s}", "id", *out_id));
	if (rc) {
		free(*out_id);
		*out_id = NULL;
	}
	return rc;
}

/* The messages in res's column col (NULLs skipped: a session without
 * any), in row order, their seqs from column col - 1 (*out_seqs, may be
 * NULL; allocated). */
static int messages_of(json_t **out, long long **out_seqs, const PGresult *res, int col)
{
	int rc = 0, rows = sym_PQntuples(res);
	long long *seqs = NULL;
	json_t *all;

	if (!(all = json_array()) ||
	    (out_seqs && !(seqs = calloc(rows ? (size_t)rows : 1, sizeof(*seqs))))) {
		json_decref(all);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	for (int row = 0; row < rows && !rc; row++) {
		json_t *msg = NULL;

		if (sym_PQgetisnull(res, row, col))
			continue;
		rc = ac_json_exact_load(&msg, sym_PQgetvalue(res, row, col),
					(size_t)sym_PQgetlength(res, row, col), 0, "stored message");
		if (!rc && json_array_append_new(all, msg))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		if (!rc && seqs)
			seqs[json_array_size(all) - 1] = (long long)ac_pg_u64(res, row, col - 1);
	}
	if (rc) {
		json_decref(all);
		free(seqs);
		return rc;
	}
	*out = all;
	if (out_seqs)
		*out_seqs = seqs;
	return 0;
}

int ac_backend_pg_load_messages(ac_backend_pg *b, json_t **out, long long **out_seqs,
				const char *tenant, const char *session_id)
{
	const char *values[2] = {tenant, session_id};
	PGresult *res = NULL;
	int rc;

	*out = NULL;
	if (out_seqs)
		*out_seqs = NULL;
	if ((rc = check_session(tenant, session_id)))
		return rc;
	/* One row with NULLs for a session without messages, none for no session. */
	if ((rc = ac_pg_exec(b->pg, &res, "loading messages",
			     "SELECT m.seq, m.message FROM sessions s"
			     " LEFT JOIN messages m ON m.session_id = s.id AND m.tenant = s.tenant"
			     " WHERE s.tenant = $1 AND s.id = $2 ORDER BY m.seq",
			     2, values, NULL)))
		return rc;
	rc = sym_PQntuples(res) == 0 ? not_found(tenant, session_id)
				     : messages_of(out, out_seqs, res, 1);
	sym_PQclear(res);
	return rc;
}

/* The row's epoch and count with the messages after the cursor, in one
 * statement (one snapshot). Only appends since: the epoch is the one read
 * before and the copy's count plus the new rows is the row's count
 * (schema 10); anything else is a rewrite. */
static int pg_load_after(void *impl, json_t **out, ac_backend_history_cursor *cursor,
			 const char *tenant, const char *session_id)
{
	ac_backend_pg *b = impl;
	char after[24];
	const char *values[3] = {tenant, session_id, after};
	ac_backend_history_cursor now;
	long long *seqs = NULL;
	PGresult *res = NULL;
	json_t *added = NULL;
	int rc;

	*out = NULL;
	if ((rc = check_session(tenant, session_id)))
		return rc;
	snprintf(after, sizeof(after), "%lld", (long long)(cursor->epoch ? cursor->seq : 0));
	if ((rc = ac_pg_exec(b->pg, &res, "loading new messages",
			     "SELECT s.history_epoch, s.message_count, m.seq, m.message FROM sessions s"
			     " LEFT JOIN messages m ON m.session_id = s.id AND m.tenant = s.tenant"
			     " AND m.seq > $3::bigint"
			     " WHERE s.tenant = $1 AND s.id = $2 ORDER BY m.seq",
			     3, values, NULL)))
		return rc;
	if (sym_PQntuples(res) == 0) {
		rc = not_found(tenant, session_id);
		goto done;
	}
	if ((rc = messages_of(&added, &seqs, res, 3)))
		goto done;
	now.epoch = (int64_t)strtoll(sym_PQgetvalue(res, 0, 0), NULL, 10);
	now.count = (cursor->epoch ? cursor->count : 0) + json_array_size(added);
	now.seq = json_array_size(added) ? seqs[json_array_size(added) - 1]
		  : cursor->epoch ? cursor->seq : 0;
	/* A whole read (nothing held) is right whatever the counts say. */
	if (cursor->epoch && (now.epoch != cursor->epoch || now.count != ac_pg_u64(res, 0, 1))) {
		rc = ac_error_set(AC_ECONFLICT, "session %s: its history was rewritten since it "
				  "was read (compaction or rollback); read it whole", session_id);
		goto done;
	}
	*cursor = now;
	*out = added;
	added = NULL;
done:
	json_decref(added);
	free(seqs);
	sym_PQclear(res);
	return rc;
}

static int pg_load_all(void *impl, json_t **out, const char *tenant, const char *session_id)
{
	return ac_backend_pg_load_messages(impl, out, NULL, tenant, session_id);
}

static json_t *slice(json_t *messages, size_t start)
{
	json_t *out = json_array();

	for (size_t i = start; out && i < json_array_size(messages); i++)
		if (json_array_append(out, json_array_get(messages, i))) {
			json_decref(out);
			return NULL;
		}
	return out;
}

static int pg_load_last(void *impl, json_t **out, const char *tenant, const char *session_id,
			size_t n)
{
	json_t *all = NULL;
	int rc;

	if ((rc = ac_backend_pg_load_messages(impl, &all, NULL, tenant, session_id)))
		return rc;
	if (!(*out = slice(all, ac_messages_last_start(all, n))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	json_decref(all);
	return rc;
}

static int pg_load_within(void *impl, json_t **out, const char *tenant, const char *session_id,
			  uint64_t budget)
{
	json_t *all = NULL;
	int rc;

	if ((rc = ac_backend_pg_load_messages(impl, &all, NULL, tenant, session_id)))
		return rc;
	if (!(*out = slice(all, ac_messages_budget_start(all, ac_backend_token_budget(budget)))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	json_decref(all);
	return rc;
}

/* Appends messages and, with usage, counts a turn: one statement. The
 * session row's update takes its lock and hands out the seqs; the
 * messages and the usage row go in with it, or nothing does. */
static int append_turn(ac_backend_pg *b, json_t **answer, const char *tenant,
		       const char *session_id, const json_t *messages, const ac_usage *usage)
{
	char count[24], tokens[24], input[24], output[24];
	const char *values[15];
	ac_backend_pg_usage extra = {{"0", "0", "0"}, "", false, NULL};
	size_t text_len = 0;
	char *text = NULL;
	PGresult *res = NULL;
	int rc;

	if ((rc = check_session(tenant, session_id)) ||
	    (messages && (rc = ac_backend_messages_check(messages))) ||
	    (usage && (rc = ac_backend_pg_usage_params(&extra, usage))) ||
	    (usage && (rc = ac_backend_pg_usage_room(b, tenant, session_id, usage))))
		goto done;
	if (messages && !(text = ac_json_exact_dumps(messages, JSON_COMPACT | JSON_PRESERVE_ORDER,
						     &text_len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	snprintf(count, sizeof(count), "%zu", json_array_size(messages));
	snprintf(tokens, sizeof(tokens), "%llu",
		 (unsigned long long)(messages ? ac_messages_tokens(messages) : 0));
	snprintf(input, sizeof(input), "%llu", (unsigned long long)(usage ? usage->input_tokens : 0));
	snprintf(output, sizeof(output), "%llu", (unsigned long long)(usage ? usage->output_tokens : 0));
	values[0] = tenant;
	values[1] = session_id;
	values[2] = count;
	values[3] = tokens;
	values[4] = b->host;
	values[5] = b->agent;
	values[6] = text ? text : "[]";
	values[7] = usage ? "1" : "0";
	values[8] = input;
	values[9] = output;
	values[10] = extra.counts[0];
	values[11] = extra.counts[1];
	values[12] = extra.counts[2];
	values[13] = extra.has_reported_total ? extra.reported_total : NULL;
	values[14] = extra.fields ? extra.fields : "{}";
	rc = ac_pg_exec(b->pg, &res, usage ? "recording a turn" : "appending messages",
			"WITH s AS ("
			" UPDATE sessions SET last_seq = last_seq + $3::bigint,"
			"  message_count = message_count + $3::bigint, tokens = tokens + $4::bigint,"
			"  turns = turns + $8::bigint, input_tokens = input_tokens + $9::bigint,"
			"  output_tokens = output_tokens + $10::bigint,"
			"  version = version + 1, updated_at = now(),"
			"  written_by_host = $5, written_by_agent = $6"
			" WHERE tenant = $1 AND id = $2"
			" RETURNING last_seq - $3::bigint AS base, turns, message_count),"
			" added AS ("
			" INSERT INTO messages (tenant, session_id, seq, message)"
			" SELECT $1, $2, s.base + e.ord, e.elem"
			" FROM s, json_array_elements($7::json) WITH ORDINALITY AS e(elem, ord)),"
			" used AS ("
			" INSERT INTO turn_usage (tenant, session_id, turn, input_tokens, output_tokens, host,"
			"  cache_creation_input_tokens, cache_read_input_tokens, reasoning_tokens,"
			"  reported_total_tokens, fields)"
			" SELECT $1, $2, s.turns, $9::bigint, $10::bigint, $5, $11::bigint, $12::bigint,"
			"  $13::bigint, $14::bigint, $15::jsonb FROM s WHERE $8::bigint = 1)"
			" SELECT " NOTIFY("messages", "$1::text", "$2::text") ", s.message_count, s.turns"
			" FROM s",
			15, values, NULL);
	if (!rc && sym_PQntuples(res) == 0)
		rc = not_found(tenant, session_id);
	if (!rc && answer && !(*answer = json_pack("{s:I, s:I}", "messages",
						   (json_int_t)ac_pg_u64(res, 0, 1), "turns",
						   (json_int_t)ac_pg_u64(res, 0, 2))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	free(text);
	ac_backend_pg_usage_clear(&extra);
	sym_PQclear(res);
	return rc;
}

/* append_turn under the request id set, if any: the key and the write in
 * one transaction; a retry answers with the row's counts after the first. */
static int append_once(ac_backend_pg *b, const char *operation, const char *tenant,
		       const char *session_id, const json_t *messages, const ac_usage *usage)
{
	json_t *args = json_pack("{s:s?, s:O?}", "session", session_id, "messages", messages);
	json_t *answer = NULL;
	bool open, replayed;
	int rc;

	if (args && usage && json_object_set_new(args, "usage", json_pack("{s:I, s:I, s:O?}",
			"input", (json_int_t)usage->input_tokens, "output",
			(json_int_t)usage->output_tokens, "fields", usage->fields))) {
		json_decref(args);
		args = NULL;
	}
	if (!args)
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_backend_pg_request_begin(b, &open, &replayed, tenant ? tenant : "", operation, args);
	json_decref(args);
	if (rc || replayed)
		return rc;
	rc = append_turn(b, open ? &answer : NULL, tenant, session_id, messages, usage);
	return ac_backend_pg_request_end(b, rc, answer);
}

static int pg_append(void *impl, const char *tenant, const char *session_id,
		     const json_t *messages)
{
	if (!messages)
		return ac_error_set(AC_EINVAL, "messages: must be an array");
	return append_once(impl, "session.append", tenant, session_id, messages, NULL);
}

static int pg_record_turn(void *impl, const char *tenant, const char *session_id,
			  const json_t *messages, const ac_usage *usage)
{
	ac_usage none = {0, 0, NULL};

	return append_once(impl, "session.record_turn", tenant, session_id, messages,
			   usage ? usage : &none);
}

/* ---- status: compare-and-set ---- */

static int set_status(ac_backend_pg *b, const char *tenant, const char *session_id,
		      const char *from, const char *to)
{
	const char *values[6];
	PGresult *res = NULL;
	int rc;

	values[0] = tenant;
	values[1] = session_id;
	values[2] = from;
	values[3] = to;
	values[4] = b->host;
	values[5] = b->agent;
	rc = ac_pg_exec(b->pg, &res, "changing a status",
			"UPDATE sessions SET status = $4, version = version + 1, updated_at = now(),"
			" written_by_host = $5, written_by_agent = $6"
			" WHERE tenant = $1 AND id = $2 AND status = $3"
			" RETURNING " NOTIFY("status", "$1::text", "$2::text"),
			6, values, NULL);
	if (!rc && sym_PQntuples(res) == 0 && !(rc = session_exists(b, tenant, session_id)))
		rc = ac_error_set(AC_ECONFLICT, "session %s: status is no longer %s", session_id, from);
	sym_PQclear(res);
	return rc;
}

/* The key's arguments are the session and the status it is set to, not
 * the status it was read at: a retry reads the status the first call set. */
static int pg_set_status(void *impl, const char *tenant, const char *session_id,
			 const char *from, const char *to)
{
	ac_backend_pg *b = impl;
	json_t *args;
	bool open, replayed;
	int rc;

	if ((rc = check_session(tenant, session_id)) || (rc = ac_backend_status_check(from, to)))
		return rc;
	if (!(args = json_pack("{s:s, s:s}", "session", session_id, "to", to)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_backend_pg_request_begin(b, &open, &replayed, tenant, "session.set_status", args);
	json_decref(args);
	if (rc || replayed)
		return rc;
	rc = set_status(b, tenant, session_id, from, to);
	return ac_backend_pg_request_end(b, rc, rc ? NULL : json_pack("{s:s}", "status", to));
}

int ac_backend_pg_set_status(const ac_backend *backend, const char *tenant,
			     const char *session_id, const char *from, const char *to)
{
	if (!backend || !backend->name || strcmp(backend->name, "pg") != 0)
		return ac_error_set(AC_EINVAL, "status change: not a PostgreSQL backend");
	return pg_set_status(backend->impl, tenant, session_id, from, to);
}

/* ---- the whole session, as a file holds it ---- */

/* Sets key in object, or AC_ENOMEM. */
static int put(json_t *object, const char *key, json_t *value)
{
	return json_object_set_new(object, key, value) ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
}

/* True when value is a time naming instant ms. */
static bool same_instant(const json_t *value, int64_t ms)
{
	int64_t at;

	return json_is_string(value) && ac_time_parse(&at, json_string_value(value)) == 0 &&
	       at == ms;
}

/* metadata.usage once a turn was counted, derived as the file store
 * derives it (ac_turn_usage_apply_totals): the stored document's keys
 * kept, the rows' totals over them, then the row's three counts, which
 * also hold totals from before rows were kept. Rebuilding it from the
 * three counts alone lost every other key, so a copied document did not
 * read back as it was written. */
static int derived_usage(ac_backend_pg *b, json_t *metadata, const PGresult *res,
			 const char *tenant, const char *session_id)
{
	json_t *usage = json_object_get(metadata, "usage"), *loaded = NULL;
	int rc;

	if (!json_is_object(usage) && (rc = put(metadata, "usage", usage = json_object())))
		return rc;
	if ((rc = ac_backend_pg_load_usage(b, &loaded, tenant, session_id)))
		return rc;
	if (!(json_array_size(json_object_get(loaded, "turns")) &&
	      (rc = ac_turn_usage_apply_totals(usage, json_object_get(loaded, "totals")))) &&
	    !(rc = put(usage, "inputTokens", json_integer((json_int_t)ac_pg_u64(res, 0, 3)))) &&
	    !(rc = put(usage, "outputTokens", json_integer((json_int_t)ac_pg_u64(res, 0, 4)))))
		rc = put(usage, "turns", json_integer((json_int_t)ac_pg_u64(res, 0, 5)));
	json_decref(loaded);
	return rc;
}

int ac_backend_pg_stored_document(json_t **out, const PGresult *res, const char *session_id)
{
	int rc = ac_json_exact_load(out, sym_PQgetvalue(res, 0, 0),
				    (size_t)sym_PQgetlength(res, 0, 0), 0, "stored session");

	if (rc == 0 && !json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		rc = ac_error_set(AC_ECORRUPT, "session %s: the stored document is not an object",
				  session_id);
	}
	return rc;
}

int ac_backend_pg_history_slot(json_t *doc)
{
	if (!json_object_get(doc, "conversationHistory"))
		return 0;
	return put(doc, "conversationHistory", json_null());
}

/* The stored document (no history) with what the row keeps current: the
 * status, updatedAt, metadata.usage once a turn was recorded; then the
 * messages as conversationHistory. */
static int pg_get(void *impl, json_t **out, const char *tenant, const char *session_id)
{
	ac_backend_pg *b = impl;
	const char *values[2] = {tenant, session_id};
	char updated[AC_TIME_ISO_LEN + 1];
	json_t *doc = NULL, *history = NULL, *metadata;
	PGresult *res = NULL;
	int rc;

	*out = NULL;
	if ((rc = check_session(tenant, session_id)) ||
	    (rc = ac_pg_exec(b->pg, &res, "loading a session",
			     "SELECT d.document, s.status, (extract(epoch FROM s.updated_at) * 1000)::bigint,"
			     " s.input_tokens, s.output_tokens, s.turns"
			     " FROM sessions s JOIN session_documents d ON d.session_id = s.id"
			     " WHERE s.tenant = $1 AND s.id = $2",
			     2, values, NULL)))
		return rc;
	if (sym_PQntuples(res) == 0) {
		rc = not_found(tenant, session_id);
		goto done;
	}
	if ((rc = ac_backend_pg_stored_document(&doc, res, session_id)))
		goto done;
	if ((rc = put(doc, "status", json_string(ac_pg_text(res, 0, 1)))))
		goto done;
	/* The document's own text while it names the row's instant (a copied
	 * document reads back as it was written, "…:05Z" included); the row's
	 * time once a write here moved it. */
	if (!same_instant(json_object_get(doc, "updatedAt"), (int64_t)ac_pg_u64(res, 0, 2))) {
		ac_time_format_iso(updated, (int64_t)ac_pg_u64(res, 0, 2));
		if ((rc = put(doc, "updatedAt", json_string(updated))))
			goto done;
	}
	metadata = json_object_get(doc, "metadata");
	if (!json_is_object(metadata) && (rc = put(doc, "metadata", metadata = json_object())))
		goto done;
	if (ac_pg_u64(res, 0, 5) > 0 &&
	    (rc = derived_usage(b, metadata, res, tenant, session_id)))
		goto done;
	if ((rc = ac_backend_pg_load_messages(b, &history, NULL, tenant, session_id)) ||
	    (rc = put(doc, "conversationHistory", history)))
		goto done;
	*out = doc;
	doc = NULL;
done:
	json_decref(doc);
	sym_PQclear(res);
	return rc;
}

/* ---- set-up ---- */

static void pg_free(void *impl)
{
	ac_backend_pg *b = impl;

	if (!b)
		return;
	ac_backend_pg_request_free(b);
	ac_pg_close(b->pg);
	free(b->host);
	free(b->agent);
	free(b);
}

static char *this_host(void)
{
	char name[HOST_NAME_MAX + 1] = "";

	if (gethostname(name, sizeof(name)) != 0)
		snprintf(name, sizeof(name), "unknown");
	name[HOST_NAME_MAX] = '\0';
	return strdup(name);
}

/* optional.watch: LISTEN on a connection of its own to the same server. */
static int pg_watch(const ac_backend *backend, ac_store_watch **out)
{
	const ac_backend_pg *b = backend->impl;

	return ac_store_watch_new(out, b->pg->conninfo);
}

int ac_backend_pg_init(ac_backend *out, const ac_backend_pg_options *opts)
{
	ac_backend_pg *b;
	int rc;

	*out = (ac_backend){0};
	if (opts && (rc = ac_struct_version_check("PostgreSQL backend options", opts->version,
						  AC_BACKEND_PG_OPTIONS_VERSION,
						  "AC_BACKEND_PG_OPTIONS_INIT")))
		return rc;
	if (!opts || !opts->url || !*opts->url)
		return ac_error_set(AC_EINVAL, "PostgreSQL backend: a storage url is needed");
	if (!(b = calloc(1, sizeof(*b))) ||
	    !(b->host = opts->host ? strdup(opts->host) : this_host()) ||
	    !(b->agent = strdup(opts->agent ? opts->agent : "agentctl"))) {
		pg_free(b);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if ((rc = ac_pg_open(&b->pg, opts->url, opts->schema)) ||
	    (rc = ac_pg_schema_migrate(b->pg))) {
		pg_free(b);
		return rc;
	}
	*out = (ac_backend){
		.version = AC_BACKEND_VERSION,
		.name = "pg",
		.impl = b,
		.session = {
			.get_or_create = pg_get_or_create,
			.create = pg_create,
			.load_all = pg_load_all,
			.load_last = pg_load_last,
			.load_within = pg_load_within,
			.append = pg_append,
			.record_turn = pg_record_turn,
			.load_usage = ac_backend_pg_load_usage,
			.compact_if_needed = ac_backend_pg_compact,
			.get = pg_get,
			.set_status = pg_set_status,
			.load_after = pg_load_after,
		},
		.free = pg_free,
	};
	ac_backend_pg_fill_listings(out);
	ac_backend_pg_fill_files(out);
	ac_backend_pg_fill_logs(out);
	ac_backend_pg_fill_copy(out);
	ac_backend_pg_fill_request(out);
	out->inspector.usage_by_hour = ac_backend_pg_usage_by_hour;
	out->optional = (ac_backend_optional_ops){
		.hold_session = ac_backend_pg_hold_session,
		.lease = ac_backend_pg_lease,
		.update_document = ac_backend_pg_update_document,
		.cut_history = ac_backend_pg_cut_history,
		.replace_history = ac_backend_pg_replace_history,
		.unfold = ac_backend_pg_unfold,
		.watch = pg_watch,
		.each_session = ac_backend_pg_each_session,
		.find_sessions = ac_backend_pg_find_sessions,
		.memo_write_if = ac_backend_pg_memo_write_if,
	};
	return 0;
}
