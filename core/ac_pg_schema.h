/* The PostgreSQL store's schema: versioned migrations recorded in the
 * database (private; not API). */
#ifndef AC_PG_SCHEMA_H
#define AC_PG_SCHEMA_H

#include "ac_pg.h"

#include <stddef.h>

/* How many characters of a session's task the listing indexes carry
 * (sessions.task_head, schema 5). A head this long may be cut: the
 * listing reads that session's whole task from its row. */
#define AC_PG_TASK_HEAD 200
#define AC_PG_TASK_HEAD_SQL "200"

/* The version the code expects (its newest migration). */
int ac_pg_schema_latest(void);

/* The name of migration version (1..latest), static. */
const char *ac_pg_schema_name(int version);

/* Applies every migration pg's schema lacks, in order, each in the
 * transaction that records it in agentctl_migrations, all under one
 * transaction-level advisory lock on the schema's name: two processes
 * migrating at once take turns, and the second finds nothing to do.
 * Creates the schema when it does not exist. A schema already up to date
 * costs one read: no lock is taken, nothing is created. */
int ac_pg_schema_migrate(ac_pg *pg);

/* *out_version: the highest migration recorded (0: none, or no schema);
 * *out_missing (may be NULL): how many known migrations are not recorded.
 * Changes nothing. */
int ac_pg_schema_check(ac_pg *pg, int *out_version, int *out_missing);

#endif
