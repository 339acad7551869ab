#!/usr/bin/env bash
# Ages tick with nothing written: a session updated a few seconds ago is
# shown older and older (a stalled agent must not look active), and the
# dashboard still sleeps between ticks (its CPU time stays near zero).
. "$(dirname "$0")/lib/tmux.sh" "$@"
age() { screen | awk '$3 == "s-tick" { print $NF }'; }
mkdir -p "$ws/.agent/sessions"
now=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
printf '{"id":"s-tick","createdAt":"%s","updatedAt":"%s","task":"t","status":"running","conversationHistory":[],"metadata":{}}' \
  "$now" "$now" >"$ws/.agent/sessions/s-tick.json"
dashboard 100 30
for _ in $(seq 50); do [ -n "$(age)" ] && break; sleep 0.1; done
first=$(age)
sleep 3.2
second=$(age)
check "the age ticks with nothing written ($first, then $second)" \
  bash -c "[ -n '$first' ] && [ -n '$second' ] && [ '${first%s}' -lt '${second%s}' ]"
pid=$(tmux -L "$sock" list-panes -t e2e -F '#{pane_pid}')
t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
sleep 3
t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
check "ticking costs almost no CPU ($((t1 - t0)) ticks in 3 s)" test $((t1 - t0)) -le 10
send q
finish
