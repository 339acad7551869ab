#!/usr/bin/env bash
# End-to-end checks of Antigravity CLI (agy) conversations as a source:
# HOME holds a copy of tests/fixtures/agy/home (brain transcripts and
# history.jsonl, as agy writes them) moved to a real workspace. `session
# list`, `show`, `search` and `sources check` see them, read-only; a
# conversation history.jsonl does not place lists only with
# --all-projects; nothing under HOME changes.
# Usage: sources_agy.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

FIX=$(cd "$(dirname "$0")/../fixtures/agy" && pwd)
A=7b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8
B=0c9d8e7f-6a5b-4c3d-8e2f-1a0b9c8d7e6f
D=d0d0d0d0-1111-4222-8333-444455556666
ESC=$'\x1b'

mkdir -p "$TMP/ws/agy.project"
WS=$(realpath "$TMP/ws/agy.project")
export HOME=$TMP/home
cp -r "$FIX/home" "$HOME"
grep -rl /work/agy-project "$HOME" | xargs sed -i "s|/work/agy-project|$WS|g"
# A pending call waits at once (a slow tool and a prompt look alike).
export AGENT_SOURCES_STATE_PERMISSION_MS=0 XDG_CACHE_HOME=$TMP/cache
tree_sum() { find "$HOME" -type f -exec sha256sum {} + | sort; }
tree_sum >"$TMP/before"
out_has() { grep -qE -- "$1" "$TMP/out"; }
out_has_text() { grep -qF -- "$1" "$TMP/out"; }
err_has() { grep -qE -- "$1" "$TMP/err"; }
jq_out() { jq -r "$1" <"$TMP/out" 2>/dev/null; }

run session list --json
check "list --json: exit 0, nothing on stderr" eval 'rc_is 0 && [ ! -s "$TMP/err" ]'
check "list --json: the workspace's conversation only, source antigravity" \
	[ "$(jq_out '[.[] | .id + " " + .source] | join(",")')" = "$A antigravity" ]
check "list --json: its prompt without the metadata agy appends, its cwd from history.jsonl" \
	[ "$(jq_out ".[] | select(.id == \"$A\") | .task + \"|\" + .cwd + \"|\" + (.malformedLines | tostring)")" = \
	  "list the files and explain main.c|$WS|1" ]
run session list --all-projects --json
check "list --all-projects: the other project's and the unplaced one too" \
	[ "$(jq_out "[.[] | .id[0:4]] | sort | join(\" \")")" = "0c9d 7b1c d0d0" ]
check "list --all-projects: the open run_command waits" \
	[ "$(jq_out ".[] | select(.id == \"$B\") | .state + \" \" + (.pendingToolCalls | tostring)")" = "waiting 1" ]
run session list
check "list: the tool in the agent column" eval "out_has '^$A +[a-z]+ .* antigravity +list the files'"

run session show "$A"
check "show: exit 0, the header says read-only" eval 'rc_is 0 && out_has "^source +antigravity \\(read-only\\)"'
check "show: the call" out_has_text '[tool_use list_dir {"DirectoryPath":"'"$WS"'"'
check "show: its output, under its step" out_has_text '[tool_result 3 LIST_DIRECTORY: Created At'
check "show: the answer" out_has_text 'main.c prints the word quokka'
check "show: no metadata block" eval '! out_has_text "ADDITIONAL_METADATA"'
run session show "$A" --json
check "show --json: as many messages as the list says" \
	[ "$(jq_out '.conversation | length')" = 8 ]

run session search quokka --json
check "search: the three messages (the file output, the answer, the last reply)" \
	[ "$(jq_out "[.results[] | select(.sessionId == \"$A\") | .message] | join(\" \")")" = "5 6 8" ]
check "search: source antigravity" [ "$(jq_out '[.results[].source] | unique | join(" ")')" = "antigravity" ]
run session show "$A" --json
check "search: its numbers are show's (1-based)" \
	[ "$(jq_out '[.conversation[4, 5, 7] | tostring | test("quokka")] | all')" = true ]

run sources check --json
check "sources check: antigravity's folder and count" \
	[ "$(jq_out '.sources[] | select(.source == "antigravity") | .folder + " " + (.transcripts | tostring)')" = \
	  "$HOME/.gemini/antigravity-cli 1" ]

check "sources check --json: no conversation left unread" \
	[ "$(jq_out '.sources[] | select(.source == "antigravity") | .conversationsNotRead')" = 0 ]
# Conversations older agy kept only in its own formats: one line, exit 0.
mkdir -p "$TMP/agy-old/conversations" "$TMP/agy-old/implicit"
printf 'SQLite format 3' >"$TMP/agy-old/conversations/11111111-2222-4333-8444-555555555555.db"
printf 'x' >"$TMP/agy-old/implicit/66666666-7777-4888-8999-000000000000.pb"
AGENT_SOURCES_AGY_DIR=$TMP/agy-old run sources check
check "sources check: a line for the conversations not read, exit 0" \
	eval "rc_is 0 && out_has_text 'antigravity: 2 conversations in $TMP/agy-old with no transcript.jsonl, kept only as .db/.pb (protobuf, encrypted): not read'"
AGENT_SOURCES_AGY_DIR=$TMP/agy-old run sources check --json
check "sources check --json: conversationsNotRead" \
	[ "$(jq_out '.sources[] | select(.source == "antigravity") | .conversationsNotRead')" = 2 ]

run session pause "$A"
check "pause: refused, read-only source" eval 'rc_is 1 && err_has "read-only source" && [ $(wc -l <"$TMP/err") = 1 ]'

# A step whose text holds an escape: shown escaped, never raw.
printf '%s\n' '{"step_index":11,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","created_at":"2026-06-19T05:26:00Z","content":"red \u001b[31mtext"}' \
	>>"$HOME/.gemini/antigravity-cli/brain/$A/.system_generated/logs/transcript.jsonl"
run session show "$A"
check "show: an escape in a step is not written raw" eval "rc_is 0 && ! grep -q \"$ESC\" \"$TMP/out\""
tree_sum >"$TMP/before"

chmod -R a-w "$HOME"
run session list --all-projects --json
check "read-only tree: lists the same" eval 'rc_is 0 && [ "$(jq_out "length")" = 3 ]'
chmod -R u+w "$HOME"
tree_sum >"$TMP/after"
check "nothing under HOME changed" cmp -s "$TMP/before" "$TMP/after"

mkdir -p "$WS/.agent"
printf '{"sources": {"agy": {"enabled": false}}}\n' >"$WS/.agent/config.json"
run session list --json
check "sources.agy.enabled false: none listed" eval 'rc_is 0 && [ "$(jq_out "length")" = 0 ]'

finish
