# "session file change -> on screen" with 100, 1,000 and 10,000 sessions of
# ~50 KB (bench/gen_sessions.py): the dashboard runs in tmux with the frame
# trace on (AGENTCTL_TRACE_FRAMES, tui/frame_trace.h); bench/watch_latency.py
# saves one session file after another as the seed's writers do (temp file,
# rename) and times each rename to the frame that draws that row. A whole
# command cannot time this, so the medians go in with cmp_record; the min
# column holds the fastest change, and the p95 is printed beside. No peer:
# the issue's peer for latency, tail -F, follows one file, not a folder.
set -euo pipefail
. "$BENCH_DIR/lib/compare.sh"

cmp_have tmux || exit 0
changes=$((CMP_QUICK == 1 ? 10 : CMP_RUNS > 50 ? CMP_RUNS : 50))
sock=agentctl-cmp-watch-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"' EXIT
cmp_tmux_server "$sock"

for count in $(cmp_sizes 100 1000 10000); do
    # The sessions other rows share, generated as they generate them...
    shared=$BENCH_DATA/sessions-$count-50/.agent/sessions
    if [ ! -d "$shared" ] || [ "$(find "$shared" -maxdepth 1 -name '*.json' | wc -l)" -ne "$count" ]; then
        echo "compare: generating $count sessions in $shared" >&2
        rm -rf "$BENCH_DATA/sessions-$count-50"
        python3 "$BENCH_DIR/gen_sessions.py" "$shared" "$count" 50 >&2
    fi
    # ...linked into a workspace of this row's own: a rename replaces a
    # name here and never touches the shared file.
    ws=$BENCH_DATA/watch/ws-$count
    rm -rf "$ws"
    mkdir -p "$ws/.agent"
    cp -al "$shared" "$ws/.agent/sessions"
    cat "$shared"/*.json >/dev/null
    trace=$ws/frames.trace
    : >"$trace"
    tmux -L "$sock" new-session -d -s watch -x 160 -y 48 \
        "exec env AGENTCTL_TRACE_FRAMES=$trace $AGENTCTL -w $ws"
    pid=$(tmux -L "$sock" list-panes -t watch -F '#{pane_pid}')
    read -r median p95 fastest slowest n rss < <(python3 "$BENCH_DIR/watch_latency.py" \
        "$ws/.agent/sessions" "$trace" "$changes" --pid "$pid")
    cmp_tmux_close "$sock" watch "$pid"
    echo "  session file change -> on screen, $count sessions: $n changes, median ${median}s p95 ${p95}s max ${slowest}s" >&2
    cmp_record "session file change → on screen" "$count" sessions "time<=0.005" - \
        "$median" "$fastest" "$rss" - - - -
    rm -rf "$ws"
done
