#!/usr/bin/env bash
# `agentctl session search` over 10,000 sessions of ~50 KB (bench/gen_sessions.py),
# page cache warm: a needle that is in no file (every file read, none
# parsed: the prefilter's speed), a CJK one in most files, an ASCII one
# (any case) in every file; each without a limit (every file read once,
# the matching messages decoded) and with --limit 20 (the session index
# lists first, then the search goes newest first and stops early).
#
#   bench/session_search.sh AGENTCTL_BINARY [WORKSPACE]   (COUNT, SIZE_KB as sessions.sh)
set -euo pipefail
agentctl=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
count=${COUNT:-10000}
size_kb=${SIZE_KB:-50}
ws=${2:-"$here/data/sessions-$count-$size_kb"}
dir="$ws/.agent/sessions"
runs=${RUNS:-3}

if [ ! -d "$dir" ] || [ "$(ls "$dir" | wc -l)" -ne "$count" ]; then
    echo "session_search.sh: generating $count sessions of ~$size_kb KB in $dir" >&2
    rm -rf "$ws"
    python3 "$here/gen_sessions.py" "$dir" "$count" "$size_kb"
fi
cat "$dir"/*.json > /dev/null
total=$(du -sm "$dir" | cut -f1)

# The best of $runs wall times, in ms, and the matches printed.
measure() {
    local best= ms lines
    for _ in $(seq "$runs"); do
        local start end
        start=$(date +%s%N)
        lines=$("$agentctl" -w "$ws" session search "$@" 2>/dev/null | wc -l)
        end=$(date +%s%N)
        ms=$(( (end - start) / 1000000 ))
        if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
    done
    echo "$best $lines"
}

echo "## session search"
echo
echo "$count session files, $total MB, page cache warm, on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')); best of $runs."
echo
echo "| search | matches | wall time |"
echo "|---|---:|---:|"
list_ms() { # the best of $runs
    local best= s e ms
    for _ in $(seq "$runs"); do
        s=$(date +%s%N); "$agentctl" -w "$ws" session list > /dev/null; e=$(date +%s%N)
        ms=$(( (e - s) / 1000000 ))
        if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
    done
    echo "$best"
}
echo "| (for reference: \`session list\`, the index refresh \`--limit\` starts with) | - | $(list_ms) ms |"
for spec in "zebrafish-nowhere" "ZEBRAFISH-nowhere --limit 20" "設定ファイル --limit 20" "設定ファイル" "LOADER --limit 20" "LOADER"; do
    # shellcheck disable=SC2086
    read -r ms lines < <(measure $spec)
    echo "| \`$spec\` | $lines | $ms ms |"
done
