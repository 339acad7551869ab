#!/usr/bin/env bash
# The quiet wait counts only writers other than agentctl (issue 28): a
# session whose turns all came through agentctl (session create, append,
# record-turn) is compacted right after a turn, without waiting for a quiet
# file; after a save by a seed 000 writer (no lock, temp file and rename)
# the wait is back, and an agentctl append after that save does not hide
# it. quietMs is an hour and waitMs 0, so a wait shows as the refusal
# "being written by its agent", not as time.
# Usage: compact_quiet_wait.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
SEED=$(cd "$(dirname "$0")/lib" && pwd)/seed000.js
command -v node >/dev/null || { echo "node is missing (scripts/install-deps.sh)"; echo "0 passed, 1 failed"; exit 1; }
mkdir -p "$XDG_CONFIG_HOME/agent"
echo '{"session": {"quietMs": 3600000, "waitMs": 0}}' >"$XDG_CONFIG_HOME/agent/config.json"
WS=$TMP/ws
S=$WS/.agent/sessions
mkdir -p "$S"
turn() { printf '[{"role":"user","content":"question %s"},{"role":"assistant","content":"answer %s"}]' "$1" "$1"; }
count() { jq '.conversationHistory | length' "$S/s1.json"; }

run session create "quiet" --id s1
check "create" rc_is 0
run session append s1 "$(turn 1)"
run session record-turn s1 --input 5 --output 6 --messages "$(turn 2)"
check "append and record-turn" rc_is 0
run session compact s1 --force
check "compact right after agentctl's own turn: done at once" rc_is 0
check "it summarised" eval 'grep -q "summarised" "$TMP/out"'
run session pause s1
check "a pause right after the compaction: done at once" rc_is 0
run session resume s1
check "and the resume" rc_is 0

# A seed writer saves the session (its load, append, save).
jq --argjson t "$(turn 3)" '.conversationHistory += $t' "$S/s1.json" |
	node "$SEED" save "$S"
before=$(sha256sum <"$S/s1.json")
run session compact s1 --force
check "compact right after a seed writer's save: waits (refused at once here)" rc_is 1
check "it says the agent is writing" eval 'grep -q "being written by its agent" "$TMP/err"'
check "the file is the writer's" eval '[ "$(sha256sum <"$S/s1.json")" = "$before" ]'
run session append s1 "$(turn 4)"
check "agentctl appends after the seed save (no wait for an append)" rc_is 0
n=$(count)
run session compact s1 --force
check "compact after that append still waits for the seed writer's quiet" rc_is 1
check "nothing lost ($n messages)" eval '[ "$(count)" = "$n" ]'
check "the turn of the seed writer is kept" eval 'grep -q "question 3" "$S/s1.json"'

# The seed writer's save was long ago: agentctl's writes since need no wait.
touch -d '-2 hours' "$S/s1.json"
run session append s1 "$(turn 5)"
run session compact s1 --force
check "compact after a save long ago and agentctl's append: done at once" rc_is 0
check "every turn is there or archived" eval '
	for i in 1 2 3 4 5; do
		grep -rqs "question $i" "$S/s1.json" "$S/.compactions/s1" || exit 1
	done'
finish
