#!/usr/bin/env bash
# The dashboard on a rollback killed midway (issue 23, item 13), at 80x24:
# the Operations pane's first row says a rollback was interrupted, naming
# it, with F finish and U undo; U opens a dialog saying it puts the
# snapshot back and listing the files (n: nothing changes); F opens one
# listing every file it writes, and y finishes it: the tree is exactly the
# target's, the row goes. The rollback is killed by the test seam
# AGENTCTL_TEST_KILL_AFTER_FILES. The git command-line tool only sets up and
# inspects the repository.
. "$(dirname "$0")/lib/tmux.sh" "$@"
export GIT_CONFIG_NOSYSTEM=1 HOME=${ws:?no workspace}.state/home
mkdir -p "$HOME" "$ws/.agent"
g() { git -C "${ws:?no workspace}" "$@"; }
g init -q && g config user.email t@t && g config user.name t

# commit_op ID SESSION PATH
commit_op() {
  g add -A -- . ':!.agent' ':!JOURNAL*' >/dev/null 2>&1
  g commit -q --allow-empty -m "[agent] file_write: $3"
  printf '{"id":"%s","timestamp":"2025-01-01T00:00:0%s.000Z","sessionId":"%s","type":"file_write","details":{"path":"%s"},"gitCommitHash":"%s"}\n' \
    "$1" "${1#op-}" "$2" "$3" "$(g rev-parse HEAD)" >>"$ws/.agent/operations.jsonl"
}
for d in 0 1 2 3 4 5 6 7 8 9; do
  mkdir -p "$ws/d$d"
  for f in $(seq -w 0 99); do printf 'old %s%s\n' "$d" "$f" >"$ws/d$d/f$f.txt"; done
done
commit_op op-0 sess-zero d0
for d in 0 1 2 3 4 5 6 7 8 9; do
  for f in $(seq -w 0 99); do printf 'new %s%s\n' "$d" "$f" >"$ws/d$d/f$f.txt"; done
done
commit_op op-1 sess-one d1
C1=$(g rev-parse HEAD)
(AGENTCTL_TEST_KILL_AFTER_FILES=500 exec "$agentctl" -w "$ws" ops rollback op-1 --yes \
  >/dev/null 2>&1 </dev/null) 2>/dev/null
check "the rollback was killed midway, leaving its intent" test -s "$ws/.agent/rollback-intent.json"
SNAP=$(jq -r .snapshot "$ws/.agent/rollback-intent.json")

dashboard 80 24
wait_for "1 Sessions" >/dev/null
keys 2
check "Operations' first row: the interrupted rollback, F and U" \
  wait_for "F finish  U undo | INTERRUPTED: rollback to before operation op-1"
keys G R
check "R on another operation is refused: an interrupted rollback is pending" \
  wait_for "rollback op-0: ops rollback: refused: an interrupted rollback to befor"
check "... its whole reason in a popup, any key closes it" wait_for "any key: close"
keys Escape
keys U
check "U opens the undo dialog" wait_for "Undo the interrupted rollback to before operation op-1?"
check "... saying it puts the snapshot back" wait_for "puts back the snapshot ${SNAP:0:12}"
check "... and what that does to the files" wait_for "0 to remove, 0 to restore, 1000 to change"
check "... file by file" wait_for "change  d0/f00.txt"
keys n
check "n closes it" absent "Undo the interrupted"
check "... and nothing changed: the intent is there" test -s "$ws/.agent/rollback-intent.json"
# An agent writes a file of the plan while the rollback stands stopped:
# F is refused, naming it, and the file keeps what the agent wrote.
printf 'an agent wrote this\n' >"$ws/d4/f44.txt"
keys F
check "F opens the finish dialog" wait_for "Finish the interrupted rollback to before operation op-1?"
keys y
check "a planned file written meanwhile: F is refused, naming it" \
	wait_for "'d4/f44.txt' was written while the rollback"
check "... its whole reason in a popup" wait_for "any key: close"
check "... the file keeps what the agent wrote" [ "$(cat "$ws/d4/f44.txt")" = "an agent wrote this" ]
check "... the intent stays" test -s "$ws/.agent/rollback-intent.json"
keys Escape
mv "$ws/d4/f44.txt" "$ws/.agent/f44.mine" # out of the worktree git sees
keys F
check "F opens the finish dialog" wait_for "Finish the interrupted rollback to before operation op-1?"
check "... counting the files it writes" wait_for "0 to remove, 0 to restore, 1000 to change"
check "... file by file" wait_for "change  d0/f00.txt"
keys y
check "y finishes it" wait_for "finished the interrupted rollback of op-1"
check "the intent is gone" test ! -e "$ws/.agent/rollback-intent.json"
check "the row is gone" bash -c "sleep 0.5; ! tmux -L $sock capture-pane -p -t e2e | grep -qF 'INTERRUPTED'"
check "HEAD's tree is exactly op-1's parent's" [ "$(g rev-parse 'HEAD^{tree}')" = "$(g rev-parse "$C1^^{tree}")" ]
check "the worktree matches it" [ -z "$(g status --porcelain -- . ':!.agent')" ]

# Another rollback, to before op-0 (removing all 1,000 files), killed
# midway while the dashboard runs: the row appears; U then y puts the
# snapshot back.
HEAD_NOW=$(g rev-parse HEAD)
(AGENTCTL_TEST_KILL_AFTER_FILES=500 exec "$agentctl" -w "$ws" ops rollback op-0 --yes \
  >/dev/null 2>&1 </dev/null) 2>/dev/null
SNAP=$(jq -r .snapshot "$ws/.agent/rollback-intent.json")
check "the row appears while the dashboard runs" \
  wait_for "F finish  U undo | INTERRUPTED: rollback to before operation op-0"
keys U
check "U's dialog counts the files put back" wait_for "0 to remove, 1000 to restore, 0 to change"
check "... file by file" wait_for "restore d0/f00.txt"
keys y
check "y undoes it" wait_for "undid the interrupted rollback of op-0"
check "the intent is gone" test ! -e "$ws/.agent/rollback-intent.json"
check "HEAD is the snapshot, whose tree is the state before" \
  [ "$(g rev-parse HEAD)" = "$SNAP" -a "$(g rev-parse "$SNAP^{tree}")" = "$(g rev-parse "$HEAD_NOW^{tree}")" ]
check "the worktree matches it exactly" [ -z "$(g status --porcelain -- . ':!.agent')" ]
check "the row is gone" bash -c "sleep 0.5; ! tmux -L $sock capture-pane -p -t e2e | grep -qF 'INTERRUPTED'"
send q
wait_exit
finish
