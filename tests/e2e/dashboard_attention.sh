#!/usr/bin/env bash
# Who needs the operator (issue 27): over the Claude Code fixtures of
# sources_claude_status.sh (live processes in place of the recorded pids),
# the attention strip under the title names the sessions that wait,
# longest waiting first, with what they wait on and for how long, cut to
# the width at 80x24, 120x40 and 200x60; ! selects them in turn in the
# Sessions pane (from another pane, clearing a filter that hides them);
# no strip once none waits; and notify.desktop runs once per transition
# into waiting of a transcript, told the host and the reason ({host},
# {reason}, AGENT_HOST, AGENT_WAITING_FOR); with none configured nothing
# runs. On either store (lib/store.sh: STORE=files|pg; the transcripts are
# the agents' own files either way): dashboard_attention_pg.sh is the
# database's run.
# Usage: [STORE=pg] dashboard_attention.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
home=$ws.home
cfg=$ws.cfg
out=$ws.out
at_exit() {
  for p in "${children[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$home" "$cfg" "$out" "$ws.notified"
}
. "$(dirname "$0")/lib/claude_status_home.sh"
prefix="env HOME=$home XDG_CONFIG_HOME=$cfg XDG_CACHE_HOME=$ws.state/cache NO_COLOR=1"
strip() { screen | sed -n 2p; } # the line under the title
host=$(uname -n)

# 80x24: one line under the title, longest waiting first, cut to the width.
dashboard 80 24
check "80x24: the strip counts the waiting sessions" eval 'wait_for "3 need you (! jumps):" >/dev/null'
check "80x24: under the title" eval 'strip | grep -q "3 need you"'
check "80x24: the longest waiting first, with what it waits on" \
  eval 'strip | grep -qE "need you \(! jumps\): Run the test suite and … permission prompt [0-9]+[smhd], "'
check "80x24: cut to the width with …" eval '[ "$(strip | wc -m)" -le 81 ] && strip | grep -q "…$"'
# ! from the Journal, under a filter that hides the session.
keys w w
check "80x24: w: running only" wait_for "[running only]"
keys 4
keys '!'
check "80x24: ! goes to Sessions, the longest waiting selected, the filter that hid it cleared" \
  eval 'wait_for "waiting 1/3 (filter cleared to show it): Run the test" >/dev/null && screen | grep -q "Sessions .* 6/6" && absent "[running only]"'
keys '!'
check "80x24: ! again: the next one" \
  eval 'wait_for "waiting 2/3: 11111111-aaaa-4aaa-8aaa-000000000005" >/dev/null && screen | grep -q "Sessions .* 2/6"'
keys '!'
check "80x24: and the next" eval 'wait_for "waiting 3/3: Port the scheduler" >/dev/null'
keys '!'
check "80x24: after the last, the first again" eval 'wait_for "waiting 1/3" >/dev/null'
keys '?' G
check "80x24: ? help lists !" eval 'wait_for "!         the sessions waiting for" >/dev/null'
keys Escape
keys q
check "q quits" wait_gone

# 120x40: every waiting session fits, in order; answered, it leaves.
dashboard 120 40
check "120x40: the strip names them in order, cut to the width" \
  eval 'wait_for "3 need you" >/dev/null && strip | grep -qE "Run the test suite and … permission prompt [0-9]+[smhd], 11111111-aaaa-4aaa-8aaa… waiting [0-9]+[smhd], Port the[^,]*…$"'
put_status "${pid_of[40001]}" "{\"pid\":${pid_of[40001]},\"sessionId\":\"$W\",\"status\":\"busy\",\"startedAt\":$(date +%s%3N)}"
check "120x40: the answered session leaves the strip" eval 'wait_for "2 need you" >/dev/null && ! strip | grep -q "Run the test"'
keys q
check "q quits" wait_gone
check "no notify.desktop configured: nothing ran" [ ! -e "$ws/.agent/hooks.log" ]

# 200x60: notify.desktop (the user's file, trusted) runs once per
# transition into waiting, told the host and the reason.
cat >"$cfg/agent/config.json" <<JSON
{"notify": {"desktop": ["sh", "-c", "echo \"\$AGENT_SESSION_ID \$AGENT_HOST [\$AGENT_WAITING_FOR] \$1 [\$2]\" >> '$ws.notified'", "notify", "{host}", "{reason}"]}}
JSON
notified() { [ -f "$ws.notified" ] && wc -l <"$ws.notified" || echo 0; }
wait_notified() { for _ in $(seq 50); do [ "$(notified)" -ge "$1" ] && return 0; sleep 0.1; done; return 1; }
dashboard 200 60
check "200x60: the strip, the detail pane beside the list" \
  eval 'wait_for "2 need you" >/dev/null && strip | grep -qE "need you \(! jumps\): 11111111-aaaa-4aaa-8aaa… waiting [0-9]+[smhd], Port the scheduler to C… waiting [0-9]+[smhd] *$"'
keys '!'
check "200x60: ! selects it, the detail pane shows it" \
  wait_for "id        $CL"
sleep 0.5
check "200x60: nothing notified for the initial load" [ "$(notified)" -eq 0 ]
put_status "${pid_of[40002]}" "{\"pid\":${pid_of[40002]},\"sessionId\":\"$B\",\"status\":\"waiting\",\"waitingFor\":\"approve Bash\",\"startedAt\":$(date +%s%3N)}"
check "200x60: a transcript turning waiting notifies" wait_notified 1
check "200x60: with the host and the reason (env and placeholders)" \
  grep -qxF "$B $host [approve Bash] $host [approve Bash]" "$ws.notified"
check "200x60: the strip names it" eval 'wait_for "3 need you" >/dev/null && strip | grep -q "Refactor the lexer"'
# Still waiting (its file written again): no second notification.
put_status "${pid_of[40002]}" "{\"pid\":${pid_of[40002]},\"sessionId\":\"$B\",\"status\":\"waiting\",\"waitingFor\":\"approve Bash\",\"startedAt\":$(date +%s%3N)}"
put_status "${pid_of[40001]}" "{\"pid\":${pid_of[40001]},\"sessionId\":\"$W\",\"status\":\"waiting\",\"waitingFor\":\"approve Edit\",\"startedAt\":$(date +%s%3N)}"
check "200x60: the next transition notifies once more" wait_notified 2
check "200x60: that one's reason" grep -qxF "$W $host [approve Edit] $host [approve Edit]" "$ws.notified"
sleep 1
check "200x60: once per transition (2 lines)" [ "$(notified)" -eq 2 ]
keys q
check "q quits" wait_gone
finish
