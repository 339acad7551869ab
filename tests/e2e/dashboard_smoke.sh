#!/usr/bin/env bash
# Drives the real dashboard in tmux as a person would: open it on a
# workspace, see the journal's events, log a new one and see it appear,
# check hostile bytes are shown escaped, quit with q.
set -u
agentctl=$(realpath "$1")
command -v tmux >/dev/null || { echo "tmux is missing: run scripts/install-deps.sh"; exit 1; }
ws=$(mktemp -d)
sock="agentctl-e2e-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$ws"' EXIT
passed=0 failed=0
check() { # description, command...
  if "${@:2}"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1"; fi
}
event() { # agent message
  printf '{"agent":"%s","status":"SUCCESS","action":{"type":"FILE_EDIT","params":{}},"result":{"message":"%s"}}' "$1" "$2"
}
screen() { tmux -L "$sock" capture-pane -p -t e2e; }
wait_for() { # text: waits up to 5 s for text on screen
  for _ in $(seq 50); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
  screen; return 1
}

"$agentctl" -w "$ws" journal log "$(event Claude 'first event from Claude')" >/dev/null
"$agentctl" -w "$ws" journal log "$(event Codex 'evil \u001b]0;pwned\u0007 title')" >/dev/null
tmux -L "$sock" new-session -d -s e2e -x 100 -y 30 "$agentctl -w $ws"
check "dashboard shows the journal" wait_for "first event from Claude"
check "escape sequences are made visible" wait_for "^[]0;pwned^G"
"$agentctl" -w "$ws" journal log "$(event Gemini 'a live event arrives')" >/dev/null
check "a new event appears live" wait_for "a live event arrives"
tmux -L "$sock" send-keys -t e2e q
for _ in $(seq 50); do tmux -L "$sock" has-session -t e2e 2>/dev/null || break; sleep 0.1; done
check "q quits" bash -c "! tmux -L $sock has-session -t e2e 2>/dev/null"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
