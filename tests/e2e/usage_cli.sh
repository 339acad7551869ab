#!/usr/bin/env bash
# agentctl usage end to end, with HOME pointed at a fixture tree of Claude
# Code and Codex transcripts (tests/fixtures/usage) and the workspace's own
# recorded turns: the daily, session and block reports and their sums, the
# workspace filter and --all-projects, --since, --json as one document, the
# config's pricing, an unknown model's cost shown as unknown, the index
# (a warm run reads nothing; its cache under XDG_CACHE_HOME; a corrupt one
# rebuilt), and bad arguments (exit 2, one line). On either store
# (lib/store.sh: STORE=files|pg): the workspace's own turns are in it.
# Usage: [STORE=pg] usage_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
. "$(dirname "$0")/lib/usage_home.sh"

run usage
check "daily: exit 0" rc_is 0
check "daily: 2026-11-20 sums claude (deduped, sidechain) and codex" \
	eval 'grep -qE "^2026-11-20 +1313 +172 +100 +1350 +2935 +0\.[0-9]{4}$" "$TMP/out"'
check "daily: 2026-11-21" eval 'grep -qE "^2026-11-21 +20 +40 +0 +0 +60 " "$TMP/out"'
check "daily: the total line" eval 'grep -qE "^total +1333 +212 +100 +1350 +2995 " "$TMP/out"'
check "daily: the other project is not counted" eval '! grep -q 3000 "$TMP/out"'
check "the index is in the cache folder" test -s "$TMP/cache/agentctl/usage-index.bin"

run usage --json
check "--json: one document" jq_is "$TMP/out" '.kind' daily
check "--json: warm run reads no file" jq_is "$TMP/out" '.files | "\(.seen) \(.read) \(.bytesRead)"' "3 0 0"
check "--json: cost of known models" jq_is "$TMP/out" '.totals.costUsd > 0' true
run usage --all-projects --json
check "--all-projects: the other project's 2000 tokens" jq_is "$TMP/out" '.totals.totalTokens' 4995

run usage session --json
check "session: one row per session, by last activity" jq_is "$TMP/out" \
	'[.rows[] | "\(.source):\(.sessionId[0:8]):\(.totalTokens)"] | join(",")' "codex:d2222222:1760,claude:c1111111:1235"
check "session: the project is the cwd" jq_is "$TMP/out" '.rows[0].project' "$WS"
run usage block --json
check "block: two 5-hour blocks" jq_is "$TMP/out" '[.rows[] | .start] | join(",")' \
	"2026-11-20T10:00:00.000Z,2026-11-21T09:00:00.000Z"
check "block: the first ends 5 hours after its start" jq_is "$TMP/out" '.rows[0].end' "2026-11-20T15:00:00.000Z"
run usage --since 2026-11-21 --json
check "--since DATE" jq_is "$TMP/out" '[.rows[] | .date] | join(",")' "2026-11-21"

# The workspace's own turns are a source too.
"$AC" -w "$WS" session create "own" --id own1 --tenant acme >/dev/null
"$AC" -w "$WS" session record-turn own1 --usage '{"inputTokens":5,"outputTokens":5,"model":"claude-sonnet-4-5"}' >/dev/null
run usage session --json
check "agentctl's turn rows are counted" jq_is "$TMP/out" \
	'[.rows[] | select(.source == "agentctl") | "\(.sessionId):\(.totalTokens)"] | join(",")' "own1:10"

# A model the pricing table lacks: its cost is unknown, not 0.
"$AC" -w "$WS" session record-turn own1 --usage '{"inputTokens":7,"outputTokens":3,"model":"mystery-1"}' >/dev/null
run usage --json
check "unknown model: cost null" jq_is "$TMP/out" '.totals.costUsd' null
check "unknown model: its tokens named" jq_is "$TMP/out" '.totals.unpricedTokens' 10
run usage
check "unknown model: the table says unknown" eval 'grep -qE "^total .* unknown$" "$TMP/out" && grep -q "cost unknown for 10 tokens" "$TMP/out"'
# The config's pricing prices it.
mkdir -p "$XDG_CONFIG_HOME/agent"
printf '{"pricing":{"mystery":{"input":1000000,"output":1000000}}}\n' >"$XDG_CONFIG_HOME/agent/config.json"
run usage --since 2026-11-22 --json
check "pricing from the config" jq_is "$TMP/out" '.totals.costUsd > 9.99' true
printf '{"pricing":{"mystery":{"input":-1}}}\n' >"$XDG_CONFIG_HOME/agent/config.json"
run usage
check "bad pricing: exit 2 naming the field" eval '[ $RC -eq 2 ] && grep -q "pricing.mystery.input" "$TMP/err"'
rm "$XDG_CONFIG_HOME/agent/config.json"

# A corrupt index is rebuilt, with the same numbers.
run usage --all-projects --json
before=$(jq -c .totals "$TMP/out")
printf 'garbage' >"$TMP/cache/agentctl/usage-index.bin"
run usage --all-projects --json
check "corrupt index: rebuilt" jq_is "$TMP/out" '.files.indexRebuilt' true
check "corrupt index: same totals" eval '[ "$(jq -c .totals "$TMP/out")" = "$before" ]'

# An index that cannot be written: said, and the report stands.
printf 'a file' >"$TMP/cache-file"
XDG_CACHE_HOME=$TMP/cache-file run usage --all-projects --json
check "unwritable index: exit 0, the same totals" eval '[ $RC -eq 0 ] && [ "$(jq -c .totals "$TMP/out")" = "$before" ]'
check "unwritable index: one note saying so" grep -q "the index was not saved" "$TMP/err"

# Bad usage: exit 2, one line.
for args in "weekly" "--since yesterday" "daily session" "--since"; do
	run usage $args
	check "usage $args: exit 2, one line" eval '[ $RC -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]'
done
finish
