#!/usr/bin/env bash
# Safe retries on the database (issue 25): a session write whose COMMIT
# succeeded but whose answer was lost (AGENTCTL_TEST_PG_LOSE_ANSWER ends
# the connection right after the commit, as a server restart does) exits
# 1 with one agentctl line naming the operation and the server's reason;
# retried with the same --request-id it exits 0 with the first answer and
# the database holds the write once. The same id for another write is
# refused in one line; the session files refuse --request-id. Then the
# writes-under-restarts scenario: appends, each retried under its own id
# until it exits 0, while a second process ends every agentctl connection
# in a loop: every write is on the database exactly once.
# Usage: session_request_pg.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "session_request_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
unset AGENT_STORAGE_URL
DB=agentctl_req_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
KILLER=""
trap '[ -n "$KILLER" ] && kill "$KILLER" 2>/dev/null; psql -Atqc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
WS=$TMP/ws
mkdir -p "$WS/.agent"
db() { run --storage "$URL" "$@"; }
sql() { psql -d "$DB" -Atqc "$1"; }
lost() { AGENTCTL_TEST_PG_LOSE_ANSWER=1 "$AC" -w "$WS" --storage "$URL" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null; RC=$?; }
one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
out_is() { [ "$(cat "$TMP/out")" = "$1" ]; }
M='[{"role":"user","content":"once"}]'

db session create "task" --id s1 --tenant acme
check "setup: a session" rc_is 0

# ---- append: the answer lost after COMMIT, then retried ----
lost session append s1 "$M" --request-id r-append
check "append, answer lost: exit 1" rc_is 1
check "append, answer lost: one line" one_line
check "append, answer lost: names the operation and the server's reason" err_has "agentctl: session append: "
check "append, answer lost: the reason after database:" err_has "database: terminating connection due to administrator command"
check "append, answer lost: no raw FATAL" bash -c "! grep -q 'FATAL' '$TMP/err'"
check "append, answer lost: it was committed" [ "$(sql "select count(*) from agentctl.messages")" = 1 ]
db session append s1 "$M" --request-id r-append
check "append retried: exit 0" rc_is 0
check "append retried: the first answer (1 message)" out_is 1
db session append s1 "$M" --request-id=r-append
check "append retried again: exit 0, 1" bash -c "[ $RC = 0 ] && [ '$OUT' = 1 ]"
check "append retried: written once" [ "$(sql "select count(*) from agentctl.messages")" = 1 ]
db session append s1 '[{"role":"user","content":"other"}]' --request-id r-append
check "same id, other messages: exit 1" rc_is 1
check "same id, other messages: one line saying so" bash -c "[ \"\$(wc -l <'$TMP/err')\" = 1 ] && grep -q \"request id 'r-append' was used at .* for session.append with other arguments: not written\" '$TMP/err'"
db session pause s1 --request-id r-append
check "same id, another operation: exit 1, named" bash -c "[ $RC = 1 ] && grep -q 'for session.append: not written' '$TMP/err'"
check "refused: nothing written" [ "$(sql "select count(*) from agentctl.messages")/$(sql "select status from agentctl.sessions where id = 's1'")" = "1/running" ]

# ---- record-turn, create with a random id, pause, compact ----
lost session record-turn s1 --input 10 --output 4 --messages "$M" --request-id r-turn
check "record-turn, answer lost: exit 1" rc_is 1
db session record-turn s1 --input 10 --output 4 --messages "$M" --request-id r-turn
check "record-turn retried: exit 0, turn 1" bash -c "[ $RC = 0 ] && [ '$OUT' = 1 ]"
check "record-turn retried: one turn, one more message" [ "$(sql "select turns || '/' || message_count || '/' || input_tokens from agentctl.sessions where id = 's1'")" = "1/2/10" ]
lost session create "random id" --tenant acme --request-id r-create
check "create, answer lost: exit 1" rc_is 1
db session create "random id" --tenant acme --request-id r-create
FIRST=$OUT
check "create retried: exit 0, the id made first" bash -c "[ $RC = 0 ] && [ \"\$(psql -d $DB -Atqc \"select id from agentctl.sessions where task = 'random id'\")\" = '$FIRST' ]"
db session create "random id" --tenant acme --request-id r-create
check "create retried again: the same id" out_is "$FIRST"
check "create retried: one session made" [ "$(sql "select count(*) from agentctl.sessions where task = 'random id'")" = 1 ]
lost session pause s1 --request-id r-pause
check "pause, answer lost: exit 1" rc_is 1
check "pause, answer lost: paused" [ "$(sql "select status from agentctl.sessions where id = 's1'")" = paused ]
db session pause s1 --request-id r-pause
check "pause retried: exit 0, as the first said" bash -c "[ $RC = 0 ] && [ '$OUT' = 'session s1 paused' ]"
db session pause s1
check "pause without an id, already paused: still refused" rc_is 1
db session resume s1 --request-id r-resume
check "resume: exit 0" rc_is 0
db session compact s1 --force --request-id r-compact
check "compact: exit 0" rc_is 0
cp "$TMP/out" "$TMP/compact-first"
db session compact s1 --force --request-id r-compact
check "compact retried: exit 0, the first answer" bash -c "[ $RC = 0 ] && cmp -s '$TMP/out' '$TMP/compact-first'"
check "keys kept with their operation and answer" [ "$(sql "select string_agg(id || ':' || operation, ',' order by id) from agentctl.requests where tenant = 'acme' and result is not null")" = "r-append:session.append,r-compact:session.compact,r-create:session.create,r-pause:session.set_status,r-resume:session.set_status,r-turn:session.record_turn" ]

# ---- bad ids; the files refuse ----
db session append s1 "$M" --request-id 'a/b'
check "a bad request id: exit 2, named" bash -c "[ $RC = 2 ] && grep -q -- '--request-id' '$TMP/err'"
db session append s1 "$M" --request-id
check "no value: exit 2" rc_is 2
mkdir -p "$TMP/files/.agent"
"$AC" -w "$TMP/files" session create "t" --id f1 >/dev/null
"$AC" -w "$TMP/files" session append f1 "$M" --request-id r1 >"$TMP/out" 2>"$TMP/err"
RC=$?
check "files: --request-id refused, exit 2, one line" bash -c "[ $RC = 2 ] && [ \"\$(wc -l <'$TMP/err')\" = 1 ] && grep -q 'session files keep no request ids' '$TMP/err'"
check "files: nothing written" [ "$(jq '.conversationHistory | length' "$TMP/files/.agent/sessions/f1.json")" = 0 ]

# ---- the server's own words: one line, severity words dropped, escapes shown ----
"$AC" -w "$WS" --storage "postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/no%1B%5B2Jdb" \
	session create t --tenant acme >"$TMP/out" 2>"$TMP/err"
RC=$?
check "a database that is not there: exit 1, one agentctl line" bash -c "[ $RC = 1 ] && [ \"\$(wc -l <'$TMP/err')\" = 1 ] && grep -q '^agentctl: ' '$TMP/err'"
check "a database that is not there: the server's reason after database:, no FATAL" bash -c "grep -q 'database: .*does not exist' '$TMP/err' && ! grep -q 'FATAL' '$TMP/err'"
check "a database that is not there: the escape in its name shown, not sent" bash -c "grep -qF 'no^[[2Jdb' '$TMP/err' && ! grep -q \"\$(printf '\\033')\" '$TMP/err'"

# ---- writes under restarts: every connection ended, again and again ----
N=${AC_REQUEST_WRITES:-150}
start_killer() {
	rm -f "$TMP/stop"
	(
		while [ ! -e "$TMP/stop" ]; do
			psql -d "$DB" -Atqc "select count(pg_terminate_backend(pid)) from pg_stat_activity where datname = '$DB' and pid <> pg_backend_pid()" >/dev/null 2>&1
		done
	) &
	KILLER=$!
}
stop_killer() {
	touch "$TMP/stop"
	wait "$KILLER" 2>/dev/null
	KILLER=""
}
# What an agent had before: retrying a failed write without an id doubles
# the ones that had committed. Measured, not judged (it depends on timing).
db session create "retried without ids" --id bare --tenant acme
start_killer
for i in $(seq 1 50); do
	for try in $(seq 1 40); do
		"$AC" -w "$WS" --storage "$URL" session append bare "[{\"role\":\"user\",\"content\":\"b$i\"}]" \
			>/dev/null 2>&1 && break
	done
done
stop_killer
echo "   without request ids: 50 writes retried until they succeeded left $(sql "select count(*) from agentctl.messages where session_id = 'bare'") messages"
db session create "under restarts" --id busy --tenant acme
start_killer
failed_first=0 attempts=0 gave_up=0
for i in $(seq 1 "$N"); do
	ok=0
	for try in $(seq 1 40); do
		attempts=$((attempts + 1))
		if "$AC" -w "$WS" --storage "$URL" session append busy "[{\"role\":\"user\",\"content\":\"w$i\"}]" \
			--request-id "w-$i" >/dev/null 2>"$TMP/werr"; then
			ok=1
			break
		fi
		[ "$try" = 1 ] && failed_first=$((failed_first + 1))
		# Every failure is one agentctl line, never libpq's own text.
		if [ "$(wc -l <"$TMP/werr")" -ne 1 ] || ! grep -q '^agentctl: ' "$TMP/werr" || grep -q 'FATAL:' "$TMP/werr"; then
			cp "$TMP/werr" "$TMP/bad-stderr"
		fi
	done
	[ "$ok" = 1 ] || gave_up=$((gave_up + 1))
done
stop_killer
stored=$(sql "select count(*) from agentctl.messages where session_id = 'busy'")
distinct=$(sql "select count(distinct message::text) from agentctl.messages where session_id = 'busy'")
echo "   restarts: $N writes, $attempts attempts, $failed_first failed first and were retried, $gave_up gave up; $stored stored ($distinct distinct)"
check "restarts: every write succeeded in the end" [ "$gave_up" = 0 ]
check "restarts: some writes failed first (the connections were ended)" [ "$failed_first" -gt 0 ]
check "restarts: every write stored exactly once ($stored of $N)" [ "$stored/$distinct" = "$N/$N" ]
check "restarts: every failure was one agentctl line" [ ! -e "$TMP/bad-stderr" ]
[ -e "$TMP/bad-stderr" ] && cat "$TMP/bad-stderr"

finish
