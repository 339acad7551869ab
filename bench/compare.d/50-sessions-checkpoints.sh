# `session list` against the seed's own listing (seed 000's
# JsonSessionStore.list() in node) at 100, 1,000 and 10,000 sessions of
# ~50 KB (bench/gen_sessions.py); `checkpoint list` of one session holding
# 50, 500 and 5,000 checkpoints of ~8 KB (bench/gen_checkpoints.py), alone:
# no other tool lists checkpoints.
set -euo pipefail
. "$BENCH_DIR/lib/compare.sh"

for count in $(cmp_sizes 100 1000 10000); do
    ws=$BENCH_DATA/sessions-$count-50
    dir=$ws/.agent/sessions
    if [ ! -d "$dir" ] || [ "$(find "$dir" -maxdepth 1 -name '*.json' | wc -l)" -ne "$count" ]; then
        echo "compare: generating $count sessions in $dir" >&2
        rm -rf "$ws"
        python3 "$BENCH_DIR/gen_sessions.py" "$dir" "$count" 50 >&2
    fi
    cat "$dir"/*.json >/dev/null
    if cmp_have node; then
        cmp_pair "session list" "$count" sessions "ratio<=0.5" "seed list() in node" \
            "$AGENTCTL -w $ws session list" \
            "node $BENCH_DIR/peers/seed_session_list.js $dir"
    else
        cmp_alone "session list" "$count" sessions - "$AGENTCTL -w $ws session list"
    fi
done

for count in $(cmp_sizes 50 500 5000); do
    ws=$BENCH_DATA/checkpoints-$count
    if [ ! -f "$ws/sid" ]; then
        echo "compare: generating $count checkpoints in $ws" >&2
        rm -rf "$ws"
        mkdir -p "$ws"
        python3 "$BENCH_DIR/gen_checkpoints.py" "$ws" "$count" >"$ws/sid.new"
        mv "$ws/sid.new" "$ws/sid"
    fi
    sid=$(cat "$ws/sid")
    cat "$ws/.agent/checkpoints/$sid"/*.json >/dev/null
    cmp_alone "checkpoint list" "$count" checkpoints "time<=0.2,rss<=20480" \
        "$AGENTCTL -w $ws checkpoint list $sid"
done
