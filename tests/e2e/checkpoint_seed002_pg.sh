#!/usr/bin/env bash
# checkpoint_seed002.sh on the PostgreSQL store (STORE=pg): the seed's
# checkpoint files copied in by storage migrate, then listed and rolled
# back to from the database; the rollback behind a compaction on the
# database's compactions table. Needs a server from the PG* variables:
# ctest runs it through tests/pg/with-postgres.sh.
# Usage: checkpoint_seed002_pg.sh path/to/agentctl
set -u

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "checkpoint_seed002_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
DB=agentctl_ckpt_seed002_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null || exit 1
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1' EXIT
export AGENT_STORAGE_URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
STORE=pg bash "$(dirname "$0")/checkpoint_seed002.sh" "$@"
