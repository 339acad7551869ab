#!/usr/bin/env bash
# A Claude Code message streamed over two lines (same message.id and
# requestId, output_tokens 25 then 250; tests/fixtures/usage-stream cites
# the sources), end to end: `agentctl usage --json` counts it once with 250,
# read whole, and when its last line is appended after a run (the next run,
# another process, reads only the new bytes from the persisted index); the
# session row's tokens follow the same rule.
# Usage: usage_stream.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

fixtures=$(cd "$(dirname "$0")/../fixtures/usage-stream" && pwd)
cp -R "$fixtures/home" "$TMP/home"
export HOME=$TMP/home XDG_CACHE_HOME=$TMP/cache
file=$HOME/.claude/projects/-ws/5a5a5a5a-0000-4000-8000-000000000001.jsonl
WS=$TMP/ws
mkdir -p "$WS"

totals='.totals | "\(.inputTokens) \(.outputTokens) \(.cacheCreationTokens) \(.cacheReadTokens) \(.totalTokens)"'
run usage --all-projects --json
check "whole: exit 0" rc_is 0
check "whole: the streamed message once, output 250" jq_is "$TMP/out" "$totals" "8 259 200 8200 8667"
run usage session --all-projects --json
check "whole: one session" jq_is "$TMP/out" '[.rows[] | .totalTokens] | join(",")' "8667"
run session list --all-projects --json
check "whole: the session row's tokens" jq_is "$TMP/out" '.[0].tokens' 8667

# The message's first line in one run, the rest appended before the next.
cp "$file" "$TMP/full"
head -n 2 "$TMP/full" >"$file"
run usage --all-projects --json
check "first part: output 25 so far" jq_is "$TMP/out" "$totals" "3 25 200 4000 4228"
run session list --all-projects --json
check "first part: the session row's tokens" jq_is "$TMP/out" '.[0].tokens' 4228
tail -n +3 "$TMP/full" >>"$file"
run usage --all-projects --json
check "appended: read from the saved index, one file, no re-read" jq_is "$TMP/out" \
	'.files | "\(.indexRebuilt) \(.read) \(.reread)"' "false 1 0"
check "appended: 25 replaced by 250, not added" jq_is "$TMP/out" "$totals" "8 259 200 8200 8667"
run usage --all-projects --json
check "a warm run: the same" jq_is "$TMP/out" "$totals" "8 259 200 8200 8667"
run session list --all-projects --json
check "appended: the session row's tokens" jq_is "$TMP/out" '.[0].tokens' 8667
finish
