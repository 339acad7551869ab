#!/usr/bin/env bash
# Seed 004's journal both ways (issue 16 items 6-8): the seed's own
# journal.js (tests/e2e/lib/seed004_journal.js) and its tasks.py, which logs
# `agent` as typed on the command line ("claude"), write the journal;
# agentctl reads and shows every record (the one outside the schema marked,
# not lost), queries it in the seed's one-string form, and accepts an
# action type added in the configuration. Then journal.js reads back, with
# JSON.parse, everything agentctl wrote, and agentctl's --json output.
# Usage: interop_seed004_journal.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
command -v node >/dev/null || { echo "node missing: skipped"; exit 0; }
SEED=$(cd "$(dirname "$0")/lib" && pwd)/seed004_journal.js
WS=$TMP/ws
J=$WS/JOURNAL.jsonl
mkdir -p "$WS/.agent"
seed() { node "$SEED" "$J" "$@"; }
out_has() { grep -qE -- "$1" "$TMP/out"; }

# What `invoke run --agent <agent> -- "..."` logs: the seed's schema, with
# the agent as given (tasks.py: '{"agent": "%s", ...}' % agent).
tasks_py_log() { # AGENT N TYPE MESSAGE
	seed log "$(printf '{"id":"evt_20250903142510_0000000%s","timestamp":"2025-09-03T14:25:1%s.591Z","agent":"%s","status":"SUCCESS","action":{"type":"%s","input":"Create a server","params":{"path":"server.js"}},"result":{"message":"%s","artifacts":["server.js"]},"trace":{"correlation_id":"task_abc_123"}}' \
		"$2" "$2" "$1" "$3" "$4")"
}
tasks_py_log Claude 1 FILE_CREATE "created by Claude"
tasks_py_log claude 2 FILE_CREATE "created by claude as typed"
tasks_py_log Codex 3 CMD_RUN "ran by Codex"
tasks_py_log Codex 4 DEPLOY "deployed by Codex"
check "seed journal.js: wrote 4 lines, lock gone" eval '[ "$(wc -l <"$J")" = 4 ] && [ ! -e "$J.lock" ]'

# agentctl reads what the seed wrote: nothing vanishes.
run journal read
check "read: exit 0" rc_is 0
check "read: the valid events" eval 'out_has "Claude +SUCCESS +FILE_CREATE +created by Claude$" && out_has "Codex +SUCCESS +CMD_RUN +ran by Codex$"'
check "read: the seed's agent as typed, shown marked with the reason" \
	out_has "^! $J: byte [0-9]+: agent: 'claude' is not one of Claude, Codex, Gemini, Human, System$"
check "read: ...and its record" out_has '^  \{"id":"evt_20250903142510_00000002".*"created by claude as typed"'
check "read: an unconfigured action type, shown marked" out_has "^! .*action.type: 'DEPLOY' is not one of"
run journal read --json
check "read --json: all 4, the invalid ones as objects that say so" \
	eval '[ "$(jq -c "[.[] | .invalid // false]" <"$TMP/out")" = "[false,true,false,true]" ]'
check "read --json: the raw record is the seed's line" \
	eval '[ "$(jq -r ".[1].raw" <"$TMP/out")" = "$(sed -n 2p "$J")" ]'
run journal query "agent=Codex status=SUCCESS"
check "query in the seed's one-string form" eval 'out_has "ran by Codex" && out_has "DEPLOY"'
run journal query agent=claude
check "query agent=claude finds the record as typed" eval '[ "$(grep -c "^!" "$TMP/out")" = 1 ] && out_has "created by claude as typed"'
run journal query "agent=Codex statusSUCCESS"
check "query with a term that does not parse: exit 2" rc_is 2

# Adding a type is a configuration change (the seed), not a code change.
echo '{"journal": {"actionTypes": ["DEPLOY"]}}' >"$WS/.agent/config.json"
run journal read
check "configured DEPLOY: an ordinary event" eval 'out_has "Codex +SUCCESS +DEPLOY +deployed by Codex$" && ! out_has "DEPLOY. is not one of"'
run journal check
check "check still reports the agent as typed (exit 1)" eval '[ "$RC" = 1 ] && out_has ": 3 valid, 1 invalid line$"'

# The other way: agentctl writes, the seed's journal.js reads it back.
run journal log '{"agent":"Gemini","status":"IN_PROGRESS","action":{"type":"DEPLOY","params":{"env":"prod"}},"result":{"message":"deploying \"v2\" — ünïcode"}}'
check "agentctl log of a configured type: exit 0" rc_is 0
written_id=$OUT
node "$SEED" "$J" read --json >"$TMP/seed.json" 2>"$TMP/err"
check "seed journal.js reads the whole journal agentctl appended to" \
	eval '[ "$(jq length <"$TMP/seed.json")" = 5 ]'
check "seed journal.js reads agentctl's event field by field" \
	eval '[ "$(jq -c ".[4] | [.id, .agent, .status, .action.type, .action.params.env, .result.message]" <"$TMP/seed.json")" = "[\"$written_id\",\"Gemini\",\"IN_PROGRESS\",\"DEPLOY\",\"prod\",\"deploying \\\"v2\\\" — ünïcode\"]" ]'
node "$SEED" "$J" read --last 1 >"$TMP/seed.last"
check "seed journal.js read --last 1: agentctl's event" eval 'grep -q "\"id\":\"$written_id\"" "$TMP/seed.last"'
# agentctl's --json output, invalid records included, is one document JSON.parse takes.
run journal read --json
check "JSON.parse takes agentctl's read --json" \
	eval 'node -e "const a = JSON.parse(require(\"fs\").readFileSync(process.argv[1], \"utf8\")); if (a.length !== 5 || a[1].invalid !== true || a[4].id !== process.argv[2]) process.exit(1)" "$TMP/out" "$written_id"'
# Both writers keep appending through the same lock.
tasks_py_log Human 6 ANALYSIS "after agentctl"
run journal read --last 1
check "agentctl reads the seed's append after its own" out_has "Human +SUCCESS +ANALYSIS +after agentctl$"
finish
