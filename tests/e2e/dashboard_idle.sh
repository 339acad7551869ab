#!/usr/bin/env bash
# Dead agents never look running (issue 25): a running session whose file
# nobody has written for two hours shows idle in the dashboard, as
# `session list --state idle` says, and w finds it among the idle ones; a
# paused one stays paused. A session that goes quiet while the dashboard
# runs turns idle with time alone (sources.state.idleMs, here 4 s), no
# file event needed, and the operator's onStatusChange hook hears
# running -> idle. At 120x40 and 80x24, on either store (lib/store.sh:
# STORE=files|pg; dashboard_idle_pg.sh is the database's run).
# Usage: [STORE=pg] dashboard_idle.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
cfg=$ws.cfg
at_exit() { rm -rf "$cfg" "$ws.hooked"; }
ac() { "$agentctl" -w "$ws" "$@"; }
dir=$ws/.agent/sessions
mkdir -p "$cfg/agent"
cat >"$cfg/agent/config.json" <<JSON
{"hooks": {"onStatusChange": ["sh", "-c", "echo \"\$AGENT_SESSION_ID \$AGENT_OLD_STATE \$AGENT_NEW_STATE\" >> '$ws.hooked'"]}}
JSON
ac session create "fix the login page" --id s-quiet >/dev/null
ac session create "write the release notes" --id s-busy >/dev/null
ac session create "tune the cache" --id s-held >/dev/null
ac session pause s-held >/dev/null
# Nobody has written s-quiet or s-held for two hours: their file's time,
# or the database's updated_at.
if on_pg; then
  store_sql "UPDATE sessions SET updated_at = now() - interval '2 hours' WHERE id IN ('s-quiet', 's-held')" >/dev/null
else
  touch -d '2 hours ago' "$dir/s-quiet.json" "$dir/s-held.json"
fi
prefix="env XDG_CONFIG_HOME=$cfg AGENT_SOURCES_STATE_IDLE_MS=4000"
row_within() { # tenths text1 text2: a screen line with both, in time
  for _ in $(seq "$1"); do screen | grep -F -- "$2" | grep -qF -- "$3" && return 0; sleep 0.1; done
  screen; return 1
}
row_has() { row_within 50 "$@"; }

check "session list --state idle names s-quiet (what the dashboard must agree with)" \
  eval 'ac session list --state idle --json | grep -q "\"s-quiet\""'

for size in "120 40" "80 24"; do
  set -- $size
  dashboard "$1" "$2"
  check "$1x$2: the quiet session is idle" row_has s-quiet "idle"
  check "$1x$2: not running" eval '! screen | grep -F s-quiet | grep -qF running'
  check "$1x$2: the paused one stays paused" row_has s-held paused
  keys w
  keys w
  keys w
  check "$1x$2: w w w: idle only, the quiet session shown" \
    eval 'wait_for "idle only" >/dev/null && wait_for s-quiet >/dev/null && absent s-held'
  keys Escape
  keys q
  check "$1x$2: q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
done

# ---- live: quiet past idleMs, with no write ----
dashboard 120 40
check "live: the dashboard is up" wait_for s-quiet
ac session create "a short-lived agent" --id s-live >/dev/null
check "live: a new session runs" row_has s-live running
check "live: 4 s later, with no write, it is idle" row_within 150 s-live idle
for _ in $(seq 50); do grep -q "s-live running idle" "$ws.hooked" 2>/dev/null && break; sleep 0.1; done
check "live: the hook heard running -> idle" grep -qx "s-live running idle" "$ws.hooked"
check "live: session list --state idle agrees" \
  eval 'env AGENT_SOURCES_STATE_IDLE_MS=4000 "$agentctl" -w "$ws" session list --state idle --json | grep -q "\"s-live\""'
keys q
check "live: q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
finish
