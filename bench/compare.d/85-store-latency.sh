# "a change on another host -> on screen" on a PostgreSQL store, with 100,
# 1,000 and 10,000 sessions: the dashboard runs in tmux on the store
# (AGENT_STORAGE_URL) with the frame trace on (tui/frame_trace.h);
# bench/store_latency.py drives bench/pg_agent as a second machine's agent
# (another host name) appending to one session after another, each in its
# own transaction, and times each commit to the frame that draws that row
# (LISTEN/NOTIFY, the listing read again, the row drawn). The issue's
# target: 0.1 s. A whole command cannot time this, so the medians go in
# with cmp_record; the min column holds the fastest change, the p95 is
# printed beside. No peer. The server: the one PG* variables name, else a
# throwaway cluster from pg_virtualenv for this script.
set -euo pipefail
. "$BENCH_DIR/lib/compare.sh"

agent=$(dirname "$AGENTCTL")/pg_agent
if [ ! -x "$agent" ]; then
    echo "compare: $agent not built; the store latency rows are skipped" >&2
    exit 0
fi
cmp_have tmux || exit 0
if [ -z "${PGHOST:-}${PGPORT:-}" ]; then
    if ! cmp_have pg_virtualenv; then exit 0; fi
    exec pg_virtualenv -t bash "$0"
fi
changes=$((CMP_QUICK == 1 ? 10 : CMP_RUNS > 50 ? CMP_RUNS : 50))
sock=agentctl-cmp-store-$$
data=$BENCH_DATA/store-latency
mkdir -p "$data/ws"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true' EXIT

for count in $(cmp_sizes 100 1000 10000); do
    db=bench_store_latency_$count
    psql -Atqc "DROP DATABASE IF EXISTS $db" >/dev/null
    psql -Atqc "CREATE DATABASE $db" >/dev/null
    url="dbname=$db application_name=store-latency"
    trace=$data/frames-$count.trace
    : >"$trace"
    # The sessions first (pg_agent makes them), so the first frame lists them.
    printf '' | "$agent" "$url" bench-host-b latency bench "$count" >/dev/null
    tmux -L "$sock" new-session -d -s store -x 160 -y 48 \
        "exec env AGENT_STORAGE_URL='$url' AGENTCTL_TRACE_FRAMES=$trace $AGENTCTL -w $data/ws"
    pid=$(tmux -L "$sock" list-panes -t store -F '#{pane_pid}')
    read -r median p95 fastest slowest n rss < <(python3 "$BENCH_DIR/store_latency.py" \
        "$agent" "$url" "$trace" "$count" "$changes" --pid "$pid")
    tmux -L "$sock" kill-server 2>/dev/null || true
    echo "  store change on another host -> on screen, $count sessions: $n changes, median ${median}s p95 ${p95}s max ${slowest}s" >&2
    cmp_record "postgres: change on another host → on screen" "$count" sessions "time<=0.1" - \
        "$median" "$fastest" "$rss" - - - -
    psql -Atqc "DROP DATABASE IF EXISTS $db" >/dev/null
    rm -f "$trace"
done
