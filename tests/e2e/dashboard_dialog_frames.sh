#!/usr/bin/env bash
# Dialog wording and frames (issue 27), in tmux with real keys at 80x24,
# 120x40 and 200x60:
#  - a dialog is boxed, and the rows it covers are cleared from edge to
#    edge: no column of the pane under it shows beside it;
#  - R names the files with uncommitted edits that no operation made (the
#    operator's own work), and whether the rollback undoes or keeps each;
#    a file an agent's operation names is not among them;
#  - a refused action shows its whole reason in a popup (the status line
#    cuts it at the width), which any key closes.
. "$(dirname "$0")/lib/tmux.sh" "$@"
command -v jq >/dev/null || { echo "jq is missing"; echo "0 passed, 1 failed"; exit 1; }
S=$ws/.agent/sessions
mkdir -p "$S" "$ws.cfg/agent"
export XDG_CONFIG_HOME=$ws.cfg
at_exit() { rm -rf "$ws.cfg"; }
jq -n '{id: "s1", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z",
  task: "frame me", status: "running", conversationHistory: [], metadata: {}}' >"$S/s1.json"
# A done session with an id long enough that p's refusal outgrows 200 columns.
long=done-$(printf 'x%.0s' $(seq 190))
jq -n --arg id "$long" '{id: $id, createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z", task: "long done", status: "completed",
  conversationHistory: [], metadata: {}}' >"$S/$long.json"
git -C "$ws" init -q && git -C "$ws" config user.email t@t && git -C "$ws" config user.name t
printf 'v1\n' >"$ws/agent.txt" && printf 'mine v1\n' >"$ws/mine.txt"
git -C "$ws" add agent.txt mine.txt && git -C "$ws" commit -qm v1
printf 'v2\n' >"$ws/agent.txt"
"$agentctl" -w "$ws" ops record --session s1 --type file_write --details '{"path":"agent.txt"}' >/dev/null 2>&1
# After the operation: the agent writes again (its file, not yet recorded),
# and the operator edits one tracked file and adds one of their own.
printf 'v3\n' >"$ws/agent.txt"
printf 'mine v2\n' >"$ws/mine.txt"
printf 'draft\n' >"$ws/notes-by-hand.txt"

# Rows the box covers: from its top border to its bottom one.
box_rows() { screen | sed -n '/┌/,/┘/p'; }
cleared() { # every covered row starts with a blank column and the border
  local n bad
  n=$(box_rows | wc -l)
  bad=$(box_rows | grep -cv '^ [┌│└]')
  [ "$n" -ge 4 ] && [ "$bad" = 0 ] || { box_rows; return 1; }
}

for size in 80x24 120x40 200x60; do
  prefix="env XDG_CONFIG_HOME=$ws.cfg" dashboard "${size%x*}" "${size#*x}"
  wait_for "frame me" >/dev/null
  keys 2
  keys A # every session's operations, where Operations follows the selected session
  wait_for "file_write" >/dev/null
  keys R
  check "$size: R opens the dialog" wait_for "Roll the workspace back"
  check "$size: the dialog is boxed" bash -c "tmux -L $sock capture-pane -p -t e2e | grep -q '┌─' && tmux -L $sock capture-pane -p -t e2e | grep -q '└─'"
  check "$size: ... and nothing of the pane shows beside it" cleared
  check "$size: it names the uncommitted edits no operation made" wait_for "uncommitted edits no operation made"
  check "$size: ... the operator's changed file, undone" bash -c "tmux -L $sock capture-pane -p -t e2e | grep -Eq 'undone +mine.txt'"
  check "$size: ... the operator's new file" wait_for "notes-by-hand.txt"
  check "$size: ... not the agent's file" bash -c "! tmux -L $sock capture-pane -p -t e2e | grep -Eq '(undone|kept) +agent.txt'"
  check "$size: ... and says there are 2 of them" wait_for "2 files with uncommitted edits"
  keys n
  keys 1
  keys /
  send d o n e
  keys Enter
  keys p
  check "$size: a refused pause opens a popup" wait_for "any key: close"
  check "$size: ... boxed like a dialog" cleared
  check "$size: ... with the whole reason, its end too" bash -c "tmux -L $sock capture-pane -p -t e2e | grep -Eq 'the session is completed|only a running session is paused'"
  check "$size: ... the status line has it cut" bash -c "tmux -L $sock capture-pane -p -t e2e | tail -n 2 | head -n 1 | grep -q '…'"
  check "$size: ... the hint line offers no y or n/Esc under it" \
    bash -c "! tmux -L $sock capture-pane -p -t e2e | tail -n 1 | grep -Eq 'y confirm|n/Esc cancel'"
  keys x
  check "$size: any key closes it" bash -c "! tmux -L $sock capture-pane -p -t e2e | grep -q 'any key: close'"
  check "$size: ... and does nothing else (x is no key)" wait_for "long done"
  send q
  wait_gone
done
finish
