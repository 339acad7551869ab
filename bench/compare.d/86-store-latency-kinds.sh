# "written on another host -> on screen" on a PostgreSQL store, per kind of
# change (issue 15): a session's status, a message appended to the open
# conversation, a journal event, a checkpoint. The dashboard runs in tmux
# on a store of 10,000 sessions and a journal of 1,000,000 events (quick:
# 100 and 1,000) with the frame trace on (tui/frame_trace.h);
# bench/store_latency.py --kind opens what shows the change (the
# conversation, the journal pane, the checkpoints pane) and drives
# bench/pg_agent (another process, host name bench-host-b), timing each
# commit to the frame that draws it. Target 0.1 s. The medians go in with
# cmp_record, p95 printed beside. The server: the one PG* variables name,
# else a throwaway cluster from pg_virtualenv for this script.
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
sessions=$((CMP_QUICK == 1 ? 100 : 10000))
events=$((CMP_QUICK == 1 ? 1000 : 1000000))
sock=agentctl-cmp-kinds-$$
data=$BENCH_DATA/store-latency-kinds
mkdir -p "$data/ws"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true' EXIT
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
    trace=$data/frames-$kind.trace
    : >"$trace"
    tmux -L "$sock" new-session -d -s store -x 160 -y 48 \
        "exec env AGENT_STORAGE_URL='$url' AGENTCTL_TRACE_FRAMES=$trace $AGENTCTL -w $data/ws"
    pid=$(tmux -L "$sock" list-panes -t store -F '#{pane_pid}')
    read -r median p95 fastest slowest n rss < <(python3 "$BENCH_DIR/store_latency.py" \
        "$agent" "$url" "$trace" "$sessions" "$changes" --pid "$pid" --kind "$kind" \
        --tmux "$sock:store")
    tmux -L "$sock" kill-server 2>/dev/null || true
    echo "  store $kind on another host -> on screen, $sessions sessions, $events events: $n changes, median ${median}s p95 ${p95}s max ${slowest}s" >&2
    cmp_record "postgres: $kind on another host → on screen" "$sessions" sessions "time<=0.1" - \
        "$median" "$fastest" "$rss" - - - -
    rm -f "$trace"
done
psql -Atqc "DROP DATABASE IF EXISTS $db" >/dev/null
