#!/usr/bin/env bash
# The dashboard on a workspace whose journal and operation log are FIFOs
# (issue 11 item 9): it draws, says which file it cannot read, and q quits.
# On the old code the open blocked before the first frame.
set -u
agentctl=$(realpath "$1")
command -v tmux >/dev/null || { echo "tmux is missing: run scripts/install-deps.sh"; exit 1; }
ws=$(mktemp -d)
sock="agentctl-e2e-fifo-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$ws"' EXIT
passed=0 failed=0
check() { # description, command...
  if "${@:2}"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1"; fi
}
screen() { tmux -L "$sock" capture-pane -p -t e2e; }
wait_for() { # text: waits up to 5 s for text on screen
  for _ in $(seq 50); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
  screen; return 1
}

mkdir -p "$ws/.agent"
mkfifo "$ws/JOURNAL.jsonl" "$ws/.agent/operations.jsonl"
tmux -L "$sock" new-session -d -s e2e -x 160 -y 30 "$agentctl -w $ws"
check "the dashboard draws" wait_for "Journal"
check "it says a file is not a regular file" wait_for "not a regular file"
tmux -L "$sock" send-keys -t e2e q
for _ in $(seq 50); do tmux -L "$sock" has-session -t e2e 2>/dev/null || break; sleep 0.1; done
check "q quits" bash -c "! tmux -L $sock has-session -t e2e 2>/dev/null"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
