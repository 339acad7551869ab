#!/usr/bin/env bash
# `session search` streams a transcript in bounded memory whatever its
# size and its line lengths (issue 24 item 5): a Claude Code transcript of
# 200 MB, a prompt, one line of 64 MiB of real text (past
# AC_SOURCE_LINE_MAX with its JSON around it), 140,000 ordinary messages,
# then the one searched for. Run under `ulimit -v` 100 MiB, half the
# file: the search (and the index's first read of the file) must succeed
# and find the last message with the number `session show` gives. A
# search that held the file, or its long line and a copy, runs out of
# address space here (the search before it streamed took 2,050 MB for a
# 2 GiB line, docs/BENCHMARKS.md). AddressSanitizer reserves terabytes of
# address space: under it the limit is left out and only the results
# are checked.
# Usage: sources_search_bounded.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/sources_home.sh"
L=0c0c0c0c-0000-4000-8000-00000000002f
f=$HOME/.claude/projects/$slug/$L.jsonl
LIMIT_KB=$((100 * 1024))
python3 - "$f" "$WS" <<'EOF'
import sys
path, ws = sys.argv[1], sys.argv[2]
def line(kind, at, content):
    return ('{"type":"%s","cwd":"%s","timestamp":"2025-10-03T10:%s","message":{"role":"%s","content":%s}}\n'
            % (kind, ws, at, kind, content))
with open(path, 'w') as out:
    out.write(line('user', '00:00Z', '"alpha before the long line"'))
    out.write(line('assistant', '00:01Z', '"beta-in-long ')[:-3])
    chunk = ('lorem ipsum dolor sit amet ' * 40)[:1024]
    for _ in range(64 * 1024):  # 64 MiB on one line
        out.write(chunk)
    out.write('beta-in-long"}}\n')
    filler = '"' + ('words of an ordinary message ' * 40)[:900] + '"'
    for i in range(140000):
        out.write(line('user', '00:02Z', filler))
    out.write(line('assistant', '00:03Z', '[{"type":"text","text":"gamma after the long line"}]'))
EOF
size=$(stat -c %s "$f")
check "the transcript is over 200 MB ($size bytes), twice the limit" [ "$size" -gt 200000000 ]

LC_ALL=C grep -qa __asan_init "$AC" && echo "AddressSanitizer build: ulimit -v left out"

limited "$LIMIT_KB" session search "gamma after" --json
check "under ulimit -v 100 MiB: the message after 140,000 more is found, exit 0" \
	eval "rc_is 0 && [ \"\$(jq_out '[.results[] | select(.sessionId == \"$L\")] | length')\" = 1 ]"
check "its message number is the one it has: the long line is no message" \
	[ "$(jq_out "[.results[] | select(.sessionId == \"$L\")][0].message")" = 140002 ]
check "and the search says the long line was too long to search" \
	eval "err_has '$L\\.jsonl: 1 line too long to search, not searched'"
limited "$LIMIT_KB" session search "alpha before" --json
check "under the limit: the prompt before it is found too" \
	eval "rc_is 0 && [ \"\$(jq_out '[.results[] | select(.sessionId == \"$L\")] | length')\" = 1 ]"
limited "$LIMIT_KB" session list --json
check "under the limit: session list reads it, 140,002 messages" \
	eval "rc_is 0 && [ \"\$(jq_out '[.[] | select(.id == \"$L\")][0].messages')\" = 140002 ]"
finish
