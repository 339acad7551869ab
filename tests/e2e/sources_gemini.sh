#!/usr/bin/env bash
# Gemini CLI chats as the current CLI writes them
# (tests/fixtures/sources/gemini) through the real command line: `session
# list --json` (short, marker-only and hash folders, the sub-agent with its
# parent), `session show` (last versions, the rewound messages gone),
# `session search`, and `usage` (exact sums, a rewind appended later).
# Usage: sources_gemini.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

FIX=$(cd "$(dirname "$0")/../fixtures/sources/gemini" && pwd)
MAIN=3f2a9c1e-5b6d-4e7f-8a9b-0c1d2e3f4a5b
AGENT=9c8b7a65-4321-4fed-8cba-987654321000
LEGACY=5e1f0c3a-7b2d-4e6f-9a1b-2c3d4e5f6a7b
mkdir -p "$TMP/ws/gemini-project"
WS=$(realpath "$TMP/ws/gemini-project")
export HOME=$TMP/home XDG_CACHE_HOME=$TMP/cache
cp -r "$FIX/home" "$HOME"
# The fixture names /work/gemini-project: moved to this workspace, the
# older hash folder renamed after it.
grep -rl /work/gemini-project "$HOME" | xargs sed -i "s|/work/gemini-project|$WS|g"
mv "$HOME/.gemini/tmp/67a721719c99e6b5637bac2bdb1dcec875f1b8438bb5cfcc6533efa7604dcdbb" \
	"$HOME/.gemini/tmp/$(printf %s "$WS" | sha256sum | cut -d' ' -f1)"
CHAT=$HOME/.gemini/tmp/gemini-project/chats/session-2026-05-04T10-00-3f2a9c1e.jsonl
jq_out() { jq -r "$1" <"$TMP/out" 2>/dev/null; }
out_has_text() { grep -qF -- "$1" "$TMP/out"; }

run session list --children --json
check "list: exit 0, four Gemini sessions of the workspace" \
	eval 'rc_is 0 && [ "$(jq_out "[.[] | select(.source == \"gemini\")] | length")" = 4 ]'
check "list: the current chat, its count after the rewind, title from \$set" \
	[ "$(jq_out ".[] | select(.id == \"$MAIN\") | \"\(.messages)|\(.task)|\(.model)|\(.cwd)\"")" = \
	  "8|Fix the typo in src/main.c|gemini-2.5-flash|$WS" ]
check "list: the sub-agent chat names its parent" \
	[ "$(jq_out ".[] | select(.id == \"$AGENT\") | .relation + \" \" + .parentId")" = "subagent $MAIN" ]
check "list: the older .json still read" \
	[ "$(jq_out ".[] | select(.id == \"$LEGACY\") | .messages")" = 2 ]
check "list: the marker-only folder's chat is the workspace's sub-folder's" \
	[ "$(jq_out '.[] | select(.task == "Lint the tools folder") | .cwd')" = "$WS/tools" ]

run session show "$MAIN" --json
check "show: as many messages as the list says" [ "$(jq_out '.conversation | length')" = 8 ]
check "show: the rewound turn is gone" eval '! out_has_text "Now rename main to start"'
check "show: a call and its result from the message's last version" \
	[ "$(jq_out '[.conversation[].content | arrays | .[] | select(.type == "tool_result") | .tool_use_id] | join(" ")')" = "read_file-1 replace-2" ]

run session search "main_test"
check "search: finds the message after the rewind" eval "rc_is 0 && grep -q '$MAIN' \"\$TMP/out\""
run session search "entry point"
check "search: the rewound reply is not found" eval "! grep -q '$MAIN' \"\$TMP/out\""

run usage session --json
check "usage: the session's tokens, each message once, the rewound one too (billed)" \
	[ "$(jq_out ".rows[] | select(.sessionId == \"$MAIN\") | \"\(.inputTokens) \(.outputTokens) \(.cacheReadTokens) \(.reasoningTokens)\"")" = "1610 235 4800 35" ]
check "usage: the sub-agent's own" \
	[ "$(jq_out ".rows[] | select(.sessionId == \"$AGENT\") | .inputTokens")" = 400 ]
run usage session --all-projects --json
check "usage --all-projects: every chat, the older format too" \
	[ "$(jq_out '[.rows[] | select(.source == "gemini") | .inputTokens] | add')" = 2420 ]

# The CLI rewinds again: m-5 leaves the conversation, not the bill.
printf '%s\n' '{"$rewindTo":"u-3"}' >>"$CHAT"
run session list --children --json
check "list after a new rewind: two messages fewer" \
	[ "$(jq_out ".[] | select(.id == \"$MAIN\") | .messages")" = 6 ]
run usage session --json
check "usage after a new rewind: m-5's tokens still count" \
	[ "$(jq_out ".rows[] | select(.sessionId == \"$MAIN\") | \"\(.inputTokens) \(.outputTokens)\"")" = "1610 235" ]

finish
