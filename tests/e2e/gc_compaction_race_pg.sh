#!/usr/bin/env bash
# gc_compaction_race.sh on the PostgreSQL store (issue 23, item 11): a
# compaction of 300 messages is held just before its transaction (another
# connection holds the session's row lock, which the compaction takes),
# gc runs meanwhile with its clock 20 minutes ahead
# (AGENTCTL_TEST_GC_CLOCK_AHEAD, seconds) and leaves the session's old
# archive, saying the session is busy (the compaction holds the session's
# advisory lock); the compaction is let go, and gc runs again, clock still
# ahead, --older-than 1m: the archive just written is seconds old by the
# server's clock, so it stays, and the old one goes. The
# session's messages plus the archive's are the 300 throughout. Needs a
# server from the PG* variables: ctest runs it through
# tests/pg/with-postgres.sh.
# Usage: gc_compaction_race_pg.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "gc_compaction_race_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
WS=$TMP/ws
mkdir -p "$WS/.agent"
DB=agentctl_gc_race_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'exec 7>&- 2>/dev/null; psql -Atqc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
export AGENT_STORAGE_URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
sql() { psql -d "$DB" -Atq -v ON_ERROR_STOP=1 -c "$1"; }
# Original messages in the session and in its archives.
messages_kept() {
	sql "select (select count(*) from agentctl.messages where session_id = 's1'
	               and message->>'content' like 'message %')
	          + (select coalesce(sum(json_array_length(messages)), 0)
	               from agentctl.compactions where session_id = 's1')"
}

run session create t --id s1 --tenant acme
check "create: exit 0" rc_is 0
jq -n '[range(0; 300) | {role: (if . % 2 == 0 then "user" else "assistant" end),
			 content: "message \(.)"}]' >"$TMP/messages.json"
"$AC" -w "$WS" session append s1 - <"$TMP/messages.json" >/dev/null 2>"$TMP/err"
check "append: 300 messages" [ "$(messages_kept)" -eq 300 ]

# An old archive of s1 (no messages), which gc must leave while the
# compaction runs, and remove after.
sql "insert into agentctl.compactions (tenant, session_id, at, first_seq, last_seq, messages)
     values ('acme', 's1', now() - interval '2 hours', 0, 0, '[]')"
archives() { sql "select count(*) from agentctl.compactions where session_id = 's1'"; }

# Another connection holds the session's row lock until told.
mkfifo "$TMP/psql"
psql -d "$DB" -Atq -v ON_ERROR_STOP=1 <"$TMP/psql" >"$TMP/holder.out" 2>&1 &
HOLDER=$!
exec 7>"$TMP/psql"
echo "BEGIN; SELECT 1 FROM agentctl.sessions WHERE id = 's1' FOR UPDATE; \\! echo held >'$TMP/held'" >&7
check "holder: has the row lock" wait_until test -e "$TMP/held"
"$AC" -w "$WS" session compact s1 --force >"$TMP/compact.out" 2>"$TMP/compact.err" &
COMPACT=$!
waiting() {
	[ "$(sql "select count(*) from pg_stat_activity where datname = '$DB' and wait_event_type = 'Lock'")" -ge 1 ]
}
check "compaction: waits for the row lock" wait_until waiting

export AGENTCTL_TEST_GC_CLOCK_AHEAD=1200
run gc --older-than 1m
check "gc during the compaction: exit 0" rc_is 0
check "gc during the compaction: the session's old archive stays" [ "$(archives)" -eq 1 ]
check "gc during the compaction: says the session is busy" \
	grep -q "s1 are skipped: an operator action" "$TMP/err"

echo "COMMIT;" >&7
exec 7>&-
wait "$HOLDER"
wait "$COMPACT"
CRC=$?
check "compaction: exit 0" [ "$CRC" -eq 0 ]
check "compaction: its archive and the old one" [ "$(archives)" -eq 2 ]
check "nothing lost after the compaction" [ "$(messages_kept)" -eq 300 ]

run gc --older-than 1m
unset AGENTCTL_TEST_GC_CLOCK_AHEAD
check "gc after, clock ahead: exit 0" rc_is 0
check "gc after, clock ahead: the new archive stays" [ "$(messages_kept)" -eq 300 ]
check "gc after, clock ahead: the old one goes (by the server's clock)" [ "$(archives)" -eq 1 ]

finish
