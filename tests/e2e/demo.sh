#!/usr/bin/env bash
# agentctl demo: without the dashboard (--no-ui), the simulated agents fill
# a temporary workspace with a valid journal, three sessions, committed
# file operations and checkpoints, and stop when it ends; with the
# dashboard (in tmux), sessions and the journal show within 5 s, new events
# keep arriving, q quits, and no simulator process is left behind.
#
# The simulator is found by the pid and the process name (acdemo-<suffix>
# of the temp folder) the demo prints on stderr; nothing is killed by name.
. "$(dirname "$0")/lib/tmux.sh" "$@"
command -v jq >/dev/null || { echo "jq is missing: run scripts/install-deps.sh"; exit 1; }
tmp=$ws # scratch files (the harness removes it); the demos' workspaces too, on exit
workspaces=()
at_exit() { rm -rf "${workspaces[@]}"; }
# The simulator's pid and name from a demo's stderr.
sim_pid() { sed -n 's/.*demo simulator: pid \([0-9]*\),.*/\1/p' "$1"; }
sim_name() { sed -n 's/.*process name \(acdemo-[A-Za-z0-9]*\).*/\1/p' "$1"; }
gone() { # stderr-file: the simulator it names is not running
  local pid name
  pid=$(sim_pid "$1") name=$(sim_name "$1")
  [ -n "$pid" ] && [ -n "$name" ] || { echo "no simulator pid/name in $1"; cat "$1"; return 1; }
  ! kill -0 "$pid" 2>/dev/null && ! pgrep -x "$name" >/dev/null
}

# ---- --no-ui -----------------------------------------------------------
"$agentctl" demo --no-ui --seconds 3 >"$tmp/out" 2>"$tmp/err"
rc=$?
demo_ws=$(head -n1 "$tmp/out")
[ -n "$demo_ws" ] && workspaces+=("$demo_ws")
check "demo --no-ui exits 0" test "$rc" = 0
check "it prints the workspace path on stdout" test -d "$demo_ws"
check "the path is also on stderr" grep -qF "demo workspace: $demo_ws" "$tmp/err"
check "the simulator is gone after it ends" gone "$tmp/err"

"$agentctl" -w "$demo_ws" journal check >"$tmp/check" 2>&1
check "the journal is valid" test $? = 0
events=$(sed -n 's/.*: \([0-9]*\) valid, 0 invalid lines/\1/p' "$tmp/check")
check "the journal has events" test "${events:-0}" -gt 0
check "events of the three agents" test "$("$agentctl" -w "$demo_ws" journal read --json |
  jq -r '[.[] | .agent] | unique | join(",")')" = "Claude,Codex,Gemini"

"$agentctl" -w "$demo_ws" session list --json >"$tmp/sessions" 2>"$tmp/sessions.err"
check "session list exits 0" test $? = 0
check "session list reports no problem" test ! -s "$tmp/sessions.err"
check "at least 3 sessions" test "$(jq length "$tmp/sessions")" -ge 3
check "sessions have turns" test "$(jq '[.[] | .messages] | add' "$tmp/sessions")" -gt 3
check "a task in Korean or Japanese" grep -qE '설정|문서|設定|로그인' "$tmp/sessions"

"$agentctl" -w "$demo_ws" ops list --json >"$tmp/ops" 2>&1
check "ops list exits 0" test $? = 0
check "file_write operations are recorded" \
  test "$(jq '[.[] | select(.type == "file_write")] | length' "$tmp/ops")" -gt 0
check "every file_write has a commit" \
  test "$(jq '[.[] | select(.type == "file_write" and (.gitCommitHash | type) != "string")] | length' "$tmp/ops")" = 0
hash=$(jq -r '[.[] | select(.type == "file_write")][0].gitCommitHash' "$tmp/ops")
check "the commit is in the workspace's git repository" \
  test -f "$demo_ws/.git/HEAD" -a "$(git -C "$demo_ws" cat-file -t "$hash" 2>/dev/null)" = commit

ckpts=0
for s in $(jq -r '.[].id' "$tmp/sessions"); do
  n=$("$agentctl" -w "$demo_ws" checkpoint list "$s" --json 2>/dev/null | jq 'length')
  ckpts=$((ckpts + ${n:-0}))
done
check "at least one checkpoint" test "$ckpts" -gt 0
check "bad usage exits 2" bash -c '"$1" demo --bogus 2>/dev/null; test $? = 2' _ "$agentctl"

# ---- the dashboard in tmux --------------------------------------------------
journal_rows() { screen | grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} '; }
tmux -L "$sock" new-session -d -s e2e -x 100 -y 30 \
  "$agentctl demo 2>$tmp/ui.err; echo \$? > $tmp/ui.exit"
first_screen() { # sessions and journal rows together, within 5 s of the launch
  for _ in $(seq 50); do
    screen >"$tmp/screen"
    grep -qE '▶ running +(claude|codex|gemini)-01' "$tmp/screen" &&
      grep -qE '(Claude|Codex|Gemini) +(SESSION_START|ANALYSIS|CMD_RUN|FILE_)' "$tmp/screen" &&
      return 0
    sleep 0.1
  done
  cat "$tmp/screen"; return 1
}
check "sessions and journal rows show within 5 s" first_screen
ws2=$(sed -n 's/.*demo workspace: //p' "$tmp/ui.err" | head -n1)
[ -n "$ws2" ] && workspaces+=("$ws2")
check "the workspace path is said on stderr" test -d "$ws2"
seen=$(sed -n 's/.* \([0-9]*\) events seen.*/\1/p' <(screen))
more=no
for _ in $(seq 60); do
  now=$(sed -n 's/.* \([0-9]*\) events seen.*/\1/p' <(screen))
  if [ "${now:-0}" -gt "${seen:-0}" ]; then more=yes; break; fi
  sleep 0.1
done
check "new journal rows appear while watching" test "$more" = yes
check "the journal strip is filled" test "$(journal_rows)" -ge 3
send q
for _ in $(seq 50); do [ -s "$tmp/ui.exit" ] && break; sleep 0.1; done
check "q quits with status 0" grep -qx 0 "$tmp/ui.exit"
check "the path is said again at exit" grep -qF "demo workspace is left at $ws2" "$tmp/ui.err"
check "no simulator is left after q" gone "$tmp/ui.err"

finish
