#!/usr/bin/env bash
# A rollback under live agents (issue 27, "Acting on live agents"), in tmux
# with real keys at 80x24, 120x40 and 200x60: three Node agents
# (lib/live_writer.js: seed 000's session store, one committed operation per
# file write, honouring pause requests) keep writing while the operator
# presses R. The dialog says how many sessions are running and offers P;
# P pauses them as p does, waits for the agents to acknowledge, says so,
# and shows the plan again, which then holds for y (no "plan changed").
. "$(dirname "$0")/lib/tmux.sh" "$@"
command -v node >/dev/null || { echo "node is missing"; echo "0 passed, 1 failed"; exit 1; }
command -v jq >/dev/null || { echo "jq is missing"; echo "0 passed, 1 failed"; exit 1; }
WRITER=$(cd "$(dirname "$0")/lib" && pwd)/live_writer.js
S=$ws/.agent/sessions
mkdir -p "$S" "$ws.cfg/agent"
export XDG_CONFIG_HOME=$ws.cfg
echo '{"session": {"quietMs": 150, "waitMs": 5000}}' >"$ws.cfg/agent/config.json"
git -C "$ws" init -q && git -C "$ws" config user.email t@t && git -C "$ws" config user.name t
echo base >"$ws/base.txt" && git -C "$ws" add base.txt && git -C "$ws" commit -qm base
writers=()
at_exit() { [ ${#writers[@]} -gt 0 ] && kill "${writers[@]}" 2>/dev/null; rm -rf "$ws.cfg"; }
running() { # id
  rm -f "$S/.requests/$1.json"
  jq -n --arg id "$1" '{id: $id, createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z", task: "write \($id)", status: "running",
    conversationHistory: [], metadata: {agentId: $id}}' >"$S/$1.json"
}
status_of() { jq -r .status "$S/$1.json"; }
ops() { wc -l <"$ws/.agent/operations.jsonl" 2>/dev/null || echo 0; }

for size in 80x24 120x40 200x60; do
  writers=()
  for w in w1 w2 w3; do
    running "$w"
    node "$WRITER" "$agentctl" "$ws" "$w" 80 2>/dev/null &
    writers+=($!)
  done
  start=$(ops)
  for _ in $(seq 100); do [ "$(ops)" -ge $((start + 6)) ] && break; sleep 0.1; done
  prefix="env XDG_CONFIG_HOME=$ws.cfg" dashboard "${size%x*}" "${size#*x}"
  wait_for "write w1" >/dev/null
  keys 2
  keys A # every session's operations, where Operations follows the selected session
  wait_for "file_write" >/dev/null
  keys g
  keys R
  check "$size: the rollback dialog says the sessions are running" wait_for "3 sessions are still running"
  check "$size: ... and offers P to pause them first" wait_for "P: pause the 3 running sessions first"
  check "$size: the agents are still writing" bash -c "a=\$(wc -l <$ws/.agent/operations.jsonl); sleep 0.5; [ \$(wc -l <$ws/.agent/operations.jsonl) -gt \$a ]"
  keys P
  check "$size: P asks first" wait_for "Pause the 3 running sessions first?"
  check "$size: ... nothing paused yet" bash -c "for w in w1 w2 w3; do [ \"\$(jq -r .status $S/\$w.json)\" = running ] || exit 1; done"
  keys y
  check "$size: y pauses them and says all three acknowledged" wait_for "3 of 3 running sessions acknowledged the pause"
  check "$size: ... every session file says paused" bash -c "for w in w1 w2 w3; do [ \"\$(jq -r .status $S/\$w.json)\" = paused ] || exit 1; done"
  check "$size: ... the agents stopped" bash -c "for i in \$(seq 30); do kill -0 ${writers[*]} 2>/dev/null || exit 0; sleep 0.1; done; exit 1"
  check "$size: ... and the plan is shown again, nothing rolled back yet" wait_for "nothing was rolled back yet"
  check "$size: ... no session is offered for pausing any more" absent "running sessions first"
  before=$(ops)
  keys y
  check "$size: y then holds: rolled back" wait_for "rolled back to before"
  check "$size: ... not refused as a changed plan" absent "the plan changed since it was shown"
  check "$size: ... the rollback is recorded" bash -c "[ \$(wc -l <$ws/.agent/operations.jsonl) -gt $before ]"
  send q
  wait_gone
  for p in "${writers[@]}"; do wait "$p" 2>/dev/null; done
done
finish
