#!/usr/bin/env bash
# Finding the workspace (issue 13, item 15): with no -w, agentctl walks up
# from the current folder to the first one holding .agent/, JOURNAL.jsonl
# or .agentrc.json, as git finds its repository; it never walks into $HOME
# or a folder of AGENT_CEILING_DIRECTORIES. With none found the dashboard
# says so in one line (exit 2); commands keep using the current folder.
. "$(dirname "$0")/lib/cli.sh" "$@"
AC=$(realpath "$AC")
top=$TMP/top
mkdir -p "$top/proj/.agent/sessions" "$top/proj/src/deep" "$top/empty/sub" "$top/rc/a"
export AGENT_CEILING_DIRECTORIES=$top HOME=$TMP/home
mkdir -p "$HOME"
WS=$top/proj
run session create "find me" --id s-found
check "a session in the workspace" rc_is 0

# From a subfolder: the workspace above is found.
out=$(cd "$top/proj/src/deep" && "$AC" session list 2>&1)
check "session list from a subfolder finds the workspace above" grep -q s-found <<<"$out"
event='{"agent":"Human","status":"SUCCESS","action":{"type":"ANALYSIS","params":{}},"result":{"message":"hi"}}'
(cd "$top/proj/src/deep" && "$AC" journal log "$event" >/dev/null 2>&1)
check "journal log from a subfolder writes the workspace's journal" test -s "$top/proj/JOURNAL.jsonl"
check "and not one in the subfolder" test ! -e "$top/proj/src/deep/JOURNAL.jsonl"
# .agentrc.json marks a workspace too.
echo '{"theme": "light"}' >"$top/rc/.agentrc.json"
out=$(cd "$top/rc/a" && "$AC" config show --origin 2>&1)
check ".agentrc.json marks a workspace" grep -qF "$top/rc/.agentrc.json" <<<"$out"
# -w wins over the walk.
out=$(cd "$top/proj/src/deep" && "$AC" -w "$top/empty" session list 2>&1)
check "-w is not overridden by the walk" bash -c '! grep -q s-found <<<"$0"' "$out"

# No workspace here or above: the dashboard refuses in one line, exit 2.
(cd "$top/empty/sub" && "$AC" >"$TMP/out" 2>"$TMP/err" </dev/null)
rc=$?
check "dashboard without a workspace exits 2" test "$rc" -eq 2
check "one line" test "$(wc -l <"$TMP/err")" -eq 1
check "says no workspace here or above" grep -q "no workspace here or above" "$TMP/err"
check "mentions agentctl demo and -w" grep -q "agentctl demo.*-w DIR" "$TMP/err"
# The ceiling stops the walk: a workspace above it is not used.
mkdir -p "$TMP/.agent"
(cd "$top/empty/sub" && "$AC" >/dev/null 2>&1 </dev/null)
check "the walk stops at AGENT_CEILING_DIRECTORIES" test $? -eq 2
rmdir "$TMP/.agent"
# $HOME is a boundary: a ~/.agent folder does not make every folder below
# it a workspace.
mkdir -p "$HOME/.agent" "$HOME/code/x"
(cd "$HOME/code/x" && AGENT_CEILING_DIRECTORIES= "$AC" >"$TMP/out" 2>"$TMP/err" </dev/null)
check "the walk does not reach \$HOME" test $? -eq 2
rmdir "$HOME/.agent"

# Commands that create keep working in a fresh folder (the current one).
(cd "$top/empty/sub" && "$AC" journal log "$event" >/dev/null 2>"$TMP/err")
check "journal log in a fresh folder writes there" test -s "$top/empty/sub/JOURNAL.jsonl"
(cd "$top/empty/sub" && "$AC" session list >/dev/null 2>"$TMP/err")
check "session list in a folder that is now a workspace" test $? -eq 0
finish
