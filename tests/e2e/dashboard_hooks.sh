#!/usr/bin/env bash
# hooks.onStatusChange from the dashboard: a trusted project hook runs once
# per real transition (none for the initial load) with the session id and
# both states in its environment and as whole-argument placeholders;
# notify.desktop runs when a session becomes paused; an untrusted hook
# never runs and the dashboard says so once.
. "$(dirname "$0")/lib/tmux.sh" "$@"
export XDG_CONFIG_HOME=$ws.state/xdg
out=$ws.state/hook.out
mkdir -p "$ws/.agent" "$XDG_CONFIG_HOME"
# The hook appends its environment and arguments to a file outside .agent.
cat > "$ws/.agent/config.json" <<JSON
{"hooks": {"onStatusChange": ["sh", "-c", "echo \"env \$AGENT_SESSION_ID \$AGENT_OLD_STATE \$AGENT_NEW_STATE \$AGENT_SOURCE args \$1 \$2 \$3\" >> $out", "hook", "{id}", "{old}", "{new}"]},
 "notify": {"desktop": ["sh", "-c", "echo \"notify \$1\" >> $out", "notify", "{id}"], "bell": true}}
JSON
"$agentctl" -w "$ws" session create "watched" --id s1 >/dev/null
"$agentctl" -w "$ws" session create "other" --id s2 >/dev/null
lines() { [ -f "$out" ] && wc -l < "$out" || echo 0; }
wait_lines() { # N: up to 5 s for the file to hold N lines
  for _ in $(seq 50); do [ "$(lines)" -ge "$1" ] && return 0; sleep 0.1; done
  cat "$out" 2>/dev/null; return 1
}

# Untrusted: said once on the status line, nothing runs.
dashboard 120 30
check "untrusted: the dashboard says the hook will not run" wait_for "not trusted"
"$agentctl" -w "$ws" session pause s1 >/dev/null
check "untrusted: the change is seen" wait_for "paused"
sleep 1
check "untrusted: the hook did not run" [ "$(lines)" -eq 0 ]
send q
check "q quits" wait_gone
"$agentctl" -w "$ws" session resume s1 >/dev/null

# Trusted: one firing per transition, none for the initial load.
"$agentctl" -w "$ws" config trust >/dev/null
dashboard 120 30
check "trusted: the dashboard lists the sessions" wait_for "watched"
sleep 0.5
check "trusted: no firing for the initial load" [ "$(lines)" -eq 0 ]
"$agentctl" -w "$ws" session pause s1 >/dev/null
check "trusted: the pause fires the hook and the notification" wait_lines 2
check "trusted: env and placeholders name the change" \
  grep -qx "env s1 running paused file args s1 running paused" "$out"
check "trusted: notify.desktop ran for the pause" grep -qx "notify s1" "$out"
"$agentctl" -w "$ws" session complete s1 >/dev/null
check "trusted: the next transition fires once" wait_lines 3
check "trusted: paused -> completed" grep -qx "env s1 paused completed file args s1 paused completed" "$out"
sleep 0.5
check "trusted: nothing else fired" [ "$(lines)" -eq 3 ]
check "trusted: the hook's output went to no terminal" absent "env s1"
send q
check "q quits" wait_gone

# --read-only runs no command, trusted or not.
dashboard 120 30 --read-only
check "read-only: the dashboard lists the sessions" wait_for "watched"
"$agentctl" -w "$ws" session resume s2 >/dev/null 2>&1 || true
"$agentctl" -w "$ws" session pause s2 >/dev/null
sleep 1
check "read-only: no hook ran" [ "$(lines)" -eq 3 ]
send q
check "q quits" wait_gone
"$agentctl" -w "$ws" session resume s2 >/dev/null

# notify.bell: the terminal's bell when a session becomes paused (tmux
# flags a bell in a window that is not the one shown), not at start.
bell() { tmux -L "$sock" list-windows -t e2e -F '#{window_index} #{window_bell_flag}' | grep -q '^0 1$'; }
dashboard 120 30
check "bell: the dashboard lists the sessions" wait_for "other"
tmux -L "$sock" new-window -t e2e
sleep 0.5
no_bell() { ! bell; }
check "bell: none for the initial load" no_bell
"$agentctl" -w "$ws" session pause s2 >/dev/null
wait_bell() { for _ in $(seq 50); do bell && return 0; sleep 0.1; done; return 1; }
check "bell: rung when a session becomes paused" wait_bell
finish
