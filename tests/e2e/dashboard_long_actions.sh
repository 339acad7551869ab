#!/usr/bin/env bash
# Long actions run off the dashboard's loop: a compaction whose summariser
# sleeps shows "compacting <id>… Ns" ticking while the panes still move,
# other writes are refused meanwhile, and Esc cancels it (the summariser's
# process group is killed; the session file is unchanged, no archive is
# left). A pause that waits for a quiet file shows "pausing <id>… Ns" and
# then its result, without freezing the screen. A checkpoint rollback's
# compensation (a trusted rollbackTools command) that sleeps is cancelled
# the same way, the session left whole.
. "$(dirname "$0")/lib/tmux.sh" "$@"
export XDG_CONFIG_HOME=$ws.xdg
at_exit() { rm -rf "$XDG_CONFIG_HOME"; }
mkdir -p "$XDG_CONFIG_HOME/agent"
# The user's file is trusted: its summariser runs without `config trust`.
# The sleep's odd length names it among the machine's processes.
cat >"$XDG_CONFIG_HOME/agent/config.json" <<'JSON'
{"summarizer": {"command": ["sh", "-c", "sleep 29.713; echo summary"]},
 "rollbackTools": {"write_file": ["sh", "-c", "sleep 28.417"]},
 "session": {"quietMs": 2500, "waitMs": 8000}}
JSON
S=$ws/.agent/sessions
mkdir -p "$S"
msgs=$(for i in 1 2 3 4 5 6 7 8; do printf '{"role":"user","content":"question %s"},{"role":"assistant","content":"answer %s"},' "$i" "$i"; done)
cat >"$S/s1.json" <<JSON
{"id":"s1","createdAt":"2024-05-01T10:00:00.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"long","status":"running","conversationHistory":[${msgs%,}],"metadata":{}}
JSON
touch -d '-1 min' "$S/s1.json"
before=$(sha256sum <"$S/s1.json")
summariser_running() { pgrep -f "sleep 29.713" >/dev/null; }
# A killed process leaves the table a moment later on a loaded machine.
summariser_gone() {
  for _ in $(seq 50); do summariser_running || return 0; sleep 0.1; done
  return 1
}

prefix="env XDG_CONFIG_HOME=$XDG_CONFIG_HOME" dashboard 100 30
wait_for "s1" >/dev/null
keys 1 g c
check "c opens the compaction dialog" wait_for "Compact session s1?"
keys y
check "y closes the dialog at once" absent "y: do it"
check "the running line says what runs" wait_for "compacting s1…"
check "and its elapsed time ticks (1s)" wait_for "compacting s1… 1s"
check "and ticks (2s)" wait_for "compacting s1… 2s"
check "the summariser runs" summariser_running
check "the running line says Esc cancels" wait_for "Esc: cancel"
keys 2
# (The log is empty: R, which applies to a selected operation, is not hinted
# there; the Sessions pane's own keys leave the line.)
check "navigation works meanwhile: 2 shows Operations" eval '! hints | grep -qF "s status"'
keys 1
check "1 shows Sessions again" eval 'hints | grep -qF "p pause"'
keys p
check "another write is refused while it runs" wait_for "compacting s1 is still running"
check "no dialog opened for it" absent "Pause session s1?"
keys Escape
check "Esc cancels: the status line says so" wait_for "compaction of s1 cancelled"
check "the summariser's process group is gone" summariser_gone
check "the session file is unchanged" eval '[ "$(sha256sum <"$S/s1.json")" = "$before" ]'
check "no archive was left" test ! -e "$S/.compactions/s1"
check "the running line is gone" absent "compacting s1…"

# A pause waits for a quiet file (quietMs 2500): the screen keeps moving.
touch "$S/s1.json"
keys 1 g p
check "p opens the pause dialog" wait_for "Pause session s1?"
keys y
check "the pause runs with its elapsed time" wait_for "pausing s1… 1s"
check "navigation works meanwhile" eval 'keys 2; ! hints | grep -qF "s status"'
keys Escape
check "Esc says a pause cannot be cancelled now" wait_for "cannot be cancelled now"
check "then the pause's result" wait_for "paused s1"
check "the file says paused" grep -q '"status": *"paused"' "$S/s1.json"
# A compensation that sleeps, cancelled.
cat >"$S/s2.json" <<'JSON'
{"id":"s2","createdAt":"2024-05-01T10:00:00.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"tools","status":"running","conversationHistory":[{"role":"user","content":"write it"}],"metadata":{}}
JSON
"$agentctl" -w "$ws" checkpoint create s2 >/dev/null
"$agentctl" -w "$ws" session append s2 '[{"role":"assistant","content":[{"type":"tool_use","id":"call1","name":"write_file","input":{"path":"a.txt"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call1","content":"ok"}]}]' >/dev/null
touch -d '-1 min' "$S/s2.json"
before2=$(sha256sum <"$S/s2.json")
compensating() { pgrep -f "sleep 28.417" >/dev/null; }
comes_up() { for _ in $(seq 50); do "$@" && return 0; sleep 0.1; done; return 1; }
keys 1 g
send -l /s2
keys Enter 3 g R
check "R in Checkpoints plans the compensation" wait_for "run sh for write_file call call1"
keys y
check "the rollback runs with its elapsed time" wait_for "rolling s2 back to checkpoint"
check "and can be cancelled" wait_for "Esc: cancel"
check "the compensation runs" comes_up compensating
keys Escape
check "Esc cancels the rollback" wait_for "rollback of s2 cancelled"
check "the compensation's process is gone" eval '! compensating'
check "the session file is unchanged" eval '[ "$(sha256sum <"$S/s2.json")" = "$before2" ]'

# q while a compaction runs cancels it and quits.
jq '.status = "running"' "$S/s1.json" >"$S/s1.json.tmp" && mv "$S/s1.json.tmp" "$S/s1.json"
touch -d '-1 min' "$S/s1.json"
before=$(sha256sum <"$S/s1.json")
keys 1 Escape
send -l /s1
keys Enter c
check "c opens the compaction dialog again" wait_for "Compact session s1?"
keys y
check "it runs" wait_for "compacting s1… 1s"
send q
check "q quits at once, cancelling it" wait_exit
check "with status 0" grep -qx 0 "$ws.exit"
check "the summariser is gone" summariser_gone
check "the session file is unchanged" eval '[ "$(sha256sum <"$S/s1.json")" = "$before" ]'
finish
