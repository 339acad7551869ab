/* The journal store in PostgreSQL: journal_events (ac_pg_schema.c, version
 * 3), one row per event holding the line exactly as ac_event_prepare()
 * wrote it, plus the columns queries use.
 *
 * An append is one statement: it takes the next seq from the journal's row
 * in logs (its row lock orders every writer on every host, and a failed
 * append rolls its increment back, so seqs are gap-free), inserts the
 * event and notifies listeners (kind "journal").
 *
 * A query's terms that map to columns (agent=, status=, action.type=,
 * trace.correlation_id=, since=, until=) become parameterised WHERE
 * conditions; every candidate then goes through the file engine's own
 * check and matcher, so both stores answer a query the same way. Rows are
 * read in pages by seq (forward, or backward for --last N), never all at
 * once. */
#include "ac_journal_store.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_scan.h"
#include "ac_pg.h"
#include "ac_pg_schema.h"

#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE_ROWS 10000           /* rows read per statement */
#define FLUSH_BYTES (256u * 1024) /* formatted bytes handed to write at once */

typedef struct {
	ac_journal_store base;
	ac_pg *pg;
	char host[256];
} pg_store;

/* A string field's decoded value in buf, or NULL (SQL NULL) when it is not
 * a string or holds a NUL byte (text cannot; a query value never does). */
static const char *column_value(ac_buf *buf, const ac_json_span *span)
{
	size_t len = 0;

	if (span->type != AC_JSON_STRING)
		return NULL;
	ac_buf_clear(buf);
	if (ac_buf_reserve(buf, span->len + 1))
		return NULL;
	ac_json_string_decode(buf->data, &len, span);
	if (memchr(buf->data, '\0', len))
		return NULL;
	buf->data[len] = '\0';
	buf->len = len;
	return buf->data;
}

static int pg_append(ac_journal_store *store, ac_journal_append_info *info, const char *line,
		     size_t len)
{
	static const int fields[] = {AC_EV_ID, AC_EV_TIMESTAMP, AC_EV_AGENT, AC_EV_STATUS,
				     AC_EV_ACTION_TYPE, AC_EV_TRACE_CORRELATION_ID};
	pg_store *p = (pg_store *)store;
	ac_json_span spans[AC_EV_NFIELDS];
	ac_buf bufs[6] = {AC_BUF_INIT, AC_BUF_INIT, AC_BUF_INIT, AC_BUF_INIT, AC_BUF_INIT,
			  AC_BUF_INIT};
	const char *values[8];
	int rc;

	if (info)
		memset(info, 0, sizeof(*info));
	if (len > (size_t)INT_MAX / 2)
		return ac_error_set(AC_EINVAL, "journal event of %zu bytes is more than the store "
				    "takes", len);
	/* Checked by ac_event_prepare() already; this finds the columns. */
	if ((rc = ac_event_parse(spans, line, len, &store->schema)))
		return rc;
	for (size_t i = 0; i < 6; i++)
		values[i] = column_value(&bufs[i], &spans[fields[i]]);
	values[6] = p->host;
	values[7] = line; /* NUL-terminated, as ac_event_prepare() gives it */
	if (!values[0] || !values[1] || !values[2] || !values[3])
		rc = ac_error_set(AC_EINVAL, "journal event: id, timestamp, agent and status must "
				  "be strings without NUL");
	else
		rc = ac_pg_exec(
			p->pg, NULL, "appending a journal event",
			"WITH next AS (INSERT INTO logs (tenant, kind, log, last_seq)"
			" VALUES ('', 'journal', '', 1) ON CONFLICT (tenant, kind, log)"
			" DO UPDATE SET last_seq = logs.last_seq + 1 RETURNING last_seq),"
			" done AS (INSERT INTO journal_events (seq, id, ts, agent, status,"
			" action_type, correlation_id, host, event)"
			" SELECT last_seq, $1, $2, $3, $4, $5, $6, $7, $8 FROM next RETURNING seq)"
			" SELECT pg_notify('agentctl', json_build_object('kind', 'journal',"
			" 'tenant', '', 'id', $1::text, 'seq', seq)::text) FROM done",
			8, values, NULL);
	for (size_t i = 0; i < 6; i++)
		ac_buf_free(&bufs[i]);
	return rc;
}

/* The batch as one JSON array of rows (the columns pg_append finds, and
 * the line as a string: json keeps it text-exact when cast back); NULL
 * when a line cannot be put there (then each goes through pg_append). */
static json_t *batch_rows(ac_journal_store *store, const char *const *lines, const size_t *lens,
			  size_t n)
{
	static const int fields[] = {AC_EV_ID, AC_EV_TIMESTAMP, AC_EV_AGENT, AC_EV_STATUS,
				     AC_EV_ACTION_TYPE, AC_EV_TRACE_CORRELATION_ID};
	static const char *const names[] = {"id", "ts", "agent", "status", "action_type",
					    "correlation_id"};
	json_t *rows = json_array();
	ac_buf buf = AC_BUF_INIT;

	for (size_t i = 0; rows && i < n; i++) {
		ac_json_span spans[AC_EV_NFIELDS];
		json_t *row = json_object(), *line = json_stringn(lines[i], lens[i]);
		bool ok = row && line && !json_object_set_new(row, "event", line) &&
			  ac_event_parse(spans, lines[i], lens[i], &store->schema) == 0;

		for (size_t f = 0; ok && f < 6; f++) {
			const char *value = column_value(&buf, &spans[fields[f]]);

			ok = (value || f >= 4) &&
			     !json_object_set_new(row, names[f], value ? json_string(value) : json_null());
		}
		if (!ok || json_array_append_new(rows, row)) {
			if (!ok)
				json_decref(row);
			json_decref(rows);
			rows = NULL;
		}
	}
	ac_buf_free(&buf);
	return rows;
}

/* One statement for the batch: the journal's row hands out n seqs at once
 * (its row lock held for this statement alone), the events go in with
 * them in order, and each is notified as pg_append notifies it. Lines
 * that cannot go in as one array take one transaction of pg_appends. */
static int pg_append_batch(ac_journal_store *store, const char *const *lines, const size_t *lens,
			   size_t n)
{
	pg_store *p = (pg_store *)store;
	json_t *rows = batch_rows(store, lines, lens, n);
	char count[24], *text = NULL;
	const char *values[3];
	int rc;

	if (rows && (text = json_dumps(rows, JSON_COMPACT))) {
		snprintf(count, sizeof(count), "%zu", n);
		values[0] = count;
		values[1] = p->host;
		values[2] = text;
		rc = ac_pg_exec(
			p->pg, NULL, "copying journal events",
			"WITH next AS (INSERT INTO logs (tenant, kind, log, last_seq)"
			" VALUES ('', 'journal', '', $1::bigint) ON CONFLICT (tenant, kind, log)"
			" DO UPDATE SET last_seq = logs.last_seq + $1::bigint"
			" RETURNING last_seq - $1::bigint AS base),"
			" done AS (INSERT INTO journal_events (seq, id, ts, agent, status,"
			" action_type, correlation_id, host, event)"
			" SELECT next.base + e.ord, e.r->>'id', e.r->>'ts', e.r->>'agent',"
			" e.r->>'status', e.r->>'action_type', e.r->>'correlation_id', $2,"
			" (e.r->>'event')::json"
			" FROM next, json_array_elements($3::json) WITH ORDINALITY AS e(r, ord)"
			" RETURNING seq, id)"
			" SELECT pg_notify('agentctl', json_build_object('kind', 'journal',"
			" 'tenant', '', 'id', id, 'seq', seq)::text) FROM done",
			3, values, NULL);
	} else if (!(rc = ac_pg_begin(p->pg, "copying journal events"))) {
		for (size_t i = 0; i < n && !rc; i++)
			rc = pg_append(store, NULL, lines[i], lens[i]);
		if (rc)
			ac_pg_rollback(p->pg);
		else
			rc = ac_pg_commit(p->pg, "copying journal events");
	}
	json_decref(rows);
	free(text);
	return rc;
}

/* ---- queries ------------------------------------------------------------ */

/* The WHERE conditions q's terms translate to (sql, each " AND ..."),
 * their parameters (borrowed from q) numbered from $first on, and whether
 * every term was translated (exact: the rows are exactly the matches). */
typedef struct {
	ac_buf sql;
	const char *values[16];
	int n;
	bool exact;
} translation;

static const char *column_of(const char *key)
{
	static const char *const map[][2] = {
		{"id", "id"}, /* journal_events_id: a dashboard opens an event by it */
		{"agent", "agent"},
		{"status", "status"},
		{"action.type", "action_type"},
		{"trace.correlation_id", "correlation_id"},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(key, map[i][0]))
			return map[i][1];
	return NULL;
}

static int translate(translation *t, const ac_query *q, int first)
{
	size_t n = q ? ac_query_count(q) : 0;

	t->exact = true;
	for (size_t i = 0; i < n; i++) {
		ac_query_term term;
		const char *column = NULL, *op = NULL;

		ac_query_term_get(q, i, &term);
		if (term.kind == AC_QUERY_EQ && !term.literal && (column = column_of(term.key)))
			op = "=";
		else if (term.kind == AC_QUERY_SINCE)
			column = "ts", op = ">=";
		else if (term.kind == AC_QUERY_UNTIL)
			column = "ts", op = "<";
		if (!op || t->n == (int)(sizeof(t->values) / sizeof(t->values[0]))) {
			t->exact = false;
			continue;
		}
		t->values[t->n] = term.value;
		if (ac_buf_printf(&t->sql, " AND %s %s $%d", column, op, first + t->n))
			return ac_error_set(AC_ENOMEM, "out of memory");
		t->n++;
	}
	return 0;
}

typedef struct {
	pg_store *p;
	const ac_query *q;
	ac_json_paths paths;
	ac_json_span spans[AC_JSON_MAX_PATHS];
	ac_scan_stats *stats;
	ac_scan_format_fn format;
	const void *format_ctx;
	ac_scan_write_fn write;
	void *write_ctx;
	ac_buf out, scratch;
	char invalid[256]; /* why the candidate is not a valid event, or "" */
} scan_state;

/* True when line is a valid event that q matches (s->spans then hold its
 * fields), or one that no longer checks (journal.agents changed since it
 * was stored) and the query shows invalid records (ac_query_show_invalid(),
 * s->invalid says why), as the file engine decides; else an invalid one
 * is counted. */
static bool candidate_matches(scan_state *s, const char *line, size_t len)
{
	s->invalid[0] = '\0';
	if (ac_json_scan_prepared(s->spans, line, len, &s->paths, NULL) != 0 ||
	    ac_event_check(s->spans, &s->p->base.schema) != 0) {
		if (ac_query_shows_invalid(s->q)) {
			snprintf(s->invalid, sizeof(s->invalid), "%s", ac_error_last());
			return ac_query_matches_invalid(s->q, line, len, s->spans);
		}
		if (!s->stats->invalid++)
			s->stats->invalid_path = s->p->pg->shown;
		return false;
	}
	return ac_query_matches(s->q, line, len, s->spans);
}

static int flush(scan_state *s, bool always)
{
	int rc = 0;

	if (s->out.len && (always || s->out.len >= FLUSH_BYTES))
		rc = s->write(s->out.data, s->out.len, s->write_ctx);
	if (always || s->out.len >= FLUSH_BYTES)
		ac_buf_clear(&s->out);
	return rc;
}

/* Formats the matching event line (seq), flushing when enough is held. */
static int emit(scan_state *s, const char *line, size_t len, uint64_t seq)
{
	ac_scan_match m = {.path = s->p->pg->shown, .line = line, .len = len, .offset = seq,
			   .fields = s->spans, .invalid = s->invalid[0] ? s->invalid : NULL};
	int rc;

	s->stats->matched++;
	if ((rc = s->format(&s->out, &s->scratch, &m, s->format_ctx)))
		return rc;
	return flush(s, false);
}

/* One page of rows (seq, event) after (forward) or before cursor. */
static int page(PGresult **res, scan_state *s, const translation *t, bool backward,
		const char *cursor, size_t limit)
{
	ac_buf sql = AC_BUF_INIT;
	const char *values[18];
	char limit_text[24];
	int rc;

	snprintf(limit_text, sizeof(limit_text), "%zu", limit);
	values[0] = cursor;
	values[1] = limit_text;
	memcpy(values + 2, t->values, sizeof(values[0]) * (size_t)t->n);
	if (ac_buf_printf(&sql, "SELECT seq, event FROM journal_events WHERE seq %s $1%s"
			  " ORDER BY seq %s LIMIT $2", backward ? "<" : ">",
			  t->sql.data ? t->sql.data : "", backward ? "DESC" : ""))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_pg_exec(s->p->pg, res, "reading the journal", sql.data, 2 + t->n, values, NULL);
	ac_buf_free(&sql);
	return rc;
}

static int scan_forward(scan_state *s, const translation *t)
{
	char cursor[24] = "0";
	int rc = 0;

	for (;;) {
		PGresult *res = NULL;
		int rows;

		if ((rc = page(&res, s, t, false, cursor, PAGE_ROWS)))
			return rc;
		rows = sym_PQntuples(res);
		for (int r = 0; r < rows && !rc; r++) {
			const char *line = sym_PQgetvalue(res, r, 1);
			size_t len = (size_t)sym_PQgetlength(res, r, 1);

			if (candidate_matches(s, line, len))
				rc = emit(s, line, len, ac_pg_u64(res, r, 0));
		}
		if (rows)
			snprintf(cursor, sizeof(cursor), "%s", sym_PQgetvalue(res, rows - 1, 0));
		sym_PQclear(res);
		if (rc || rows < PAGE_ROWS)
			return rc;
	}
}

/* The last last_n matches: pages backward from the end until enough are
 * found, then formats them oldest first. */
static int scan_last(scan_state *s, const translation *t, size_t last_n)
{
	/* Exactly translated: the first page holds them all. */
	size_t limit = t->exact ? last_n : last_n < PAGE_ROWS / 4 ? last_n * 4 + 64 : PAGE_ROWS;
	char cursor[24];
	char **lines = calloc(last_n < PAGE_ROWS ? last_n : PAGE_ROWS, sizeof(char *));
	size_t *lens = NULL, found = 0, capacity = last_n < PAGE_ROWS ? last_n : PAGE_ROWS;
	uint64_t *seqs = NULL;
	int rc = 0;

	snprintf(cursor, sizeof(cursor), "%" PRId64, INT64_MAX);
	if (!lines || !(lens = calloc(capacity, sizeof(*lens))) ||
	    !(seqs = calloc(capacity, sizeof(*seqs)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	while (found < last_n && !rc) {
		PGresult *res = NULL;
		int rows;

		if ((rc = page(&res, s, t, true, cursor, limit > PAGE_ROWS ? PAGE_ROWS : limit)))
			break;
		rows = sym_PQntuples(res);
		for (int r = 0; r < rows && found < last_n && !rc; r++) {
			const char *line = sym_PQgetvalue(res, r, 1);
			size_t len = (size_t)sym_PQgetlength(res, r, 1);

			if (!candidate_matches(s, line, len))
				continue;
			if (found == capacity) {
				size_t bigger = capacity * 2;
				char **l = realloc(lines, bigger * sizeof(*l));
				size_t *n = l ? realloc(lens, bigger * sizeof(*n)) : NULL;
				uint64_t *q = n ? realloc(seqs, bigger * sizeof(*q)) : NULL;

				if (l)
					lines = l;
				if (n)
					lens = n;
				if (!q) {
					rc = ac_error_set(AC_ENOMEM, "out of memory");
					break;
				}
				seqs = q;
				capacity = bigger;
			}
			if (!(lines[found] = malloc(len + 1))) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				break;
			}
			memcpy(lines[found], line, len);
			lines[found][len] = '\0';
			lens[found] = len;
			seqs[found++] = ac_pg_u64(res, r, 0);
		}
		if (rows)
			snprintf(cursor, sizeof(cursor), "%s", sym_PQgetvalue(res, rows - 1, 0));
		sym_PQclear(res);
		if ((size_t)rows < (limit > PAGE_ROWS ? PAGE_ROWS : limit))
			break;
		limit = PAGE_ROWS;
	}
	/* Oldest first; the matcher runs again to set the spans. */
	for (size_t i = found; i-- > 0 && !rc;)
		if (candidate_matches(s, lines[i], lens[i]))
			rc = emit(s, lines[i], lens[i], seqs[i]);
done:
	for (size_t i = 0; i < found; i++)
		free(lines[i]);
	free(lines);
	free(lens);
	free(seqs);
	return rc;
}

static int pg_scan(ac_journal_store *store, ac_scan_stats *stats, bool all, const ac_query *q,
		   size_t last_n, ac_scan_format_fn format, const void *format_ctx,
		   ac_scan_write_fn write, void *write_ctx)
{
	scan_state s = {.p = (pg_store *)store, .q = q, .stats = stats, .format = format,
			.format_ctx = format_ctx, .write = write, .write_ctx = write_ctx,
			.out = AC_BUF_INIT, .scratch = AC_BUF_INIT};
	ac_scan_stats local = {0};
	translation t = {.sql = AC_BUF_INIT};
	const ac_json_path *paths;
	size_t npaths;
	int rc;

	(void)all; /* nothing is rotated aside: the table is the whole journal */
	if (!s.stats)
		s.stats = &local;
	paths = ac_query_paths(q, &npaths);
	if ((rc = ac_json_paths_prepare(&s.paths, paths, npaths)) || (rc = translate(&t, q, 3)))
		goto done;
	rc = last_n ? scan_last(&s, &t, last_n) : scan_forward(&s, &t);
	if (!rc)
		rc = flush(&s, true);
done:
	ac_buf_free(&t.sql);
	ac_buf_free(&s.out);
	ac_buf_free(&s.scratch);
	return rc;
}

/* ---- check -------------------------------------------------------------- */

static int pg_check(ac_journal_store *store, bool all, ac_check_fn bad,
		    ac_journal_checked_fn checked, void *ctx)
{
	pg_store *p = (pg_store *)store;
	ac_json_span spans[AC_EV_NFIELDS];
	uint64_t valid = 0, invalid = 0;
	char cursor[24] = "0", limit[24];
	int rc = 0;

	(void)all;
	snprintf(limit, sizeof(limit), "%d", PAGE_ROWS);
	for (;;) {
		const char *values[2] = {cursor, limit};
		PGresult *res = NULL;
		int rows;

		if ((rc = ac_pg_exec(p->pg, &res, "checking the journal",
				     "SELECT seq, event FROM journal_events WHERE seq > $1"
				     " ORDER BY seq LIMIT $2",
				     2, values, NULL)))
			return rc;
		rows = sym_PQntuples(res);
		for (int r = 0; r < rows && !rc; r++) {
			if (ac_event_parse(spans, sym_PQgetvalue(res, r, 1),
					   (size_t)sym_PQgetlength(res, r, 1), &store->schema) == 0) {
				valid++;
				continue;
			}
			invalid++;
			/* The event's seq stands for the line number. */
			if (bad)
				rc = bad(p->pg->shown, ac_pg_u64(res, r, 0), 0, ac_error_last(), ctx);
		}
		if (rows)
			snprintf(cursor, sizeof(cursor), "%s", sym_PQgetvalue(res, rows - 1, 0));
		sym_PQclear(res);
		if (rc || rows < PAGE_ROWS)
			break;
	}
	return rc ? rc : checked(p->pg->shown, valid, invalid, ctx);
}

/* ---- follow --------------------------------------------------------------- */

/* Hands fn one stored row: its fields, or why it no longer checks. */
static int follow_row(pg_store *p, const char *line, size_t len, uint64_t seq, ac_scan_fn fn,
		      void *ctx)
{
	ac_json_span spans[AC_EV_NFIELDS];
	char invalid[300] = "";
	ac_scan_match m = {.path = p->pg->shown, .line = line, .len = len, .offset = seq,
			   .fields = spans};

	if (ac_event_parse(spans, line, len, &p->base.schema) != 0) {
		snprintf(invalid, sizeof(invalid), "%s", ac_error_last());
		/* A line that is not JSON has no fields to show. */
		json_t *doc = json_loadb(line, len, JSON_DECODE_ANY, NULL);

		if (!doc)
			memset(spans, 0, sizeof(spans));
		json_decref(doc);
		m.invalid = invalid;
	}
	return fn(&m, ctx);
}

static int pg_follow(ac_journal_store *store, ac_scan_stats *stats, uint64_t *seq,
		     size_t backlog, ac_scan_fn fn, void *ctx)
{
	pg_store *p = (pg_store *)store;
	char cursor[24], limit[24];
	bool first = *seq == 0;
	int rc = 0;

	(void)stats; /* a row is whole or absent: nothing torn to count */
	snprintf(cursor, sizeof(cursor), "%" PRIu64, *seq);
	for (;;) {
		const char *values[2] = {cursor, limit};
		PGresult *res = NULL;
		int rows;

		snprintf(limit, sizeof(limit), "%zu", first ? backlog : (size_t)PAGE_ROWS);
		/* The first look takes the newest rows by the primary key, backward. */
		rc = ac_pg_exec(p->pg, &res, "following the journal",
				first ? "SELECT seq, event FROM (SELECT seq, event FROM journal_events"
					" WHERE seq > $1 ORDER BY seq DESC LIMIT $2) t ORDER BY seq"
				      : "SELECT seq, event FROM journal_events WHERE seq > $1"
					" ORDER BY seq LIMIT $2",
				2, values, NULL);
		if (rc)
			return rc;
		rows = sym_PQntuples(res);
		for (int r = 0; r < rows && !rc; r++) {
			*seq = ac_pg_u64(res, r, 0);
			rc = follow_row(p, sym_PQgetvalue(res, r, 1), (size_t)sym_PQgetlength(res, r, 1),
					*seq, fn, ctx);
		}
		snprintf(cursor, sizeof(cursor), "%" PRIu64, *seq);
		sym_PQclear(res);
		if (rc || first || rows < PAGE_ROWS)
			return rc;
	}
}

static void pg_free(ac_journal_store *store)
{
	pg_store *p = (pg_store *)store;

	ac_pg_close(p->pg);
	free(p);
}

static const ac_journal_store_ops pg_ops = {
	.version = AC_JOURNAL_STORE_OPS_VERSION,
	.name = "postgresql",
	.append = pg_append,
	.scan = pg_scan,
	.check = pg_check,
	.rotate = NULL, /* one table; retention is gc's */
	.free = pg_free,
	.append_batch = pg_append_batch,
	.follow = pg_follow,
};

int ac_journal_store_pg_new(ac_journal_store **out, const char *url, const char *schema,
			    const char *host, const ac_event_schema *schema_names)
{
	pg_store *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_pg_open(&p->pg, url, schema)) || (rc = ac_pg_schema_migrate(p->pg))) {
		ac_pg_close(p->pg);
		free(p);
		return rc;
	}
	if (host)
		snprintf(p->host, sizeof(p->host), "%s", host);
	else if (gethostname(p->host, sizeof(p->host) - 1) != 0)
		p->host[0] = '\0';
	if (schema_names)
		p->base.schema = *schema_names;
	p->base.ops = &pg_ops;
	*out = &p->base;
	return 0;
}
