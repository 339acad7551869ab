/* A PostgreSQL connection: opening it from a URL or a connection string,
 * parameterised statements, transactions and notifications, with errors
 * that never show a password. */
#include "ac_pg.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_text.h"

#include <errno.h>
#include <jansson.h>
#include <poll.h>
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

/* Severity words libpq and the server put before a message ("FATAL:  "):
 * the line says "database:" once instead. */
static const char *const severities[] = {"ERROR:  ", "FATAL:  ", "PANIC:  ", "WARNING:  ",
					 "NOTICE:  ", NULL};

static size_t severity_at(const char *p)
{
	for (size_t i = 0; severities[i]; i++)
		if (!strncmp(p, severities[i], strlen(severities[i])))
			return strlen(severities[i]);
	return 0;
}

const char *ac_pg_message(const char *msg, char *buf, size_t size)
{
	size_t len = strcspn(msg ? msg : "", "\n"), skip;
	ac_buf plain = AC_BUF_INIT, shown = AC_BUF_INIT;

	/* Its first line (libpq's further lines are hints: "This probably
	 * means..."), the severity words dropped wherever a part starts. */
	for (size_t i = 0; i < len; i++) {
		if ((i == 0 || (i >= 2 && msg[i - 2] == ':' && msg[i - 1] == ' ')) &&
		    (skip = severity_at(msg + i)) && i + skip <= len) {
			i += skip - 1;
			continue;
		}
		ac_buf_putc(&plain, msg[i]);
	}
	while (plain.len && (plain.data[plain.len - 1] == ' ' || plain.data[plain.len - 1] == '\r'))
		plain.len--;
	/* A server's text may hold anything a client sent it: made visible. */
	ac_text_sanitize(&shown, plain.data ? plain.data : "", plain.len);
	snprintf(buf, size, "%s", shown.data ? shown.data : "");
	ac_buf_free(&plain);
	ac_buf_free(&shown);
	return buf;
}

static int result_error(ac_pg *pg, const PGresult *res, const char *what)
{
	const char *state = res ? sym_PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *msg = res ? sym_PQresultErrorMessage(res) : sym_PQerrorMessage(pg->conn);
	char line[512], notice[512];
	int code = AC_EIO;

	/* A lost connection: the result says "server closed the connection";
	 * the connection's message starts with the server's reason before it. */
	if (!msg || !*msg || (!state && *sym_PQerrorMessage(pg->conn)))
		msg = sym_PQerrorMessage(pg->conn);
	if (state && (!strcmp(state, "40001") || !strcmp(state, "40P01") || !strcmp(state, "23505")))
		code = AC_ECONFLICT;
	else if (state && (!strcmp(state, "57014") || !strcmp(state, "55P03")))
		code = AC_EBUSY;
	ac_pg_message(msg, line, sizeof(line));
	/* A connection the server ended while idle: libpq's "server closed the
	 * connection" says less than the server's own reason, heard before. */
	if (!state && pg->notice[0] && strcmp(pg->notice, line)) {
		snprintf(notice, sizeof(notice), "%s", pg->notice);
		pg->notice[0] = '\0';
		return ac_error_set(code, "%s (%s): database: %s (%s)", what, pg->shown, notice, line);
	}
	return ac_error_set(code, "%s (%s): database: %s", what, pg->shown, line);
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

/* libpq hands notices (the server's WARNING, NOTICE, and a FATAL sent to
 * an idle connection) to stderr by default, raw and over a dashboard's
 * screen; the core never prints. The last one of WARNING or worse is kept
 * (ctx: the ac_pg, or NULL) for the error line that follows it. */
static void keep_notice(void *ctx, const char *message)
{
	ac_pg *pg = ctx;

	if (pg && message && strncmp(message, "NOTICE:", 7) != 0)
		ac_pg_message(message, pg->notice, sizeof(pg->notice));
}

void ac_pg_quiet(PGconn *conn)
{
	if (conn)
		sym_PQsetNoticeProcessor(conn, keep_notice, NULL);
}

/* connect_timeout of conninfo (either form), in ms; -1: none (wait as
 * long as the network does). libpq counts below 2 s as 2 s. */
static int connect_timeout_ms(const char *conninfo)
{
	PQconninfoOption *opts = sym_PQconninfoParse(conninfo, NULL);
	const char *env = getenv("PGCONNECT_TIMEOUT"); /* libpq's default for it */
	int ms = env && atoi(env) > 0 ? (atoi(env) < 2 ? 2 : atoi(env)) * 1000 : -1;

	for (PQconninfoOption *o = opts; o && o->keyword; o++)
		if (!strcmp(o->keyword, "connect_timeout") && o->val && atoi(o->val) > 0)
			ms = (atoi(o->val) < 2 ? 2 : atoi(o->val)) * 1000;
	if (opts)
		sym_PQconninfoFree(opts);
	return ms;
}

/* PQconnectdb's work with the notice processor set before the server says
 * anything (a WARNING at log-in would reach stderr otherwise), and its
 * connect_timeout kept. *timed_out: the server did not answer in time. */
static PGconn *connect_quietly(ac_pg *pg, bool *timed_out)
{
	PGconn *conn = sym_PQconnectStart(pg->conninfo);
	PostgresPollingStatusType polling = PGRES_POLLING_WRITING;
	int timeout = connect_timeout_ms(pg->conninfo), ready = 1;

	*timed_out = false;
	if (!conn)
		return NULL;
	sym_PQsetNoticeProcessor(conn, keep_notice, pg);
	while (sym_PQstatus(conn) != CONNECTION_BAD && polling != PGRES_POLLING_OK &&
	       polling != PGRES_POLLING_FAILED) {
		struct pollfd fd = {sym_PQsocket(conn),
				    polling == PGRES_POLLING_READING ? POLLIN : POLLOUT, 0};

		if (fd.fd < 0 || ((ready = poll(&fd, 1, timeout)) < 0 && errno != EINTR))
			break;
		if (ready == 0) {
			*timed_out = true;
			break;
		}
		polling = sym_PQconnectPoll(conn);
	}
	return conn;
}

static int connect_now(ac_pg *pg)
{
	char statement_ms[32], idle_ms[32];
	const char *values[3];
	char line[512];
	ac_buf path = AC_BUF_INIT;
	bool timed_out;
	int rc;

	pg->notice[0] = '\0';
	pg->conn = connect_quietly(pg, &timed_out);
	pg->pid = getpid();
	if (!pg->conn)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (timed_out)
		return ac_error_set(AC_EIO, "cannot connect to %s: database: no answer within "
				    "connect_timeout", pg->shown);
	if (sym_PQstatus(pg->conn) != CONNECTION_OK)
		return ac_error_set(AC_EIO, "cannot connect to %s: database: %s", pg->shown,
				    ac_pg_message(sym_PQerrorMessage(pg->conn), line, sizeof(line)));
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
	pg->notice[0] = '\0'; /* only what the server says during this one counts */
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
