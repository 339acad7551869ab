#!/usr/bin/env bash
# End-to-end checks of `session search`, `session fork` and `session
# export` over the coding agents' transcripts: HOME points at a copy of
# tests/fixtures/sources/home moved to a real workspace (as in
# sources_cli.sh), plus a hostile Claude Code transcript written here.
# Results carry the source and the message number `session show` gives;
# a fork is a new session file and the transcripts are never written.
# Usage: sources_search_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/sources_home.sh"
H=0c0c0c0c-0000-4000-8000-0000000000ee
# Hostile text: a fence, a closing </pre> with a script, an ANSI escape.
printf '%s\n' \
 "{\"type\":\"user\",\"cwd\":\"$WS\",\"timestamp\":\"2025-10-02T10:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"hostile prompt\"}}" \
 "{\"type\":\"assistant\",\"cwd\":\"$WS\",\"timestamp\":\"2025-10-02T10:00:01Z\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"zebra \`\`\`\\n</pre><script>alert(1)</script> \\u001b[31mred\"}]}}" \
 >"$HOME/.claude/projects/$slug/$H.jsonl"
tree_sum >"$TMP/before"

# The message number of a hit, and the text of that message as `session
# show --json` numbers them.
show_text() { "$AC" -w "$WS" session show "$1" --json </dev/null | jq -r ".conversation[$2 - 1] | tojson"; }

run session search "expected 0" --json
check "search: exit 0" rc_is 0
check "search: the Claude Code transcript's tool result, source claude-code" \
	[ "$(jq_out "[.results[] | select(.sessionId == \"$S1\") | .source] | unique | join(\" \")")" = claude-code ]
n=$(jq_out "[.results[] | select(.sessionId == \"$S1\")][0].message")
check "search: message $n is the one session show numbers so" \
	eval "show_text $S1 $n | grep -q 'expected 0'"
check "search: the snippet holds no raw ESC" eval "! grep -q \"$ESC\" \"$TMP/out\""
# --limit with transcripts only (no session file in the workspace): the
# empty session list is no error (a sanitized build stopped on qsort(NULL)).
run session search "count the lines" --limit 5 --json
check "search --limit, no session file: exit 0, the Codex hit" \
	eval "rc_is 0 && [ \"\$(jq_out '[.results[] | select(.sessionId == \"'$C1'\")] | length')\" -ge 1 ]"
run session search "count the lines" --json
n=$(jq_out "[.results[] | select(.sessionId == \"$C1\")][0].message")
check "search: Codex rollout, source codex" \
	[ "$(jq_out "[.results[] | select(.sessionId == \"$C1\")][0].source")" = codex ]
check "search: the Codex message number is show's" eval "show_text $C1 $n | grep -q 'count the lines'"
gtext=$(show_text "$G1" 1 | jq -r '.content | if type == "string" then . else .[0].text end' | head -c 12)
run session search "$gtext" --json
check "search: Gemini chat, source gemini" \
	[ "$(jq_out "[.results[] | select(.sessionId == \"$G1\")][0].source")" = gemini ]
run session search "$gtext"
check "search: text rows name the transcript" eval "out_has '^$G1 +\\[1\\]'"
other_text=$(show_text "$OTHER" 1 | jq -r '.content | if type == "string" then . else .[0].text end' | head -c 12)
run session search "$other_text" --json
check "search: another project's transcript only with --all-projects (without)" \
	[ "$(jq_out "[.results[] | select(.sessionId == \"$OTHER\")] | length")" = 0 ]
run session search "$other_text" --all-projects --json
check "search --all-projects: another project's transcript" \
	[ "$(jq_out "[.results[] | select(.sessionId == \"$OTHER\")] | length")" -ge 1 ]
run session search zebra
check "search: hostile snippet made safe" eval "rc_is 0 && out_has_text '^[[31mred' && ! grep -q \"$ESC\" \"$TMP/out\""

run session fork "$S1" --at 3 --id forked-1 --json
check "fork of a transcript: exit 0" rc_is 0
F="$WS/.agent/sessions/forked-1.json"
check "fork: a new session file, paused, 3 messages" \
	eval "jq_is '$F' '.status + \" \" + (.conversationHistory | length | tostring)' 'paused 3'"
check "fork: metadata.parent names source, session and message" \
	jq_is "$F" '.metadata.parent | .source + " " + .sessionId + " " + (.atMessage | tostring)' "claude-code $S1 3"
check "fork: the task is the transcript's first prompt" jq_is "$F" .task "Fix the failing test in parser.c"
check "fork: messages as the conversation view has them" \
	[ "$(jq -c '.conversationHistory' "$F")" = "$("$AC" -w "$WS" session show "$S1" --json </dev/null | jq -c '.conversation[0:3]')" ]
run session fork "$C1" --id forked-2
check "fork: a Codex rollout whole" eval "rc_is 0 && jq_is '$WS/.agent/sessions/forked-2.json' .metadata.parent.source codex"
run session fork "$S1" --checkpoint 0123456789abcdef
check "fork --checkpoint of a transcript: one clear error" \
	eval "rc_is 2 && [ \$(wc -l <'$TMP/err') = 1 ] && err_has 'claude-code transcript, which has no checkpoints'"
run session fork "$S1" --at 999 --id forked-3
check "fork --at past the end: exit 1, nothing written" \
	eval "rc_is 1 && err_has 'transcript .* has [0-9]+ messages' && [ ! -e '$WS/.agent/sessions/forked-3.json' ]"

run session export "$H" --format md
check "export md of a transcript: exit 0, the source named" eval "rc_is 0 && out_has 'claude-code transcript'"
check "export md: the hostile fence does not close the block, no raw ESC" \
	eval "! grep -q \"$ESC\" \"$TMP/out\" && out_has '^\`\`\`\`text\$' && out_has_text '^[[31mred'"
run session export "$H" --format html
check "export html: no live script, no raw ESC" \
	eval "rc_is 0 && ! out_has_text '<script>' && ! out_has_text '</pre><script' && ! grep -q \"$ESC\" \"$TMP/out\" && out_has_text '&lt;/pre&gt;&lt;script&gt;'"
run session export nosuch-1 --format md
check "export of an unknown id: exit 1" rc_is 1

tree_sum >"$TMP/after"
check "the transcripts were not written" cmp -s "$TMP/before" "$TMP/after"
finish
