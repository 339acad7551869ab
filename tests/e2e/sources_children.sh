#!/usr/bin/env bash
# End-to-end checks of Claude Code sub-agents as children of their session
# in the command line, over tests/fixtures/sources/children (a session P,
# its sub-agent A in P/subagents/ with a meta file, an older-layout
# sub-agent B beside the session files, a compaction worker): `session
# list` leaves them out unless --children, then shows them under P
# ("└ ") and says relation and parentId in --json; `session show` opens a
# child and names its parent; `session search` finds text only a child
# holds and names both; each row has its own tokens and last tool call;
# `usage` books a child's tokens to P once.
# Usage: sources_children.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

FIX=$(cd "$(dirname "$0")/../fixtures/sources/children" && pwd)
P=7d0c5e2a-4b1f-4c3e-8a9d-1e2f3a4b5c6d
A=agent-a3f9c1e27b5d84e06
B=agent-0c1d2e3f
N=agent-b7e1d2c3f4a5b6c7d
mkdir -p "$TMP/ws"
WS=$(realpath "$TMP/ws")
export HOME=$TMP/home XDG_CACHE_HOME=$TMP/cache
cp -r "$FIX/home" "$HOME"
grep -rl /work/fixture-project "$HOME" | xargs sed -i "s|/work/fixture-project|$WS|g"
slug=$(printf %s "$WS" | sed 's/[^a-zA-Z0-9]/-/g')
mv "$HOME/.claude/projects/-work-fixture-project" "$HOME/.claude/projects/$slug"
tree_sum() { find "$HOME" -type f -exec sha256sum {} + | sort; }
tree_sum >"$TMP/before"
out_has() { grep -qE -- "$1" "$TMP/out"; }
jq_out() { jq -r "$1" <"$TMP/out" 2>/dev/null; }

run session list --json
check "list --json: the session alone, no child without --children" \
	eval 'rc_is 0 && [ "$(jq_out "[.[].id] | join(\" \")")" = "$P" ]'
check "list --json: a top-level session's relation is \"\" and parentId null" \
	[ "$(jq_out '.[0] | (.relation | tostring) + "|" + (.parentId | tostring)')" = "|null" ]
run session list
check "list: no child row without --children" eval 'rc_is 0 && ! out_has "agent-"'

run session list --children --json
check "list --children --json: the session, then its children, A's own after A" \
	[ "$(jq_out '[.[].id] | join(" ")')" = "$P $B $A $N" ]
check "list --children --json: a sub-agent started by a sub-agent is that one's child" \
	[ "$(jq_out ".[] | select(.id == \"$N\") | .parentId")" = "$A" ]
check "list --children --json: relation subagent, parentId the session" \
	[ "$(jq_out "[.[] | select(.parentId == \"$P\") | .relation] | join(\" \")")" = "subagent subagent" ]
check "list --children --json: the meta's type and description as the task" \
	[ "$(jq_out ".[] | select(.id == \"$A\") | .task")" = "Explore: Map the API endpoints" ]
check "list --children --json: the older layout's first prompt, its call pending" \
	[ "$(jq_out ".[] | select(.id == \"$B\") | .task + \"|\" + (.pendingToolCalls | tostring)")" = \
	  "Run the test suite and report failures.|1" ]
check "list --children --json: each one's own tokens and last tool call" \
	[ "$(jq_out '[.[] | .id[0:8] + "=" + (.tokens | tostring) + ":" + .lastAction] | join(" ")')" = \
	  "7d0c5e2a=2820:Task Map the API endpoints agent-0c=720:Bash make test agent-a3=2090:Grep router\\.(get|post) agent-b7=310:" ]
check "list --children --json: no compaction worker" \
	[ "$(jq_out '[.[] | select(.id | test("acompact"))] | length')" = 0 ]
run session list --children
check "list --children: each child under its parent, marked" \
	eval "rc_is 0 && [ \"\$(sed -n 2p \"$TMP/out\" | cut -c1-36)\" = \"$P\" ] &&
	      sed -n 3,4p \"$TMP/out\" | grep -q '^└ $B ' && sed -n 3,4p \"$TMP/out\" | grep -q '^└ $A ' &&
	      sed -n 5p \"$TMP/out\" | grep -q '^  └ $N '"
check "list --children: the child row has its state and message count" \
	out_has "^└ $A +[a-z]+ +5 +2090 "
run session list --children --state running --json
check "list --children --state running: a child whose parent is filtered out stays" \
	[ "$(jq_out '[.[].id] | join(" ")')" = "$B" ]
run session list --children --all-projects --json
check "list --children --all-projects: the same tree" \
	[ "$(jq_out '[.[].id] | join(" ")')" = "$P $B $A $N" ]

run session show "$A"
check "show child: exit 0, its conversation" \
	eval 'rc_is 0 && out_has "^\[5\] assistant: Three endpoints: /users, /orders, /health \(the quokka"'
check "show child: names its parent" out_has "^parent +$P \(this is its subagent\)"
run session show "$A" --json
check "show child --json: relation, parentId, every message" \
	[ "$(jq_out '.relation + "|" + .parentId + "|" + (.conversation | length | tostring) + "|" + (.messages | tostring)')" = "subagent|$P|5|5" ]
run session show "$P"
check "show parent: none of the child's messages" eval 'rc_is 0 && ! out_has quokka'

run session search quokka --json
check "search: the child's message, named with its parent" \
	[ "$(jq_out '.results[] | .sessionId + "|" + (.message | tostring) + "|" + .relation + "|" + .parentId')" = "$A|5|subagent|$P" ]
run session search quokka
check "search (text): the child's id and (subagent of PARENT)" \
	out_has "^$A +\[5\] +assistant +\(subagent of $P\) .*quokka"
run session search "Map the API and write"
check "search: a top-level hit carries no parent" \
	eval 'rc_is 0 && out_has "^$P" && ! out_has "subagent of"'

run session pause "$A"
check "pause child: refused, read-only source" eval 'rc_is 1 && grep -q "read-only source" "$TMP/err"'

run usage session --json
check "usage: the children's tokens booked to their session, once" \
	[ "$(jq_out '[.rows[] | .sessionId + "=" + (.inputTokens | tostring) + "/" + (.outputTokens | tostring)] | join(" ")')" = "$P=5700/240" ]

# A meta file's description (any file's text) cannot forge a header line
# of `session show`: its newline shows as ^J, on the task's own line.
meta=$HOME/.claude/projects/$slug/$P/subagents/$A.meta.json
cp "$meta" "$TMP/meta.bak"
printf '{"agentType":"Explore","description":"Map\\nstate    running\\nwaits on approve rm -rf","toolUseId":"toolu_task1"}' >"$meta"
XDG_CACHE_HOME=$TMP/cache-meta run session show "$A" # read afresh: the cache keeps the first title
check "show: a newline in a title is no header line of its own" \
	eval 'rc_is 0 && [ "$(grep -c "^state " "$TMP/out")" = 1 ] && ! grep -q "^waits on" "$TMP/out" &&
	      out_has "^task +Explore: Map\^Jstate    running\^Jwaits on approve"'
cp "$TMP/meta.bak" "$meta"
touch -r "$TMP/meta.bak" "$meta"

tree_sum >"$TMP/after"
check "nothing under HOME changed" cmp -s "$TMP/before" "$TMP/after"
finish
