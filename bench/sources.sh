#!/usr/bin/env bash
# Listing the coding agents' sessions: COUNT transcripts of ~SIZE_KB each
# (default 10,000 of 300 KB: about 3 GB) generated deterministically by
# bench/gen_sources.py under a private HOME, then `agentctl session list`
# timed cold (no cache: every transcript read whole), warm (the cache of
# summaries and offsets in $XDG_CACHE_HOME/agentctl: a stat per file, no
# read), after one line is appended to one transcript (that line alone is
# read), and with --json. The files stay in the page cache (dropping it
# needs root).
#
#   bench/sources.sh AGENTCTL_BINARY      (COUNT=10000 SIZE_KB=300 by default)
set -euo pipefail
agentctl=$(realpath "$1")
. "$(dirname "$0")/lib/sources_data.sh"

run() { # label: one timed `session list`, milliseconds on stdout
    local start end
    start=$(date +%s%N)
    HOME=$home XDG_CACHE_HOME=$cache "$agentctl" -w "$ws" session list "${@:2}" > "$data/out"
    end=$(date +%s%N)
    echo $(( (end - start) / 1000000 ))
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

rm -rf "$cache"
cold=$(run cold)
listed=$(($(wc -l < "$data/out") - 1))
warm=$(for _ in 1 2 3 4 5; do run warm; done | median)
file=$(find "$home/.claude" -name '*.jsonl' -print -quit)
id=$(basename "$file" .jsonl)
appended=$(for i in 1 2 3 4 5; do
    printf '{"type":"user","isSidechain":false,"cwd":"%s","sessionId":"%s","message":{"role":"user","content":"more %d"},"timestamp":"2025-10-30T00:00:0%d.000Z"}\n' \
        "$ws" "$id" "$i" "$i" >> "$file"
    run appended; done | median)
json=$(for _ in 1 2 3; do run json --json; done | median)
rm -rf "$cache"
all_cold=$(run all --all-projects)

echo "## sources"
echo
echo "$count transcripts, $total MB in all, on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))."
echo
echo "| measurement | result |"
echo "|---|---:|"
echo "| \`session list\` cold (no cache: every transcript read) | $cold ms |"
echo "| \`session list\` warm (cache, nothing changed; median of 5) | $warm ms |"
echo "| after a line appended to one transcript (median of 5) | $appended ms |"
echo "| \`session list --json\` warm (median of 3) | $json ms |"
echo "| \`session list --all-projects\` cold | $all_cold ms |"
echo "| sessions listed (workspace) | $listed |"
