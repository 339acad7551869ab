/* Retention in the PostgreSQL store (ac_gc.h): one plan item per kind of
 * record, each removed by one DELETE in its own transaction, so a crash or
 * a refusal leaves a kind all there or all gone:
 * - trace records (log_records kind 'trace') older than the age, of
 *   sessions that are not running or paused (by age only, as in files);
 *   the log's last_seq stays in logs, so a later append reuses no seq;
 * - orchestration events (kind 'run') older than the age that the run's
 *   snapshot covers (seq <= covers_seq): the snapshot holds their effect;
 * - compaction archives (the compactions table; no session names them
 *   here): per session, beyond the newest N and/or older than the age;
 * - checkpoints (schema 3), as the file provider keeps them: never a
 *   tombstone, nor a session's highest version (so no version is handed
 *   out twice), nor its newest non-tombstone one, nor any of the newest N
 *   non-tombstones (by version, never by clock); the age is the row's
 *   saved_at;
 * - journal events (schema 4), by age only: the journal is the audit
 *   trail, so nothing goes without an explicit --older-than; the age is
 *   when the store received the event (at), not the time an agent wrote
 *   in it. logs keeps the journal's last_seq: seqs are never reused.
 * The DELETE repeats the plan's conditions with the plan's own limits
 * (its cutoff, its keep, the newest archive it saw), so what is written
 * after the plan stays. Ages are judged on the server's clock (which
 * stamped the records), never this host's. Archives and checkpoints of a
 * session an operator action holds (ac_backend_pg_hold_session()) stay:
 * their DELETE takes each session's advisory lock without waiting, and
 * the sessions it could not take are reported (pg_skipped). Each lock
 * taken lasts to the commit; a DELETE over more sessions than the
 * server's lock table holds (max_locks_per_transaction) fails whole. A database without agentctl's
 * schema holds nothing to remove and is not created. */
#include "ac_gc.h"

#include "ac_backend_pg.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_pg.h"
#include "ac_pg_schema.h"
#include "ac_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	ac_gc_store base;
	ac_pg *pg;
	int version; /* the schema's; 0: none */
	char *skipped; /* the busy sessions the last remove left, or NULL */
} pg_store;

/* One kind's statements. Parameters: $1 the cutoff (NULL: no age rule),
 * $2 keep (NULL: no count rule), $3 the newest archive the plan saw (so
 * one written since does not push an older one out of the newest N). */
typedef struct {
	ac_gc_kind kind;
	const char *table;  /* shown, and the item's key */
	int since;          /* the schema version that made the table */
	bool by_age_only;   /* nothing goes without an age */
	bool per_session;   /* a session's records: $4 is the schema's name, and
			     * what an operator action holds stays (BUSY) */
	const char *select; /* count, bytes, newest */
	const char *delete;
	const char *busy;   /* per_session: the sessions an action holds (taking
			     * the others' locks, so none starts meanwhile) */
} pg_rule;

#define FINISHED_TRACES                                                                       \
	" FROM log_records r WHERE r.kind = 'trace' AND r.at < $1::timestamptz"                  \
	" AND ($2::bigint IS NULL OR true) AND ($3::timestamptz IS NULL OR true)"                \
	" AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = r.log AND s.tenant = r.tenant"   \
	" AND s.status IN ('running', 'paused'))"
#define COVERED_EVENTS                                                                        \
	" FROM log_records r WHERE r.kind = 'run' AND r.at < $1::timestamptz"                    \
	" AND ($2::bigint IS NULL OR true) AND ($3::timestamptz IS NULL OR true)"                \
	" AND EXISTS (SELECT 1 FROM snapshots s WHERE s.tenant = r.tenant AND s.run_id = r.log"  \
	" AND r.seq <= s.covers_seq)"
#define RANKED_ARCHIVES                                                                       \
	"WITH ranked AS (SELECT session_id, at, first_seq, pg_column_size(messages) AS size,"    \
	" row_number() OVER (PARTITION BY session_id ORDER BY at DESC, first_seq DESC) AS rn"    \
	" FROM compactions WHERE $3::timestamptz IS NULL OR at <= $3::timestamptz)"
#define ARCHIVE_RULE                                                                          \
	" ($2::bigint IS NULL OR ranked.rn > $2::bigint)"                                         \
	" AND ($1::timestamptz IS NULL OR ranked.at < $1::timestamptz)"

/* Taken for each session whose records go, without waiting: false while
 * an operator action holds it (ac_backend_pg_hold_session()). */
#define SESSION_FREE " pg_try_advisory_xact_lock(" \
	AC_BACKEND_PG_SESSION_LOCK_KEY("ranked.session_id", "$4::text") ")"

/* Non-tombstones ranked by version per session, the tombstones apart. */
#define RANKED_CHECKPOINTS                                                                    \
	"WITH ranked AS (SELECT session_id, checkpoint_id, saved_at, tombstone,"                 \
	" pg_column_size(document) AS size,"                                                      \
	" row_number() OVER (PARTITION BY session_id, tombstone ORDER BY version DESC) AS rn,"   \
	" version = max(version) OVER (PARTITION BY session_id) AS highest"                     \
	" FROM checkpoints WHERE $3::timestamptz IS NULL OR saved_at <= $3::timestamptz)"
#define CHECKPOINT_RULE                                                                       \
	" NOT ranked.tombstone AND NOT ranked.highest"                                            \
	" AND ranked.rn > greatest(coalesce($2::bigint, 1), 1)"                                   \
	" AND ($1::timestamptz IS NULL OR ranked.saved_at < $1::timestamptz)"
#define OLD_JOURNAL_EVENTS                                                                    \
	" FROM journal_events e WHERE e.at < $1::timestamptz"                                    \
	" AND ($2::bigint IS NULL OR true) AND ($3::timestamptz IS NULL OR true)"

static const pg_rule rules[] = {
	{AC_GC_CHECKPOINT, "checkpoints", 3, false, true,
	 RANKED_CHECKPOINTS " SELECT count(*), COALESCE(sum(size), 0), (SELECT max(saved_at) FROM ranked)"
	 " FROM ranked WHERE" CHECKPOINT_RULE,
	 RANKED_CHECKPOINTS " DELETE FROM checkpoints c USING ranked WHERE"
	 " c.session_id = ranked.session_id AND c.checkpoint_id = ranked.checkpoint_id"
	 " AND" CHECKPOINT_RULE " AND" SESSION_FREE,
	 RANKED_CHECKPOINTS " SELECT string_agg(DISTINCT session_id, ', ') FROM ranked WHERE"
	 CHECKPOINT_RULE " AND NOT" SESSION_FREE},
	{AC_GC_TRACE, "log_records (trace)", 1, true, false,
	 "SELECT count(*), COALESCE(sum(pg_column_size(r.data)), 0), max(r.at)" FINISHED_TRACES,
	 "DELETE" FINISHED_TRACES, NULL},
	{AC_GC_EVENTS, "log_records (orchestration)", 1, true, false,
	 "SELECT count(*), COALESCE(sum(pg_column_size(r.data)), 0), max(r.at)" COVERED_EVENTS,
	 "DELETE" COVERED_EVENTS, NULL},
	{AC_GC_COMPACTION, "compactions", 1, false, true,
	 RANKED_ARCHIVES " SELECT count(*), COALESCE(sum(size), 0), (SELECT max(at) FROM ranked)"
	 " FROM ranked WHERE"
	 ARCHIVE_RULE,
	 RANKED_ARCHIVES " DELETE FROM compactions c USING ranked WHERE"
	 " c.session_id = ranked.session_id AND c.at = ranked.at AND c.first_seq = ranked.first_seq"
	 " AND" ARCHIVE_RULE " AND" SESSION_FREE,
	 RANKED_ARCHIVES " SELECT string_agg(DISTINCT session_id, ', ') FROM ranked WHERE"
	 ARCHIVE_RULE " AND NOT" SESSION_FREE},
	{AC_GC_JOURNAL_EVENTS, "journal_events", 4, true, false,
	 "SELECT count(*), COALESCE(sum(pg_column_size(e.event)), 0), max(e.at)" OLD_JOURNAL_EVENTS,
	 "DELETE" OLD_JOURNAL_EVENTS, NULL},
};

#define N_RULES (sizeof(rules) / sizeof(rules[0]))

/* item->relative holds the plan's limits for the DELETE: "cutoff|keep|newest"
 * (empty: NULL). */
static int push_kind(ac_gc_plan *out, const pg_store *ps, const pg_rule *rule,
		     const ac_gc_policy *policy, const char *const limits[3],
		     unsigned long long rows, unsigned long long bytes, const char *cutoff)
{
	ac_buf path = AC_BUF_INIT, why = AC_BUF_INIT, relative = AC_BUF_INIT;
	ac_gc_item *item;
	int rc = 0;

	if (out->count == out->capacity) {
		size_t want = out->capacity ? out->capacity * 2 : 8;
		ac_gc_item *grown = realloc(out->items, want * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		out->items = grown;
		out->capacity = want;
	}
	if (ac_buf_printf(&path, "%s %s", ps->pg->shown, rule->table) ||
	    ac_buf_printf(&why, "%llu records", rows) ||
	    (policy->has_keep && !rule->by_age_only &&
	     ac_buf_printf(&why, ", not among the newest %zu of their session", policy->keep)) ||
	    (policy->older_than_ms > 0 && ac_buf_printf(&why, ", from before %s", cutoff)) ||
	    ac_buf_printf(&relative, "%s|%s|%s", limits[0] ? limits[0] : "",
			  limits[1] ? limits[1] : "", limits[2] ? limits[2] : "")) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	item = &out->items[out->count++];
	memset(item, 0, sizeof(*item));
	item->kind = rule->kind;
	item->bytes = bytes;
	item->time_ms = policy->now_ms;
	item->path = ac_buf_detach(&path);
	item->why = ac_buf_detach(&why);
	item->relative = ac_buf_detach(&relative);
	item->base = strdup(rule->table);
	if (!item->path || !item->why || !item->relative || !item->base)
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	out->bytes += bytes;
done:
	ac_buf_free(&path);
	ac_buf_free(&why);
	ac_buf_free(&relative);
	return rc;
}

/* The age limit on the server's clock, which stamped every record, as an
 * ISO time: a host whose clock runs ahead (or behind) must not age what
 * was just written. */
static int server_cutoff(pg_store *ps, char cutoff[AC_TIME_ISO_LEN + 1], int64_t older_than_ms)
{
	char ms[24];
	const char *values[1] = {ms};
	PGresult *res = NULL;
	int rc;

	snprintf(ms, sizeof(ms), "%lld", (long long)older_than_ms);
	if ((rc = ac_pg_exec(ps->pg, &res, "reading the server's clock",
			     "SELECT to_char((now() - $1::bigint * interval '1 millisecond')"
			     " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')",
			     1, values, NULL)))
		return rc;
	snprintf(cutoff, AC_TIME_ISO_LEN + 1, "%s", ac_pg_text(res, 0, 0));
	sym_PQclear(res);
	return 0;
}

static int pg_plan(ac_gc_store *store, ac_gc_plan *out, const ac_gc_policy *policy)
{
	pg_store *ps = (pg_store *)store;
	char cutoff[AC_TIME_ISO_LEN + 1] = "", keep[24];
	int rc = 0;

	if (ps->version == 0)
		return 0;
	if (policy->older_than_ms > 0 && (rc = server_cutoff(ps, cutoff, policy->older_than_ms)))
		return rc;
	snprintf(keep, sizeof(keep), "%zu", policy->keep);
	for (size_t i = 0; i < N_RULES && !rc; i++) {
		const pg_rule *rule = &rules[i];
		const char *limits[3] = {policy->older_than_ms > 0 ? cutoff : NULL,
					 policy->has_keep ? keep : NULL, NULL};
		PGresult *res = NULL;
		unsigned long long rows, bytes;
		char *newest;

		/* A table an older schema lacks holds nothing (gc migrates nothing). */
		if ((rule->by_age_only && policy->older_than_ms <= 0) || ps->version < rule->since)
			continue;
		if ((rc = ac_pg_exec(ps->pg, &res, "planning retention", rule->select, 3, limits,
				     NULL)))
			break;
		rows = ac_pg_u64(res, 0, 0);
		bytes = ac_pg_u64(res, 0, 1);
		newest = strdup(ac_pg_text(res, 0, 2));
		sym_PQclear(res);
		if (!newest)
			return ac_error_set(AC_ENOMEM, "out of memory");
		limits[2] = *newest ? newest : NULL;
		if (rows)
			rc = push_kind(out, ps, rule, policy, limits, rows, bytes, cutoff);
		free(newest);
	}
	return rc;
}

static int pg_remove(ac_gc_store *store, const ac_gc_item *item)
{
	pg_store *ps = (pg_store *)store;
	char *limits = strdup(item->relative), *keep, *newest;
	const pg_rule *rule = NULL;
	int rc;

	if (!limits)
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < N_RULES; i++)
		if (!strcmp(rules[i].table, item->base))
			rule = &rules[i];
	if (!rule || !(keep = strchr(limits, '|')) || !(newest = strchr(keep + 1, '|'))) {
		free(limits);
		return ac_error_set(AC_EINVAL, "%s: not an item of this store", item->path);
	}
	*keep++ = '\0';
	*newest++ = '\0';
	const char *values[4] = {*limits ? limits : NULL, *keep ? keep : NULL,
				 *newest ? newest : NULL, ps->pg->schema};
	int n = rule->per_session ? 4 : 3;
	PGresult *res = NULL;

	free(ps->skipped);
	ps->skipped = NULL;
	if ((rc = ac_pg_begin(ps->pg, "removing old records")) ||
	    (rule->per_session &&
	     (rc = ac_pg_exec(ps->pg, &res, "removing old records", rule->busy, n, values, NULL))) ||
	    (rc = ac_pg_exec(ps->pg, NULL, "removing old records", rule->delete, n, values,
			     NULL)) ||
	    (rc = ac_pg_commit(ps->pg, "removing old records")))
		ac_pg_rollback(ps->pg);
	if (!rc && res && *ac_pg_text(res, 0, 0) && !(ps->skipped = strdup(ac_pg_text(res, 0, 0))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	sym_PQclear(res);
	free(limits);
	return rc;
}

static bool pg_skipped(ac_gc_store *store, const ac_gc_item *item)
{
	pg_store *ps = (pg_store *)store;

	if (!ps->skipped)
		return false;
	ac_error_set(AC_ECONFLICT, "the records of session(s) %s are skipped: an operator action "
		     "(a compaction or a rollback) is working on them", ps->skipped);
	(void)item;
	return true;
}

static void pg_free(ac_gc_store *store)
{
	pg_store *ps = (pg_store *)store;

	ac_pg_close(ps->pg);
	free(ps->skipped);
	free(ps);
}

static const ac_gc_store_ops pg_ops = {
	.version = AC_GC_STORE_OPS_VERSION,
	.name = "postgresql",
	.plan = pg_plan,
	.remove = pg_remove,
	.skipped = pg_skipped,
	.free = pg_free,
};

int ac_gc_store_pg_new(ac_gc_store **out, const char *url, const char *schema)
{
	pg_store *ps = calloc(1, sizeof(*ps));
	int rc;

	if (!ps)
		return ac_error_set(AC_ENOMEM, "out of memory");
	ps->base.ops = &pg_ops;
	if ((rc = ac_pg_open(&ps->pg, url, schema)) ||
	    (rc = ac_pg_schema_check(ps->pg, &ps->version, NULL))) {
		pg_free(&ps->base);
		return rc;
	}
	*out = &ps->base;
	return 0;
}

int ac_gc_store_open_workspace(ac_gc_store **out, const ac_workspace *ws)
{
	const char *url = NULL;
	int rc;

	*out = NULL;
	/* The records live beside the sessions, in the workspace's store
	 * (ac_workspace.h): an untrusted storage.url is refused there. */
	if ((rc = ac_workspace_store_url(&url, ws)) || !url)
		return rc;
	return ac_gc_store_pg_new(out, url, NULL);
}
