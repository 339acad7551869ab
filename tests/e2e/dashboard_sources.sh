#!/usr/bin/env bash
# Drives the real dashboard in tmux over a coding agent's transcript: a
# Claude Code session written while the dashboard runs appears in the
# Sessions pane (running: its prompt is the last entry); a tool call the
# test appends moves it to waiting (a call without a result, quiet past
# sources.state.permissionMs, here 0); w filters by state; Enter shows the
# tool call and its input; p is refused (read-only source); a runs the
# configured resume command with the id; nothing is written to the
# transcript's folder. The operator's hooks.onStatusChange sees the
# transcript's derived states (running -> waiting), with its tool as
# AGENT_SOURCE.
. "$(dirname "$0")/lib/tmux.sh" "$@"
home=$ws.home
cfg=$ws.cfg
at_exit() { chmod -R u+w "$home" 2>/dev/null; rm -rf "$home" "$cfg" "$ws.resumed" "$ws.hooked"; }
id=c1a0de00-1111-4222-8333-444455556666
slug=$(printf %s "$ws" | sed 's/[^a-zA-Z0-9]/-/g')
proj=$home/.claude/projects/$slug
mkdir -p "$proj" "$cfg/agent" "$ws/.agent/sessions"
# The operator's own config: the resume command records what it was given.
cat >"$cfg/agent/config.json" <<JSON
{"sources": {"claude": {"resumeCommand": ["sh", "-c", "echo \"\$1 \$AGENT_SESSION_ID\" > '$ws.resumed'", "sh", "{id}"]}},
 "hooks": {"onStatusChange": ["sh", "-c", "echo \"\$AGENT_SESSION_ID \$AGENT_SOURCE \$AGENT_OLD_STATE \$AGENT_NEW_STATE\" >> '$ws.hooked'"]}}
JSON
line() { # type uuid timestamp message-json
  printf '{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"%s","sessionId":"%s","version":"1.0.98","type":"%s","message":%s,"uuid":"%s","timestamp":"%s"}\n' \
    "$ws" "$id" "$1" "$4" "$2" "$3"
}
prefix="env HOME=$home XDG_CONFIG_HOME=$cfg AGENT_SOURCES_STATE_PERMISSION_MS=0"
dashboard 140 30

check "the dashboard starts on an empty workspace" wait_for "1 Sessions"
line user u1 2025-10-01T10:00:00.000Z '{"role":"user","content":"Refactor the tokenizer"}' >"$proj/$id.jsonl"
check "a Claude Code session appears, running" wait_for "▶ running"
check "with its first prompt and its tool" eval 'wait_for "Refactor the tokenizer" >/dev/null && wait_for claude-code'
line assistant u2 2025-10-01T10:00:05.000Z '{"role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_7","name":"Bash","input":{"command":"make check"}}]}' >>"$proj/$id.jsonl"
check "an appended tool call without a result: waiting" wait_for "● waiting"
check "no longer running" absent "▶ running"
for _ in $(seq 50); do grep -q waiting "$ws.hooked" 2>/dev/null && break; sleep 0.1; done
check "the hook ran for the transcript: running -> waiting, its tool as the source" \
  grep -qx "$id claude-code running waiting" "$ws.hooked"
keys w
check "w: waiting only, the session shown" eval 'wait_for "[waiting only]" >/dev/null && wait_for "Refactor the tokenizer"'
keys w
# Hidden from the list; the attention strip still names it.
check "w again: running only, the session hidden" \
  eval 'wait_for "[running only]" >/dev/null && ! screen | grep -v "need.* you (! jumps)" | grep -qF "Refactor the tokenizer"'
keys Escape
check "Esc: every state again" wait_for "Refactor the tokenizer"
keys p
check "p on a transcript: refused, read-only source" wait_for "read-only source"
sum=$(sha256sum "$proj/$id.jsonl")
keys Escape # the refusal's popup (its reason is wider than 140 columns)
keys Enter
check "Enter opens its conversation" wait_for "Refactor the tokenizer"
check "with the tool call and its input" eval 'wait_for Bash >/dev/null && wait_for "make check"'
line user u3 2025-10-01T10:00:09.000Z '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_7","content":"all 12 checks passed"}]}' >>"$proj/$id.jsonl"
check "the result appended shows up live in the conversation" wait_for "all 12 checks passed"
keys Escape
check "the result makes it running again" wait_for "▶ running"
sum=$(sha256sum "$proj/$id.jsonl")
keys a
for _ in $(seq 50); do [ -s "$ws.resumed" ] && break; sleep 0.1; done
check "a runs the resume command with the id, whole and in AGENT_SESSION_ID" \
  grep -qx "$id $id" "$ws.resumed"
check "and says how it ended" wait_for "sh exited with status 0"
check "the transcript was never written" [ "$(sha256sum "$proj/$id.jsonl")" = "$sum" ]
keys q
check "q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
finish
