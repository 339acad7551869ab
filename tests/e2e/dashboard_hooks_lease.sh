#!/usr/bin/env bash
# hooks.onStatusChange runs once per change of state, not once per
# dashboard: of the dashboards open on one workspace, the one holding the
# hooks lease (flock on .agent/hooks.lock) runs it; the others say once
# that another dashboard runs it. A session file written seed-style (temp
# file, then rename) changes state once: one line. The holder is killed
# (SIGKILL): the next change is run by the other dashboard, once; a third
# dashboard waits, the holder quits with q, the third takes over (and says
# so before any change). A lock
# file that cannot be opened: the hooks run anyway, and the dashboard says
# so. A --read-only dashboard never takes the lease.
. "$(dirname "$0")/lib/tmux.sh" "$@"
export XDG_CONFIG_HOME=$ws.state/xdg
out=$ws.state/hook.out
mkdir -p "$ws/.agent" "$XDG_CONFIG_HOME"
# The hook appends the change and which dashboard ran it ($DASH, from the
# dashboard's environment) to a file outside .agent.
cat > "$ws/.agent/config.json" <<JSON
{"hooks": {"onStatusChange": ["sh", "-c", "echo \"\$AGENT_SESSION_ID \$AGENT_OLD_STATE \$AGENT_NEW_STATE \$DASH\" >> $out"]}}
JSON
"$agentctl" -w "$ws" config trust >/dev/null
"$agentctl" -w "$ws" session create "watched" --id s1 >/dev/null

lines() { [ -f "$out" ] && wc -l < "$out" || echo 0; }
wait_lines() { # N: up to 5 s for the file to hold N lines
  for _ in $(seq 50); do [ "$(lines)" -ge "$1" ] && return 0; sleep 0.1; done
  cat "$out" 2>/dev/null; return 1
}
# A seed-style writer: the whole file to <id>.json.tmp, then rename.
seed_status() { # id status
  local f=$ws/.agent/sessions/$1.json now
  now=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
  sed -e "s/\"status\": \"[a-z]*\"/\"status\": \"$2\"/" \
      -e "s/\"updatedAt\": \"[^\"]*\"/\"updatedAt\": \"$now\"/" "$f" > "$f.tmp"
  mv "$f.tmp" "$f"
}
# Dashboards beside the harness's e2e: tmux sessions of their own.
other() { # name DASH args...: a second dashboard in tmux session name
  new_session -d -s "$1" -x 160 -y 30 "env DASH=$2 $agentctl -w $ws ${*:3}"
}
elsewhere="another dashboard runs hooks.onStatusChange"

# ---- two dashboards, one change, one line ----
prefix="env DASH=A"
dashboard 160 30
check "A lists the session" wait_for "watched"
other b B
check "B lists the session" wait_on b "watched"
check "B says another dashboard runs the hooks" wait_on b "$elsewhere"
check "B names the holder" wait_on b "(pid $(dash_pid e2e) on"
check "A says nothing of the kind" absent "$elsewhere"
seed_status s1 paused
check "A sees the change" wait_for "paused"
check "B sees the change" wait_on b "paused"
check "the hook ran" wait_lines 1
sleep 1
check "exactly once" [ "$(lines)" -eq 1 ]
check "run by A, the holder" grep -qx "s1 running paused A" "$out"

# ---- the holder is killed: B runs the next change, once ----
kill -KILL "$(dash_pid e2e)"
check "A is gone" wait_gone
seed_status s1 running
check "B sees the next change" wait_on b "running"
check "the hook ran again" wait_lines 2
sleep 1
check "exactly once again" [ "$(lines)" -eq 2 ]
check "run by B" grep -qx "s1 paused running B" "$out"
check "B says it runs them now" wait_on b "this dashboard runs hooks.onStatusChange now"

# ---- a third dashboard waits; the holder quits; the third takes over ----
other c C
check "C says another dashboard runs the hooks" wait_on c "$elsewhere"
key_to b q
check "B quits" gone b
# Without any change to run: C tries again every few seconds, and says so.
check "C says it runs them now, before any change" \
  wait_on c "this dashboard runs hooks.onStatusChange now"
seed_status s1 paused
check "C runs the change after B quit" wait_lines 3
sleep 1
check "exactly once after the quit" [ "$(lines)" -eq 3 ]
check "run by C" grep -qx "s1 running paused C" "$out"
key_to c q
check "C quits" gone c

# ---- --read-only never takes the lease ----
other r R --read-only
check "the read-only dashboard lists the session" wait_on r "watched"
other d D
check "D lists the session" wait_on d "watched"
sleep 0.5
no_notice() { ! screen_of d | grep -qF -- "$elsewhere"; }
check "D holds the lease: the read-only one did not take it" no_notice
seed_status s1 running
check "D runs the change" wait_lines 4
sleep 1
check "once, by D" eval '[ "$(lines)" -eq 4 ] && grep -qx "s1 paused running D" "$out"'
key_to d q
key_to r q
check "D and the read-only one quit" eval 'gone d && gone r'

# ---- no lease to be had: the hooks run, and the dashboard says so ----
rm -f "$ws/.agent/hooks.lock"
mkdir "$ws/.agent/hooks.lock"
other e E
check "E says it runs the hooks without the lease" wait_on e "running hooks.onStatusChange here"
seed_status s1 paused
check "E runs the change" wait_lines 5
check "run by E" grep -qx "s1 running paused E" "$out"
key_to e q
check "E quits" gone e
finish
