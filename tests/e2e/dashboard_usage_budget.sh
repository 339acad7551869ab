#!/usr/bin/env bash
# The dashboard's usage total and budget line (issue 17 item 4): the
# status line shows what today and this month cost over the workspace's
# usage sources (here its own recorded turns and a Claude Code transcript
# under a test HOME), against usage.budgetUsd {day, month}, and says when a
# budget is passed. The figures come from a worker thread, so the line
# appears once measured.
. "$(dirname "$0")/lib/tmux.sh" "$@"

home=$ws.home
mkdir -p "$home/.claude/projects/-ws" "$ws/.agent"
real=$(cd "$ws" && pwd -P)
today=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
# 1,000,000 output tokens of claude-sonnet-4-5 today: $15.00.
printf '{"type":"assistant","cwd":"%s","sessionId":"s-b","requestId":"r1","timestamp":"%s","message":{"id":"m1","model":"claude-sonnet-4-5","usage":{"input_tokens":0,"output_tokens":1000000}}}\n' \
	"$real" "$today" >"$home/.claude/projects/-ws/s-b.jsonl"
printf '{"usage":{"budgetUsd":{"day":10,"month":100}}}\n' >"$ws/.agent/config.json"
HOME=$home XDG_CACHE_HOME=$ws.cache "$agentctl" -w "$ws" session create "b" --id own >/dev/null
HOME=$home "$agentctl" -w "$ws" session record-turn own --usage \
	'{"inputTokens":1000000,"outputTokens":0,"model":"claude-sonnet-4-5"}' >/dev/null  # $3.00

prefix="env HOME=$home XDG_CACHE_HOME=$ws.cache"
dashboard 200 30
check "today's cost against the day budget, said to be over" \
	wait_for "usage  today \$18.00 of \$10.00 OVER BUDGET  month \$18.00 of \$100.00"
send q
wait_exit
rm -rf "$home" "$ws.cache"
finish
