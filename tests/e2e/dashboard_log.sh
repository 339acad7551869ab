#!/usr/bin/env bash
# The message log (issue 13, item 7): a status message cut to the width of
# the status line says the log holds it, and L opens the log with every
# message, its time and its whole text, wrapped. Startup trouble gets one
# clear line: TERM=dumb is refused naming TERM (exit 1), an unreadable
# user config folder is named (exit 1), and a JOURNAL.jsonl that is a
# folder opens the dashboard with the error in the journal pane and the log.
. "$(dirname "$0")/lib/tmux.sh" "$@"

# A message longer than the status line.
dashboard 44 20
wait_for "Sessions"
keys 2
keys R
check "the status line says the log holds the rest" wait_for "L log"
check "the refusal is whole in a popup" wait_for "any key: close"
keys Escape
keys 1
keys p
keys L
check "L opens the message log" wait_for "Messages log"
check "the cut message is there in full" wait_for "checkpoint (3)"
check "with the time it was shown" bash -c 'tmux -L "$0" capture-pane -p -t e2e | grep -qE "[0-9]{2}:[0-9]{2}:[0-9]{2} .*R rolls back"' "$sock"
check "every message is kept" wait_for "select a session first"
check "the log's keys are hinted" bash -c 'tmux -L "$0" capture-pane -p -t e2e | tail -n 1 | grep -q "Esc back"' "$sock"
keys Escape
check "Esc closes the log" wait_for "1 Sessions"
keys '?'
keys G
check "help lists L" wait_for "message log"
keys q
keys q
wait_exit

# TERM=dumb: one line naming TERM, exit 1.
prefix="env TERM=dumb" dashboard 80 10 "2>$ws.err"
wait_exit
check "TERM=dumb exits 1" test "$(cat "$ws.exit")" = 1
check "TERM=dumb is named" grep -q "TERM=dumb is not one" "$ws.err"
check "in one line" test "$(wc -l <"$ws.err")" = 1
tmux -L "$sock" kill-session -t e2e 2>/dev/null

# An unreadable user config folder: named, exit 1.
touch "$ws.home"
prefix="env -u XDG_CONFIG_HOME HOME=$ws.home" dashboard 120 10 "2>$ws.err"
wait_exit
check "an unreadable \$HOME exits 1" test "$(cat "$ws.exit")" = 1
check "the user config is named" grep -qF "user config $ws.home/.config/agent/config.json" "$ws.err"
check "with a way out" grep -q "set XDG_CONFIG_HOME to another folder" "$ws.err"
check "in one line" test "$(wc -l <"$ws.err")" = 1
tmux -L "$sock" kill-session -t e2e 2>/dev/null

# JOURNAL.jsonl a folder: the dashboard opens; the journal pane says so
# once (no doubled path), and so does the log.
mkdir "$ws/JOURNAL.jsonl"
dashboard 100 24
wait_for "Sessions"
keys 4
check "the journal pane says the journal is a folder" wait_for "is a folder"
check "the path is not doubled" bash -c '! tmux -L "$0" capture-pane -p -t e2e | grep -q "JOURNAL.jsonl: .*JOURNAL.jsonl:"' "$sock"
keys L
check "the log holds it" wait_for "not a regular file"
keys Escape q
wait_exit
check "quits with 0" test "$(cat "$ws.exit")" = 0
at_exit() { rm -f "$ws.home" "$ws.err"; }
finish
