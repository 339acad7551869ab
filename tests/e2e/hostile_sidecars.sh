#!/usr/bin/env bash
# A hostile workspace's per-turn usage sidecars through the command line:
# a FIFO planted as .agent/sessions/.usage/<id>.jsonl (a plain open()
# waited for a writer forever: `usage` and `session show` hung), a link
# to a file outside, the .usage folder a link outside, and rows whose costs sum past a double (every total
# failed as "out of memory", record-turn included). `timeout` only turns a
# hang into a failure; nothing is timed.
# Usage: hostile_sidecars.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
export HOME=$TMP/home XDG_CACHE_HOME=$TMP/cache
mkdir -p "$HOME"
WS=$TMP/ws
U=$WS/.agent/sessions/.usage
mkdir -p "$WS"
hang() { timeout 20 "$AC" -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null; RC=$?; }

run session create "fifo" --id f1
run session create "link" --id l1
run session create "costs" --id c1
mkdir -p "$U"
mkfifo "$U/f1.jsonl"
echo secret >"$TMP/outside.jsonl"
ln -s "$TMP/outside.jsonl" "$U/l1.jsonl"
printf '%s\n' '{"turn":1,"timestamp":"2025-01-01T00:00:00.000Z","usage":{"inputTokens":1,"costUsd":1e308}}' \
	'{"turn":2,"timestamp":"2025-01-01T00:00:01.000Z","usage":{"inputTokens":2,"costUsd":1e308}}' >"$U/c1.jsonl"

hang usage session
check "usage: the FIFO does not hang it (exit 0)" rc_is 0
check "usage: the rows beside it still count" grep -q c1 "$TMP/out"
hang session show f1
check "session show over a FIFO sidecar: exit 1, not a hang" rc_is 1
check "one line naming the sidecar" eval '[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "f1.jsonl: not a regular file" "$TMP/err"'
hang session show l1
check "a link to outside is not followed" eval '[ $RC = 1 ] && grep -q "l1.jsonl" "$TMP/err"'
check "the file it points at is not shown" eval '! grep -q secret "$TMP/out"'
hang session show c1
check "costs summing past a double: shown (exit 0)" rc_is 0
hang session record-turn c1 --input 1 --output 1
check "and record-turn still records a turn" eval '[ $RC = 0 ] && [ "$(wc -l <"$U/c1.jsonl")" -eq 3 ]'
# The .usage folder a link to a folder outside: nothing written there.
WS2=$TMP/ws2
mkdir -p "$WS2" "$TMP/elsewhere"
"$AC" -w "$WS2" session create "linked" --id k1 >/dev/null
ln -s "$TMP/elsewhere" "$WS2/.agent/sessions/.usage"
sum=$(sha256sum "$WS2/.agent/sessions/k1.json")
timeout 20 "$AC" -w "$WS2" session record-turn k1 --input 3 --output 4 >"$TMP/out" 2>"$TMP/err" </dev/null
RC=$?
check "record-turn through a linked .usage: exit 1, naming it" \
	eval '[ $RC = 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "\.usage: \(is a symbolic link\|leads out of the workspace\)" "$TMP/err"'
check "nothing written outside" eval '[ -z "$(ls -A "$TMP/elsewhere")" ]'
check "the session file unchanged" eval '[ "$(sha256sum "$WS2/.agent/sessions/k1.json")" = "$sum" ]'
finish
