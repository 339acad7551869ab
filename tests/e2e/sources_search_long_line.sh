#!/usr/bin/env bash
# `session search` over a Claude Code transcript holding a line longer than
# AC_SOURCE_LINE_MAX (64 MiB; a sparse file's zeros, as a hostile or broken
# writer leaves): the transcript is read a block at a time, never held, so
# the lines after the long one are still found with the message number
# `session show` gives, and a needle only inside the long line is not found
# and the search says that a line was too long to search (exit 0, as for
# any file skipped). Before, the whole file was read into memory.
# Usage: sources_search_long_line.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/sources_home.sh"
L=0c0c0c0c-0000-4000-8000-00000000001f
f=$HOME/.claude/projects/$slug/$L.jsonl
printf '%s\n' "{\"type\":\"user\",\"cwd\":\"$WS\",\"timestamp\":\"2025-10-03T10:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"alpha before the long line\"}}" >"$f"
printf '{"type":"assistant","cwd":"%s","message":{"role":"assistant","content":"beta-in-long ' "$WS" >>"$f"
truncate -s +65M "$f"
printf 'beta-in-long"}}\n' >>"$f"
printf '%s\n' "{\"type\":\"assistant\",\"cwd\":\"$WS\",\"timestamp\":\"2025-10-03T10:00:02Z\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"gamma after the long line\"}]}}" >>"$f"
tree_sum >"$TMP/before"

run session search "gamma after" --json
check "a line after the long one: found, exit 0" \
	eval "rc_is 0 && [ \"\$(jq_out '[.results[] | select(.sessionId == \"$L\")] | length')\" = 1 ]"
n=$(jq_out "[.results[] | select(.sessionId == \"$L\")][0].message")
check "its message number is the one session show gives" \
	eval "\"\$AC\" -w \"\$WS\" session show $L --json </dev/null | jq -r \".conversation[$n - 1] | tojson\" | grep -q 'gamma after'"
run session search "alpha before" --json
check "the line before it: found" [ "$(jq_out "[.results[] | select(.sessionId == \"$L\")] | length")" = 1 ]

run session search "beta-in-long" --json
check "a needle only inside the long line: no hit, exit 0" \
	eval "rc_is 0 && [ \"\$(jq_out '[.results[] | select(.sessionId == \"$L\")] | length')\" = 0 ]"
check "and the search says a line was too long to search, naming the file" \
	eval "err_has '$L\\.jsonl: 1 line too long to search, not searched'"

tree_sum >"$TMP/after"
check "the transcripts were not written" diff -q "$TMP/before" "$TMP/after"
finish
