#!/usr/bin/env bash
# Claude Code's status files (~/.claude/sessions/<pid>.json) end to end,
# over tests/fixtures/sources-current/home/.claude moved to a real
# workspace, with three live processes (children of this script) in place
# of the recorded pids: `session list` shows the waiting session with its
# reason ("permission prompt"; --json waitingFor), busy as running, idle as
# idle, the stale file of a dead pid as ended (never running), /clear as
# the user's turn; `session list` and `session show` give one message
# count; a reason with control bytes is shown escaped; the dashboard's
# detail pane says what the session waits on, and a status file that turns
# to waiting fires hooks.onStatusChange with AGENT_WAITING_FOR; with no
# file and no Claude Code process in its folder, a session is not running.
. "$(dirname "$0")/lib/tmux.sh" "$@"
home=$ws.home
cfg=$ws.cfg
out=$ws.out
at_exit() {
  for p in "${children[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$home" "$cfg" "$out" "$out.err" "$out.list" "$ws.hooked"
}
. "$(dirname "$0")/lib/claude_status_home.sh"
env_run() { # agentctl args... -> $out, $out.err
  env HOME="$home" XDG_CONFIG_HOME="$cfg" XDG_CACHE_HOME="$ws.state/cache" "$agentctl" -w "$ws" "$@" \
    >"$out" 2>"$out.err" </dev/null
}
jq_out() { jq -r "$1" <"$out" 2>/dev/null; }
sum_home() { find "$home/.claude/projects" -type f -exec sha256sum {} + | sort; }
before=$(sum_home)

env_run session list --json
check "list --json: exit 0" [ -s "$out" ]
check "list --json: the waiting session and its reason" \
  [ "$(jq_out ".[] | select(.id == \"$W\") | .state + \"|\" + .waitingFor")" = "waiting|permission prompt" ]
check "list --json: busy is running, idle is idle (its transcript just answered)" \
  [ "$(jq_out "[.[] | select(.id == \"$B\" or .id == \"$I\") | .id[-1:] + \"=\" + .state] | sort | join(\" \")")" = "2=running 3=idle" ]
check "list --json: the stale file of a dead pid: ended, not running" \
  [ "$(jq_out ".[] | select(.id == \"$X\") | .state")" = ended ]
check "list --json: waitingFor only while waiting" \
  [ "$(jq_out "[.[] | select(.waitingFor != null)] | length")" = 1 ]
check "list --json: after /clear, the user's turn (not running)" \
  [ "$(jq_out ".[] | select(.id == \"$CL\") | .state")" = waiting ]
check "list --json: /compact's summary is not the task" \
  [ "$(jq_out ".[] | select(.id == \"$CP\") | .task")" = "Port the scheduler to C11" ]
cp "$out" "$out.list"
for id in $(jq -r '.[].id' <"$out.list"); do
  listed=$(jq -r ".[] | select(.id == \"$id\") | .messages" <"$out.list")
  env_run session show "$id" --json
  check "list and show agree on the messages of ${id: -2}" [ "$(jq_out '.conversation | length')" = "$listed" ]
done
env_run session show "$CP"
check "show: the compaction's marker and its labelled summary" \
  eval "grep -qF '[compact boundary] Conversation compacted (manual, 48211 tokens)' '$out' && grep -qF '[compact summary]' '$out'"
env_run session list
check "list: the waiting row says on what" \
  grep -qE "^$W +waiting .*\[permission prompt\] Run the test suite" "$out"
check "list: the dead agent's row is ended" grep -qE "^$X +ended " "$out"
env_run session show "$W"
check "show: waits on permission prompt" grep -qx "waits on permission prompt" "$out"

# A reason is the file's text: control bytes are shown, never sent.
put_status "${pid_of[40003]}" "{\"pid\":${pid_of[40003]},\"sessionId\":\"$I\",\"status\":\"waiting\",\"waitingFor\":\"approve \\u001b[2J\\u001b]0;owned\\u0007Bash\",\"startedAt\":$(date +%s%3N)}"
env_run session list
check "list: the hostile reason is escaped" eval "grep -qF '[approve ^[[2J^[]0;owned^GBash]' '$out' && ! grep -q $'\x1b' '$out'"
env_run session list --json
check "list --json: the reason as the file said it (JSON-escaped)" \
  [ "$(jq_out ".[] | select(.id == \"$I\") | .waitingFor")" = $'approve \x1b[2J\x1b]0;owned\x07Bash' ]
put_status "${pid_of[40003]}" "{\"pid\":${pid_of[40003]},\"sessionId\":\"$I\",\"status\":\"idle\",\"startedAt\":$(date +%s%3N)}"

# The dashboard: the detail pane beside the list (170 columns, where it
# starts) and the operator's hook, told the reason.
cat >"$cfg/agent/config.json" <<JSON
{"hooks": {"onStatusChange": ["sh", "-c", "echo \"\$AGENT_SESSION_ID \$AGENT_OLD_STATE \$AGENT_NEW_STATE [\$AGENT_WAITING_FOR]\" >> '$ws.hooked'"]}}
JSON
prefix="env HOME=$home XDG_CONFIG_HOME=$cfg XDG_CACHE_HOME=$ws.state/cache NO_COLOR=1"
dashboard 170 24
check "dashboard: the sessions are listed" wait_for "Run the test suite"
keys G
check "dashboard: the oldest row (the waiting one) selected, its detail beside" \
  wait_for "11111111-aaaa-4aaa-8aaa-000000000001"
check "dashboard: the detail says what it waits on" wait_for "waits on  permission prompt"
check "dashboard: the dead agent is not running" eval "screen | grep -F 'Build the documentation' | grep -qv running"
sleep 1
put_status "${pid_of[40002]}" "{\"pid\":${pid_of[40002]},\"sessionId\":\"$B\",\"status\":\"waiting\",\"waitingFor\":\"sandbox request\",\"startedAt\":$(date +%s%3N)}"
for _ in $(seq 50); do grep -q "$B" "$ws.hooked" 2>/dev/null && break; sleep 0.1; done
check "hook: running -> waiting with AGENT_WAITING_FOR" \
  grep -qx "$B running waiting \[sandbox request\]" "$ws.hooked"
check "dashboard: the row turned waiting without a transcript write" \
  eval "screen | grep -F 'Refactor the lexer' | grep -q waiting"
# The process dies (a crash leaves its file): ended, never running.
kill "${pid_of[40002]}"
wait "${pid_of[40002]}" 2>/dev/null
for _ in $(seq 150); do screen | grep -F 'Refactor the lexer' | grep -q ended && break; sleep 0.1; done
check "dashboard: its process killed, the session is ended" \
  eval "screen | grep -F 'Refactor the lexer' | grep -q ended"
keys q
check "q quits" wait_gone

# 80x24: one pane at a time; the list still tells waiting from running
# and a dead agent from a live one.
dashboard 80 24
check "80x24: the waiting session" eval "wait_for 'Run the test suite' >/dev/null && screen | grep -F 'Run the test suite' | grep -q waiting"
check "80x24: the dead agent's session ended" eval "screen | grep -F 'Build the docum' | grep -q ended"
check "80x24: idle" eval "screen | grep -F 'What does ac_buf' | grep -q idle"
# No room for the detail pane: the conversation's title says it first.
keys G
keys Enter
check "80x24: Enter on the waiting session, its title says on what" \
  eval "wait_for 'Conversation [permission prompt] 11111111-aaaa-4aaa-8aaa-000000000001' >/dev/null"
check "80x24: with the call that waits" wait_for "Bash"
keys Escape
keys q
check "q quits" wait_gone

# A clean exit mid-turn removes the file: no file, and no Claude Code
# process in the session's folder, so nothing runs it.
rm "$status/4194305.json"
env_run session list --json
check "no file, no process: idle, not running" [ "$(jq_out ".[] | select(.id == \"$X\") | .state")" = idle ]
# The folder is the operator's to move: a project file (agents write it) may not.
mkdir -p "$ws/.agent"
printf '{"sources": {"claude": {"statusDir": "/tmp"}}}\n' >"$ws/.agent/config.json"
env_run session list
check "a project file's statusDir: refused, one line naming file and key" \
  eval "! [ -s '$out' ] && grep -q 'config.json: sources.claude.statusDir may not be set by a project file' '$out.err' && [ \$(wc -l <'$out.err') = 1 ]"
rm "$ws/.agent/config.json"
check "nothing under the transcripts' folder changed" [ "$(sum_home)" = "$before" ]
finish
