#!/usr/bin/env bash
# End-to-end checks of the coding agents' own sessions in `session list`
# and `session show`: HOME points at a copy of tests/fixtures/sources/home
# (Claude Code, Codex and Gemini CLI transcripts) moved to a real
# workspace. Listing, the derived state and its filter, the conversation
# with tool calls and results (escaped), the refusal of writes, a tree
# that may not be written, and a project file that may not move the folders.
# Usage: sources_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/sources_home.sh"

run session create "a seed task" --id seed-1
run session list --json
check "list --json: exit 0, nothing on stderr" eval 'rc_is 0 && [ ! -s "$TMP/err" ]'
check "list --json: the seed session is source agentctl, running" \
	[ "$(jq_out '.[] | select(.id == "seed-1") | .source + " " + .state')" = "agentctl running" ]
check "list --json: each tool's sessions, none of another project" \
	[ "$(jq_out '[.[] | .source] | sort | join(" ")')" = "agentctl claude-code claude-code codex gemini" ]
check "list --json: Claude Code's first prompt and cwd" \
	[ "$(jq_out ".[] | select(.id == \"$S1\") | .task + \"|\" + .cwd + \"|\" + .model")" = \
	  "Fix the failing test in parser.c|$WS|claude-sonnet-4-5-20250929" ]
check "list --json: a sub-folder's session is the workspace's" \
	[ "$(jq_out ".[] | select(.id == \"$S2\") | .cwd")" = "$WS/sub" ]
check "list --json: states derived (answered, pending call, quiet rollout, answered)" \
	[ "$(jq_out "[.[] | select(.id == \"$S1\" or .id == \"$S2\" or .id == \"$C1\" or .id == \"$G1\") | .id[0:4] + \"=\" + .state] | sort | join(\" \")")" = \
	  "0199=ended 5e1f=waiting 6f1c=waiting a2b4=waiting" ]
check "list --json: the malformed line is counted" \
	[ "$(jq_out ".[] | select(.id == \"$S1\") | .malformedLines")" = 1 ]
run session list --state ended --json
check "list --state ended: the quiet rollout only" [ "$(jq_out '[.[].id] | join(" ")')" = "$C1" ]
run session list --state sleeping
check "list --state sleeping: bad usage, one line" eval 'rc_is 2 && err_has "--state: .sleeping. is not a state"'
run session list --status running --json
check "list --status: transcripts have no status" [ "$(jq_out '[.[].id] | join(" ")')" = "seed-1" ]
run session list --all-projects --json
check "list --all-projects: another project's session too" \
	[ "$(jq_out "[.[] | select(.id == \"$OTHER\")] | length")" = 1 ]
run session list
check "list: a row per session, the source in the agent column" \
	eval "out_has '^$S1 +waiting .* claude-code +Fix the failing test' && out_has '^seed-1 +running'"

run session show "$S1"
check "show: exit 0, the header says read-only" eval 'rc_is 0 && out_has "^source +claude-code \\(read-only\\)"'
check "show: the tool call" out_has_text '[tool_use Bash {"command":"make test"'
check "show: its result, with the escape made visible" \
	eval "out_has_text '[tool_result toolu_01: FAIL: test_parse_empty' && out_has_text '^[[31mexpected 0'"
check "show: no raw ESC" eval "! grep -q \"$ESC\" \"$TMP/out\""
check "show: the sidechain is not in the main thread" eval '! out_has_text "Grep"'
run session show "$C1" --json
check "show --json (Codex): the call and its output" \
	[ "$(jq_out '[.conversation[].content | arrays | .[].type] | join(" ")')" = "tool_use tool_result" ]
run session show "$G1"
check "show (Gemini): read_file and its result" \
	eval "out_has_text '[tool_use read_file' && out_has_text '[tool_result read_file-1759323605000-abc: # Fixture project'"
run session show "$OTHER"
check "show: another project's session is found too" eval 'rc_is 0 && out_has_text "other project"'
run session show no-such-id
check "show: an unknown id fails, naming it" eval 'rc_is 1 && err_has "no-such-id"'

for verb in pause compact fail; do
	run session "$verb" "$S1"
	check "$verb: refused, read-only source" eval "rc_is 1 && err_has 'read-only source' && [ \$(wc -l <\"$TMP/err\") = 1 ]"
done
run session append "$S2" '{"role":"user","content":"x"}'
check "append: refused, read-only source" eval 'rc_is 1 && err_has "is a claude-code session, a read-only source"'
tree_sum >"$TMP/after"
check "nothing under HOME changed" cmp -s "$TMP/before" "$TMP/after"

chmod -R a-w "$HOME"
run session list --json
check "read-only tree: lists the same" eval 'rc_is 0 && [ "$(jq_out "length")" = 5 ]'
run session show "$S1"
check "read-only tree: shows" rc_is 0
chmod -R u+w "$HOME"

mkdir -p "$WS/.agent"
printf '{"sources": {"claude": {"dir": "/etc"}}}\n' >"$WS/.agent/config.json"
run session list
check "a project file may not move the transcripts' folder" \
	eval 'rc_is 2 || rc_is 1; err_has "sources.claude.dir may not be set by a project file"'
rm "$WS/.agent/config.json"
printf '{"sources": {"enabled": false}}\n' >"$WS/.agent/config.json"
run session list --json
check "sources.enabled false: only the seed session" [ "$(jq_out '[.[].source] | join(" ")')" = "agentctl" ]

finish
