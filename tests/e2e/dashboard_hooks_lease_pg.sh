#!/usr/bin/env bash
# hooks.onStatusChange once per change on a PostgreSQL store: dashboards
# watching one database (here two, then three; on a fleet, one per host)
# run it in the one that holds the advisory lock "agentctl hooks <schema>"
# on its connection. A second machine's agent (pg_agent) pauses a session:
# one line. The holder is killed (SIGKILL): the server lets go, the next
# change is run by the other dashboard, once. The server then drops every
# connection (as a restart does): after they reconnect, the next change is
# still run once. Run by ctest through tests/pg/with-postgres.sh.
# Usage: dashboard_hooks_lease_pg.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/pg_fleet.sh" hookslease
export XDG_CONFIG_HOME=$ws.state/xdg
out=$ws.state/hook.out
mkdir -p "$ws/.agent" "$XDG_CONFIG_HOME"
cat > "$ws/.agent/config.json" <<JSON
{"hooks": {"onStatusChange": ["sh", "-c", "echo \"\$AGENT_SESSION_ID \$AGENT_OLD_STATE \$AGENT_NEW_STATE \$DASH\" >> $out"]}}
JSON
"$agentctl" -w "$ws" config trust >/dev/null
as_host host-a create acme alice claude s1 >/dev/null

lines() { [ -f "$out" ] && wc -l < "$out" || echo 0; }
wait_lines() { # N: up to 10 s for the file to hold N lines
  for _ in $(seq 100); do [ "$(lines)" -ge "$1" ] && return 0; sleep 0.1; done
  cat "$out" 2>/dev/null; return 1
}
# Each dashboard in a workspace folder of its own (as on hosts of their
# own: no flock in common), all on one database.
other() { # name DASH: a dashboard in tmux session name
  mkdir -p "$ws.$1/.agent"
  cp "$ws/.agent/config.json" "$ws.$1/.agent/"
  "$agentctl" -w "$ws.$1" config trust >/dev/null
  new_session -d -s "$1" -x 160 -y 30 "env AGENT_STORAGE_URL=$URL DASH=$2 $agentctl -w $ws.$1"
}
at_exit_pg() { rm -rf "$ws.b" "$ws.c"; }
eval "$(declare -f at_exit | sed '1s/at_exit/at_exit_db/')"
at_exit() { at_exit_db; at_exit_pg; }
elsewhere="another dashboard runs hooks.onStatusChange"

prefix="env AGENT_STORAGE_URL=$URL DASH=A"
dashboard 160 30
check "A lists the stored session" wait_for "s1"
other b B
check "B lists the stored session" wait_on b "s1"
check "B says another dashboard runs the hooks" wait_on b "$elsewhere"
check "A says nothing of the kind" absent "$elsewhere"
as_host fleet-b status acme s1 running paused
check "A sees the change" wait_for "paused"
check "B sees the change" wait_on b "paused"
check "the hook ran" wait_lines 1
sleep 1
check "exactly once" [ "$(lines)" -eq 1 ]
check "run by A, the holder" grep -qx "s1 running paused A" "$out"

kill -KILL "$(dash_pid e2e)"
check "A is gone" wait_gone
# The server lets the lock go when A's backend notices its client is gone,
# a moment after the kill: the change comes after that, as on a fleet.
check "the server let A's lease go" bash -c "for i in \$(seq 100); do [ \"\$(PGOPTIONS='-c search_path=agentctl' psql -d $DB -Atqc \"select count(*) from pg_locks where locktype = 'advisory' and granted\")\" = 0 ] && exit 0; sleep 0.1; done; exit 1"
as_host fleet-b status acme s1 paused running
check "B sees the next change" wait_on b "running"
check "the hook ran again" wait_lines 2
sleep 1
check "exactly once again" [ "$(lines)" -eq 2 ]
check "run by B" grep -qx "s1 paused running B" "$out"
check "B says it runs them now" wait_on b "this dashboard runs hooks.onStatusChange now"

# ---- the server drops every connection ----
other c C
check "C says another dashboard runs the hooks" wait_on c "$elsewhere"
sql "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid()" >/dev/null
# Both listen again (a change made before would be seen by the rescan
# that follows, a transition all the same).
listening() {
  for _ in $(seq 100); do
    [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
              AND query = 'LISTEN agentctl'")" -ge 2 ] && return 0
    sleep 0.1
  done
  return 1
}
check "B and C listen again" listening
as_host fleet-b status acme s1 running paused
check "B sees the change after the drop" wait_on b "paused"
check "C sees the change after the drop" wait_on c "paused"
check "the hook ran after the drop" wait_lines 3
sleep 1
check "exactly once after the drop" [ "$(lines)" -eq 3 ]
check "by B or C" eval 'tail -n 1 "$out" | grep -Eqx "s1 running paused (B|C)"'
key_to b q
key_to c q
finish
