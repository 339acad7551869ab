#!/usr/bin/env bash
# Drives the real dashboard in tmux through a conversation's store tabs:
# Messages, Memory (a memo document opened in full, hostile text shown
# escaped), Artifacts (one opened and scrolled to its end), Trace (an
# envelope appended while it is shown appears live), a session without a
# tenant saying so, the keys in the help, and q quitting with status 0.
# Test data goes through `agentctl memo write` where a command exists and
# through the documented on-disk layout (README: .agent/artifacts/...,
# .agent/traces/...) where none does.
. "$(dirname "$0")/lib/tmux.sh" "$@"
session() { # id created-day (the newest is listed first) metadata
  cat > "$ws/.agent/sessions/$1.json" <<JSON
{"id":"$1","createdAt":"2024-05-0$2T10:00:00.000Z","updatedAt":"2024-05-0$2T10:00:00.000Z","task":"task of $1","status":"running","conversationHistory":[{"role":"user","content":"hello from $1"}],"metadata":$3}
JSON
}

mkdir -p "$ws/.agent/sessions"
session s-store 3 '{"tenantId":"acme","userId":"alice","agentId":"Claude"}'
session s-none 2 '{"userId":"bob"}'
"$agentctl" -w "$ws" memo write acme s-store session NOTES.md "remember the milk" >/dev/null
"$agentctl" -w "$ws" memo write acme alice user USER.md "$(printf 'evil \033]0;pwned\007 memo')" >/dev/null
"$agentctl" -w "$ws" memo write other s-store session SECRET.md "another tenant" >/dev/null
mkdir -p "$ws/.agent/artifacts/acme/s-store" "$ws/.agent/traces/acme"
for i in $(seq -w 1 80); do echo "artifact line 0$i"; done > "$ws/.agent/artifacts/acme/s-store/call_1"
echo "END OF ARTIFACT" >> "$ws/.agent/artifacts/acme/s-store/call_1"
trace="$ws/.agent/traces/acme/s-store.jsonl"
echo '{"seq":1,"at":"2024-05-01T10:00:01.000Z","data":{"type":"llm_call","model":"m1"}}' > "$trace"

dashboard 100 30
check "the sessions are listed" wait_for "s-store"
keys Enter
check "Enter opens the conversation" wait_for "Conversation s-store"
check "it starts on the Messages tab" wait_for "[Messages]"
check "the tab bar names the tenant" wait_for "tenant acme"
check "the messages are shown" wait_for "hello from s-store"

keys ']'
check "] shows the Memory tab" wait_for "[Memory 2]"
check "the session's document is listed" wait_for "NOTES.md"
check "the user's document is listed" wait_for "USER.md"
check "another tenant's document is not" absent "SECRET.md"
keys Enter
check "Enter opens a memo document" wait_for "remember the milk"
check "its name is shown" wait_for "memo session/s-store/NOTES.md"
keys Escape
check "Esc goes back to the list" wait_for "[Memory 2]"
keys j
keys Enter
check "hostile text in a document is shown escaped" wait_for "evil ^[]0;pwned^G memo"
keys Escape

keys ']'
check "] shows the Artifacts tab" wait_for "[Artifacts 1]"
check "the artifact is listed" wait_for "call_1"
keys Enter
check "Enter opens the artifact" wait_for "artifact line 001"
check "it is longer than the screen" absent "END OF ARTIFACT"
keys G
check "G scrolls to its end" wait_for "END OF ARTIFACT"
check "the rows are counted" wait_for "of 81"
keys Escape

keys ']'
check "] shows the Trace tab" wait_for "[Trace 1]"
check "a record shows its kind" wait_for "llm_call"
check "and its time" wait_for "10:00:01"
printf '%s\n' '{"seq":2,"at":"2024-05-01T10:00:02.000Z","data":{"type":"tool_result","text":"live envelope \u202e \u001b]0;x"}}' >> "$trace"
check "an appended envelope appears live" wait_for "live envelope"
check "the tab counts it" wait_for "[Trace 2]"
check "hostile trace text is shown escaped" wait_for "live envelope <U+202E>"
keys '['
check "[ goes to the previous tab" wait_for "[Artifacts 1]"
keys Escape
check "Esc leaves the conversation" wait_for "1 Sessions"

keys '?'
check "the help names the tab keys" wait_for "conversation: next tab"
keys Escape

keys j
keys Enter
check "a session without a tenant opens" wait_for "Conversation s-none"
keys ']'
check "its store tabs say it has no tenant" wait_for "has no metadata.tenantId"
check "the tab bar says so too" wait_for "no tenant"
keys Escape

keys q
wait_exit
check "q quits with status 0" grep -qx 0 "$ws.exit"

finish
