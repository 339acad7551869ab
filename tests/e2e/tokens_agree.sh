#!/usr/bin/env bash
# One session, one token estimate: `session list --json`, `session show`,
# the Sessions pane's TOKENS column and the compaction dialog's "tokens
# before" give the same number for every session of the fixtures (the pane
# shortens it as 950, 1.2k, 34k).
. "$(dirname "$0")/lib/tmux.sh" "$@"
fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)
short() { # the pane's ui_fmt_count()
  if [ "$1" -lt 1000 ]; then echo "$1"
  elif [ "$1" -lt 10000 ]; then LC_ALL=C printf '%.1fk\n' "$(echo "$1 / 1000" | bc -l)"
  elif [ "$1" -lt 1000000 ]; then echo "$(($1 / 1000))k"
  else LC_ALL=C printf '%.1fM\n' "$(echo "$1 / 1000000" | bc -l)"; fi
}
# The TOKENS cell of the only row the filter left: the last but one field.
pane_tokens() { screen | grep -F -- "$1" | head -n 1 | awk '{print $(NF-1)}'; }

for fixture in ${FIXTURES:-basic compaction seed-edge}; do
  find "$ws" -mindepth 1 -delete
  cp -R "$fixtures/$fixture/." "$ws/"
  w=$ws
  "$agentctl" -w "$w" session list --json > "$ws.list" 2>/dev/null
  dashboard 160 40
  wait_for "Sessions" >/dev/null
  for id in $(jq -r '.[].id' "$ws.list"); do
    listed=$(jq -r --arg id "$id" '.[] | select(.id == $id) | .tokens' "$ws.list")
    shown=$("$agentctl" -w "$w" session show "$id" | sed -n 's/^messages [0-9]* (~\([0-9]*\) tokens)$/\1/p')
    check "$fixture $id: session show says $listed (it says $shown)" [ "$shown" = "$listed" ]
    keys /
    keys "$id" Enter
    wait_for "(of " >/dev/null
    cell=$(pane_tokens "${id:0:8}…")
    check "$fixture $id: the pane says $(short "$listed") (it says $cell)" [ "$cell" = "$(short "$listed")" ]
    keys c
    if screen | grep -q "Compact session"; then
      before=$(screen | sed -n 's/.*tokens before: \([0-9]*\).*/\1/p' | head -n 1)
      check "$fixture $id: the compaction dialog says $listed (it says $before)" [ "$before" = "$listed" ]
      keys n
    fi
    keys Escape
    keys Escape
  done
  send q
  wait_gone
done
at_exit() { rm -f "$ws.list"; }
finish
