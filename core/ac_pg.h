/* A PostgreSQL connection as the store uses it (private; not API).
 *
 * Every statement goes through PQexecParams with its values as parameters:
 * no SQL is ever built from a value. The only names put into SQL text are
 * the schema's, quoted by PQescapeIdentifier. Errors are one line naming
 * what failed and the store as ac_pg_shown() prints it, never a password.
 *
 * The session runs with a short statement timeout and an idle-in-
 * transaction timeout, so a client that hangs or dies inside a
 * transaction never holds rows for long. A connection belongs to the
 * process that opened it: after fork() the child opens its own on first
 * use and leaves the parent's untouched. */
#ifndef AC_PG_H
#define AC_PG_H

#include "ac_libpq.h"
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A statement taking longer than this is cancelled (an error, not a hang). */
#define AC_PG_STATEMENT_TIMEOUT_MS 10000
/* A transaction left idle this long (a client stopped mid-way) is ended. */
#define AC_PG_IDLE_TX_TIMEOUT_MS 30000

typedef struct {
	PGconn *conn;
	pid_t pid;       /* the process conn belongs to */
	char *conninfo;  /* as given, password included: never printed */
	char *shown;     /* the same without its password, for messages */
	char *schema;    /* the schema's name */
	char *schema_sql;/* the same quoted for SQL text */
	bool in_transaction; /* between ac_pg_begin and its commit or rollback */
	unsigned long connects; /* connections made: a session-level lock
				   taken on an earlier one is gone */
	char notice[512]; /* the last WARNING or worse the server sent on
			     its own, as ac_pg_message() shows it ("" none) */
} ac_pg;

/* A message from libpq or the server (msg, may be NULL) as one line in
 * buf: its first line, the severity words ("FATAL:  ", "ERROR:  "...)
 * left out, control bytes made visible (ac_text_sanitize), cut to size.
 * Returns buf. Every error line that quotes the database says it after
 * "database: ", so a user reads one agentctl line, never libpq's text. */
const char *ac_pg_message(const char *msg, char *buf, size_t size);

/* True when text names a PostgreSQL store: a postgres:// or postgresql://
 * URL, or a libpq "key=value" connection string. */
bool ac_pg_is_url(const char *text);

/* url without its password (userinfo ":secret@" and any password=...
 * parameter or key), allocated; NULL only when out of memory. */
char *ac_pg_redact(const char *url);

/* Connects to url (either form) with schema (NULL: "agentctl") as the
 * search path. 0, or AC_EIO / AC_EINVAL / AC_ENOMEM with one line. */
int ac_pg_open(ac_pg **out, const char *url, const char *schema);
void ac_pg_close(ac_pg *pg);

/* The live connection of this process (reconnecting after a fork or a
 * lost connection, but never inside a transaction: its statements must not
 * go on in another session); NULL with the error set. */
PGconn *ac_pg_conn(ac_pg *pg, int *rc);

/* Makes conn keep its notices to itself: libpq prints them on stderr by
 * default (an idle connection the server ends says FATAL there), over a
 * dashboard's screen; the core never prints. conn may be NULL. (ac_pg's
 * own connections keep the last one for their next error line.) */
void ac_pg_quiet(PGconn *conn);

/* Runs sql with n text parameters (NULL: SQL NULL); lengths may be NULL
 * (NUL-terminated values). *out (may be NULL: freed here) receives the
 * result on success. what names the operation in the error line. Returns
 * 0, AC_ECONFLICT on a serialization/unique/deadlock failure, AC_EBUSY on a
 * timeout, AC_EIO otherwise. */
int ac_pg_exec(ac_pg *pg, PGresult **out, const char *what, const char *sql, int n,
	       const char *const *values, const int *lengths);

/* ac_pg_exec() with formats[i] 1 for a binary parameter (bytes of
 * lengths[i]), and the result in binary when binary_result. */
int ac_pg_exec_bytes(ac_pg *pg, PGresult **out, const char *what, const char *sql, int n,
		     const char *const *values, const int *lengths, const int *formats,
		     bool binary_result);

/* BEGIN, COMMIT and ROLLBACK (the last never fails: a broken connection
 * already ended the transaction). */
int ac_pg_begin(ac_pg *pg, const char *what);
int ac_pg_commit(ac_pg *pg, const char *what);
void ac_pg_rollback(ac_pg *pg);

/* pg_notify('agentctl', {"kind":kind,"tenant":..,"session":..}) inside the
 * caller's transaction: listeners hear it only when it commits. */
int ac_pg_notify(ac_pg *pg, const char *kind, const char *tenant, const char *session);

/* A result cell as text ("" when NULL), and as an unsigned number. */
const char *ac_pg_text(const PGresult *res, int row, int col);
unsigned long long ac_pg_u64(const PGresult *res, int row, int col);

#endif
