#!/usr/bin/env bash
# What is open over the panes nests, and Esc takes it back one layer at a
# time (tui/overlays.c), at 80x24 and 120x40:
#   the journal search's matches, an event in full over them, help over
#   that, the message log over help; Esc: help, the event, the matches,
#   the live tail.
#   a conversation, a filter kept in its tab, help, the log; Esc: help,
#   the filtered conversation, the conversation unfiltered, Sessions.
# The screen is checked after each Esc.
# Usage: dashboard_overlay_stack.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"

S=$ws/.agent/sessions
mkdir -p "$S"
cat >"$S/s-one.json" <<'JSON'
{"id":"s-one","createdAt":"2024-05-01T10:00:00.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"task one","status":"running","conversationHistory":[{"role":"user","content":"about the policy"},{"role":"assistant","content":"unrelated words"}],"metadata":{"userId":"alice","agentId":"Claude","tenantId":"t"}}
JSON
touch -d '-1 min' "$S/s-one.json"
python3 - "$ws" <<'PY'
import json, sys
with open(sys.argv[1] + "/JOURNAL.jsonl", "w") as f:
    for i in range(40):
        f.write(json.dumps({"id": "evt_20250903000000_%08x" % i,
            "timestamp": "2025-09-03T00:00:%02d.000Z" % i, "agent": "Claude", "status": "SUCCESS",
            "action": {"type": "CMD_RUN", "params": {}},
            "result": {"message": "needle event" if i == 7 else "event %d" % i}},
            separators=(",", ":")) + "\n")
PY

# TEXT on screen (waited for), or not (now); the screen on failure.
shows() { wait_for "$1" >/dev/null || { echo "expected: $1"; screen; return 1; }; }
hides() { absent "$1" || { echo "not expected: $1"; screen; return 1; }; }

for size in 80x24 120x40; do
  w=${size%x*} h=${size#*x}
  dashboard "$w" "$h"
  wait_for "s-one" >/dev/null

  # Four layers over the journal pane.
  keys 4
  keys S
  send -l "text~needle"
  keys Enter
  check "$size: the search's matches" shows "1 match"
  keys Enter
  check "$size: the event in full over them" shows '"message": "needle event"'
  keys '?'
  check "$size: help over the event" shows "Esc or ?: back"
  keys L
  check "$size: the log over help" shows "Messages log"
  keys Escape
  check "$size: Esc 1: help again" shows "Esc or ?: back"
  check "$size: Esc 1: the log closed" hides "Messages log"
  keys Escape
  check "$size: Esc 2: the event again" shows '"message": "needle event"'
  check "$size: Esc 2: help closed" hides "Esc or ?: back"
  keys Escape
  check "$size: Esc 3: the matches again" shows "1 match"
  check "$size: Esc 3: the event closed" hides '"message": "needle event"'
  keys Escape
  check "$size: Esc 4: the live tail" shows "event 39"
  check "$size: Esc 4: the search closed" hides "1 match"

  # Four layers over Sessions.
  keys 1
  keys g Enter
  check "$size: the conversation" shows "Conversation s-one"
  send -l "/policy"
  keys Enter
  check "$size: its filter kept" shows "/policy"
  check "$size: the filter hides a message" hides "unrelated words"
  keys '?'
  check "$size: help over the conversation" shows "Esc or ?: back"
  keys L
  check "$size: the log over help" shows "Messages log"
  keys Escape
  check "$size: Esc 1: help" shows "Esc or ?: back"
  keys Escape
  check "$size: Esc 2: the conversation, filtered" shows "about the policy"
  check "$size: Esc 2: still filtered" hides "unrelated words"
  keys Escape
  check "$size: Esc 3: the filter cleared" shows "unrelated words"
  check "$size: Esc 3: still the conversation" shows "Conversation s-one"
  keys Escape
  check "$size: Esc 4: Sessions" hides "Conversation s-one"
  check "$size: Esc 4: the session listed" shows "task one"

  send q
  wait_gone
done
finish
