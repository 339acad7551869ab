#!/usr/bin/env bash
# End-to-end checks of Codex rollouts as current codex-rs writes them
# (tests/fixtures/sources-current, README-codex.md), through the CLI: a
# fork listed apart from its parent with its own messages and usage (the
# issue's example: parent 4,000/900, fork 2,000/600 input/output tokens),
# a sub-agent under its parent, titles from session_index.jsonl, archived
# and zstd-compressed rollouts shown and searched, a compaction's summary
# searchable, a rolled-back turn gone, an aborted turn a marker, injected
# context never a prompt, `session list` and `session show` agreeing on
# every count, a warm (cached) run saying the same, and nothing written
# under ~/.codex.
# Usage: sources_codex.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

FIX=$(cd "$(dirname "$0")/../fixtures/sources-current" && pwd)
P=01a1f82f-1e80-7101-8101-000000000101
F=01a1f866-0d00-7201-8201-000000000201
S=01a1f832-c800-7301-8301-000000000301
O=01a1fd1e-8c00-7401-8401-000000000401
A=01a1961f-5c00-7501-8501-000000000501
Z=01a15853-0c00-7601-8601-000000000601

mkdir -p "$TMP/ws/fixture.project"
WS=$(realpath "$TMP/ws/fixture.project")
export HOME=$TMP/home XDG_CACHE_HOME=$TMP/cache
mkdir -p "$HOME"
cp -r "$FIX/home/.codex" "$HOME/.codex"
# Only the plain rollouts name the workspace: the compressed one stays as
# it was written (listed with --all-projects).
grep -rl /work/fixture-project "$HOME/.codex" | xargs sed -i "s|/work/fixture-project|$WS|g"
tree_sum() { find "$HOME" -type f -exec sha256sum {} + | sort; }
tree_sum >"$TMP/before"
jq_out() { jq -r "$1" <"$TMP/out" 2>/dev/null; }
out_has_text() { grep -qF -- "$1" "$TMP/out"; }
row() { jq_out ".[] | select(.id == \"$1\") | $2"; }

for pass in cold warm; do
	run session list --all-projects --children --json
	check "list --json ($pass): exit 0" rc_is 0
	check "list --json ($pass): six Codex sessions, each listed once" \
		[ "$(jq_out '[.[] | select(.source == "codex") | .id] | sort | join(" ")')" = \
		  "$(printf '%s\n' $P $F $S $O $A $Z | sort | tr '\n' ' ' | sed 's/ $//')" ]
	check "list --json ($pass): the fork is its own session, a fork of the parent" \
		[ "$(row $F '.relation + " " + .parentId + " " + .task')" = "fork $P Now add a --quiet flag too" ]
	check "list --json ($pass): the sub-agent names its parent" \
		[ "$(row $S '.relation + " " + .parentId')" = "subagent $P" ]
	check "list --json ($pass): the parent is top-level" \
		[ "$(row $P '.relation + "|" + (.parentId // "null")')" = "|null" ]
	check "list --json ($pass): messages (parent 6, fork 4, compacted 5)" \
		[ "$(row $P .messages) $(row $F .messages) $(row $O .messages)" = "6 4 5" ]
	check "list --json ($pass): titles from session_index.jsonl (last wins, blank is none)" \
		[ "$(row $P .title)|$(row $O .title)|$(row $F .title)" = "CLI flags|Parser work|null" ]
	check "list --json ($pass): archived rollouts, the compressed one too" \
		[ "$(row $A .archived) $(row $Z .archived) $(row $P .archived)" = "true true false" ]
	check "list --json ($pass): the task is the prompt, not injected context" \
		[ "$(row $O .task)" = "Refactor the parser" ]
done

# One count: what `session show` numbers is what `session list` says.
for id in $P $F $S $O $A $Z; do
	run session show "$id" --json
	check "show --json $id: as many messages as list says" \
		[ "$(jq_out '.conversation | length')" = "$(jq_out .messages)" ]
done
run session show "$O"
check "show: the compaction summary is labelled as one" \
	out_has_text '[3] system: [Conversation summary]: Summary: the parser now lives in parse.c'
check "show: the aborted turn is a marker" out_has_text '[5] system: [turn aborted] interrupted'
check "show: the rolled-back turn is gone" eval '! out_has_text "Rename parse.c"'
check "show: no injected context" \
	eval '! out_has_text "<environment_context>" && ! out_has_text "# AGENTS.md" && ! out_has_text "<turn_aborted>"'
check "show: the title" out_has_text 'title    Parser work'
run session show "$F"
check "show (fork): says whose fork, starts at its own prompt" \
	eval "out_has_text 'fork of  $P' && out_has_text '[1] user: Now add a --quiet flag too'"
check "show (fork): none of the parent's turns" eval '! out_has_text "--verbose"'
run session show "$Z"
check "show (compressed): read through zstd, said to be archived" \
	eval "rc_is 0 && out_has_text 'codex (archived, read-only)' && out_has_text 'The zstd-compressed answer.'"

run session search "make test passes" --all-projects --json
check "search: finds the compaction summary" \
	[ "$(jq_out '[.results[] | .sessionId + " " + (.message | tostring) + " " + .role] | join(",")')" = "$O 3 system" ]
run session search "compressed rollout marker" --all-projects --json
check "search: finds text in the compressed rollout" \
	[ "$(jq_out '[.results[].sessionId] | join(",")')" = "$Z" ]
run session search "Rename parse.c" --all-projects --json
check "search: the rolled-back turn is not found" [ "$(jq_out '.results | length')" = 0 ]
run session search "Document it in the README" --all-projects --json
check "search: the parent's turn is found in the parent only, not in its fork's copy" \
	[ "$(jq_out '[.results[].sessionId] | join(",")')" = "$P" ]

for pass in cold warm; do
	run usage session --all-projects --json
	check "usage ($pass): exit 0" rc_is 0
	urow() { jq_out ".rows[] | select(.sessionId == \"$1\") | \"\(.inputTokens)/\(.outputTokens)\""; }
	check "usage ($pass): the parent 4000/900, the fork 2000/600 (not 10000/2400 under the parent)" \
		[ "$(urow $P) $(urow $F)" = "4000/900 2000/600" ]
	check "usage ($pass): the sub-agent, archived and compressed rollouts on their own" \
		[ "$(urow $S) $(urow $A) $(urow $Z)" = "300/50 100/10 700/100" ]
	check "usage ($pass): totals" [ "$(jq_out '"\(.totals.inputTokens)/\(.totals.outputTokens)"')" = "8100/1780" ]
done

tree_sum >"$TMP/after"
check "nothing under ~/.codex was written" cmp -s "$TMP/before" "$TMP/after"
finish
