# `session compact` of one session of 200, 2,000 and 20,001 messages against
# the seed's compactIfNeeded in node (bench/peers/seed_compact.js), both with
# the same summariser (bench/peers/fixed_summary.sh: reads the messages,
# prints a fixed summary); `trace show` of 2k, 20k and 200k records and
# `memo read` of 1, 10 and 100 MiB, each against `cat` of the file (what a
# user reads a JSONL trace or a markdown note with). Data from
# bench/gen_store_data.py under $BENCH_DATA/compact-trace-memo/.
#
# Compaction changes its session, so each run first puts the original back
# (cp -p keeps its old mtime: agentctl waits for a session written in the
# last second to go quiet) and removes the archives: both sides run as
# sh -c 'cp -p ...; exec ...', the same copy on each side.
set -euo pipefail
. "$BENCH_DIR/lib/compare.sh"

data=$BENCH_DATA/compact-trace-memo
gen=$BENCH_DIR/gen_store_data.py

# Generates once: a "done" file marks a finished data set.
ensure() {
    local dir=$1
    shift
    [ -f "$dir/done" ] && return 0
    echo "compare: generating $dir" >&2
    rm -rf "$dir"
    python3 "$gen" "$@" >&2
    touch "$dir/done"
}

export AGENT_SUMMARIZER_COMMAND="[\"$BENCH_DIR/peers/fixed_summary.sh\"]"
for count in $(cmp_sizes 200 2000 20001); do
    src=$data/compact-$count
    ensure "$src" session "$src" big "$count"
    file=$src/.agent/sessions/big.json
    # Target: no more memory than twice the session file.
    rss_max=$(( $(stat -c %s "$file") * 2 / 1024 ))
    a=$data/run-compact-$count-agentctl b=$data/run-compact-$count-seed
    mkdir -p "$a/.agent/sessions" "$b/.agent/sessions"
    if cmp_have node; then
        cmp_pair "session compact" "$count" messages "ratio<=1,rss<=$rss_max" \
            "seed compactIfNeeded in node" \
            "sh -c 'cp -p $file $a/.agent/sessions/ && rm -rf $a/.agent/sessions/.compactions && exec $AGENTCTL -w $a session compact big --force'" \
            "sh -c 'cp -p $file $b/.agent/sessions/ && exec node $BENCH_DIR/peers/seed_compact.js $b/.agent/sessions big $BENCH_DIR/peers/fixed_summary.sh'"
    else
        cmp_alone "session compact" "$count" messages "rss<=$rss_max" \
            "sh -c 'cp -p $file $a/.agent/sessions/ && rm -rf $a/.agent/sessions/.compactions && exec $AGENTCTL -w $a session compact big --force'"
    fi
done

for count in $(cmp_sizes 2000 20000 200000); do
    ws=$data/trace-$count
    ensure "$ws" trace "$ws" tr "$count"
    trace=$ws/.agent/traces/bench/tr.jsonl
    cat "$trace" >/dev/null
    cmp_pair "trace show" "$count" records "time<=1,rss<=10240" cat \
        "$AGENTCTL -w $ws trace show tr" "cat $trace"
done

for mib in $(cmp_sizes 1 10 100); do
    ws=$data/memo-$mib
    ensure "$ws" memo "$ws" "$mib"
    memo=$ws/.agent/memo/bench/u1/user/BIG.md
    cat "$memo" >/dev/null
    cmp_pair "memo read" "$mib" MiB "ratio<=1.5,rss<=10240" cat \
        "$AGENTCTL -w $ws memo read bench u1 user BIG.md" "cat $memo"
done
