#!/usr/bin/env bash
# Listing 10,000 sessions of ~50 KB: cold (first refresh of a new index,
# every file read) and warm (a later refresh: nothing changed, nothing
# read), in one process as the dashboard does; and `agentctl session list`
# as a whole command. Targets: cold < 1 s, warm < 100 ms.
#
#   bench/sessions.sh AGENTCTL_BINARY      (COUNT=10000 SIZE_KB=50 by default)
set -euo pipefail
agentctl=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
lister="$(dirname "$agentctl")/bench_session_list"
count=${COUNT:-10000}
size_kb=${SIZE_KB:-50}
ws="$here/data/sessions-$count-$size_kb"
dir="$ws/.agent/sessions"

if [ ! -d "$dir" ] || [ "$(ls "$dir" | wc -l)" -ne "$count" ]; then
    echo "sessions.sh: generating $count sessions of ~$size_kb KB in $dir" >&2
    rm -rf "$ws"
    python3 "$here/gen_sessions.py" "$dir" "$count" "$size_kb"
fi
total=$(du -sm "$dir" | cut -f1)

# Cold from disk needs the page cache dropped, which a container may forbid.
dropped=no
if sync && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then dropped=yes; fi
cold_disk=$("$lister" "$dir" 10)
cat "$dir"/*.json > /dev/null
cold_cache=$("$lister" "$dir" 10)
cli_start=$(date +%s.%N)
"$agentctl" -w "$ws" session list > /dev/null
cli_end=$(date +%s.%N)

field() { echo "$1" | awk -v k="$2" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
echo "## sessions"
echo
echo "$count session files, $total MB in all, on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))."
echo
echo "| measurement | result | target |"
echo "|---|---:|---:|"
if [ "$dropped" = yes ]; then
    echo "| cold, page cache dropped (first refresh, files read) | $(field "$cold_disk" cold_ms) ms ($(field "$cold_disk" cold_parsed) read) | < 1000 ms |"
fi
echo "| cold, files in page cache (first refresh, files read) | $(field "$cold_cache" cold_ms) ms ($(field "$cold_cache" cold_parsed) read) | < 1000 ms |"
echo "| warm (median of 10 later refreshes, files read) | $(field "$cold_cache" warm_ms) ms ($(field "$cold_cache" warm_parsed) read) | < 100 ms |"
echo "| \`agentctl session list\` (whole command, to /dev/null) | $(echo "($cli_end - $cli_start) * 1000" | bc | cut -d. -f1) ms | |"
echo "| sessions listed | $(field "$cold_cache" sessions) ($(field "$cold_cache" problems) unreadable) | |"
if [ "$dropped" != yes ]; then
    echo
    echo "The page cache could not be dropped here, so there is no cold-from-disk figure."
fi
