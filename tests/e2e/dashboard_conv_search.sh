#!/usr/bin/env bash
# The Sessions pane's / filter also finds text inside conversations: the
# matching message's number and snippet show in the row, hostile bytes in
# it escaped, a session that changes is searched again, and Enter opens
# the conversation at that message.
. "$(dirname "$0")/lib/tmux.sh" "$@"
mkdir -p "$ws/.agent/sessions"
history() { # N HIT-AT HIT-TEXT: N user messages, message HIT-AT says HIT-TEXT
  local out="[" i
  for i in $(seq 1 "$1"); do
    [ "$i" -gt 1 ] && out+=","
    if [ "$i" -eq "$2" ]; then out+="{\"role\":\"user\",\"content\":\"$3\"}"
    else out+="{\"role\":\"user\",\"content\":\"message number $i filler\"}"; fi
  done
  echo "$out]"
}
session() { # id task updated history
  printf '{"id":"%s","createdAt":"%s","updatedAt":"%s","task":"%s","status":"running","conversationHistory":%s,"metadata":{}}' \
    "$1" "$3" "$3" "$2" "$4" > "$ws/.agent/sessions/$1.json"
}
session alpha "first task" 2026-01-03T00:00:00.000Z "$(history 40 33 'the ZANZIBAR treasure \u001b[31mmap')"
session beta "second task" 2026-01-02T00:00:00.000Z "$(history 3 9 x)"
session gamma "mentions zanzibar in its task" 2026-01-01T00:00:00.000Z "$(history 2 9 x)"

dashboard 140 30
check "sessions listed" wait_for "second task"
keys /
send z a n z i b a r
check "a conversation match shows its message and snippet" wait_for "#33 the ZANZIBAR treasure"
check "its escape sequence is made visible" wait_for "^[[31mmap"
check "a task match stays listed" wait_for "mentions zanzibar in its task"
check "a session without it is filtered out" absent "second task"
check "the count of sessions found is shown" wait_for "/zanzibar: found in the conversation of 1 session"
keys Enter
# A session that comes to hold the text is searched again alone, live.
"$agentctl" -w "$ws" session append beta '{"role":"user","content":"now Zanzibar is here too"}' >/dev/null
check "a conversation that changes is searched again" wait_for "#4 now Zanzibar is here too"
keys g
keys j
keys Enter
check "Enter opens the conversation" wait_for "Conversation alpha"
check "at the matching message" wait_for "user  #33"
check "the first messages are scrolled past" absent "message number 1 filler"
keys Escape
keys Escape
keys Escape
check "Esc back to the full list" wait_for "second task"
# The count each key typed replaced is shown, not kept in the log (L):
# eight keys made no eight log lines.
keys L
check "the log has no line per key typed" absent "/zanz: found"
check "nor the last count" absent "/zanzibar: found"
keys Escape
send q
check "q quits" wait_gone
finish
