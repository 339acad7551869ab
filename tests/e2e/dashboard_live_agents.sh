#!/usr/bin/env bash
# Acting on live agents (issue 27), in tmux with real keys, at 80x24 and
# 120x40:
#  - `r` on a session whose agent agentctl stopped (pauseSignal) says y
#    sends SIGCONT to that pid, not that it starts resumeCommand;
#  - `r` where resumeCommand is in an untrusted project file says where it
#    is configured and how to trust it, not that none is configured;
#  - a session paused, left quiet, then saved "running" by another program
#    (seed resumeOrCreate, `claude --resume`) is "resumed elsewhere", not a
#    red "! overridden"; one saved over its pause at once still is;
#  - `p` again on a session still "pausing" whose file has been quiet for
#    session.quietMs x 10 (its agent ignores the pause, or is gone) offers
#    to apply the pause now, and y writes it, journaled as the operator's;
#  - p on a session whose agent agentctl started ignores the pause offers S
#    (SIGSTOP) and T (SIGTERM), each asking first with the pid and command
#    line.
. "$(dirname "$0")/lib/tmux.sh" "$@"
S=$ws/.agent/sessions
mkdir -p "$S/.requests" "$ws/xdg/agent"
export XDG_CONFIG_HOME=$ws/xdg
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%S.000Z; }
session() { # id status
  jq -n --arg id "$1" --arg st "$2" '{id: $id, createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z", task: "task of \($id)", status: $st,
    conversationHistory: [], metadata: {}}' >"$S/$1.json"
}
applied() { # id epoch-seconds: a pause agentctl applied then
  printf '{"sessionId":"%s","request":"pause","state":"applied","requestedAt":"%s","requestedBy":"Human","appliedAt":"%s"}' \
    "$1" "$(iso "$2")" "$(iso "$2")" >"$S/.requests/$1.json"
}
session aaa-stopped paused
session bbb-untrusted paused
session ccc-resumed running
session ddd-override running
now=$(date +%s)
touch -d "@$((now - 60))" "$S"/*.json
# ccc: paused an hour ago, written "running" a minute ago (resumed).
applied ccc-resumed $((now - 3600))
# ddd: paused a minute ago, written running in the same second (its loop).
applied ddd-override $((now - 60))
# resumeCommand in the project file, which nobody trusted.
echo '{"resumeCommand": ["./resume.sh", "{id}"]}' >"$ws/.agent/config.json"
echo '{"pauseSignal": "SIGSTOP", "session": {"quietMs": 50}}' >"$ws/xdg/agent/config.json"
# An agent agentctl started, as ac_process_record() keeps it: record ID PID
record() {
  local key ticks
  key=$(printf '%s\n%s' "$(realpath "$S")" "$1" | sha256sum | cut -c1-32)
  ticks=$(sed 's/.*) //' "/proc/$2/stat" | cut -d' ' -f20)
  mkdir -p "$XDG_STATE_HOME/agent/processes"
  jq -n --arg id "$1" --argjson pid "$2" --arg host "$(hostname)" --argjson t "$ticks" \
    '{sessionId: $id, pid: $pid, host: $host, startTicks: $t, startedAt: "2026-01-01T00:00:00.000Z"}' \
    >"$XDG_STATE_HOME/agent/processes/$key.json"
}
state_of() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }
setsid sleep 600 &
agent=$!
loops=()
at_exit() { kill -CONT "${loops[@]}" 2>/dev/null; kill "$agent" "${loops[@]}" 2>/dev/null; }
record aaa-stopped "$agent"
ignored() { # eee: a pause requested 5 min ago, never honoured, file quiet since
  session eee-ignored running
  touch -d "@$((now - 300))" "$S/eee-ignored.json"
  printf '{"sessionId":"eee-ignored","request":"pause","state":"pending","requestedAt":"%s","requestedBy":"Human"}' \
    "$(iso $((now - 300)))" >"$S/.requests/eee-ignored.json"
}

for size in 80x24 120x40; do
  ignored
  # fff: an agent agentctl started that does not honour its pause request.
  session fff-loop running
  printf '{"sessionId":"fff-loop","request":"pause","state":"pending","requestedAt":"%s","requestedBy":"Human"}' \
    "$(iso "$now")" >"$S/.requests/fff-loop.json"
  setsid sleep 601 &
  loop=$!
  loops+=("$loop")
  record fff-loop "$loop"
  dashboard "${size%x*}" "${size#*x}"
  wait_for "aaa-stopped" >/dev/null
  keys 1
  keys /
  send a a a - s t o p
  keys Enter
  keys r
  check "$size: resume of a stopped agent says y sends SIGCONT to its pid" wait_for "SIGCONT to pid $agent"
  check "$size: ... and not that it starts resumeCommand" absent "starts resumeCommand"
  keys n
  keys / Escape
  keys /
  send b b b - u n t
  keys Enter
  keys r
  check "$size: an untrusted resumeCommand: says it is configured, not trusted" wait_for "configured but not trusted"
  check "$size: ... names the file" wait_for ".agent/config.json"
  check "$size: ... says how to trust it" wait_for "agentctl config trust"
  check "$size: ... not that none is configured" absent "no resumeCommand is configured"
  keys n
  keys / Escape
  check "$size: a session resumed elsewhere says so" wait_for "resumed elsewhere"
  check "$size: ... and is not shown overridden" bash -c "! tmux -L $sock capture-pane -p -t e2e | grep 'ccc-resumed' | grep -q overridden"
  check "$size: one saved over its pause at once is still overridden" wait_for "! overridden"
  check "$size: a pause the agent ignores shows pausing" wait_for "~ pausing"
  keys /
  send e e e - i g n
  keys Enter
  keys p
  check "$size: p again offers to apply it now" wait_for "Apply the pause of eee-ignored now?"
  check "$size: ... saying the file has been quiet" wait_for "has been quiet for"
  keys y
  check "$size: y pauses it" bash -c "for i in \$(seq 30); do [ \"\$(jq -r .status $S/eee-ignored.json)\" = paused ] && exit 0; sleep 0.1; done; exit 1"
  check "$size: ... and it no longer shows pausing" bash -c "for i in \$(seq 30); do ! tmux -L $sock capture-pane -p -t e2e | grep -q '~ pausing' && exit 0; sleep 0.1; done; exit 1"
  keys / Escape
  keys /
  send f f f - l o o p
  keys Enter
  keys p
  check "$size: p on an agent ignoring its pause offers to stop it" wait_for "S stops its agent, pid $loop"
  if [ "$size" = 80x24 ]; then sig=SIGSTOP key=S; else sig=SIGTERM key=T; fi
  keys "$key"
  check "$size: $key asks first, naming the signal and pid" wait_for "Send $sig to pid $loop"
  check "$size: ... and the command line" wait_for "command line: sleep 601"
  check "$size: ... nothing sent yet" [ "$(state_of "$loop")" = S ]
  keys y
  check "$size: y sends it" wait_for "sent $sig to pid $loop"
  if [ "$key" = S ]; then
    check "$size: the agent is stopped" bash -c "for i in \$(seq 30); do [ \"\$(sed 's/.*) //' /proc/$loop/stat | cut -d' ' -f1)\" = T ] && exit 0; sleep 0.1; done; exit 1"
  else
    check "$size: the agent ended" bash -c "for i in \$(seq 30); do case \"\$(sed 's/.*) //' /proc/$loop/stat 2>/dev/null | cut -d' ' -f1)\" in Z|'') exit 0;; esac; sleep 0.1; done; exit 1"
    kill -KILL "$loop" 2>/dev/null # one that did not end: 137, not 143
    wait "$loop" 2>/dev/null
    check "$size: ... by SIGTERM" [ $? = 143 ]
  fi
  keys / Escape
  send q
  wait_gone
done
check "the agent was not continued or stopped by looking" bash -c "[ \"\$(cut -d' ' -f3 /proc/$agent/stat)\" = S ]"
check "the resume elsewhere is journaled as such" bash -c "$agentctl -w $ws journal query agent=Human --json | jq -e 'any(.[]; .result.message | test(\"Resumed elsewhere\"))' >/dev/null"
check "session list says resumed elsewhere" bash -c "$agentctl -w $ws session list 2>&1 | grep ccc-resumed | grep -q 'resumed elsewhere'"
check "the pause applied now is journaled as the operator's" bash -c "$agentctl -w $ws journal query agent=Human --json | jq -e 'any(.[]; .trace.correlation_id == \"eee-ignored\" and .action.type == \"SESSION_PAUSE\" and .status == \"SUCCESS\")' >/dev/null"
finish
