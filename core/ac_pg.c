/* A PostgreSQL connection: opening it from a URL or a connection string,
 * parameterised statements, transactions and notifications, with errors
 * that never show a password. */
#include "ac_pg.h"

#include "ac_buf.h"
#include "ac_error.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_SCHEMA "agentctl"

bool ac_pg_is_url(const char *text)
{
	return text && (!strncmp(text, "postgresql://", 13) || !strncmp(text, "postgres://", 11) ||
			strchr(text, '='));
}

/* ---- redaction ---- */

/* Drops "password=..." from the query part of a URL ("?a=1&password=x&b=2"). */
static void drop_url_password_param(ac_buf *out, const char *query)
{
	const char *p = query;
	bool first = true;

	while (*p) {
		const char *end = strchr(p, '&');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (strncmp(p, "password=", 9) != 0) {
			ac_buf_putc(out, first ? '?' : '&');
			ac_buf_append(out, p, len);
			first = false;
		}
		p += len + (end ? 1 : 0);
	}
}

static char *redact_url(const char *url)
{
	const char *scheme_end = strstr(url, "://") + 3;
	const char *authority_end = scheme_end + strcspn(scheme_end, "/?");
	const char *at = NULL, *query;
	ac_buf out = AC_BUF_INIT;

	/* The last '@' of the authority ends the userinfo. */
	for (const char *p = scheme_end; p < authority_end; p++)
		if (*p == '@')
			at = p;
	ac_buf_append(&out, url, (size_t)(scheme_end - url));
	if (at) {
		const char *colon = memchr(scheme_end, ':', (size_t)(at - scheme_end));

		ac_buf_append(&out, scheme_end,
			      (size_t)((colon ? colon : at) - scheme_end));
		ac_buf_append(&out, at, (size_t)(authority_end - at));
	} else {
		ac_buf_append(&out, scheme_end, (size_t)(authority_end - scheme_end));
	}
	query = strchr(authority_end, '?');
	ac_buf_append(&out, authority_end,
		      query ? (size_t)(query - authority_end) : strlen(authority_end));
	if (query)
		drop_url_password_param(&out, query + 1);
	return out.data ? out.data : strdup("");
}

/* A key=value string rebuilt from libpq's own parse, password left out. */
static char *redact_conninfo(const char *conninfo)
{
	PQconninfoOption *opts = ac_libpq_load() == 0 ? sym_PQconninfoParse(conninfo, NULL) : NULL;
	ac_buf out = AC_BUF_INIT;

	if (!opts)
		return strdup("(an unreadable connection string)");
	for (PQconninfoOption *o = opts; o->keyword; o++) {
		if (!o->val || !strcmp(o->keyword, "password"))
			continue;
		ac_buf_printf(&out, "%s%s=%s", out.len ? " " : "", o->keyword, o->val);
	}
	sym_PQconninfoFree(opts);
	return out.data ? out.data : strdup("");
}

char *ac_pg_redact(const char *url)
{
	if (!url)
		return strdup("");
	if (strstr(url, "://"))
		return redact_url(url);
	return redact_conninfo(url);
}

/* ---- errors ---- */

/* libpq's message cut to its first line. */
static const char *first_line(const char *msg, char *buf, size_t size)
{
	size_t len = strcspn(msg ? msg : "", "\n");

	if (len >= size)
		len = size - 1;
	memcpy(buf, msg ? msg : "", len);
	buf[len] = '\0';
	return buf;
}

static int result_error(ac_pg *pg, const PGresult *res, const char *what)
{
	const char *state = res ? sym_PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *msg = res ? sym_PQresultErrorMessage(res) : sym_PQerrorMessage(pg->conn);
	char line[512];
	int code = AC_EIO;

	if (msg && !strncmp(msg, "ERROR:  ", 8))
		msg += 8;
	if (state && (!strcmp(state, "40001") || !strcmp(state, "40P01") || !strcmp(state, "23505")))
		code = AC_ECONFLICT;
	else if (state && (!strcmp(state, "57014") || !strcmp(state, "55P03")))
		code = AC_EBUSY;
	return ac_error_set(code, "%s (%s): %s", what, pg->shown, first_line(msg, line, sizeof(line)));
}

/* ---- connecting ---- */

static int run_simple(ac_pg *pg, const char *what, const char *sql, int n,
		      const char *const *values)
{
	PGresult *res = sym_PQexecParams(pg->conn, sql, n, NULL, values, NULL, NULL, 0);
	int rc = 0;

	if (!res || (sym_PQresultStatus(res) != PGRES_COMMAND_OK && sym_PQresultStatus(res) != PGRES_TUPLES_OK))
		rc = result_error(pg, res, what);
	sym_PQclear(res);
	return rc;
}

static void discard_notice(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

void ac_pg_quiet(PGconn *conn)
{
	if (conn)
		sym_PQsetNoticeProcessor(conn, discard_notice, NULL);
}

static int connect_now(ac_pg *pg)
{
	char statement_ms[32], idle_ms[32];
	const char *values[3];
	char line[512];
	ac_buf path = AC_BUF_INIT;
	int rc;

	pg->conn = sym_PQconnectdb(pg->conninfo);
	ac_pg_quiet(pg->conn);
	pg->pid = getpid();
	if (!pg->conn)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (sym_PQstatus(pg->conn) != CONNECTION_OK)
		return ac_error_set(AC_EIO, "cannot connect to %s: %s", pg->shown,
				    first_line(sym_PQerrorMessage(pg->conn), line, sizeof(line)));
	snprintf(statement_ms, sizeof(statement_ms), "%d", AC_PG_STATEMENT_TIMEOUT_MS);
	snprintf(idle_ms, sizeof(idle_ms), "%d", AC_PG_IDLE_TX_TIMEOUT_MS);
	/* The schema first, then public (for extensions), in the search path. */
	if (ac_buf_printf(&path, "%s, public", pg->schema_sql))
		return ac_error_set(AC_ENOMEM, "out of memory");
	values[0] = statement_ms;
	values[1] = idle_ms;
	values[2] = path.data;
	rc = run_simple(pg, "setting the session up",
			"SELECT set_config('statement_timeout', $1, false),"
			" set_config('idle_in_transaction_session_timeout', $2, false),"
			" set_config('search_path', $3, false),"
			" set_config('client_min_messages', 'warning', false)",
			3, values);
	ac_buf_free(&path);
	if (rc == 0)
		pg->connects++;
	return rc;
}

static void drop_connection(ac_pg *pg)
{
	if (!pg->conn)
		return;
	/* Another process's connection (we were forked): close our copy of
	 * its socket first, so PQfinish cannot say goodbye on its behalf. */
	if (pg->pid != getpid() && sym_PQsocket(pg->conn) >= 0)
		close(sym_PQsocket(pg->conn));
	sym_PQfinish(pg->conn);
	pg->conn = NULL;
}

void ac_pg_close(ac_pg *pg)
{
	if (!pg)
		return;
	drop_connection(pg);
	free(pg->conninfo);
	free(pg->shown);
	free(pg->schema);
	free(pg->schema_sql);
	free(pg);
}

/* "name" with inner quotes doubled: SQL's quoting of an identifier. */
static char *quote_identifier(const char *name)
{
	ac_buf out = AC_BUF_INIT;

	ac_buf_putc(&out, '"');
	for (const char *p = name; *p; p++) {
		if (*p == '"')
			ac_buf_putc(&out, '"');
		ac_buf_putc(&out, *p);
	}
	ac_buf_putc(&out, '"');
	return out.data;
}

int ac_pg_open(ac_pg **out, const char *url, const char *schema)
{
	ac_pg *pg;
	int rc;

	*out = NULL;
	if (!ac_pg_is_url(url))
		return ac_error_set(AC_EINVAL, "storage url: not a postgresql:// URL or connection string");
	if ((rc = ac_libpq_load()))
		return rc;
	if (!schema || !*schema)
		schema = DEFAULT_SCHEMA;
	for (const char *p = schema; *p; p++)
		if ((unsigned char)*p < 0x20 || p - schema >= 63)
			return ac_error_set(AC_EINVAL, "schema '%.64s': at most 63 bytes, no control bytes",
					    schema);
	if (!(pg = calloc(1, sizeof(*pg))) || !(pg->conninfo = strdup(url)) ||
	    !(pg->shown = ac_pg_redact(url)) || !(pg->schema = strdup(schema))) {
		ac_pg_close(pg);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if (!(pg->schema_sql = quote_identifier(schema))) {
		ac_pg_close(pg);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if ((rc = connect_now(pg))) {
		ac_pg_close(pg);
		return rc;
	}
	*out = pg;
	return 0;
}

PGconn *ac_pg_conn(ac_pg *pg, int *rc)
{
	if (pg->conn && pg->pid == getpid() && sym_PQstatus(pg->conn) == CONNECTION_OK)
		return pg->conn;
	if (pg->in_transaction && pg->pid == getpid()) {
		*rc = ac_error_set(AC_EIO, "%s: the connection was lost inside a transaction; "
				   "nothing of it was kept", pg->shown);
		return NULL;
	}
	drop_connection(pg);
	pg->in_transaction = false;
	if ((*rc = connect_now(pg)) != 0) {
		drop_connection(pg);
		return NULL;
	}
	return pg->conn;
}

/* ---- statements ---- */

int ac_pg_exec(ac_pg *pg, PGresult **out, const char *what, const char *sql, int n,
	       const char *const *values, const int *lengths)
{
	return ac_pg_exec_bytes(pg, out, what, sql, n, values, lengths, NULL, false);
}

int ac_pg_exec_bytes(ac_pg *pg, PGresult **out, const char *what, const char *sql, int n,
		     const char *const *values, const int *lengths, const int *formats,
		     bool binary_result)
{
	PGresult *res;
	ExecStatusType status;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!ac_pg_conn(pg, &rc))
		return rc;
	res = sym_PQexecParams(pg->conn, sql, n, NULL, values, lengths, formats, binary_result ? 1 : 0);
	status = res ? sym_PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
		rc = result_error(pg, res, what);
		sym_PQclear(res);
		return rc;
	}
	if (out)
		*out = res;
	else
		sym_PQclear(res);
	return 0;
}

int ac_pg_begin(ac_pg *pg, const char *what)
{
	int rc = ac_pg_exec(pg, NULL, what, "BEGIN", 0, NULL, NULL);

	pg->in_transaction = rc == 0;
	return rc;
}

int ac_pg_commit(ac_pg *pg, const char *what)
{
	int rc = ac_pg_exec(pg, NULL, what, "COMMIT", 0, NULL, NULL);

	if (rc == 0)
		pg->in_transaction = false;
	return rc;
}

void ac_pg_rollback(ac_pg *pg)
{
	if (pg->conn && pg->pid == getpid() && sym_PQtransactionStatus(pg->conn) != PQTRANS_IDLE) {
		PGresult *res = sym_PQexecParams(pg->conn, "ROLLBACK", 0, NULL, NULL, NULL, NULL, 0);

		sym_PQclear(res);
	}
	pg->in_transaction = false;
}

int ac_pg_notify(ac_pg *pg, const char *kind, const char *tenant, const char *session)
{
	json_t *payload = json_pack("{s:s, s:s, s:s?}", "kind", kind, "tenant", tenant, "session",
				    session);
	char *text = payload ? json_dumps(payload, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	const char *values[1] = {text};
	int rc;

	json_decref(payload);
	if (!text)
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_pg_exec(pg, NULL, "notifying listeners", "SELECT pg_notify('agentctl', $1)", 1,
			values, NULL);
	free(text);
	return rc;
}

const char *ac_pg_text(const PGresult *res, int row, int col)
{
	return sym_PQgetisnull(res, row, col) ? "" : sym_PQgetvalue(res, row, col);
}

unsigned long long ac_pg_u64(const PGresult *res, int row, int col)
{
	return sym_PQgetisnull(res, row, col) ? 0 : strtoull(sym_PQgetvalue(res, row, col), NULL, 10);
}
