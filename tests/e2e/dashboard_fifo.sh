#!/usr/bin/env bash
# The dashboard on a workspace whose journal and operation log are FIFOs
# (issue 11 item 9): it draws, says which file it cannot read, and q quits.
# On the old code the open blocked before the first frame.
. "$(dirname "$0")/lib/tmux.sh" "$@"

mkdir -p "$ws/.agent"
mkfifo "$ws/JOURNAL.jsonl" "$ws/.agent/operations.jsonl"
tmux -L "$sock" new-session -d -s e2e -x 160 -y 30 "$agentctl -w $ws"
check "the dashboard draws" wait_for "Journal"
check "it says a file is not a regular file" wait_for "not a regular file"
tmux -L "$sock" send-keys -t e2e q
for _ in $(seq 50); do tmux -L "$sock" has-session -t e2e 2>/dev/null || break; sleep 0.1; done
check "q quits" bash -c "! tmux -L $sock has-session -t e2e 2>/dev/null"
finish
