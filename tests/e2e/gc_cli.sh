#!/usr/bin/env bash
# End-to-end checks of `agentctl gc`: bad arguments, --dry-run changes
# nothing, keep and age rules per kind, archives a session names stay,
# planted links lead nowhere, and a seed-style writer saving checkpoints
# and sessions (temp file + rename) while gc runs loses nothing.
# Usage: gc_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
out_has() { grep -qF -- "$1" "$TMP/out"; }
# Every file and link of the tree with its bytes, for byte-identical checks.
tree_sum() { (cd "$1" && find . \( -type f -o -type l \) -printf '%p %y %l\n' | sort &&
	find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum; }
old() { touch -h -d '2020-01-01 00:00:00 UTC' "$@"; }

WS=$(mktemp -d "$TMP/ws.XXXXXX")
OUTSIDE=$(mktemp -d "$TMP/outside.XXXXXX")
SD=$WS/.agent/sessions
CD=$WS/.agent/checkpoints
event='{"agent":"Claude","status":"SUCCESS","action":{"type":"ANALYSIS","params":{}},"result":{"message":"x"}}'

# ---- bad arguments -------------------------------------------------------
"$AC" -w "$WS" session create "task" --id s1 >/dev/null
for bad in "" "--older-than 5s" "--older-than 0d" "--older-than" "--keep x" "--keep" "--frobnicate"; do
	# shellcheck disable=SC2086
	run gc $bad
	check "gc $bad: exit 2" rc_is 2
	check "gc $bad: one error line" err_is_one_line
done
run gc --older-than 5s
check "a bad age is named" err_has "'5s'"
run gc --frobnicate
check "an unknown argument is named" err_has "--frobnicate"
run gc
check "no rule: says nothing is removed by default" err_has "nothing is removed by default"
run gc --help
check "gc --help: exit 0" rc_is 0
check "gc --help: the usage line" out_has "gc [--keep N] [--older-than AGE] [--dry-run]"

# ---- a workspace with something of every kind ----------------------------
for i in 1 2 3 4; do "$AC" -w "$WS" checkpoint create s1 >/dev/null; done
"$AC" -w "$WS" checkpoint create s1 --tombstone >/dev/null
"$AC" -w "$WS" checkpoint create s1 >/dev/null # version 6
"$AC" -w "$WS" session create "other" --id s2 >/dev/null
"$AC" -w "$WS" checkpoint create s2 >/dev/null
old "$CD"/s1/*.json "$CD"/s2/*.json
V1=$(grep -l '"version": 1,' "$CD"/s1/*.json)
# s1 names one compaction archive; two more are unnamed.
jq '.metadata.compactions = [{"archive": ".compactions/s1/20200101T000000.000Z.json"}]' \
	"$SD/s1.json" >"$SD/s1.json.tmp" && mv "$SD/s1.json.tmp" "$SD/s1.json"
mkdir -p "$SD/.compactions/s1" "$SD/.rollbacks/s1"
for a in 20200101T000000.000Z 20200102T000000.000Z 20200105T000000.000Z; do
	echo '{"sessionId":"s1","messages":[]}' >"$SD/.compactions/s1/$a.json"
done
echo '{}' >"$SD/.rollbacks/s1/20200103T000000.000Z.json"
echo '{}' >"$SD/.rollbacks/s1/compensated.json"
old "$SD"/.compactions/s1/* "$SD"/.rollbacks/s1/*
"$AC" -w "$WS" journal log "$event" >/dev/null
"$AC" -w "$WS" journal rotate >/dev/null
"$AC" -w "$WS" journal log "$event" >/dev/null
"$AC" -w "$WS" journal rotate >/dev/null
"$AC" -w "$WS" journal log "$event" >/dev/null
# A finished session's old trace, and a running one's.
"$AC" -w "$WS" session complete s2 >/dev/null
mkdir -p "$WS/.agent/traces/default"
echo '{"seq":1,"at":"2020-01-01T00:00:00.000Z","data":{}}' >"$WS/.agent/traces/default/s2.jsonl"
echo '{"seq":1,"at":"2020-01-01T00:00:00.000Z","data":{}}' >"$WS/.agent/traces/default/s1.jsonl"
old "$WS"/.agent/traces/default/*
# Planted links: a session folder and an archive pointing outside.
echo keep >"$OUTSIDE/20200101T000000.000Z.json"
echo keep >"$OUTSIDE/victim.json"
ln -s "$OUTSIDE" "$SD/.compactions/evil"
ln -s "$OUTSIDE/victim.json" "$SD/.compactions/s1/20190101T000000.000Z.json"
ln -s "$OUTSIDE" "$CD/evil"
OUTSIDE_SUM=$(tree_sum "$OUTSIDE")

# ---- --dry-run changes nothing -------------------------------------------
BEFORE=$(tree_sum "$WS")
run gc --older-than 30d --dry-run
check "dry run by age: the finished session's trace" out_has "trace .agent/traces/default/s2.jsonl"
check "dry run by age: not the running session's trace" eval '! grep -qF "traces/default/s1.jsonl" "$TMP/out"'
check "dry run by age: not the checkpoints made today" eval '! grep -qF "checkpoint" "$TMP/out"'
run gc --keep 1 --dry-run
check "dry run: exit 0" rc_is 0
check "dry run: the tree is byte-identical" eval '[ "$(tree_sum "$WS")" = "$BEFORE" ]'
check "dry run: says what it would free" out_has "would free"
check "dry run: names the oldest checkpoint" out_has "would remove checkpoint .agent/checkpoints/s1/$(basename "$V1")"
check "dry run: the unnamed old archive" out_has ".compactions/s1/20200102T000000.000Z.json"
check "dry run: not the archive s1 names" eval '! grep -qF ".compactions/s1/20200101T000000.000Z.json" "$TMP/out"'
check "dry run: --keep leaves traces" eval '! grep -qF "trace " "$TMP/out"'
check "dry run: one rotated journal" eval '[ "$(grep -c "rotated journal" "$TMP/out")" = 1 ]'
check "dry run: nothing outside" eval '! grep -qE "evil|victim|20190101" "$TMP/out"'
run --read-only gc --keep 1
check "--read-only without --dry-run: exit 2" rc_is 2

# ---- the real run ---------------------------------------------------------
run gc --keep 1
check "gc: exit 0" rc_is 0
run gc --older-than 30d
check "gc by age: exit 0" rc_is 0
check "gc: says what it freed" out_has "freed"
check "gc: s1 keeps its newest checkpoint and the tombstone" \
	eval '[ "$(ls "$CD/s1" | wc -l)" = 2 ] && grep -q tombstone "$CD"/s1/*.json'
check "gc: the oldest checkpoint is gone" test ! -e "$V1"
check "gc: s2's only checkpoint stays" eval '[ "$(ls "$CD/s2" | wc -l)" = 1 ]'
check "gc: the archive s1 names stays" test -f "$SD/.compactions/s1/20200101T000000.000Z.json"
check "gc: the older unnamed one went" test ! -e "$SD/.compactions/s1/20200102T000000.000Z.json"
check "gc: by age, the newer unnamed one too" test ! -e "$SD/.compactions/s1/20200105T000000.000Z.json"
check "gc: the rollback bookkeeping stays" test -f "$SD/.rollbacks/s1/compensated.json"
check "gc: the running session's trace stays" test -f "$WS/.agent/traces/default/s1.jsonl"
check "gc: the finished session's trace went" test ! -e "$WS/.agent/traces/default/s2.jsonl"
check "gc: the live journal and one rotated remain" eval '[ "$(ls "$WS"/JOURNAL*.jsonl | wc -l)" = 2 ]'
check "gc: sessions untouched" eval 'jq -e .id "$SD/s1.json" >/dev/null && jq -e .id "$SD/s2.json" >/dev/null'
check "gc: nothing outside changed" eval '[ "$(tree_sum "$OUTSIDE")" = "$OUTSIDE_SUM" ]'
check "gc: the planted links are still there" eval '[ -L "$SD/.compactions/evil" ] && [ -L "$CD/evil" ]'
"$AC" -w "$WS" checkpoint create s1 >/dev/null
check "gc: the next checkpoint gets version 7 (none reused)" \
	eval '"$AC" -w "$WS" checkpoint list s1 | grep -qE "^ +7 "'
run checkpoint rollback s1 --latest --yes
check "gc: what stays is loadable (rollback to the latest)" rc_is 0
run gc --keep 1 --older-than 30d
check "gc again: nothing more to free" out_has "freed 0 bytes in 0 files"

# ---- a seed-style writer while gc runs ------------------------------------
# Checkpoints 1..N of session w and sessions w1..wN, each written to a
# temp name and renamed into place, while gc --keep 5 runs in a loop.
N=80
mkdir -p "$CD/w"
writer() {
	for i in $(seq 1 $N); do
		printf '{"checkpointId":"c%d","sessionId":"w","agentId":"a","createdAt":"2020-01-01T00:00:00.000Z","version":%d,"parentId":null,"nodeId":"n","lastInput":"","lastInputType":"text","lastOutput":"","messageHistory":[],"properties":{}}\n' "$i" "$i" >"$CD/w/c$i.json.tmp" &&
			mv "$CD/w/c$i.json.tmp" "$CD/w/c$i.json" || echo "lost c$i"
		printf '{"id":"w%d","createdAt":"2020-01-01T00:00:00.000Z","updatedAt":"2020-01-01T00:00:00.000Z","task":"t","status":"completed","conversationHistory":[],"metadata":{}}\n' "$i" >"$SD/w$i.json.tmp" &&
			mv "$SD/w$i.json.tmp" "$SD/w$i.json" || echo "lost w$i"
	done
}
writer >"$TMP/writer.out" 2>&1 &
WRITER=$!
GC_FAILED=0
while kill -0 "$WRITER" 2>/dev/null; do
	"$AC" -w "$WS" gc --keep 5 >/dev/null 2>>"$TMP/gc.err" || GC_FAILED=1
done
wait "$WRITER"
check "writer: every rename succeeded" test ! -s "$TMP/writer.out"
check "gc during writes: every run exited 0" eval '[ "$GC_FAILED" = 0 ]'
check "gc during writes: every session the writer wrote is there" \
	eval '[ "$(ls "$SD"/w*.json | wc -l)" = "$N" ]'
check "gc during writes: every session parses" eval 'cat "$SD"/w*.json | jq -s length >/dev/null'
check "gc during writes: the newest checkpoint is there" test -f "$CD/w/c$N.json"
check "gc during writes: no temp file touched" eval '! ls "$CD"/w/*.tmp 2>/dev/null'
"$AC" -w "$WS" gc --keep 5 >/dev/null
check "after the writer: the newest 5 stay" eval '[ "$(ls "$CD/w" | wc -l)" = 5 ] && [ -f "$CD/w/c$((N - 4)).json" ]'
check "after the writer: they all load" eval '"$AC" -w "$WS" checkpoint list w | grep -c "^ " | grep -qx 5'

# ---- killed in the middle ---------------------------------------------------
# SIGKILL at some point of a long gc: whatever remains is whole and loads.
mkdir -p "$CD/k"
for i in $(seq 1 400); do
	printf '{"checkpointId":"k%d","sessionId":"k","agentId":"a","createdAt":"2020-01-01T00:00:00.000Z","version":%d,"parentId":null,"nodeId":"n","lastInput":"","lastInputType":"text","lastOutput":"","messageHistory":[],"properties":{}}\n' "$i" "$i" >"$CD/k/k$i.json"
done
for delay in 0.01 0.03 0.06; do
	"$AC" -w "$WS" gc --keep 1 >/dev/null 2>&1 &
	GC=$!
	sleep "$delay"
	kill -KILL "$GC" 2>/dev/null
	wait "$GC" 2>/dev/null
	check "killed after ${delay}s: every remaining checkpoint is valid JSON" \
		eval 'jq -en "all(inputs; .version)" "$CD"/k/*.json >/dev/null'
	run checkpoint list k
	check "killed after ${delay}s: they all list, none reported" \
		eval 'rc_is 0 && [ ! -s "$TMP/err" ] && [ "$(grep -c "^ " "$TMP/out")" = "$(ls "$CD/k" | wc -l)" ]'
	check "killed after ${delay}s: the newest is there" test -f "$CD/k/k400.json"
done

finish
