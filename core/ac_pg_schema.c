/* The PostgreSQL store's schema, as migrations. Each migration is a list of
 * statements (constant SQL: PQexecParams runs one statement at a time),
 * applied in one transaction together with its agentctl_migrations row, so
 * a crash leaves a migration either whole and recorded or absent.
 *
 * Layout (docs/POSTGRES.md explains each table):
 *   sessions        one row per session: the columns listings read
 *                   (tenant, user, agent, status, updated_at, counts, the
 *                   host and agent that last wrote, a version)
 *   session_documents  the session document (json, text-exact: unknown
 *                   keys and their order survive) minus its history
 *   messages        (session, seq) -> one message, json, text-exact
 *   turn_usage      one row per recorded turn; sessions' totals follow
 *   memos, artifacts  bytes by name
 *   log_records     traces and orchestration events: (tenant, kind, log, seq)
 *   logs            one row per log: its last seq (the lock appends take)
 *   snapshots       a run's latest snapshot
 *   compactions     the messages a compaction replaced (the archive)
 *   checkpoints     (3) one row per checkpoint: the document (json,
 *                   text-exact) and the header columns listings read
 *   journal_events  (4) one row per journal event: the line as written
 *                   (json, text-exact), seq from logs' ('', journal, '')
 *                   row, and the columns queries use
 *   sessions.task   (5) the task, so listings need no document; its head
 *                   (task_head) in the listing indexes
 *   turn_usage      (6) + cache, reasoning and reported total counts, and
 *                   the Usage's other fields as jsonb; (7) + copied_row,
 *                   a row a copy brought, as it came (json, text-exact)
 *   compactions     (8) + kind, name, document: an archive a copy brought
 *   usage_hours     (9) turn_usage summed by session, model and UTC hour,
 *                   kept by triggers: what `agentctl usage` reads
 *   sessions        (10) + history_epoch; (11) the task put back in rows
 *                   that `storage migrate` copied with an empty one
 *   requests        (12) idempotency keys: a write's request id, tenant,
 *                   operation and first answer, kept a day or more */
#include "ac_pg_schema.h"

#include "ac_error.h"
#include "ac_buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	int version;
	const char *name;
	const char *const *statements; /* NULL-terminated */
} migration;

static const char *const initial[] = {
	"CREATE TABLE sessions ("
	" tenant text NOT NULL,"
	" id text NOT NULL,"
	" user_id text NOT NULL DEFAULT '',"
	" agent text NOT NULL DEFAULT '',"
	" status text NOT NULL,"
	" created_at timestamptz NOT NULL,"
	" updated_at timestamptz NOT NULL,"
	" written_by_host text NOT NULL DEFAULT '',"
	" written_by_agent text NOT NULL DEFAULT '',"
	" version bigint NOT NULL DEFAULT 1,"       /* compare-and-set */
	" last_seq bigint NOT NULL DEFAULT 0,"      /* messages' seq */
	" message_count bigint NOT NULL DEFAULT 0,"
	" tokens bigint NOT NULL DEFAULT 0,"        /* estimated, current history */
	" input_tokens bigint NOT NULL DEFAULT 0,"  /* sums of turn_usage */
	" output_tokens bigint NOT NULL DEFAULT 0,"
	" turns bigint NOT NULL DEFAULT 0,"
	" PRIMARY KEY (id))",
	/* Session ids are one namespace, as session files are: another
	 * tenant's id is "not found", never a second session. */
	/* The listings read these indexes alone (index-only scans, already in
	 * order): newest first, ties by id, every listed column included. */
	"CREATE INDEX sessions_listing ON sessions (updated_at DESC, id)"
	" INCLUDE (tenant, user_id, agent, status, message_count, tokens, input_tokens,"
	" output_tokens, turns)",
	"CREATE INDEX sessions_tenant_listing ON sessions (tenant, updated_at DESC, id)"
	" INCLUDE (user_id, agent, status, message_count, tokens, input_tokens, output_tokens,"
	" turns)",
	"CREATE INDEX sessions_user_listing ON sessions (tenant, user_id, updated_at DESC, id)"
	" INCLUDE (agent, status, message_count, tokens, input_tokens, output_tokens, turns)",
	"CREATE INDEX sessions_host ON sessions (written_by_host)",
	/* Apart, so the rows listings read stay narrow. */
	"CREATE TABLE session_documents ("
	" tenant text NOT NULL,"
	" session_id text PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,"
	" document json NOT NULL)",
	"CREATE TABLE messages ("
	" tenant text NOT NULL,"
	" session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,"
	" seq bigint NOT NULL,"
	" message json NOT NULL,"
	" PRIMARY KEY (session_id, seq))",
	"CREATE TABLE turn_usage ("
	" tenant text NOT NULL,"
	" session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,"
	" turn bigint NOT NULL,"
	" at timestamptz NOT NULL DEFAULT now(),"
	" input_tokens bigint NOT NULL,"
	" output_tokens bigint NOT NULL,"
	" total_tokens bigint GENERATED ALWAYS AS (input_tokens + output_tokens) STORED,"
	" host text NOT NULL DEFAULT '',"
	" PRIMARY KEY (session_id, turn))",
	"CREATE TABLE memos ("
	" tenant text NOT NULL, owner text NOT NULL, scope text NOT NULL, name text NOT NULL,"
	" data bytea NOT NULL,"
	" updated_at timestamptz NOT NULL DEFAULT now(),"
	" host text NOT NULL DEFAULT '',"
	" PRIMARY KEY (tenant, owner, scope, name))",
	"CREATE TABLE artifacts ("
	" tenant text NOT NULL, session_id text NOT NULL, tool_call_id text NOT NULL,"
	" data bytea NOT NULL,"
	" created_at timestamptz NOT NULL DEFAULT now(),"
	" PRIMARY KEY (tenant, session_id, tool_call_id))",
	"CREATE TABLE logs ("
	" tenant text NOT NULL, kind text NOT NULL, log text NOT NULL,"
	" last_seq bigint NOT NULL DEFAULT 0,"
	" PRIMARY KEY (tenant, kind, log))",
	"CREATE TABLE log_records ("
	" tenant text NOT NULL, kind text NOT NULL, log text NOT NULL,"
	" seq bigint NOT NULL,"
	" at timestamptz NOT NULL DEFAULT now(),"
	" host text NOT NULL DEFAULT '',"
	" data json NOT NULL,"
	" PRIMARY KEY (tenant, kind, log, seq))",
	"CREATE INDEX log_records_at ON log_records (at)",
	"CREATE TABLE snapshots ("
	" tenant text NOT NULL, run_id text NOT NULL,"
	" covers_seq bigint NOT NULL,"
	" state json NOT NULL,"
	" at timestamptz NOT NULL DEFAULT now(),"
	" PRIMARY KEY (tenant, run_id))",
	"CREATE TABLE compactions ("
	" tenant text NOT NULL,"
	" session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,"
	" at timestamptz NOT NULL DEFAULT now(),"
	" first_seq bigint NOT NULL, last_seq bigint NOT NULL,"
	" messages json NOT NULL,"
	" PRIMARY KEY (session_id, at, first_seq))",
	"CREATE INDEX compactions_at ON compactions (at)",
	NULL,
};

/* Listings show the host that last wrote each session (one screen for a
 * fleet): the listing indexes carry it too, so listing stays an
 * index-only scan. */
static const char *const listing_host[] = {
	"DROP INDEX sessions_listing",
	"DROP INDEX sessions_tenant_listing",
	"DROP INDEX sessions_user_listing",
	"CREATE INDEX sessions_listing ON sessions (updated_at DESC, id)"
	" INCLUDE (tenant, user_id, agent, status, message_count, tokens, input_tokens,"
	" output_tokens, turns, written_by_host)",
	"CREATE INDEX sessions_tenant_listing ON sessions (tenant, updated_at DESC, id)"
	" INCLUDE (user_id, agent, status, message_count, tokens, input_tokens, output_tokens,"
	" turns, written_by_host)",
	"CREATE INDEX sessions_user_listing ON sessions (tenant, user_id, updated_at DESC, id)"
	" INCLUDE (agent, status, message_count, tokens, input_tokens, output_tokens, turns,"
	" written_by_host)",
	NULL,
};

/* Checkpoints keyed as their files are, by session (no tenant). A listing
 * reads the header columns only; the document is read by get and list. A
 * version belongs to one checkpoint of a session: two creates racing on
 * different hosts cannot both take it (the second save is AC_ECONFLICT). */
static const char *const checkpoints[] = {
	"CREATE TABLE checkpoints ("
	" session_id text NOT NULL,"
	" checkpoint_id text NOT NULL,"
	" version bigint NOT NULL,"
	" node_id text NOT NULL DEFAULT '',"
	" created_at text,"                 /* as written; NULL when absent */
	" parent_id bytea,"                 /* may hold NUL: bytes */
	" messages bigint NOT NULL,"
	" tombstone boolean NOT NULL,"      /* either form (ac_checkpoint_is_tombstone) */
	" saved_at timestamptz NOT NULL DEFAULT now(),"
	" document json NOT NULL,"
	" PRIMARY KEY (session_id, checkpoint_id),"
	" CONSTRAINT checkpoints_version_unique UNIQUE (session_id, version))",
	"CREATE INDEX checkpoints_saved_at ON checkpoints (saved_at)",
	NULL,
};

/* The journal. Queries translate agent=, status=, action.type=,
 * trace.correlation_id=, since= and until= into these columns and filter
 * the rest in C with the file engine's matcher. ts holds the timestamp's
 * text, compared as bytes as the matcher compares it (COLLATE "C"). seq
 * comes from the logs row ('', 'journal', ''), so it is gap-free. */
static const char *const journal[] = {
	"CREATE TABLE journal_events ("
	" seq bigint PRIMARY KEY,"
	" id text NOT NULL,"
	" ts text COLLATE \"C\" NOT NULL,"
	" agent text NOT NULL,"
	" status text NOT NULL,"
	" action_type text,"
	" correlation_id text,"
	" host text NOT NULL DEFAULT '',"
	" at timestamptz NOT NULL DEFAULT now(),"
	" event json NOT NULL)",
	"CREATE INDEX journal_events_id ON journal_events (id)",
	"CREATE INDEX journal_events_agent ON journal_events (agent, ts)",
	"CREATE INDEX journal_events_ts ON journal_events (ts)",
	"CREATE INDEX journal_events_correlation ON journal_events (correlation_id)"
	" WHERE correlation_id IS NOT NULL",
	NULL,
};

/* Listings show each session's task, as the files' listing does, without
 * reading a document: the task in the row (filled from the documents of
 * the sessions already there), and its first AC_PG_TASK_HEAD characters
 * in the listing indexes with the creation time, so a listing stays an
 * index-only scan. The whole task cannot go there (an index entry holds
 * about 2.7 kB; a task has no limit): a listing reads the few longer
 * tasks from their rows afterwards. */
static const char *const session_task[] = {
	"ALTER TABLE sessions ADD COLUMN task text NOT NULL DEFAULT ''",
	"UPDATE sessions s SET task = d.document->>'task'"
	" FROM session_documents d WHERE d.session_id = s.id"
	" AND json_typeof(d.document->'task') = 'string'",
	"ALTER TABLE sessions ADD COLUMN task_head text"
	" GENERATED ALWAYS AS (left(task, " AC_PG_TASK_HEAD_SQL ")) STORED",
	"DROP INDEX sessions_listing",
	"DROP INDEX sessions_tenant_listing",
	"DROP INDEX sessions_user_listing",
	"CREATE INDEX sessions_listing ON sessions (updated_at DESC, id)"
	" INCLUDE (tenant, user_id, agent, status, message_count, tokens, input_tokens,"
	" output_tokens, turns, written_by_host, task_head, created_at)",
	"CREATE INDEX sessions_tenant_listing ON sessions (tenant, updated_at DESC, id)"
	" INCLUDE (user_id, agent, status, message_count, tokens, input_tokens, output_tokens,"
	" turns, written_by_host, task_head, created_at)",
	"CREATE INDEX sessions_user_listing ON sessions (tenant, user_id, updated_at DESC, id)"
	" INCLUDE (agent, status, message_count, tokens, input_tokens, output_tokens, turns,"
	" written_by_host, task_head, created_at)",
	NULL,
};

/* 6: every field of the seed's Usage per turn. The counts get columns
 * (sums stay SQL); the rest of the Usage object (model, costUsd, ...) is
 * kept in `fields` as given. total_tokens stays input + output (generated,
 * as migration 1 made it); the agent's own totalTokens, which may count
 * cache tokens too, is reported_total_tokens, NULL when not given. Rows
 * from before keep their two counts, the new ones 0. */
static const char *const usage_fields[] = {
	"ALTER TABLE turn_usage"
	" ADD COLUMN cache_creation_input_tokens bigint NOT NULL DEFAULT 0,"
	" ADD COLUMN cache_read_input_tokens bigint NOT NULL DEFAULT 0,"
	" ADD COLUMN reasoning_tokens bigint NOT NULL DEFAULT 0,"
	" ADD COLUMN reported_total_tokens bigint,"
	" ADD COLUMN fields jsonb NOT NULL DEFAULT '{}'::jsonb",
	NULL,
};

/* 7: a row `storage migrate` brings keeps what its source held (every
 * member, the Usage's key order and number text, a carried row with no
 * timestamp) in copied_row, read back instead of the columns, so a copy
 * there and back is the same row. The columns are still filled from it
 * (sums and listings read them). NULL for turns recorded here. */
static const char *const copied_rows[] = {
	"ALTER TABLE turn_usage ADD COLUMN copied_row json",
	NULL,
};

/* 8: an archive `storage migrate` brings (a compaction's or a checkpoint
 * rollback's file) keeps its kind, its file's name (the key a copy back
 * finds it by) and the rest of its document (json, text-exact, with
 * "messages" null: they are in `messages`), so a copy there and back is
 * the same file. NULL name and document for archives written here; the
 * name is unique per session and kind. */
static const char *const archive_names[] = {
	"ALTER TABLE compactions ADD COLUMN kind text NOT NULL DEFAULT 'compaction',"
	" ADD COLUMN name text, ADD COLUMN document json",
	"CREATE UNIQUE INDEX compactions_name ON compactions (session_id, kind, name)"
	" WHERE name IS NOT NULL",
	NULL,
};

/* 9: `agentctl usage` sums a team's turns by session, model and hour;
 * summing turn_usage on each run took 0.7 s at 1,000,000 turns. These sums
 * are kept as rows are added or removed, by triggers, so every writer (a
 * turn, a copy, a session removed with its rows) keeps them, whatever
 * program it is. A row with no time of its own (a copied carried total) is
 * not counted, as on files. A removal sums its hour again from what is
 * left, so first and last stay exact. */
static const char *const usage_hours[] = {
	"CREATE TABLE usage_hours ("
	" tenant text NOT NULL, session_id text NOT NULL, model text NOT NULL,"
	" hour timestamptz NOT NULL, first_at timestamptz NOT NULL, last_at timestamptz NOT NULL,"
	" turns bigint NOT NULL, input_tokens bigint NOT NULL, output_tokens bigint NOT NULL,"
	" cache_creation_input_tokens bigint NOT NULL, cache_read_input_tokens bigint NOT NULL,"
	" reasoning_tokens bigint NOT NULL,"
	" PRIMARY KEY (session_id, model, hour))",
	"CREATE FUNCTION usage_hours_add() RETURNS trigger LANGUAGE plpgsql"
	" SET search_path FROM CURRENT AS $$"
	" BEGIN"
	"  IF NEW.copied_row IS NOT NULL AND NEW.copied_row->>'timestamp' IS NULL THEN"
	"   RETURN NULL;"
	"  END IF;"
	"  INSERT INTO usage_hours AS h VALUES (NEW.tenant, NEW.session_id,"
	"   coalesce(NEW.fields->>'model', ''), date_trunc('hour', NEW.at, 'UTC'), NEW.at, NEW.at,"
	"   1, NEW.input_tokens, NEW.output_tokens, NEW.cache_creation_input_tokens,"
	"   NEW.cache_read_input_tokens, NEW.reasoning_tokens)"
	"  ON CONFLICT (session_id, model, hour) DO UPDATE SET"
	"   first_at = least(h.first_at, EXCLUDED.first_at),"
	"   last_at = greatest(h.last_at, EXCLUDED.last_at), turns = h.turns + 1,"
	"   input_tokens = h.input_tokens + EXCLUDED.input_tokens,"
	"   output_tokens = h.output_tokens + EXCLUDED.output_tokens,"
	"   cache_creation_input_tokens = h.cache_creation_input_tokens"
	"    + EXCLUDED.cache_creation_input_tokens,"
	"   cache_read_input_tokens = h.cache_read_input_tokens + EXCLUDED.cache_read_input_tokens,"
	"   reasoning_tokens = h.reasoning_tokens + EXCLUDED.reasoning_tokens;"
	"  RETURN NULL;"
	" END $$",
	"CREATE FUNCTION usage_hours_remove() RETURNS trigger LANGUAGE plpgsql"
	" SET search_path FROM CURRENT AS $$"
	" DECLARE m text := coalesce(OLD.fields->>'model', '');"
	"  h timestamptz := date_trunc('hour', OLD.at, 'UTC');"
	" BEGIN"
	"  DELETE FROM usage_hours WHERE session_id = OLD.session_id AND model = m AND hour = h;"
	"  INSERT INTO usage_hours"
	"  SELECT min(tenant), OLD.session_id, m, h, min(at), max(at), count(*),"
	"   sum(input_tokens), sum(output_tokens), sum(cache_creation_input_tokens),"
	"   sum(cache_read_input_tokens), sum(reasoning_tokens)"
	"  FROM turn_usage WHERE session_id = OLD.session_id"
	"   AND coalesce(fields->>'model', '') = m AND date_trunc('hour', at, 'UTC') = h"
	"   AND (copied_row IS NULL OR copied_row->>'timestamp' IS NOT NULL)"
	"  HAVING count(*) > 0;"
	"  RETURN NULL;"
	" END $$",
	"CREATE TRIGGER usage_hours_add AFTER INSERT ON turn_usage"
	" FOR EACH ROW EXECUTE FUNCTION usage_hours_add()",
	"CREATE TRIGGER usage_hours_remove AFTER DELETE ON turn_usage"
	" FOR EACH ROW EXECUTE FUNCTION usage_hours_remove()",
	"INSERT INTO usage_hours"
	" SELECT min(tenant), session_id, coalesce(fields->>'model', ''),"
	"  date_trunc('hour', at, 'UTC'), min(at), max(at), count(*), sum(input_tokens),"
	"  sum(output_tokens), sum(cache_creation_input_tokens), sum(cache_read_input_tokens),"
	"  sum(reasoning_tokens)"
	" FROM turn_usage WHERE copied_row IS NULL OR copied_row->>'timestamp' IS NOT NULL"
	" GROUP BY 2, 3, 4",
	NULL,
};

/* 10: a reader that keeps a copy of a history (the dashboard) reads only
 * the messages after the last it holds, when nothing but appends happened
 * since. history_epoch says so: every write that changes or removes
 * stored messages (compaction, externalised tool results, a rollback)
 * adds 1 in its transaction (ac_backend_pg_bump_session); an append
 * leaves it. A row starts at a random value (not a sequence: the agents'
 * role has rights on tables only), so a session made anew under a removed
 * one's id does not continue its numbering. */
static const char *const history_epochs[] = {
	"ALTER TABLE sessions ADD COLUMN history_epoch bigint NOT NULL"
	" DEFAULT (random() * 4e18)::bigint",
	NULL,
};

/* 11: `storage migrate --to` before c015c27 copied sessions with an empty
 * task column (the document kept it): listings, the dashboard and the
 * conversation header showed them blank. Put back from the document, as
 * put_session now writes it: a \u0000 as "^@" (text holds no NUL, and
 * PostgreSQL's json operators refuse a document holding one: the escape is
 * replaced in the document's text first, only where it is one, after an
 * even run of backslashes). Rows whose task is set are left alone. */
static const char *const task_restored[] = {
	"UPDATE sessions s SET task = t.task FROM ("
	" SELECT session_id, doc->>'task' AS task FROM ("
	"  SELECT session_id, regexp_replace(document::text,"
	"   '(?<![\\\\])((?:\\\\\\\\)*)\\\\u0000', '\\1^@', 'g')::json AS doc"
	"  FROM session_documents WHERE session_id IN (SELECT id FROM sessions WHERE task = '')) d"
	" WHERE json_typeof(doc->'task') = 'string') t"
	" WHERE t.session_id = s.id AND s.task = '' AND t.task <> ''",
	NULL,
};

/* 12: idempotency keys (ac_backend_pg_request.c): a write made under a
 * request id stores the key in its transaction; a retry finds it and the
 * first answer. digest is md5 of the arguments' canonical JSON; result is
 * NULL only inside the transaction that took the key. created_at orders
 * the pruning of old keys. */
static const char *const requests[] = {
	"CREATE TABLE requests ("
	" tenant text NOT NULL, id text NOT NULL,"
	" operation text NOT NULL, digest text NOT NULL, result json,"
	" created_at timestamptz NOT NULL DEFAULT now(),"
	" PRIMARY KEY (tenant, id))",
	"CREATE INDEX requests_created ON requests (created_at)",
	NULL,
};

static const migration migrations[] = {
	{1, "initial: sessions, messages, usage, memos, artifacts, logs, snapshots", initial},
	{2, "listing indexes carry the writing host", listing_host},
	{3, "checkpoints", checkpoints},
	{4, "journal_events", journal},
	{5, "sessions carry their task", session_task},
	{6, "turn_usage keeps every Usage field", usage_fields},
	{7, "turn_usage keeps a copied row as it came", copied_rows},
	{8, "compactions keep a copied archive's kind, name and document", archive_names},
	{9, "usage_hours: turn usage summed by session, model and hour", usage_hours},
	{10, "sessions carry a history epoch: appends since a read are told apart", history_epochs},
	{11, "sessions copied with an empty task get it back from their document", task_restored},
	{12, "requests: idempotency keys of writes, with their first answer", requests},
};

#define N_MIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

int ac_pg_schema_latest(void)
{
	return migrations[N_MIGRATIONS - 1].version;
}

const char *ac_pg_schema_name(int version)
{
	for (int i = 0; i < N_MIGRATIONS; i++)
		if (migrations[i].version == version)
			return migrations[i].name;
	return "?";
}

static bool recorded(const PGresult *res, int version)
{
	for (int row = 0; row < sym_PQntuples(res); row++)
		if (atoi(sym_PQgetvalue(res, row, 0)) == version)
			return true;
	return false;
}

static int apply(ac_pg *pg, const migration *m)
{
	char version[16], what[96];
	const char *values[2] = {version, m->name};
	int rc = 0;

	snprintf(version, sizeof(version), "%d", m->version);
	snprintf(what, sizeof(what), "schema migration %d", m->version);
	for (const char *const *sql = m->statements; *sql && !rc; sql++)
		rc = ac_pg_exec(pg, NULL, what, *sql, 0, NULL, NULL);
	if (!rc)
		rc = ac_pg_exec(pg, NULL, what,
				"INSERT INTO agentctl_migrations (version, name) VALUES ($1, $2)", 2,
				values, NULL);
	return rc;
}

int ac_pg_schema_migrate(ac_pg *pg)
{
	const char *values[1] = {pg->schema};
	ac_buf create = AC_BUF_INIT;
	PGresult *done = NULL;
	int rc, version = 0, missing = 0;

	/* Up to date (the usual case): one read, no lock, no DDL, so a role
	 * without CREATE rights opens a schema its owner migrated. */
	if ((rc = ac_pg_schema_check(pg, &version, &missing)) || missing == 0)
		return rc;
	if (ac_buf_printf(&create, "CREATE SCHEMA IF NOT EXISTS %s", pg->schema_sql))
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* One transaction: the lock, the schema, every missing migration. A
	 * second process waits on the lock, then sees them all recorded. */
	if (!(rc = ac_pg_begin(pg, "migrating the schema")) &&
	    !(rc = ac_pg_exec(pg, NULL, "locking the schema for migration",
			      "SELECT pg_advisory_xact_lock(hashtext('agentctl migrate ' || $1))", 1,
			      values, NULL)) &&
	    !(rc = ac_pg_exec(pg, NULL, "creating the schema", create.data, 0, NULL, NULL)) &&
	    !(rc = ac_pg_exec(pg, NULL, "creating agentctl_migrations",
			      "CREATE TABLE IF NOT EXISTS agentctl_migrations ("
			      " version integer PRIMARY KEY, name text NOT NULL,"
			      " applied_at timestamptz NOT NULL DEFAULT now())",
			      0, NULL, NULL)) &&
	    !(rc = ac_pg_exec(pg, &done, "reading agentctl_migrations",
			      "SELECT version FROM agentctl_migrations", 0, NULL, NULL))) {
		for (int i = 0; i < N_MIGRATIONS && !rc; i++)
			if (!recorded(done, migrations[i].version))
				rc = apply(pg, &migrations[i]);
	}
	sym_PQclear(done);
	ac_buf_free(&create);
	if (!rc)
		rc = ac_pg_commit(pg, "migrating the schema");
	if (rc)
		ac_pg_rollback(pg);
	return rc;
}

int ac_pg_schema_check(ac_pg *pg, int *out_version, int *out_missing)
{
	const char *values[1] = {pg->schema};
	PGresult *res = NULL;
	int rc, missing = 0, version = 0;

	*out_version = 0;
	if (out_missing)
		*out_missing = N_MIGRATIONS;
	/* The table named in the schema itself, not wherever the path finds one. */
	if ((rc = ac_pg_exec(pg, &res, "looking for agentctl_migrations",
			     "SELECT to_regclass(quote_ident($1) || '.agentctl_migrations') IS NOT NULL",
			     1, values, NULL)))
		return rc;
	if (strcmp(sym_PQgetvalue(res, 0, 0), "t") != 0) {
		sym_PQclear(res);
		return 0;
	}
	sym_PQclear(res);
	if ((rc = ac_pg_exec(pg, &res, "reading agentctl_migrations",
			     "SELECT version FROM agentctl_migrations", 0, NULL, NULL)))
		return rc;
	for (int row = 0; row < sym_PQntuples(res); row++)
		if (atoi(sym_PQgetvalue(res, row, 0)) > version)
			version = atoi(sym_PQgetvalue(res, row, 0));
	for (int i = 0; i < N_MIGRATIONS; i++)
		missing += !recorded(res, migrations[i].version);
	sym_PQclear(res);
	*out_version = version;
	if (out_missing)
		*out_missing = missing;
	return 0;
}
