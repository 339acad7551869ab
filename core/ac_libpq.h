/* libpq, loaded when a command first opens a PostgreSQL store rather than
 * at every process start: linking it pulls TLS, Kerberos and LDAP in (22
 * libraries: agentctl --version took 3.7 ms mean linked, 0.9 ms without),
 * and only
 * storage.url users need it. Same technique as ac_libgit2.h: one list of
 * the functions used, a pointer per function typed from <libpq-fe.h>,
 * filled by dlsym; call sites write sym_PQ<name>(...). Not a public
 * header; not for the tests, which link libpq themselves. */
#ifndef AC_LIBPQ_H
#define AC_LIBPQ_H

#include <libpq-fe.h>

/* Every libpq function agentctl calls; a new call needs its name here. */
#define AC_LIBPQ_FUNCTIONS(X) \
	X(PQclear) \
	X(PQconnectPoll) \
	X(PQconnectStart) \
	X(PQconnectdb) \
	X(PQconsumeInput) \
	X(PQconninfoFree) \
	X(PQconninfoParse) \
	X(PQerrorMessage) \
	X(PQexecParams) \
	X(PQfinish) \
	X(PQfreemem) \
	X(PQgetisnull) \
	X(PQgetResult) \
	X(PQgetlength) \
	X(PQgetvalue) \
	X(PQnfields) \
	X(PQisBusy) \
	X(PQnotifies) \
	X(PQntuples) \
	X(PQresultErrorField) \
	X(PQresultErrorMessage) \
	X(PQresultStatus) \
	X(PQsendQuery) \
	X(PQsetNoticeProcessor) \
	X(PQsocket) \
	X(PQstatus) \
	X(PQtransactionStatus)

#define AC_LIBPQ_DECLARE(name) extern __typeof__(name) *sym_##name;
AC_LIBPQ_FUNCTIONS(AC_LIBPQ_DECLARE)
#undef AC_LIBPQ_DECLARE

/* Loads libpq once per process (thread-safe); 0, or AC_ENOTSUP "the
 * PostgreSQL store needs libpq.so.5, which cannot be loaded: ...". Every
 * sym_PQ pointer is valid after a 0. */
int ac_libpq_load(void);

#endif
