#!/usr/bin/env bash
# A running session's conversation opens at its end and follows what the
# agent appends while the view is at the end (as the journal's G does);
# moving up stops following. A finished session opens at its start.
# On either store (lib/store.sh: STORE=files|pg).
# Usage: [STORE=pg] dashboard_conv_follow.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
ac() { "$agentctl" -w "$ws" "$@" >/dev/null; }
messages() { # FROM TO: a JSON array of user messages "msg-NN-mark"
  local out="[" sep=""
  for i in $(seq -f %02g "$1" "$2"); do
    out="$out$sep{\"role\":\"user\",\"content\":\"msg-$i-mark\"}"; sep=","
  done
  echo "$out]"
}
ac session create "finished work" --id done1
ac session append done1 "$(messages 1 30)"
ac session complete done1
ac session create "live work" --id live1
ac session append live1 "$(messages 1 30)"

dashboard 120 30
check "the running session is listed" wait_for "live work"
keys Enter
check "a running session's conversation opens at its last message" wait_for "msg-30-mark"
check "...not at its first" absent "msg-01-mark"
ac session append live1 '{"role":"assistant","content":"msg-31-mark"}'
check "a message the agent appends scrolls into view" wait_for "msg-31-mark"
ac session append live1 '{"role":"assistant","content":"msg-32-mark"}'
check "and the next one" wait_for "msg-32-mark"
keys k
keys k k k k k k k k
ac session append live1 '{"role":"assistant","content":"msg-33-mark"}'
sleep 1
check "moved up: a new message does not pull the view down" absent "msg-33-mark"
keys G
check "G goes back to the end" wait_for "msg-33-mark"
ac session append live1 '{"role":"assistant","content":"msg-34-mark"}'
check "...and follows again" wait_for "msg-34-mark"
keys Escape
keys j
keys Enter
check "a finished session opens at its first message" wait_for "msg-01-mark"
check "...not at its end" absent "msg-30-mark"
keys q
finish
