#!/usr/bin/env bash
# The dashboard on a workspace whose journal and operation log are FIFOs
# (issue 11 item 9): it draws, says which file it cannot read, and q quits.
# On the old code the open blocked before the first frame.
. "$(dirname "$0")/lib/tmux.sh" "$@"

mkdir -p "$ws/.agent"
mkfifo "$ws/JOURNAL.jsonl" "$ws/.agent/operations.jsonl"
dashboard 160 30
check "the dashboard draws" wait_for "Journal"
check "it says a file is not a regular file" wait_for "not a regular file"
send q
check "q quits" wait_gone
finish
