#!/usr/bin/env bash
# The Operations pane as an operator's tool: Enter opens the selected
# operation's patch (scrollable, coloured by the theme, hostile bytes made
# visible, Esc back); R's dialog names every session whose work a rollback
# undoes, v's the session of the one operation it reverts; v then y reverts
# that operation alone and keeps the later ones; a revert that collides
# with a later change is refused naming the path, with nothing changed.
# The git command-line tool only sets up and inspects the repository.
. "$(dirname "$0")/lib/tmux.sh" "$@"
# git -C "" would act on the current folder: never without the harness's workspace.
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
lines() { printf 'line %s\n' 1 "$1" 3 4 5 6 7 8 "$2" 10; }

lines 2 9 >"$ws/login.js"
commit_op op-0 sess-zero login.js
# op-1 (sess-one): line 2 of login.js, and a long new file with hostile bytes.
lines TWO 9 >"$ws/login.js"
{ printf 'evil \033[31mred\033[0m and \033]0;title\007 here\n'; seq -f 'row %g' 1 60; } >"$ws/long.txt"
commit_op op-1 sess-one login.js
# op-2 (sess-two): line 9 of login.js and a new file.
lines TWO NINE >"$ws/login.js"
echo other >"$ws/other.txt"
commit_op op-2 sess-two other.txt
# op-3 (sess-three): other.txt again.
echo other, changed >"$ws/other.txt"
commit_op op-3 sess-three other.txt
sums() { (cd "$ws" && find . -path ./.git/objects -prune -o -type f -print0 | sort -z |
  xargs -0 sha256sum); }
before=$(sums)

dashboard 120 40
wait_for "1 Sessions" >/dev/null
keys 2
check "Operations lists the log" wait_for "other.txt"
check "Operations hints Enter open and v revert" bash -c "tmux -L $sock capture-pane -p -t e2e | tail -n 1 | grep -F 'Enter open' | grep -qF 'v revert'"

# Enter on op-1: its patch.
keys g j j
send Enter
check "Enter opens the operation's patch" wait_for "Operation op-1  session sess-one  file_write  commit"
check "the patch title counts files and lines" wait_for "2 files, +62 -1"
check "the patch shows the diff header" wait_for "diff --git a/login.js b/login.js"
check "the patch shows the changed line" wait_for "+line TWO"
check "the patch is scrollable from its first line" wait_for "lines 1-"
check "hostile bytes are made visible" wait_for '+evil ^[[31mred^[[0m and ^[]0;title^G here'
check "the patch view hints j/k scroll and Esc back" bash -c "tmux -L $sock capture-pane -p -t e2e | tail -n 1 | grep -F 'j/k scroll' | grep -qF 'Esc back'"
keys j j
check "j scrolls the patch" wait_for "lines 3-"
keys G
check "G shows the patch's end" wait_for "+row 60"
check "... and not its start" absent "diff --git a/login.js"
keys g
check "g goes back to the top" wait_for "diff --git a/login.js b/login.js"

# v from the patch: a dialog naming the one session it undoes.
keys v
check "v opens the revert dialog" wait_for "Revert operation op-1 alone?"
check "the revert dialog names the operation's session" wait_for "session sess-one"
check "... and no other" absent "session sess-two"
check "the revert dialog lists the file it changes" wait_for "change  login.js"
keys n
check "n cancels" wait_for "cancelled; nothing was changed"
keys Escape
check "Esc closes the patch" wait_for "2 Operations"
check "... back to the list" absent "diff --git"

# R on op-1: every session from op-1 on.
keys R
check "R opens the rollback dialog" wait_for "Roll the workspace back to before operation op-1?"
check "the rollback dialog counts the sessions it undoes" wait_for "undoes the work of 3 sessions"
check "... naming sess-one" wait_for "session sess-one"
check "... sess-two" wait_for "session sess-two"
check "... and sess-three" wait_for "session sess-three"
keys Escape
check "nothing changed after the dialogs" [ "$(sums)" = "$before" ]

# v then y: op-1 reverted alone, later operations kept.
keys v
wait_for "Revert operation op-1 alone?" >/dev/null
keys y
check "y reverts" wait_for "reverted op-1"
check "op-1's line is undone" grep -qx 'line 2' "$ws/login.js"
check "op-2's line stays" grep -qx 'line NINE' "$ws/login.js"
check "op-1's new file is removed" [ ! -e "$ws/long.txt" ]
check "op-3's file stays" grep -qx 'other, changed' "$ws/other.txt"
check "the revert is in the operation log" bash -c "tail -n 1 $ws/.agent/operations.jsonl | grep -q '\"revertOf\":\"op-1\"'"

# v on op-2: op-3 changed the same line of other.txt: refused, unchanged.
before=$(sums)
keys g j j
keys v
check "a colliding revert is refused naming the path" wait_for "'other.txt'"
check "... with no dialog" absent "alone?"
check "... and nothing changed" [ "$(sums)" = "$before" ]
check "... its whole reason in a popup" wait_for "any key: close"
keys Escape

# The help screen lists v.
keys '?'
check "help lists v" wait_for "revert the selected operation alone"
keys q
wait_exit
check "q quits with status 0" grep -qx 0 "$ws.exit"
finish
