#!/usr/bin/env bash
# TOKENS is shown for a transcript whose tool's listing counts none
# (issue 27, "Wording and frames"; it showed "-"): a Codex rollout's row
# shows its session's total as `agentctl usage` counts it (1,760 tokens:
# 1.8k), taken from the usage index the dashboard's usage meter keeps (no
# transcript read again for it), at 80x24, 120x40 and 200x60. The
# rollout is written as codex-rs writes it (codex-rs/protocol/src/
# protocol.rs: SessionMeta, TurnContext, EventMsg::TokenCount with
# info.total_token_usage), in this workspace.
. "$(dirname "$0")/lib/tmux.sh" "$@"
home=$ws.home
at_exit() { rm -rf "$home"; }
real=$(cd "$ws" && pwd -P)
cx=$home/.codex/sessions/2026/11/20
mkdir -p "$cx" "$ws/.agent/sessions"
sed "s|@WS@|$real|g" "$(dirname "$0")/../fixtures/usage/home/.codex/sessions/2026/11/20/rollout-2026-11-20T11-00-00-d2222222-2222-4222-8222-222222222222.jsonl" \
	>"$cx/rollout-2026-11-20T11-00-00-d2222222-2222-4222-8222-222222222222.jsonl"
export HOME=$home XDG_CACHE_HOME=$ws.cache
check "agentctl usage counts 1,760 tokens for the rollout" \
	eval '[ "$("$agentctl" -w "$ws" usage session --json | jq -r ".rows[] | select(.sessionId | startswith(\"d2222222\")) | .totalTokens")" = 1760 ]'
rm -rf "$ws.cache"
row() { screen | grep -F "d2222222" | grep -v "needs you"; }
tokens_shown() { # the figure, once the meter's first scan is in
	for _ in $(seq 50); do row | grep -qE " $1 +[0-9]+[smhd]( |$)" && return 0; sleep 0.1; done
	row; return 1
}
for size in 80x24 120x40 200x60; do
	prefix="env HOME=$home XDG_CACHE_HOME=$ws.cache" dashboard "${size%x*}" "${size#*x}"
	wait_for "d2222222" >/dev/null
	check "$size: the Codex row's TOKENS is its usage total" \
		tokens_shown '1\.8k'
	check "$size: not a dash" eval '! row | grep -qE " - +[0-9]+[smhd]( |$)"'
	keys q
	wait_gone
done
finish
