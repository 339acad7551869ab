#!/usr/bin/env bash
# The frame at the operator's sizes (issue 27, "Wording and frames"):
# `? help` and `q quit` stay at the right end of the hint line at 80x24,
# 120x40 and 200x60 (at 80 columns the line used to end "o so…"); a
# terminal too small says the size it needs and the size it is; the `/`
# filter takes a pasted text of more than 127 bytes (it stopped at 127);
# a status message leaves the status line after a while (the log keeps
# it).
. "$(dirname "$0")/lib/tmux.sh" "$@"
"$agentctl" -w "$ws" session create "a task to see" >/dev/null
ys=$(printf 'y%.0s' $(seq 150))
"$agentctl" -w "$ws" session create "${ys}A" >/dev/null
"$agentctl" -w "$ws" session create "${ys}B" >/dev/null

for size in 80x24 120x40 200x60; do
	dashboard "${size%x*}" "${size#*x}"
	wait_for "a task to see" >/dev/null
	check "$size: the hint line ends with ? help and q quit" \
		bash -c '[[ "$(tmux -L "$0" capture-pane -p -t e2e | tail -n 1)" =~ \?\ help\ +q\ quit\ *$ ]]' "$sock"
	keys q
	wait_gone
done

dashboard 20 5
check "too small: says what it needs and what it is" wait_for "need 24x6, is 20x5"
keys q
wait_gone
dashboard 60 5
check "too small (wider): the whole sentence" wait_for "terminal too small: 60x5, needs at least 24x6"
keys q
wait_gone

dashboard 120 40
wait_for "a task to see" >/dev/null
keys /
send -l "${ys}B"
sleep 0.3
check "a filter of 151 bytes is taken whole: its end is on the line" wait_for "yyyB_"
keys Enter
check "and applied whole: one session of three matches" wait_for "1/1 (of 3)"

keys Escape
keys z
check "a status message is shown" wait_for "nothing to undo"
sleep 21
check "and leaves the status line after 20 s" absent "nothing to undo"
keys L
check "the log keeps it" wait_for "nothing to undo"
keys q
finish
