#!/usr/bin/env bash
# Listing Antigravity CLI conversations: COUNT conversations of STEPS steps
# (default 5,000 of 20) made by bench/gen_agy.py under a private HOME with
# one history.jsonl, then `agentctl session list` timed cold (no cache:
# every transcript read, each conversation placed by history.jsonl), warm
# (the cache: a stat per file), and after a prompt is appended to one
# conversation and a row to history.jsonl (that line and that row alone
# are read). Peak memory from /usr/bin/time.
#
#   bench/sources_agy.sh AGENTCTL_BINARY      (COUNT=5000 STEPS=20 by default)
set -euo pipefail
agentctl=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
count=${COUNT:-5000}
steps=${STEPS:-20}
data="$here/data/agy-$count-$steps"
home="$data/home" cache="$data/cache"
mkdir -p "$data/ws"
ws=$(realpath "$data/ws")
if [ ! -f "$data/done" ]; then
    rm -rf "${home:?}"
    python3 "$here/gen_agy.py" "$home" "$ws" "$count" "$steps"
    touch "$data/done"
fi
cat $(find "$home" -name '*.jsonl') > /dev/null  # into the page cache

run() { # one timed `session list`: "ms KB" on stdout
    local start end kb
    start=$(date +%s%N)
    kb=$( { HOME=$home XDG_CACHE_HOME=$cache /usr/bin/time -f %M "$agentctl" -w "$ws" session list "$@" > "$data/out"; } 2>&1 )
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000000 )) $kb"
}
median() { sort -n | awk '{a[NR] = $0} END {print a[int((NR + 1) / 2)]}'; }

rm -rf "${cache:?}"
cold=$(run)
listed=$(($(wc -l < "$data/out") - 1))
warm=$(for _ in 1 2 3 4 5; do run; done | median)
id=00000000-0000-4000-8000-000000000000
file="$home/.gemini/antigravity-cli/brain/$id/.system_generated/logs/transcript.jsonl"
appended=$(for i in 1 2 3 4 5; do
    printf '{"step_index":%d,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","created_at":"2026-06-01T01:00:0%dZ","content":"more %d"}\n' \
        "$((100 + i))" "$i" "$i" >> "$file"
    printf '{"display":"more %d","timestamp":1781846700000,"workspace":"%s","conversationId":"%s"}\n' \
        "$i" "$ws" "$id" >> "$home/.gemini/antigravity-cli/history.jsonl"
    run; done | median)
rm -rf "${cache:?}"
all_cold=$(run --all-projects)

echo "## sources: Antigravity CLI"
echo
echo "$count conversations of $steps steps, $(du -sm "$home" | cut -f1) MB, on $(nproc) cores."
echo
echo "| measurement | ms | peak KB |"
echo "|---|---:|---:|"
echo "| \`session list\` cold (no cache) | ${cold% *} | ${cold#* } |"
echo "| \`session list\` warm (median of 5) | ${warm% *} | ${warm#* } |"
echo "| after a prompt and a history row appended (median of 5) | ${appended% *} | ${appended#* } |"
echo "| \`session list --all-projects\` cold | ${all_cold% *} | ${all_cold#* } |"
echo "| conversations listed (workspace) | $listed | |"
