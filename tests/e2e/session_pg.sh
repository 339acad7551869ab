#!/usr/bin/env bash
# End-to-end checks of the session commands on the PostgreSQL store:
# `session list` (text and --json, with the host that last wrote each
# session; --status and --user), `session show` (text and --json, the
# document as a session file holds it), and pause|resume|complete|fail as
# a compare-and-set in the database: a change made from another host
# (another UTS host name) is recorded with that host, a refused change
# writes nothing, and of eight processes resuming one paused session at
# once exactly one succeeds. Nothing is read from or written to the
# session files. Needs a server from the PG* variables: ctest runs it
# through tests/pg/with-postgres.sh.
# Usage: session_pg.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "session_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
WS=$TMP/ws
mkdir -p "$WS/.agent"
DB=agentctl_e2e_sess_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
export AGENT_STORAGE_URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
sql() { psql -d "$DB" -Atq -v ON_ERROR_STOP=1 -c "$1"; }
out_has() { grep -qF -- "$1" "$TMP/out"; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
# Runs agentctl as a process of host $1 (a UTS namespace of its own), or
# as this host where namespaces are not permitted.
as_host() {
	local host=$1
	shift
	if [ "$UTS" = 1 ]; then
		unshare -u sh -c 'hostname "$1"; shift; exec "$@"' sh "$host" "$AC" -w "$WS" "$@"
	else
		"$AC" -w "$WS" "$@"
	fi >"$TMP/out" 2>"$TMP/err" </dev/null
	RC=$?
}
UTS=0
unshare -u true 2>/dev/null && UTS=1

# The schema, then two sessions written by agents on host-a (as the
# backend writes them: a row, its document, its messages).
run storage check >/dev/null
run memo list acme u1 user # opening the store migrates it
sql "insert into agentctl.sessions (tenant, id, user_id, agent, status, created_at, updated_at,
       written_by_host, written_by_agent, last_seq, message_count, tokens)
     values ('acme', 's1', 'u1', 'claude', 'running', now() - interval '1 minute', now() - interval '1 minute',
             'host-a', 'claude', 2, 2, 9),
            ('other', 's2', 'u2', 'codex', 'completed', now() - interval '2 minutes', now() - interval '2 minutes',
             'host-a', 'codex', 0, 0, 0)"
sql "insert into agentctl.session_documents values
     ('acme', 's1', '{\"id\":\"s1\",\"createdAt\":\"2026-01-02T03:04:05.006Z\",\"updatedAt\":\"x\",\"task\":\"fix the build\",\"status\":\"running\",\"metadata\":{\"tenantId\":\"acme\",\"userId\":\"u1\",\"agentId\":\"claude\"},\"x-kept\":7}'),
     ('other', 's2', '{\"id\":\"s2\",\"task\":\"\",\"status\":\"completed\",\"metadata\":{\"tenantId\":\"other\"}}')"
sql "insert into agentctl.messages values
     ('acme', 's1', 1, '{\"role\":\"user\",\"content\":\"why \u001b[31mred\"}'),
     ('acme', 's1', 2, '{\"role\":\"assistant\",\"content\":\"fixed\"}')"

# ---- list ----
run session list --json
check "list --json exits 0" rc_is 0
check "list --json: both sessions, newest first" \
	[ "$(jq -r '[.[].id] | join(",")' <"$TMP/out")" = "s1,s2" ]
check "list --json: the host that last wrote it" \
	[ "$(jq -r '.[0].host' <"$TMP/out")" = "host-a" ]
check "list --json: the counts and tenancy" \
	[ "$(jq -r '.[0] | "\(.messages) \(.tokens) \(.tenantId) \(.userId) \(.agentId) \(.status)"' <"$TMP/out")" = "2 9 acme u1 claude running" ]
run session list
check "list exits 0" rc_is 0
check "list: a HOST column" eval 'head -1 "$TMP/out" | grep -q "HOST"'
check "list: the row names its host" eval 'grep "^s1 " "$TMP/out" | grep -q "host-a .*u1/claude"'
run session list --status completed --json
check "list --status: filtered" [ "$(jq -r '[.[].id] | join(",")' <"$TMP/out")" = "s2" ]
run session list --user u1 --json
check "list --user: filtered" [ "$(jq -r '[.[].id] | join(",")' <"$TMP/out")" = "s1" ]
run session list --status sleeping
check "list --status bad: exit 2" rc_is 2

# ---- show ----
run session show s1 --json
check "show --json exits 0" rc_is 0
check "show --json: the document, unknown keys kept" \
	[ "$(jq -r '"\(.task) \(.status) \(.createdAt) \(.["x-kept"])"' <"$TMP/out")" = "fix the build running 2026-01-02T03:04:05.006Z 7" ]
check "show --json: the history in order" \
	[ "$(jq -r '[.conversationHistory[].role] | join(",")' <"$TMP/out")" = "user,assistant" ]
check "show --json: updatedAt is the store's, not the document's stale one" \
	[ "$(jq -r '.updatedAt | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$")' <"$TMP/out")" = true ]
run session show s1
check "show exits 0" rc_is 0
check "show: the task and the host" eval 'out_has "task     fix the build" && out_has "host     host-a   written by claude"'
check "show: the messages" eval 'out_has "[1] user: why" && out_has "[2] assistant: fixed"'
check "show: escapes made visible" eval '! grep -q $'"'"'\x1b'"'"' "$TMP/out"'
# The per-turn usage rows (schema 6): every field, totals summed.
sql "insert into agentctl.turn_usage (tenant, session_id, turn, input_tokens, output_tokens,
       cache_read_input_tokens, reasoning_tokens, fields)
     values ('acme', 's1', 1, 100, 20, 5000, 7, '{\"model\":\"m-x\",\"costUsd\":0.5}'),
            ('acme', 's1', 2, 1, 2, 0, 0, '{}')"
run session show s1 --json
check "show --json: usage rows with every field" \
	[ "$(jq -r '.usage.turns[0].usage | "\(.cacheReadInputTokens) \(.reasoningTokens) \(.model) \(.costUsd)"' <"$TMP/out")" = "5000 7 m-x 0.5" ]
check "show --json: usage totals summed" \
	[ "$(jq -r '.usage.totals | "\(.inputTokens) \(.outputTokens) \(.turns)"' <"$TMP/out")" = "101 22 2" ]
run session show s1
check "show: the per-turn table" eval 'grep -qE "^ +1 [0-9T:.-]+Z +100 +20 +0 +5000 +7 +0 +0\.5000 m-x$" "$TMP/out"'
run session show nosuch
check "show unknown: exit 1" rc_is 1
check "show unknown: one line naming it" eval 'err_is_one_line && err_has nosuch'
run session show ../x
check "show bad id: exit 2" rc_is 2

# ---- status changes: a compare-and-set, from another host ----
as_host host-b session pause s1
check "pause from host-b exits 0" rc_is 0
check "pause says so" out_has "session s1 paused"
check "the database has it paused" [ "$(sql "select status from agentctl.sessions where id = 's1'")" = paused ]
if [ "$UTS" = 1 ]; then
	check "the writer is host-b now" [ "$(sql "select written_by_host from agentctl.sessions where id = 's1'")" = host-b ]
	run session list --json
	check "list shows host-b" [ "$(jq -r '.[] | select(.id == "s1") | .host' <"$TMP/out")" = host-b ]
fi
check "the pause is journaled" eval 'grep -q "\"SESSION_PAUSE\"" "$WS/JOURNAL.jsonl"'
run session pause s1
check "pause a paused session: exit 1" rc_is 1
check "pause a paused session: says it is paused already" eval 'err_is_one_line && err_has "paused already"'
run session resume s2
check "resume a completed session: exit 1" rc_is 1
check "refused: nothing written" [ "$(sql "select status from agentctl.sessions where id = 's2'")" = completed ]
run session fail nosuch
check "status of an unknown session: exit 1, one line" eval 'rc_is 1 && err_is_one_line'
run --read-only session pause s1
check "--read-only refuses: exit 2" rc_is 2

# Eight processes resume the paused session at once: one wins the
# compare-and-set, the others are refused and write nothing.
for p in 1 2 3 4 5 6 7 8; do
	("$AC" -w "$WS" session resume s1 >"$TMP/out.$p" 2>"$TMP/err.$p"; echo $? >"$TMP/rc.$p") &
done
wait
wins=$(cat "$TMP"/rc.* | grep -c '^0$')
check "8 concurrent resumes: exactly one succeeds" [ "$wins" -eq 1 ]
check "the others say why" [ "$(cat "$TMP"/err.* | grep -c 'running already\|no longer paused')" -eq 7 ]
check "the session is running" [ "$(sql "select status from agentctl.sessions where id = 's1'")" = running ]
run session complete s1
check "complete exits 0" rc_is 0
check "complete says so" out_has "session s1 completed"

check "no session file was written" [ ! -e "$WS/.agent/sessions" ] || [ -z "$(ls -A "$WS/.agent/sessions")" ]

finish
