#!/usr/bin/env bash
# The dashboard following a workspace by polling, as it does by itself on a
# network or FUSE file system: --poll and the watch key choose it and the
# status line says so; a seed-style writer's new session (temp file and
# rename), a changed status, a removed session and a journal append all
# reach the screen; a bad watch value is one error line; on a local folder
# the default is inotify.
. "$(dirname "$0")/lib/tmux.sh" "$@"
session() { # id status task: written as the seed's store writes (tmp + rename)
  cat > "$ws/.agent/sessions/$1.json.tmp" <<JSON
{"id":"$1","createdAt":"2024-05-01T10:00:00.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"$3","status":"$2","conversationHistory":[],"metadata":{}}
JSON
  mv "$ws/.agent/sessions/$1.json.tmp" "$ws/.agent/sessions/$1.json"
}
event() {
  printf '{"agent":"Codex","status":"SUCCESS","action":{"type":"FILE_EDIT","params":{}},"result":{"message":"%s"}}' "$1"
}
mkdir -p "$ws/.agent/sessions"
session s-first running "first task"
"$agentctl" -w "$ws" journal log "$(event 'before the dashboard')" >/dev/null

dashboard 160 30 --poll
check "--poll starts and shows the sessions" wait_for "first task"
check "the status line says it polls and why" wait_for "polling every 500 ms (watch = poll)"
session s-second paused "second task written by a seed writer"
check "a new session file reaches the screen" wait_for "second task written by a seed writer"
"$agentctl" -w "$ws" journal log "$(event 'appended while polling')" >/dev/null
check "a journal append reaches the screen" wait_for "appended while polling"
session s-first completed "first task, now done"
check "a changed session reaches the screen" wait_for "first task, now done"
rm "$ws/.agent/sessions/s-second.json"
gone() { for _ in $(seq 50); do absent "second task written" && return 0; sleep 0.1; done; screen; return 1; }
check "a removed session leaves the screen" gone
keys q
check "q quits with status 0" wait_exit
check "exit status 0" grep -qx 0 "$ws.exit"

AGENT_WATCH=poll dashboard 160 30
check "AGENT_WATCH=poll polls too" wait_for "polling every 500 ms (watch = poll)"
keys q
wait_exit

dashboard 160 30
check "a local folder is followed with inotify" wait_for "first task, now done"
check "... and no polling is mentioned" absent "polling every"
keys q
wait_exit

out=$(AGENT_WATCH=sometimes "$agentctl" -w "$ws" session list 2>&1)
rc=$?
check "a bad watch value exits 1" test "$rc" = 1
check "... with one line naming the key and the choices" \
  test "$out" = "agentctl: environment AGENT_WATCH: watch must be one of auto, inotify, poll"
finish
