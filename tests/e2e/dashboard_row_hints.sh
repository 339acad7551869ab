#!/usr/bin/env bash
# The hint line offers only the keys that apply to the selected row (issue
# 27, "Wording and frames"), at 80x24, 120x40 and 200x60: a Codex
# transcript offers a (attach) and no pause, resume or compaction; a
# completed session no pause and no resume; a paused one resume, not
# pause; a running one pause, not resume; an operation without a commit no
# rollback or revert. Such a key pressed anyway is refused on the status
# line with its reason, and nothing is written. `? help` and `q quit` stay
# at the right end throughout.
. "$(dirname "$0")/lib/tmux.sh" "$@"
home=$ws.home
at_exit() { rm -rf "$home"; }
# A Codex rollout as codex-rs writes it (codex-rs/protocol/src/protocol.rs:
# SessionMeta, TurnContext, EventMsg::TokenCount), in this workspace.
real=$(cd "$ws" && pwd -P)
cx=$home/.codex/sessions/2026/11/20
mkdir -p "$cx"
sed "s|@WS@|$real|g" "$(dirname "$0")/../fixtures/usage/home/.codex/sessions/2026/11/20/rollout-2026-11-20T11-00-00-d2222222-2222-4222-8222-222222222222.jsonl" \
	>"$cx/rollout-2026-11-20T11-00-00-d2222222-2222-4222-8222-222222222222.jsonl"
S=$ws/.agent/sessions
mkdir -p "$S"
for st in running paused completed; do
	cat >"$S/s-$st.json" <<JSON
{"id":"s-$st","createdAt":"2024-05-01T10:00:00.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"task $st","status":"$st","conversationHistory":[{"role":"user","content":"hi"}],"metadata":{}}
JSON
done
printf '{"id":"11111111-2222-4333-8444-555555555555","timestamp":"2024-05-01T10:00:00.000Z","sessionId":"s-running","type":"command_run","details":{"command":"make"}}\n' \
	>"$ws/.agent/operations.jsonl"
touch -d '-1 min' "$S"/*.json
sums() { (cd "$ws" && find . -type f -print0 | sort -z | xargs -0 sha256sum; sha256sum "$cx"/*); }
before=$(sums)

hint_has() { hints | grep -qF -- "$1"; }
pick() { # the row whose id the filter finds
	keys Escape Escape
	send /
	send -l "$1"
	keys Enter
}
# A refusal wider than the status line opens the "Not done" popup (any
# key closes it and does nothing else): close it before the next check.
close_popup() { if screen | grep -qF "Not done"; then keys Escape; wait_until_gone "Not done"; fi; }
wait_until_gone() { for _ in $(seq 30); do screen | grep -qF -- "$1" || return 0; sleep 0.1; done; return 1; }
ends_right() { [[ "$(hints)" =~ \?\ help\ +q\ quit\ *$ ]]; }

for size in 80x24 120x40 200x60; do
	prefix="env HOME=$home XDG_CACHE_HOME=$ws.cache" dashboard "${size%x*}" "${size#*x}"
	wait_for "s-running" >/dev/null
	pick d2222222
	wait_for "d2222222" >/dev/null
	check "$size: a transcript offers a attach" eval 'hint_has "a attach"'
	check "$size: and no pause, resume or compaction" \
		eval '! hint_has "p pause" && ! hint_has "r resume" && ! hint_has "c comp"'
	keys c
	check "$size: c on it is refused, saying why" wait_for "c compact: d2222222"
	close_popup
	check "$size: help and quit stay at the right" ends_right
	pick s-completed
	check "$size: a completed session offers neither pause nor resume" \
		eval '! hint_has "p pause" && ! hint_has "r resume" && hint_has "c comp"'
	keys p
	check "$size: p on it is refused, saying why" wait_for "p pause: s-completed is completed"
	close_popup
	check "$size: no dialog opened" absent "Pause session"
	pick s-paused
	check "$size: a paused session offers resume, not pause" \
		eval 'hint_has "r resume" && ! hint_has "p pause"'
	keys p
	check "$size: p on it is refused" wait_for "p pause: s-paused is paused"
	close_popup
	pick s-running
	check "$size: a running session offers pause, not resume nor attach" \
		eval 'hint_has "p pause" && ! hint_has "r resume" && ! hint_has "a attach"'
	keys a
	check "$size: a on it is refused, saying why" wait_for "a attach: s-running is agentctl's own"
	close_popup
	keys Escape Escape 2
	wait_for "make" >/dev/null
	check "$size: an operation without a commit offers no rollback or revert" \
		eval '! hint_has "R rollback" && ! hint_has "v revert"'
	keys R
	check "$size: R on it is refused, saying why" wait_for "R rollback: operation"
	close_popup
	check "$size: help and quit still at the right" ends_right
	keys q
	wait_gone
done
check "nothing was written" eval '[ "$(sums)" = "$before" ]'
finish
