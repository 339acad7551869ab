#!/usr/bin/env bash
# checkpoint_seed002.sh on the PostgreSQL store: the seed's checkpoint
# files copied in by storage migrate, then read, listed and rolled back
# to from the database. Needs a server from the PG* variables: ctest runs
# it through tests/pg/with-postgres.sh.
# Usage: checkpoint_seed002_pg.sh path/to/agentctl
set -u

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "checkpoint_seed002_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
DB=agentctl_ckpt_seed002_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null || exit 1
export AGENT_STORAGE_URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
STORE=pg
# Sourced in a subshell: its EXIT trap (cli.sh's) stays its own.
( . "$(dirname "$0")/checkpoint_seed002.sh" "$@" )
status=$?
psql -Atqc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
exit $status
