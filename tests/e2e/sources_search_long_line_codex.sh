#!/usr/bin/env bash
# `session search` over Codex rollouts holding a line longer than
# AC_SOURCE_LINE_MAX (64 MiB of a sparse file's zeros), one plain and one
# compressed with zstd (a few KiB that decompress to 65 MiB: a small zstd
# bomb): each is read a block at a time (decompressed as it goes), the long
# line never held, so the message after it is found with the number
# `session show` gives and the search says a line was too long to search.
# Before, a plain rollout was read whole and its long line copied again
# (a 300 MiB rollout: 852 MB resident, ASan build; now 172 MB), and a
# compressed one was decompressed into memory line and all.
# Usage: sources_search_long_line_codex.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/sources_home.sh"
command -v zstd >/dev/null || { echo "zstd is missing: run scripts/install-deps.sh"; exit 1; }
P=01a1f82f-1e80-7101-8101-0000000007a1
Z=01a1f82f-1e80-7101-8101-0000000007a2
dir=$HOME/.codex/sessions/2026/11/20
mkdir -p "$dir"
rollout() { # ID FILE: a session, a prompt, a 65 MiB line, a second prompt
  local item='{"timestamp":"2026-11-20T09:00:0%s.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"%s"}]}}\n'
  printf '{"timestamp":"2026-11-20T09:00:00.000Z","type":"session_meta","payload":{"id":"%s","timestamp":"2026-11-20T09:00:00.000Z","cwd":"%s","originator":"codex_cli_rs","cli_version":"0.150.0","source":"cli"}}\n' "$1" "$WS" >"$2"
  printf "$item" 1 "alpha before the long line" >>"$2"
  printf '{"timestamp":"2026-11-20T09:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"beta-in-long ' >>"$2"
  truncate -s +65M "$2"
  printf 'beta-in-long"}]}}\n' >>"$2"
  printf "$item" 3 "gamma after the long line" >>"$2"
}
rollout "$P" "$dir/rollout-2026-11-20T09-00-00-$P.jsonl"
rollout "$Z" "$TMP/z.jsonl"
zstd -q -3 "$TMP/z.jsonl" -o "$dir/rollout-2026-11-20T09-00-00-$Z.jsonl.zst"
rm -f "$TMP/z.jsonl"
tree_sum >"$TMP/before"

for id in "$P" "$Z"; do
  what=plain; [ "$id" = "$Z" ] && what=zstd
  run session search "gamma after" --json
  check "$what: the prompt after the long line is found, exit 0" \
	eval "rc_is 0 && [ \"\$(jq_out '[.results[] | select(.sessionId == \"$id\")] | length')\" = 1 ]"
  n=$(jq_out "[.results[] | select(.sessionId == \"$id\")][0].message")
  check "$what: its message number ($n) is the one session show gives" \
	eval "\"\$AC\" -w \"\$WS\" session show $id --json </dev/null | jq -r \".conversation[$n - 1] | tojson\" | grep -q 'gamma after'"
  check "$what: and the search says a line was too long to search, naming the file" \
	eval "err_has '$id\\.jsonl(\\.zst)?: 1 line too long to search, not searched'"
  run session search "beta-in-long" --json
  check "$what: a needle only inside the long line: no hit, exit 0" \
	eval "rc_is 0 && [ \"\$(jq_out '[.results[] | select(.sessionId == \"$id\")] | length')\" = 0 ]"
done
run session search "alpha before" --json
check "the prompt before it: found in both" \
	[ "$(jq_out "[.results[] | select(.sessionId == \"$P\" or .sessionId == \"$Z\")] | length")" = 2 ]

tree_sum >"$TMP/after"
check "the transcripts were not written" diff -q "$TMP/before" "$TMP/after"
finish
