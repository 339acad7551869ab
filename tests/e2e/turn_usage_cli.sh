#!/usr/bin/env bash
# Per-turn usage rows through the command line (issue 16 item 2, second
# half): `session record-turn --usage JSON` keeps every field of the seed's
# Usage per turn, `session show` prints the rows and totals (--json:
# usage {turns, totals}), bad --usage is refused whole (exit 2, one line,
# nothing written), and a seed-style writer that rewrites the session with
# no lock while turns are recorded loses no row (on the database: another
# process appending). On either store (lib/store.sh: STORE=files|pg).
# Usage: [STORE=pg] turn_usage_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
export HOME=$TMP/home
mkdir -p "$HOME"
WS=$TMP/ws
S=$WS/.agent/sessions
mkdir -p "$WS"

refused() {
	local name=$1 what=$2 before
	shift 2
	before=$(store_sum)
	run "$@"
	check "$name: exit 2" rc_is 2
	check "$name: one line naming $what" eval '[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qF -- "$what" "$TMP/err"'
	check "$name: nothing written" eval '[ "$(store_sum)" = "$before" ]'
}

run session create "usage" --id u1 --tenant acme
FULL='{"inputTokens":1000,"outputTokens":200,"cacheCreationInputTokens":300,"cacheReadInputTokens":4000,"reasoningTokens":50,"totalTokens":5550,"model":"claude-sonnet-4-5","costUsd":0.5,"x-note":"kept"}'
run session record-turn u1 --usage "$FULL"
check "--usage: exit 0, turn 1" eval '[ $RC -eq 0 ] && [ "$OUT" = 1 ]'
run session record-turn u1 --usage '{"inputTokens":1,"outputTokens":2,"model":"gpt-5"}' --input 7
check "--usage with --input: turn 2" eval '[ $RC -eq 0 ] && [ "$OUT" = 2 ]'
run session record-turn u1 --input 3 --output 4
check "--input/--output alone still work" eval '[ $RC -eq 0 ] && [ "$OUT" = 3 ]'

run session show u1 --json
check "show --json: three rows" jq_is "$TMP/out" '.usage.turns | length' 3
check "show --json: every field of row 1 kept" jq_is "$TMP/out" \
	'.usage.turns[0].usage | "\(.cacheCreationInputTokens) \(.cacheReadInputTokens) \(.reasoningTokens) \(.totalTokens) \(.model) \(.costUsd) \(."x-note")"' \
	"300 4000 50 5550 claude-sonnet-4-5 0.5 kept"
check "show --json: --input wins over --usage's inputTokens" jq_is "$TMP/out" '.usage.turns[1].usage.inputTokens' 7
check "show --json: rows numbered and dated" jq_is "$TMP/out" \
	'[.usage.turns[] | "\(.turn):\(.timestamp | test("^[0-9-]{10}T[0-9:.]{12}Z$"))"] | join(",")' "1:true,2:true,3:true"
check "show --json: totals are the sums" jq_is "$TMP/out" \
	'.usage.totals | "\(.inputTokens) \(.outputTokens) \(.cacheReadInputTokens) \(.turns)"' "1010 206 4000 3"
check "show --json: the document's fields kept" jq_is "$TMP/out" '.task' usage
doc_of u1 >"$TMP/doc"
check "metadata.usage is derived from the rows" jq_is "$TMP/doc" \
	'.metadata.usage | "\(.inputTokens) \(.outputTokens) \(.cacheCreationInputTokens) \(.turns)"' "1010 206 300 3"
on_pg || check "the rows are not a session file" eval '[ -f "$S/.usage/u1.jsonl" ] && ! ls "$S" | grep -q "usage"'
run session list --json
check "session list: one session" jq_is "$TMP/out" 'length' 1
run session show u1
check "show: the per-turn table" eval 'grep -qE "^ +1 [0-9T:.-]+Z +1000 +200 +300 +4000 +50 +5550 +0\.5000 claude-sonnet-4-5$" "$TMP/out"'
# The total: turn 1 reported 5550; the others said nothing of a total, so
# theirs is input + output (16).
check "show: the totals line" eval 'grep -qE "^ +total +1010 +206 +300 +4000 +50 +5566 +- -$" "$TMP/out"'

refused "--usage not JSON" "--usage: not JSON" session record-turn u1 --usage '{"inputTokens":'
refused "--usage negative" "--usage: inputTokens must be a whole number" session record-turn u1 --usage '{"inputTokens":-5}'
refused "--usage fraction" "--usage: reasoningTokens" session record-turn u1 --usage '{"reasoningTokens":2.5}'
refused "--usage count as text" "--usage: totalTokens" session record-turn u1 --usage '{"totalTokens":"9"}'
refused "--usage not an object" "--usage: must be a JSON object" session record-turn u1 --usage '[1]'
refused "--usage past 2^53-1" "--usage: cacheReadInputTokens" session record-turn u1 --usage '{"cacheReadInputTokens":9007199254740992}'
refused "no counts at all" "--usage JSON or --input N" session record-turn u1 --input 1
big=$(head -c 70000 /dev/zero | tr '\0' x)
before=$(store_sum)
run session record-turn u1 --usage "{\"note\":\"$big\"}" --messages '{"role":"user","content":"lost?"}'
check_store "--usage too large: exit 1, nothing written" eval '[ $RC -eq 1 ] && [ "$(store_sum)" = "$before" ] && grep -q "over 65436" "$TMP/err"'

# A seed-style writer (read, modify, temp + rename, no lock) races 20
# recorded turns: its saves may drop metadata.usage updates, never a row.
# On the database the other writer is another process appending.
run session create "race" --id r1 --tenant acme
(
	for i in $(seq 1 60); do
		if on_pg; then
			"$AC" -w "$WS" session append r1 '{"role":"user","content":"foreign"}' >/dev/null 2>&1
			continue
		fi
		python3 - "$S/r1.json" <<'PY' 2>/dev/null
import json, os, sys
p = sys.argv[1]
doc = json.load(open(p))
doc.setdefault("conversationHistory", []).append({"role": "user", "content": "foreign"})
open(p + ".tmp", "w").write(json.dumps(doc, indent=2))
os.rename(p + ".tmp", p)
PY
	done
) &
FOREIGN=$!
for i in $(seq 1 20); do
	"$AC" -w "$WS" session record-turn r1 --usage "{\"inputTokens\":$i,\"outputTokens\":1,\"model\":\"m\"}" \
		>/dev/null 2>>"$TMP/race.err"
done
wait "$FOREIGN"
check "race: no record-turn failed" test ! -s "$TMP/race.err"
run session show r1 --json
check "race: all 20 rows kept" jq_is "$TMP/out" '[.usage.turns[].turn] | join(",")' "$(seq -s, 1 20)"
check "race: totals are the rows' sums" jq_is "$TMP/out" '.usage.totals | "\(.inputTokens) \(.turns)"' "210 20"
run session record-turn r1 --input 0 --output 0
doc_of r1 >"$TMP/doc"
check "race: the next turn writes totals that count every row" jq_is "$TMP/doc" \
	'.metadata.usage | "\(.inputTokens) \(.turns)"' "210 21"
finish
