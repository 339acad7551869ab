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
#
# Then each kind of change (issue 15): a session's status, a message
# appended to the open conversation, a journal event, a checkpoint, on a
# store of 10,000 sessions and a journal of 1,000,000 events (quick: 100
# and 1,000); store_latency.py --kind opens what shows the change (the
# conversation, the journal pane, the checkpoints pane) and times each
# commit to the frame that draws it.
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
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"' EXIT
cmp_tmux_server "$sock"

# measure NAME SESSIONS URL [store_latency.py options...]: the dashboard on
# URL in tmux with the frame trace, timed by store_latency.py; one row.
measure() {
    local name=$1 count=$2 url=$3 trace=$data/frames.trace pid
    shift 3
    : >"$trace"
    tmux -L "$sock" new-session -d -s store -x 160 -y 48 \
        "exec env AGENT_STORAGE_URL='$url' AGENTCTL_TRACE_FRAMES=$trace $AGENTCTL -w $data/ws"
    pid=$(tmux -L "$sock" list-panes -t store -F '#{pane_pid}')
    read -r median p95 fastest slowest n rss < <(python3 "$BENCH_DIR/store_latency.py" \
        "$agent" "$url" "$trace" "$count" "$changes" --pid "$pid" "$@")
    cmp_tmux_close "$sock" store "$pid"
    echo "  store $name, $count sessions: $n changes, median ${median}s p95 ${p95}s max ${slowest}s" >&2
    cmp_record "postgres: $name" "$count" sessions "time<=0.1" - \
        "$median" "$fastest" "$rss" - - - -
    rm -f "$trace"
}

for count in $(cmp_sizes 100 1000 10000); do
    db=bench_store_latency_$count
    psql -Atqc "DROP DATABASE IF EXISTS $db" >/dev/null
    psql -Atqc "CREATE DATABASE $db" >/dev/null
    url="dbname=$db application_name=store-latency"
    # The sessions first (pg_agent makes them), so the first frame lists them.
    printf '' | "$agent" "$url" bench-host-b latency bench "$count" >/dev/null
    measure "change on another host → on screen" "$count" "$url"
    psql -Atqc "DROP DATABASE IF EXISTS $db" >/dev/null
done

# ---- each kind of change ----
sessions=$((CMP_QUICK == 1 ? 100 : 10000))
events=$((CMP_QUICK == 1 ? 1000 : 1000000))
db=bench_store_kinds
psql -Atqc "DROP DATABASE IF EXISTS $db" >/dev/null
psql -Atqc "CREATE DATABASE $db" >/dev/null
url="dbname=$db application_name=store-latency-kinds"
printf '' | "$agent" "$url" bench-host-b latency bench "$sessions" >/dev/null
# The journal, written in one statement (as journal log would, seq by seq).
psql -d "$db" -Atq -v ON_ERROR_STOP=1 <<SQL
SET search_path = agentctl;
INSERT INTO journal_events (seq, id, ts, agent, status, action_type, host, event)
SELECT g, 'evt_20250101000000_' || lpad(to_hex(g), 8, '0'), '2025-01-01T00:00:00.000Z',
       'Codex', 'SUCCESS', 'ANALYSIS', 'bench-host-a',
       json_build_object('id', 'evt_20250101000000_' || lpad(to_hex(g), 8, '0'),
                         'timestamp', '2025-01-01T00:00:00.000Z', 'agent', 'Codex',
                         'status', 'SUCCESS',
                         'action', json_build_object('type', 'ANALYSIS', 'params', '{}'::json),
                         'result', json_build_object('message', 'event ' || g))
FROM generate_series(1, $events) g;
INSERT INTO logs (tenant, kind, log, last_seq) VALUES ('', 'journal', '', $events)
ON CONFLICT (tenant, kind, log) DO UPDATE SET last_seq = EXCLUDED.last_seq;
ANALYZE journal_events;
SQL

for kind in status message journal checkpoint; do
    measure "$kind on another host → on screen" "$sessions" "$url" \
        --kind "$kind" --tmux "$sock:store"
done
psql -Atqc "DROP DATABASE IF EXISTS $db" >/dev/null
