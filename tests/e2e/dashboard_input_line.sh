#!/usr/bin/env bash
# What is typed on the bottom line stays in view. A filter (/) or a journal
# search (S) longer than the terminal used to be cut at the right edge, so
# the end being typed, and the cursor, were off screen: the line now drops
# the text's start ("…") instead, on a small terminal too, and with wide
# characters before the cursor.
. "$(dirname "$0")/lib/tmux.sh" "$@"

S=$ws/.agent/sessions
mkdir -p "$S"
cat >"$S/s-one.json" <<'JSON'
{"id":"s-one","createdAt":"2024-05-01T10:00:00.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"a task","status":"running","conversationHistory":[{"role":"user","content":"hello"}],"metadata":{}}
JSON
long=$(printf 'abcdefghij%.0s' 1 2 3 4 5 6 7 8)

dashboard 60 15
wait_for "s-one" >/dev/null

send /
send -l "${long}XYZ"
check "a long filter: its end and the cursor are on the line" wait_for "XYZ_"
check "its start is cut, marked" bash -c "tmux -L $sock capture-pane -p -t e2e | tail -n 1 | grep -qF ' filter: …'"
send -l "日本語"
check "wide characters typed at the end are seen, with the cursor" wait_for "XYZ日本語_"
send BSpace
check "Backspace: the line shows the text without its last character" wait_for "XYZ日本_"
send Escape
check "a short filter keeps its keys" bash -c "sleep 0.2; tmux -L $sock send-keys -t e2e / a b; sleep 0.3; tmux -L $sock capture-pane -p -t e2e | tail -n 1 | grep -qF 'filter: ab_   Enter: keep'"
send Escape Escape

send 4 S
send -l "text~${long}END"
check "a long journal search: its end and the cursor are on the line" wait_for "END_"
check "its start is cut, marked" bash -c "tmux -L $sock capture-pane -p -t e2e | tail -n 1 | grep -qF 'search the journal: …'"
send Escape
send q
check "q quits" wait_exit
finish
