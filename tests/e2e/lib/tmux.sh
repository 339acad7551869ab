# The harness of the dashboard's end-to-end scripts (sourced, not a test):
# the real binary in a private tmux server. After `. lib/tmux.sh "$@"`:
#   agentctl  the binary (the script's first argument, made absolute)
#   ws        a fresh temporary workspace folder, removed on exit
#             (XDG_STATE_HOME is $ws.state)
#   sock      the private tmux socket name
#   check NAME COMMAND...   one case: passes when COMMAND succeeds
#   screen                  the pane's text now
#   wait_for TEXT           up to 5 s for TEXT on screen (prints it on failure)
#   send KEYS...            tmux send-keys to the dashboard's pane
#   keys KEYS...            send, then give the dashboard 0.2 s to act on them
#   absent TEXT             TEXT is not on screen now
#   hints                   the key hint line (the screen's last line) now
#   dashboard W H ARGS...   starts `$prefix agentctl -w $ws ARGS` in tmux
#                           session e2e of W x H (prefix: e.g. env NO_COLOR=1);
#                           its exit status goes to $ws.exit; with
#                           AC_E2E_WATCH=poll in the environment it also gets
#                           --poll (ctest runs some scripts both ways)
#   new_session ARGS...     tmux new-session ARGS on $sock, once the server
#                           the previous dashboard left has finished exiting
#   wait_exit               up to 5 s for the dashboard's exit status file
#   wait_gone               up to 5 s for the tmux session e2e to end
# More dashboards beside e2e, each in a tmux session of its own NAME:
#   screen_of NAME          that session's pane text now
#   wait_on NAME TEXT       up to 10 s for TEXT there (prints it on failure)
#   key_to NAME KEYS...     tmux send-keys there
#   gone NAME               up to 5 s for that session to end
#   dash_pid NAME           the agentctl running there (its pane's process,
#                           or that process's child)
#   finish                  prints "N passed, M failed"; exits 1 on a failure
# A script may define at_exit (more to remove on exit) before it ends.
set -u
agentctl=$(realpath "${1:?usage: $(basename "$0") path/to/agentctl}")
command -v tmux >/dev/null || { echo "tmux is missing: run scripts/install-deps.sh"; exit 1; }
ws=$(mktemp -d)
sock="agentctl-e2e-$(basename "$0" .sh)-$$"
# A live process's start time, by pid (nothing for one gone or a zombie):
# a pid reused since is not ours to end.
started_at() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '$1 != "Z" { print $20 }'; }
# The panes' processes and their children (the dashboards) as the run ends,
# each "pid:start". They end with the server as a rule; one still there
# 3 s later is ended by pid (a sanitizer's exit-time leak check was once
# seen hung for 25 minutes with its terminal gone, slowing every test after).
panes_of_ours() {
  local p k started
  for p in $(tmux -L "$sock" list-panes -a -F '#{pane_pid}' 2>/dev/null); do
    for k in "$p" $(pgrep -P "$p"); do
      started=$(started_at "$k")
      [ -n "$started" ] && echo "$k:$started"
    done
  done
}
still_ours() { [ "$(started_at "${1%%:*}")" = "${1#*:}" ]; }
end_stragglers() {
  local entry left
  for _ in $(seq 30); do
    left=
    for entry in "$@"; do still_ours "$entry" && left="$left $entry"; done
    [ -z "$left" ] && return 0
    set -- $left
    sleep 0.1
  done
  for entry in "$@"; do still_ours "$entry" && kill -KILL "${entry%%:*}" 2>/dev/null; done
}
# The dashboard writes its caches as it quits: the folders go once the
# server (and so, mostly, its dashboards) has ended.
trap '_e2e_ours=$(panes_of_ours)
  tmux -L "$sock" kill-server 2>/dev/null
  for _ in $(seq 30); do [ -n "${server_pid:-}" ] && kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  end_stragglers $_e2e_ours
  declare -F at_exit >/dev/null && at_exit
  # kill-server leaves its socket file behind: one a run, thousands a day.
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"
  rm -rf "$ws" "$ws.exit" "$ws.state" "$ws.cache" "$ws.stats"' EXIT
# Agents the dashboard starts are recorded here, not in the user's home.
export XDG_STATE_HOME=$ws.state
# Caches too (the session listing's is one per workspace): none is left in
# the user's home, one per run (a script may point it elsewhere).
export XDG_CACHE_HOME=$ws.cache
passed=0 failed=0
check() {
  if "${@:2}"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1"; fi
}
screen() { tmux -L "$sock" capture-pane -p -t e2e; }
wait_for() {
  for _ in $(seq 50); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
  screen; return 1
}
send() { tmux -L "$sock" send-keys -t e2e "$@"; }
keys() { send "$@"; sleep 0.2; }
absent() { ! screen | grep -qF -- "$1"; }
hints() { screen | tail -n 1; }
# A tmux server exits with its last session, asynchronously: a session asked
# for meanwhile reaches the dying server and fails ("server exited
# unexpectedly"). So wait for that server's process to end, unless it still
# has sessions and so stays. (A server kept up by a session of its own would
# not do: the environment a server gives its sessions is the one it started
# with, and scripts export variables for the next dashboard.)
server_pid=
new_session() {
  if [ -n "$server_pid" ]; then
    for _ in $(seq 50); do
      kill -0 "$server_pid" 2>/dev/null || break
      [ -n "$(tmux -L "$sock" list-sessions 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  tmux -L "$sock" new-session "$@" || return
  server_pid=$(tmux -L "$sock" display-message -p '#{pid}' 2>/dev/null)
}
dashboard() { # width height args...
  rm -f "$ws.exit"
  local watch=
  [ "${AC_E2E_WATCH:-}" = poll ] && watch=--poll
  new_session -d -s e2e -x "$1" -y "$2" "${prefix:-} $agentctl -w $ws $watch ${*:3}; echo \$? > $ws.exit"
}
wait_exit() {
  for _ in $(seq 50); do [ -s "$ws.exit" ] && return 0; sleep 0.1; done
  return 1
}
wait_gone() {
  for _ in $(seq 50); do tmux -L "$sock" has-session -t e2e 2>/dev/null || return 0; sleep 0.1; done
  return 1
}
# "=NAME:" names a session exactly: a bare name may match a window of the
# current session first.
screen_of() { tmux -L "$sock" capture-pane -p -t "=$1:"; }
wait_on() {
  for _ in $(seq 100); do screen_of "$1" | grep -qF -- "$2" && return 0; sleep 0.1; done
  screen_of "$1"; return 1
}
key_to() { tmux -L "$sock" send-keys -t "=$1:" "${@:2}"; }
gone() {
  for _ in $(seq 50); do tmux -L "$sock" has-session -t "=$1" 2>/dev/null || return 0; sleep 0.1; done
  return 1
}
dash_pid() {
  local pane
  pane=$(tmux -L "$sock" display-message -p -t "=$1:" '#{pane_pid}')
  pgrep -P "$pane" -x agentctl || echo "$pane"
}
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
