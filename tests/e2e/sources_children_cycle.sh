#!/usr/bin/env bash
# `session list --children` over Codex rollouts whose parents make a
# cycle, as only a hand-edited or hostile file can (X a fork of Y, Y a fork
# of X, W a fork of itself): every session is still listed, once (before,
# X and Y were left out: neither was a top row). Forks are written as
# codex-rs writes them (session_meta.forked_from_id; the README of
# tests/fixtures/sources-current cites recorder.rs).
# Usage: sources_children_cycle.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
X=01a1f82f-1e80-7101-8101-0000000000c1
Y=01a1f82f-1e80-7101-8101-0000000000c2
W=01a1f82f-1e80-7101-8101-0000000000c3
T=01a1f82f-1e80-7101-8101-0000000000c4
mkdir -p "$TMP/ws"
WS=$(realpath "$TMP/ws")
export HOME=$TMP/home XDG_CACHE_HOME=$TMP/cache
dir=$HOME/.codex/sessions/2026/11/20
mkdir -p "$dir"
rollout() { # ID FORKED-FROM (empty: none)
  local from=
  [ -n "$2" ] && from="\"forked_from_id\":\"$2\","
  printf '{"timestamp":"2026-11-20T09:00:00.000Z","type":"session_meta","payload":{"id":"%s",%s"timestamp":"2026-11-20T09:00:00.000Z","cwd":"%s","originator":"codex_cli_rs","cli_version":"0.150.0","source":"cli"}}\n{"timestamp":"2026-11-20T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"prompt of %s"}]}}\n' \
    "$1" "$from" "$WS" "$1" >"$dir/rollout-2026-11-20T09-00-00-$1.jsonl"
}
rollout "$X" "$Y"
rollout "$Y" "$X"
rollout "$W" "$W"
rollout "$T" ""

run session list --children --json
check "list --children: exit 0" rc_is 0
check "list --children: all four sessions, each once" \
	[ "$(jq -r '[.[].id] | sort | join(" ")' "$TMP/out")" = "$X $Y $W $T" ]
run session list --children
check "list --children (text): all four rows" [ "$(grep -c 'prompt of' "$TMP/out")" = 4 ]
finish
