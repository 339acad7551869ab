#!/usr/bin/env bash
# Issue 28 item 3: the journal's block index raced against a foreign
# writer. Seed 004's own journal.js (tests/e2e/lib/seed004_journal.js,
# O_EXCL lock, appendFile) appends large events while `journal query` for
# a rare id and `journal check` run over and over through the index, which
# they extend on the way (blocks are cut while the writer writes). Every
# event the writer acknowledged before a query started must be in that
# query's output, every one acknowledged before a check started counted
# valid by it; what was lost is counted and printed (must be 0). The
# writer must never fail on a lock agentctl held. The index is the files
# store's (PostgreSQL has none): this runs on the files store only.
# Usage: journal_index_race.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
command -v node >/dev/null || { echo "node missing: skipped"; exit 0; }
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 0; }
SEED=$(cd "$(dirname "$0")/lib" && pwd)/seed004_journal.js
GEN=$(cd "$(dirname "$0")/../../bench" && pwd)/gen_journal.py
WS=$TMP/ws
J=$WS/JOURNAL.jsonl
STATS=$TMP/stats
ACKED=$TMP/acked   # one line per event the writer acknowledged
EVENTS=${RACE_EVENTS:-60}
RARE_EVERY=3
export AGENTCTL_DEBUG_STATS=$STATS
mkdir -p "$WS/.agent"
: >"$ACKED"

# Two blocks of another generator's events first, and their index.
python3 "$GEN" --seed 21 "$J" 2.5 >/dev/null 2>&1 || exit 1
INITIAL=$(wc -l <"$J")
run journal query trace.correlation_id=race_rare --all
check "the first query builds the index" \
	eval 'grep -q "index=built" "$STATS" && [ -s "$WS/.agent/index/JOURNAL.jsonl.idx" ]'

# The writer: events of some 48 KiB (a block every ~21 of them), every
# RARE_EVERY-th with the rare id, acknowledged once journal.js exited 0.
PAD=$(head -c 48000 /dev/zero | tr '\0' 'x')
writer() {
	local i corr
	for i in $(seq 1 "$EVENTS"); do
		corr=other_$i
		[ $((i % RARE_EVERY)) = 0 ] && corr=race_rare
		if node "$SEED" "$J" log "$(printf '{"id":"evt_20250910120000_%08x","timestamp":"2025-09-10T12:%02d:%02d.000Z","agent":"Codex","status":"SUCCESS","action":{"type":"CMD_RUN","params":{"command":"make","content_summary":"%s"}},"result":{"message":"race event %d."},"trace":{"correlation_id":"%s"}}' \
			"$i" $((i / 60 % 60)) $((i % 60)) "$PAD" "$i" "$corr")" 2>>"$TMP/writer.err"; then
			echo "$i" >>"$ACKED"
		else
			echo "event $i not written" >>"$TMP/writer.err"
		fi
	done
}
writer &
WRITER=$!

# expected N: the rare events among the first N acknowledged (the writer
# acknowledges in order), one number a line.
expected() { [ "$1" -ge "$RARE_EVERY" ] && seq "$RARE_EVERY" "$RARE_EVERY" "$1"; }
queries=0 checks=0 lost=0 miscounted=0 failed=0
while kill -0 "$WRITER" 2>/dev/null; do
	before=$(wc -l <"$ACKED")
	"$AC" -w "$WS" journal query trace.correlation_id=race_rare --all >"$TMP/q" 2>"$TMP/qe"
	rc=$?
	queries=$((queries + 1))
	[ "$rc" = 0 ] || { failed=$((failed + 1)); cat "$TMP/qe" >&2; }
	grep -o 'race event [0-9]*' "$TMP/q" | sed 's/race event //' | sort >"$TMP/found"
	missing=$(expected "$before" | sort | comm -23 - "$TMP/found" | wc -l)
	[ "$missing" = 0 ] || echo "query $queries: $missing of the rare events acknowledged before it missing" >&2
	lost=$((lost + missing))

	before=$(wc -l <"$ACKED")
	"$AC" -w "$WS" journal check >"$TMP/c" 2>"$TMP/ce"
	rc=$?
	checks=$((checks + 1))
	# A line being written is torn, not invalid: check exits 0.
	[ "$rc" = 0 ] || { failed=$((failed + 1)); cat "$TMP/c" "$TMP/ce" >&2; }
	valid=$(grep -o '[0-9]* valid' "$TMP/c" | tail -n 1 | cut -d' ' -f1)
	if [ -z "$valid" ] || [ "$valid" -lt $((INITIAL + before)) ]; then
		echo "check $checks: ${valid:-no} valid, at least $((INITIAL + before)) acknowledged" >&2
		miscounted=$((miscounted + 1))
	fi
done
wait "$WRITER"

echo "$queries queries and $checks checks during $EVENTS appends: $lost rare events lost, $miscounted checks short, $failed runs failed"
check "the writer acknowledged every event" eval '[ "$(wc -l <"$ACKED")" = "$EVENTS" ]'
check "the writer never failed (no lock held by agentctl)" eval '[ ! -s "$TMP/writer.err" ]'
check "queries and checks ran while the writer wrote" eval '[ "$queries" -ge 3 ] && [ "$checks" -ge 3 ]'
check "no acknowledged event lost by a query" eval '[ "$lost" = 0 ]'
check "no check counted fewer events than acknowledged" eval '[ "$miscounted" = 0 ]'
check "every query and check exited 0" eval '[ "$failed" = 0 ]'
check "the index was extended while racing (by a query or a check)" \
	eval 'grep "file=$J " "$STATS" | grep -q "index=extended"'
check "the queries read through it" eval 'grep "journal-index file=$J " "$STATS" | grep -q "mode=indexed"'

# Quiet again: the final answer is exact, through the index and without.
run journal query trace.correlation_id=race_rare --all
grep -o 'race event [0-9]*' "$TMP/out" | sed 's/race event //' | sort -n >"$TMP/found"
check "after the race: every rare event, once" \
	eval '[ "$(expected "$EVENTS" | sort -n)" = "$(cat "$TMP/found")" ]'
check "after the race: read through the index" \
	eval 'tail -n 1 "$STATS" | grep -q "mode=indexed"'
mkdir -p "$TMP/plain/.agent"
: >"$TMP/plain/.agent/index"
ln "$J" "$TMP/plain/JOURNAL.jsonl"
"$AC" -w "$TMP/plain" journal query trace.correlation_id=race_rare --all >"$TMP/plainq" 2>&1
check "after the race: the same output as without an index" cmp -s "$TMP/out" "$TMP/plainq"
run journal check
check "after the race: check exits 0" rc_is 0
check "after the race: check counts every event" \
	eval 'grep -q "$((INITIAL + EVENTS)) valid" "$TMP/out"'

finish
