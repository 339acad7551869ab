#!/usr/bin/env bash
# The format-drift canary of `agentctl sources check`: beside the fixture's
# transcripts, records of a type the Claude Code reader does not know
# ("world_state") and files in Gemini CLI's chats folder named as no reader
# takes them ("chat-*.jsonl", a format that might ship tomorrow). sources
# check names both, in text and in --json, and exits 1 while transcript-like
# files are not read (sessions are missing); the skipped records alone are
# reported with exit 0, as malformed lines are. A second run, from the
# cache, says the same. A side file such as "agent-1.meta.json" is no
# transcript and is not counted.
# Usage: sources_canary.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/sources_home.sh"

claude=$HOME/.claude/projects/$slug
for i in 1 2 3; do
	printf '{"type":"world_state","uuid":"w%s","sessionId":"%s","cwd":"%s","timestamp":"2025-10-01T10:00:0%s.000Z"}\n' \
		"$i" "$S1" "$WS" "$i" >>"$claude/$S1.jsonl"
done
printf '{"type":"x-\\u001b[31mred","timestamp":"2025-10-01T10:00:09.000Z"}\n' >>"$claude/$S1.jsonl"
chats=$(echo "$HOME"/.gemini/tmp/*/chats)
for i in 1 2; do
	printf '{"sessionId":"n%s"}\n' "$i" >"$chats/chat-2026-06-0${i}T10-00-abcd.jsonl"
done
printf '{}\n' >"$chats/agent-1.meta.json"
tree_sum >"$TMP/before"

run sources check
check "text: exit 1 while transcript-like files are not read" rc_is 1
check "text: names the unread files by pattern, per source" \
	eval "out_has_text '! gemini: 2 chat-*.jsonl not read'"
check "text: names the skipped record types with their counts" \
	eval "out_has_text '! claude: 3 records of type world_state skipped; claude: 1 record of type x-^[[31mred skipped'"
check "text: the counts in the source's row" \
	eval "out_has '^claude-code .* 0 files not read, 4 records skipped' && out_has '^gemini .* 2 files not read, 0 records skipped'"
check "text: no raw escape byte from a record type" eval "! grep -q \"\$ESC\" \"\$TMP/out\""
check "the side file agent-1.meta.json is not counted" eval "! out_has_text 'agent-'"

run sources check --json
check "json: exit 1" rc_is 1
check "json: gemini's files not read by pattern" \
	[ "$(jq_out '.sources[] | select(.source == "gemini") | .filesNotReadByPattern | map("\(.pattern)=\(.count)") | join(",")')" = "chat-*.jsonl=2" ]
check "json: claude's records skipped by type" \
	[ "$(jq_out '.sources[] | select(.source == "claude-code") | .recordsSkippedByType | map("\(.type)=\(.count)") | join(",")')" = 'world_state=3,x-^[[31mred=1' ]
check "json: totals" \
	[ "$(jq_out '[.sources[] | "\(.filesNotRead)/\(.recordsSkipped)"] | join(" ")')" = "0/4 0/1 2/0 0/0" ]

# A new process: the transcripts' summaries come from the cache (nothing
# read again), and say the same.
run sources check --json
check "from the cache: the same record types" \
	[ "$(jq_out '.sources[] | select(.source == "claude-code") | .recordsSkippedByType | map("\(.type)=\(.count)") | join(",")')" = 'world_state=3,x-^[[31mred=1' ]

rm "$chats"/chat-*.jsonl
run sources check
check "only records skipped: exit 0, still named" \
	eval "rc_is 0 && out_has_text '! claude: 3 records of type world_state skipped' && ! out_has_text '.jsonl not read'"

rm "$chats/agent-1.meta.json"
tree_sum >"$TMP/after"
check "nothing was written under HOME's transcripts" \
	eval "grep -v -e /chat-2026 -e /agent-1.meta.json \"\$TMP/before\" | diff - \"\$TMP/after\" >/dev/null"
finish
