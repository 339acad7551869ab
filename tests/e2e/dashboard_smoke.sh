#!/usr/bin/env bash
# Drives the real dashboard in tmux as a person would: open it on a
# workspace, see the journal's events, log a new one and see it appear,
# check hostile bytes are shown escaped, quit with q.
. "$(dirname "$0")/lib/tmux.sh" "$@"
event() { # agent message
  printf '{"agent":"%s","status":"SUCCESS","action":{"type":"FILE_EDIT","params":{}},"result":{"message":"%s"}}' "$1" "$2"
}

"$agentctl" -w "$ws" journal log "$(event Claude 'first event from Claude')" >/dev/null
"$agentctl" -w "$ws" journal log "$(event Codex 'evil \u001b]0;pwned\u0007 title')" >/dev/null
dashboard 100 30
check "dashboard shows the journal" wait_for "first event from Claude"
check "escape sequences are made visible" wait_for "^[]0;pwned^G"
"$agentctl" -w "$ws" journal log "$(event Gemini 'a live event arrives')" >/dev/null
check "a new event appears live" wait_for "a live event arrives"
send q
check "q quits" wait_gone
finish
