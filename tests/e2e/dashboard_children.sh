#!/usr/bin/env bash
# Drives the real dashboard in tmux over a Claude Code session with two
# sub-agents (tests/fixtures/sources/children: P, its sub-agent A in
# P/subagents/ with a meta file, the older-layout B beside the session
# files, and N, which A started), at 80x24, 120x40 and 170x40 (where the detail pane is beside the
# list): the children are rows under their session, marked "└ ", with
# their state and message count; '-' folds them ("▸2" on the parent) and
# '+' shows them again; '-' on a child folds its parent; Enter opens a
# child's conversation (its sidechain, never in the parent's); the detail
# pane counts a parent's children and names a child's parent; a child's
# row shows its tokens and (where wide enough) its last tool call; 'a' on a
# sub-agent is refused; nothing is written to the transcripts' folder.
. "$(dirname "$0")/lib/tmux.sh" "$@"
home=$ws.home
at_exit() { rm -rf "$home"; }
fix=$(cd "$(dirname "$0")/../fixtures/sources/children" && pwd)
cp -r "$fix/home" "$home"
grep -rl /work/fixture-project "$home" | xargs sed -i "s|/work/fixture-project|$ws|g"
slug=$(printf %s "$ws" | sed 's/[^a-zA-Z0-9]/-/g')
mv "$home/.claude/projects/-work-fixture-project" "$home/.claude/projects/$slug"
mkdir -p "$ws/.agent/sessions"
sum() { find "$home" -type f -exec sha256sum {} + | sort; }
before=$(sum)
prefix="env HOME=$home XDG_CACHE_HOME=$ws.cache AGENT_SOURCES_STATE_PERMISSION_MS=0"
# The row (line number) of the first screen line holding TEXT.
row_of() { screen | grep -nF -- "$1" | head -n 1 | cut -d: -f1; }
below() { # TEXT-BELOW TEXT-ABOVE: the first is on the line right after the second
  local a b
  a=$(row_of "$2") b=$(row_of "$1")
  [ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ]
}

for size in "80 24" "120 40" "170 40"; do
  set -- $size
  dashboard "$1" "$2"
  check "$1x$2: the session, unfolded (▾)" wait_for "▾ Map the API"
  check "$1x$2: its sub-agents under it, marked └" \
    eval 'wait_for "└ Run the test" >/dev/null && wait_for "└ ▾ Explore: Map" >/dev/null &&
          below "└ Run the test" "▾ Map the API" && below "└ ▾ Explore: Map" "▾ Map the API"'
  check "$1x$2: the sub-agent A started, under A, a level deeper" \
    eval 'wait_for "  └ general-pur" >/dev/null && below "  └ general-pur" "└ ▾ Explore: Map"'
  check "$1x$2: a child row has its state, messages and tokens" \
    eval 'screen | grep -F "└ ▾ Explore: Map" | grep -qE "(■|●|○|▶).* 5 +2.1k "'
  if [ "$1" -eq 120 ]; then # the widest list: the detail takes room from 170
    check "$1x$2: and its last action" wait_for "└ ▾ Explore: Map the API endpoints · Grep router"
  fi
  check "$1x$2: no compaction worker" absent "Summarise the conversation"
  keys g
  keys -
  check "$1x$2: - folds them: ▸2 on the session, no child row" \
    eval 'wait_for "▸2 Map the API" >/dev/null && absent "└ "'
  keys +
  check "$1x$2: + shows them again" eval 'wait_for "└ ▾ Explore: Map" >/dev/null && wait_for "▾ Map the API"'
  keys Left
  check "$1x$2: Left folds too" wait_for "▸2 Map the API"
  keys Right
  check "$1x$2: Right unfolds" wait_for "└ Run the test"
  if [ "$1" -ge 170 ]; then
    check "$1x$2: the detail pane counts the session's children" wait_for "2 sub-agents or forks"
    check "$1x$2: and the session's tokens and last action" \
      eval 'wait_for "2.8k tokens, 4 messages" >/dev/null && wait_for "last      Task Map the API endpoints"'
  fi
  keys j
  keys j
  if [ "$1" -ge 170 ]; then
    check "$1x$2: the detail pane names a child's parent" \
      wait_for "parent    7d0c5e2a-4b1f-4c3e-8a9d-1e2f3a4b5c6d (this is its"
  fi
  keys a
  check "$1x$2: a on a sub-agent: refused" wait_for "a sub-agent cannot be resumed"
  keys Escape # the refusal's popup
  keys Enter
  check "$1x$2: Enter opens the child's conversation" wait_for "List every HTTP endpoint"
  keys G
  check "$1x$2: to its last message" wait_for "quokka"

  keys Escape
  keys k
  keys Enter
  check "$1x$2: and the other child's, its pending call" \
    eval 'wait_for "Run the test suite" >/dev/null && wait_for "make test"'
  keys Escape
  keys g
  keys Enter
  keys G
  check "$1x$2: the parent's conversation holds none of it" \
    eval 'wait_for "The API has three endpoints" >/dev/null && absent "quokka"'
  keys Escape
  keys j
  keys -
  check "$1x$2: - on a child folds its parent" wait_for "▸2 Map the API"
  keys +
  keys j
  keys j
  keys -
  check "$1x$2: - on a child with children folds those first" \
    eval 'wait_for "└ ▸1 Explore" >/dev/null && wait_for "▾ Map the API"'
  keys -
  check "$1x$2: - again (its children folded already) folds its parent" wait_for "▸2 Map the API"
  keys q
  check "$1x$2: q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
  wait_gone
done
check "the transcripts were never written" [ "$(sum)" = "$before" ]
finish
