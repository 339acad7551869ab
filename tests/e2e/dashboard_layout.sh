#!/usr/bin/env bash
# The dashboard's layout (issue 27, tui/layout.c) on a copy of the basic
# fixture (tests/fixtures/README.md: four sessions, their operations and
# checkpoints, a journal), driven with real keys:
#   120x40 and 200x60: Sessions, the selected session's Operations and
#     Checkpoints, and the Journal all on screen, stacked in that order;
#     Operations and Checkpoints follow the cursor in Sessions; the
#     focused pane (1-4, Tab, S-Tab) is the tallest; each pane keeps its
#     own filter and cursor; A lists every session's operations; the
#     selected session's detail from 170 columns;
#   80x24: one list pane at a time, the journal strip under it;
#   tmux resize-window lays the screen out again.
. "$(dirname "$0")/lib/tmux.sh" "$@"
fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)
cp -R "$fixtures/basic/." "$ws/"
S=5e551000-0000-4000-8000-0000000000

# The titles' line numbers (0: not on screen), in screen order.
title_line() { screen | grep -n "^ $1 " | head -n 1 | cut -d: -f1 | grep . || echo 0; }
titles() { echo "$(title_line '1 Sessions') $(title_line '2 Operations') $(title_line '3 Checkpoints') $(title_line '4 Journal')"; }
# A pane's rows: from its title to the next pane's (the journal: to the status line).
names=("" "1 Sessions" "2 Operations" "3 Checkpoints" "4 Journal")
pane() { # N (on screen)
  local from to
  from=$(title_line "${names[$1]}")
  [ "$from" -gt 0 ] || return 0
  case $1 in 4) to=$(($(screen | wc -l) - 1)) ;; *) to=$(title_line "${names[$1 + 1]}") ;; esac
  [ "$to" -gt "$from" ] || to=$(($(screen | wc -l) - 1)) # the next one is not on screen
  screen | sed -n "${from},$((to - 1))p"
}
height() { pane "$1" | wc -l; }
in_pane() { pane "$1" | grep -qE -- "$2"; }
all_four() { set -- $(titles); [ "$1" -gt 0 ] && [ "$1" -lt "$2" ] && [ "$2" -lt "$3" ] && [ "$3" -lt "$4" ]; }
tallest() { # N: pane N has more rows than each other pane
  local h n
  h=$(height "$1")
  for n in 1 2 3 4; do [ "$n" = "$1" ] || [ "$h" -gt "$(height "$n")" ] || return 1; done
}
wait_until() { for _ in $(seq 30); do "$@" && return 0; sleep 0.1; done; return 1; }

for size in 120x40 200x60; do
  dashboard "${size%x*}" "${size#*x}"
  wait_for "1 Sessions" >/dev/null
  check "$size: all four panes on screen, in order" wait_until all_four
  # Four sessions: Sessions takes their rows (title, header, 4), focused
  # or not; the rows it leaves go to the Journal.
  check "$size: Sessions, focused, takes just its 6 rows" eval '[ "$(height 1)" = 6 ]'
  check "$size: ... the Journal the rest" tallest 4
  # Sorted by last update: session 04 (paused) is selected first.
  check "$size: Operations names the selected session" in_pane 2 "Operations — session 5e551000…004"
  check "$size: ... and lists its operation" in_pane 2 "legacy/old_main.c"
  check "$size: ... and no other session's" eval '! in_pane 2 "README.ja.md|json_scan|deploy.sh"'
  check "$size: Checkpoints are the selected session's" in_pane 3 "of ${S}04"
  check "$size: ... which has none" in_pane 3 "no checkpoints for this session yet"
  check "$size: the journal shows every session's events" \
    eval 'in_pane 4 "Deleted legacy/old_main.c" && in_pane 4 "Deploy failed"' 
  keys G # session 01
  check "$size: Operations follow the cursor" wait_until in_pane 2 "Operations — session 5e551000…001"
  check "$size: ... session 01's file_write" in_pane 2 "src/json_scan.c"
  check "$size: ... and its command" in_pane 2 "make test"
  check "$size: ... session 04's is gone" eval '! in_pane 2 "legacy/old_main.c"'
  check "$size: Checkpoints follow the cursor" in_pane 3 "c4ec0000-0000-4000-8000-000000000001"
  check "$size: ... both of session 01's" in_pane 3 "c4ec0000-0000-4000-8000-000000000002"
  keys k # session 02
  check "$size: moving again: session 02's operation" wait_until in_pane 2 "README.ja.md"
  check "$size: ... and its checkpoints" in_pane 3 "c4ec0000-0000-4000-8000-000000000003"
  check "$size: ... not session 01's" eval '! in_pane 3 "c4ec0000-0000-4000-8000-000000000001"'

  # Focus: the pane focused grows, the one left shrinks.
  sessions_h=$(height 1)
  keys 2
  check "$size: 2 makes Operations the tallest" wait_until tallest 2
  check "$size: ... and Sessions no taller" test "$(height 1)" -le "$sessions_h"
  check "$size: ... all four still on screen" all_four
  # (R is hinted only for an operation with a commit; these have none.)
  check "$size: the hint line is Operations'" eval 'hints | grep -qF "A all"'
  keys Tab
  check "$size: Tab: Checkpoints the tallest" wait_until tallest 3
  keys Tab
  check "$size: Tab: the Journal the tallest" wait_until tallest 4
  keys BTab
  check "$size: S-Tab: back to Checkpoints" wait_until tallest 3
  keys Tab Tab
  check "$size: Tab from the Journal: Sessions (its rows only)" wait_until eval '[ "$(height 1)" = 6 ] && tallest 4'
  keys j # the cursor moves in Sessions: Operations follow
  check "$size: ... and j moves its cursor" wait_until eval '! in_pane 2 "session 5e551000…004"'
  keys k
  # A click (xterm's X10 report: button, column, row, each + 32) in the
  # Checkpoints pane focuses it.
  row=$(($(title_line "3 Checkpoints") + 1))
  send -l "$(printf '\033[M %b' "\\0$(printf %o $((32 + 10)))\\0$(printf %o $((32 + row)))")"
  send -l "$(printf '\033[M#%b' "\\0$(printf %o $((32 + 10)))\\0$(printf %o $((32 + row)))")"
  check "$size: a click in Checkpoints focuses it" wait_until tallest 3
  keys 1

  # A: every session's operations; again: the selected one's.
  keys 2 A
  check "$size: A lists every session's operations" wait_until in_pane 2 "legacy/old_main.c"
  check "$size: ... the title names no session" eval '! in_pane 2 "Operations — session"'
  keys A
  check "$size: A again: the selected session's only" wait_until eval '! in_pane 2 "legacy/old_main.c"'

  # Each pane keeps its own filter and cursor.
  keys 4 g /
  send -l deploy
  keys Enter
  check "$size: the journal's filter" wait_until in_pane 4 "4 Journal .*/deploy"
  check "$size: ... applies to the journal" eval '! in_pane 4 "Backup finished"'
  keys 1 /
  send -l 5e551000-0000-4000-8000-00000000000
  keys Enter
  check "$size: the Sessions filter is its own" wait_until in_pane 1 "1 Sessions .*/5e551000-0000-4000-8000-00000000000"
  check "$size: ... the journal keeps its own" in_pane 4 "4 Journal .*/deploy"
  check "$size: ... Operations has none" eval '! in_pane 2 "Operations .* /[^ ]"'
  keys 4
  check "$size: back in the journal: its filter is still there" in_pane 4 "4 Journal .*/deploy"
  keys Escape 1 Escape

  if [ "${size%x*}" -ge 170 ]; then
    check "$size: the detail beside the panes" wait_for "Last messages"
    keys G
    check "$size: ... of the selected session" \
      wait_until eval 'screen | grep -qE "id +${S}01"' 
  else
    check "$size: no detail under 170 columns" absent "Last messages"
  fi
  keys q
  check "$size: q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
  wait_gone
done

# --- 80x24: one pane at a time, the journal strip under it ---
dashboard 80 24
wait_for "1 Sessions" >/dev/null
check "80x24: Sessions alone" eval '[ "$(titles)" = "2 0 0 $(title_line "4 Journal")" ]'
check "80x24: ... with the journal strip" test "$(title_line '4 Journal')" -gt 2
keys 2
check "80x24: 2 shows Operations" wait_until eval '[ "$(title_line "2 Operations")" = 2 ]'
check "80x24: ... alone" eval '[ "$(title_line "1 Sessions")" = 0 ] && [ "$(title_line "3 Checkpoints")" = 0 ]'
check "80x24: ... the selected session's" in_pane 2 "Operations — session 5e551000…004"
keys Tab
check "80x24: Tab shows Checkpoints" wait_until eval '[ "$(title_line "3 Checkpoints")" = 2 ]'
keys Tab
check "80x24: Tab: the Journal, without a strip" wait_until eval '[ "$(titles)" = "0 0 0 2" ]'
# Resized, the screen is laid out again.
keys 1
tmux -L "$sock" resize-window -t e2e -x 120 -y 40
check "resized to 120x40: all four" wait_until all_four
tmux -L "$sock" resize-window -t e2e -x 80 -y 24
check "resized back to 80x24: one pane" wait_until eval '[ "$(title_line "2 Operations")" = 0 ]'
keys q
check "80x24: q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
wait_gone
finish
