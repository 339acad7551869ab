#!/usr/bin/env bash
# sources_odd_names.sh's transcripts (one per source whose name is not
# UTF-8, and a project folder) with the workspace on a PostgreSQL store:
# `session search` there still searches every readable transcript after the
# store's sessions, exits 0 and names what it left out; `sources check`
# lists them the same. Before, the one name failed the read as "out of
# memory" and hid every transcript. Needs a server from the PG* variables:
# ctest runs it through tests/pg/with-postgres.sh.
# Usage: sources_odd_names_pg.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/sources_home.sh"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "sources_odd_names_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
DB=agentctl_e2e_odd_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
export AGENT_STORAGE_URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
mkdir -p "$WS/.agent"

. "$(dirname "$0")/lib/sources_odd_names.sh"

run session create "a seed task about parser.c" --id seed-1 --tenant acme --user u1
check "the store takes a session" rc_is 0
run session append seed-1 '[{"role":"user","content":"look at parser.c first"}]'
check "and a message in it" rc_is 0
run session search "parser.c" --json
check "search on the store: exit 0" rc_is 0
check "search: the store's session and the Claude Code transcript" \
	[ "$(jq_out '[.results[].sessionId] | unique | sort | join(" ")')" = "$S1 seed-1" ]
check "search: nothing says out of memory" eval '! err_has "out of memory"'
check "search: the first left out named, escaped, the others counted" \
	err_has 'the file name is not valid UTF-8 \(skipped, and 3 more coding-agent transcripts not read\)'
run sources check
check "sources check on the store: exit 1, four files named unreadable" \
	eval 'rc_is 1 && [ "$(grep -c "^! .*not valid UTF-8" "$TMP/out")" = 4 ]'

finish
