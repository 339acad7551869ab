#!/usr/bin/env bash
# A checkpoint rollback killed while a compensation runs (issue 23, item
# 12), on the PostgreSQL store: see lib/checkpoint_uncertain.sh. Needs a
# server from the PG* variables: ctest runs it through
# tests/pg/with-postgres.sh.
# Usage: checkpoint_uncertain_pg.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "checkpoint_uncertain_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
WS=$TMP/ws
mkdir -p "$WS/.agent"
DB=agentctl_ckpt_uncertain_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
export AGENT_STORAGE_URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
sql() { psql -d "$DB" -Atq -v ON_ERROR_STOP=1 -c "$1"; }

BASE='[{"role":"user","content":"make users"},{"role":"assistant","content":"ok"}]'
TOOLS='[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"createUser","input":{"name":"Daniel"}}]}'
TOOLS+=',{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}'
TOOLS+=',{"role":"assistant","content":[{"type":"tool_use","id":"c3","name":"createUser","input":{"name":"Maria"}}]}]'
make_session() {
	"$AC" -w "$WS" session create t --id s1 --tenant acme >/dev/null &&
		echo "$BASE" | "$AC" -w "$WS" session append s1 - >/dev/null &&
		CKPT=$("$AC" -w "$WS" checkpoint create s1) &&
		echo "$TOOLS" | "$AC" -w "$WS" session append s1 - >/dev/null
	check "the session, its checkpoint and 2 tool calls in the database" \
		[ "$(sql "select count(*) from agentctl.messages where session_id = 's1'")" -eq 5 ]
}
UNCERTAIN_FLAG=--rerun-uncertain
. "$(dirname "$0")/lib/checkpoint_uncertain.sh"
check "the session is back at the checkpoint" \
	[ "$(sql "select count(*) from agentctl.messages where session_id = 's1'")" -eq 2 ]

finish
