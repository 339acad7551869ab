#!/usr/bin/env bash
# agentctl gc under an open dashboard: the dashboard keeps following the
# workspace (sessions listed, the kept checkpoints shown, new events
# appear) and quits cleanly.
. "$(dirname "$0")/lib/tmux.sh" "$@"
ac() { "$agentctl" -w "$ws" "$@" >/dev/null; }
event() { # message
  printf '{"agent":"Claude","status":"SUCCESS","action":{"type":"FILE_EDIT","params":{}},"result":{"message":"%s"}}' "$1"
}
ac session create "kept session" --id s1
ac checkpoint create s1 --node old-node
ac checkpoint create s1 --node old-node-2
ac checkpoint create s1 --node newest-node
ac journal log "$(event 'before gc')"
ac journal rotate
ac journal log "$(event 'after rotation')"

dashboard 120 30
check "listed" wait_for "kept session"
keys 3
check "the checkpoints" wait_for "newest-node"
ac gc --keep 1
check "gc removed the older checkpoints" test "$(ls "$ws/.agent/checkpoints/s1" | wc -l)" = 1
check "the kept checkpoint is still shown" wait_for "newest-node"
keys 1
check "the session is still listed" wait_for "kept session"
ac journal log "$(event 'an event after gc')"
keys 4
check "new events still appear" wait_for "an event after gc"
send q
check "q quits" wait_gone
check "exit 0" test "$(cat "$ws.exit")" = 0
finish
