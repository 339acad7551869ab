#!/usr/bin/env bash
# journal check, read and query over a journal large enough to be split
# across cores: what they print must be what one thread prints. One thread
# is what `read --last N` uses (it reads backward), so a forward pass and
# a --last that asks for everything must agree; check must name exactly
# the lines that were spoiled, in order.
# Usage: journal_parallel.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
BENCH=$(cd "$(dirname "$0")/../../bench" && pwd)
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 0; }

WS=$TMP/ws
mkdir -p "$WS"
python3 "$BENCH/gen_journal.py" "$TMP/clean.jsonl" 12 --seed 7 >/dev/null 2>&1
# Spoil every 997th line (a cut object, a bad agent, an empty line, in
# turn) and leave a torn line at the end.
awk 'NR % 997 == 0 { k = (NR / 997) % 3
		if (k == 0) { print substr($0, 1, 40); next }
		if (k == 1) { sub(/"agent":"[A-Za-z]*"/, "\"agent\":\"Nobody\""); print; next }
		print ""; next }
	{ print }' "$TMP/clean.jsonl" >"$WS/JOURNAL.jsonl"
printf '{"id":"evt_torn' >>"$WS/JOURNAL.jsonl"
lines=$(wc -l <"$WS/JOURNAL.jsonl")
everything=$((lines + 10))

run journal check
check "check: exits 1 on invalid lines" rc_is 1
want=$(awk -v n="$lines" 'BEGIN { for (i = 997; i <= n; i += 997) print i; print n + 1 }')
got=$(grep -o '^[^ ]*JOURNAL.jsonl:[0-9]*:' "$TMP/out" | sed 's/.*:\([0-9]*\):$/\1/')
check "check: the spoiled lines and the torn one, in order" [ "$got" = "$want" ]
check "check: the count line" \
	grep -q "JOURNAL.jsonl: $((lines - lines / 997)) valid, $((lines / 997 + 1)) invalid lines$" "$TMP/out"

for args in "read" "read --json" "query agent=Codex" "query status!=SUCCESS agent=Human --json" \
	"query text~needle_corr" "read --strict" "query agent=Nobody" "query agent=Nobody --json"; do
	# shellcheck disable=SC2086
	run journal $args
	cp "$TMP/out" "$TMP/forward"
	# shellcheck disable=SC2086
	run journal $args --last "$everything"
	check "$args: the same bytes forward and backward" cmp -s "$TMP/forward" "$TMP/out"
done
run journal read --strict
check "read --strict: one line per valid event" [ "$(wc -l <"$TMP/out")" -eq $((lines - lines / 997)) ]
# Shown, the spoiled lines come marked, two lines each, in file order.
run journal read
check "read: the valid events and two lines per spoiled one" \
	[ "$(wc -l <"$TMP/out")" -eq $((lines - lines / 997 + 2 * (lines / 997))) ]
want=$(LC_ALL=C awk 'NR % 997 == 0 { print off } { off += length($0) + 1 }' "$WS/JOURNAL.jsonl")
got=$(sed -n 's/^! [^ ]*JOURNAL.jsonl: byte \([0-9]*\): .*/\1/p' "$TMP/out")
check "read: every spoiled line marked, at its byte, in order" [ "$got" = "$want" ]

finish
