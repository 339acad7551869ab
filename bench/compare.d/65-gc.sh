# `gc --dry-run` (the plan: every checkpoint read for its version, every
# archive weighed against its session) over 100, 1,000 and 10,000 sessions
# of 10 checkpoints and 3 compaction archives each (bench/gen_gc.py), against
# `find -mtime` printing the old files' paths and sizes: what a cron job
# does for retention, by age alone and without reading a file.
set -euo pipefail
. "$BENCH_DIR/lib/compare.sh"

for count in $(cmp_sizes 100 1000 10000); do
    ws=$BENCH_DATA/gc/sessions-$count
    if [ ! -f "$ws/done" ]; then
        echo "compare: generating $ws" >&2
        rm -rf "$ws"
        mkdir -p "$ws"
        python3 "$BENCH_DIR/gen_gc.py" "$ws" "$count" >&2
        touch "$ws/done"
    fi
    find "$ws/.agent" -type f -exec cat {} + >/dev/null
    cmp_pair "gc plan (--dry-run)" "$count" sessions "time<=2" "find -mtime +30" \
        "$AGENTCTL -w $ws gc --keep 2 --older-than 30d --dry-run" \
        "find $ws/.agent/checkpoints $ws/.agent/sessions/.compactions -type f -mtime +30 -printf '%p %s\n'"
done
