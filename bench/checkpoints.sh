#!/usr/bin/env bash
# `agentctl checkpoint list SESSION` over one session holding N checkpoints
# of ~8 KB (bench/gen_checkpoints.py): elapsed time and peak memory from
# /usr/bin/time -v, the best of RUNS runs (page cache warm), for each N.
#
#   bench/checkpoints.sh AGENTCTL_BINARY [N...]   (default N: 500 5000 50000;
#   the data goes to $DATA, default bench/data)
set -euo pipefail
agentctl=$(realpath "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-3}
data=${DATA:-$here/data}
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(500 5000 50000)

echo "| checkpoints | size (MB) | elapsed (s) | peak RSS (MB) |"
echo "|---:|---:|---:|---:|"
for n in "${counts[@]}"; do
    ws="$data/checkpoints-$n"
    if [ ! -f "$ws/sid" ]; then
        echo "checkpoints.sh: generating $n checkpoints in $ws" >&2
        rm -rf "$ws"
        mkdir -p "$ws"
        python3 "$here/gen_checkpoints.py" "$ws" "$n" > "$ws/sid.new"
        mv "$ws/sid.new" "$ws/sid"
    fi
    sid=$(cat "$ws/sid")
    size=$(du -sm --apparent-size "$ws/.agent/checkpoints" | cut -f1)
    cat "$ws/.agent/checkpoints/$sid"/*.json > /dev/null 2>&1 || true
    best_t="" best_m=""
    for _ in $(seq "$runs"); do
        out=$( { /usr/bin/time -v "$agentctl" -w "$ws" checkpoint list "$sid" > /dev/null; } 2>&1 )
        t=$(echo "$out" | awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}')
        m=$(echo "$out" | awk -F': ' '/Maximum resident set size/ {print $2}')
        if [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN {exit !(a < b)}'; then best_t=$t; fi
        if [ -z "$best_m" ] || [ "$m" -lt "$best_m" ]; then best_m=$m; fi
    done
    echo "| $n | $size | $(printf "%.2f" "$best_t") | $(awk -v k="$best_m" 'BEGIN {printf "%.1f", k / 1024}') |"
done
