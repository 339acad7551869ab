#!/usr/bin/env bash
# One bad read moves nothing: a session file torn by a writer keeps its last
# good row (marked unreadable) and the cursor on its id; a file removed and
# written again gets the cursor back; an action key meanwhile acts on that
# id or refuses, naming it, never on a neighbour; the open conversation
# keeps its last good read and reloads once the file is readable again.
. "$(dirname "$0")/lib/tmux.sh" "$@"
ac() { "$agentctl" -w "$ws" "$@" >/dev/null; }
dir=$ws/.agent/sessions
ac session create "alpha task" --id a1
ac session create "bravo task" --id b1
ac session append b1 '{"role":"user","content":"bravo-msg-1"}'
cp "$dir/b1.json" "$ws.b1v1"
ac session append b1 '{"role":"assistant","content":"bravo-msg-2"}'
cp "$dir/b1.json" "$ws.b1v2"
cp "$ws.b1v1" "$dir/b1.json"
ac session create "charlie task" --id c1
at_exit() { rm -f "$ws.b1v1" "$ws.b1v2"; }
tear() { printf '{"id": "b1", "task": "bravo' > "$dir/b1.json"; } # in place, cut short
put() { cp "$1" "$dir/.b1.new" && mv "$dir/.b1.new" "$dir/b1.json"; }  # atomic

dashboard 140 30
check "three sessions" wait_for "alpha task"
keys j
check "the cursor on b1 (2 of 3)" wait_for "sorted by last update  2/3"
tear
check "torn: b1's row is kept, marked unreadable" wait_for "! unreadable"
check "torn: bravo still listed" wait_for "bravo task"
check "torn: the cursor stays on b1 (2 of 3)" wait_for "sorted by last update  2/3"
keys p
check "torn: p refuses, naming b1" wait_for "pause b1:"
check "torn: no dialog for a neighbour (c1)" absent "session c1?"
check "torn: no dialog for a neighbour (a1)" absent "session a1?"
put "$ws.b1v1"
gone_soon() { for _ in $(seq 50); do absent "$1" && return 0; sleep 0.1; done; return 1; }
check "readable again: the mark goes" gone_soon "! unreadable"
keys Escape

rm "$dir/b1.json"
sleep 0.5
keys p
check "removed: p refuses, naming b1" wait_for "b1 is not listed"
check "removed: no dialog for a neighbour (c1)" absent "session c1?"
check "removed: no dialog for a neighbour (a1)" absent "session a1?"
keys Escape
keys Enter
check "removed: Enter opens no neighbour's conversation" absent "Conversation a1"
check "...and says why" wait_for "b1 is not listed"
keys Escape
put "$ws.b1v1"
check "re-created: listed again" wait_for "bravo task"
check "re-created: the cursor is back on b1" wait_for "sorted by last update  2/3"
keys p
check "re-created: p asks about b1" wait_for "Pause session b1?"
keys n

keys /
keys bravo Enter
keys Enter
check "the conversation of b1" wait_for "bravo-msg-1"
tear
sleep 0.5
check "torn: the conversation keeps its messages" wait_for "bravo-msg-1"
check "torn: and says the file is unreadable" wait_for "showing the last good read"
put "$ws.b1v2"
check "readable again: the conversation reloads" wait_for "bravo-msg-2"
rm "$dir/b1.json"
sleep 0.5
put "$ws.b1v1"
sleep 0.3
put "$ws.b1v2"
check "removed and re-created: still the conversation" wait_for "bravo-msg-2"
keys Escape
keys q
finish
