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
#   finish                  prints "N passed, M failed"; exits 1 on a failure
set -u
agentctl=$(realpath "${1:?usage: $(basename "$0") path/to/agentctl}")
command -v tmux >/dev/null || { echo "tmux is missing: run scripts/install-deps.sh"; exit 1; }
ws=$(mktemp -d)
sock="agentctl-e2e-$(basename "$0" .sh)-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$ws" "$ws.exit" "$ws.state"' EXIT
# Agents the dashboard starts are recorded here, not in the user's home.
export XDG_STATE_HOME=$ws.state
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
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
