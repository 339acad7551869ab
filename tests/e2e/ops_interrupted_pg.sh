#!/usr/bin/env bash
# ops_interrupted.sh on the PostgreSQL store: the sessions that ops record
# names live in the database, and the rollback's intent is still a file
# under the workspace's .agent/ (it describes the worktree, which is on
# disk whatever the store). Needs a server from the PG* variables: ctest
# runs it through tests/pg/with-postgres.sh.
# Usage: ops_interrupted_pg.sh path/to/agentctl
set -u

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "ops_interrupted_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
DB=agentctl_e2e_intent_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null || exit 1
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1' EXIT
export AGENT_STORAGE_URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
bash "$(dirname "$0")/ops_interrupted.sh" "$@" || exit 1
# The sessions were the database's, not files.
[ "$(psql -d "$DB" -Atqc "select count(*) from agentctl.session_documents where session_id = 's0'")" -ge 1 ] ||
	{ echo "FAIL: session s0 is not in the database" >&2; exit 1; }
