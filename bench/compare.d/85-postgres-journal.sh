# The journal in PostgreSQL (issue 15) against the same events in the
# journal file, on 20,000, 200,000 and 2,000,000 events (the first lines of
# bench/gen_journal.py's journals, seed 42: the 10 MiB one for the
# smallest, the 1024 MiB one, bench/journal.sh's, for the others), each
# pair printing the same bytes:
#   journal query agent=Codex     the agent index (agent, ts)
#   journal query since= until=   the ts index; the hour around the middle
#   journal read --last 10        the seq primary key, backward
# The events are loaded with COPY into a database of their own per size
# (seqs 1..n in file order, columns as an append fills them). The server:
# the one PG* variables name, else a throwaway cluster from pg_virtualenv.
set -euo pipefail
. "$BENCH_DIR/lib/compare.sh"

if [ -z "${PGHOST:-}${PGPORT:-}" ]; then
    if ! cmp_have pg_virtualenv; then exit 0; fi
    exec pg_virtualenv -t -o fsync=on bash "$0"
fi
cmp_have psql || exit 0
seed=42
data=$BENCH_DATA/postgres-journal

# source_for EVENTS: a generated journal with at least that many events.
source_for() {
    local size=10 file
    [ "$1" -gt 20000 ] && size=1024
    if [ "$size" = 1024 ]; then file=$BENCH_DATA/ws/JOURNAL.jsonl; else file=$data/source-10.jsonl; fi
    if [ ! -f "$file" ]; then
        echo "compare: generating $file ($size MiB, seed $seed)" >&2
        mkdir -p "$(dirname "$file")"
        python3 "$BENCH_DIR/gen_journal.py" "$file.tmp" "$size" --seed "$seed" >&2
        mv -f "$file.tmp" "$file"
    fi
    echo "$file"
}

# workspace_for EVENTS: a workspace whose journal is the first EVENTS events.
workspace_for() {
    local ws=$data/ws-$1
    if [ ! -f "$ws/JOURNAL.jsonl" ] || [ "$(wc -l <"$ws/JOURNAL.jsonl")" != "$1" ]; then
        mkdir -p "$ws"
        head -n "$1" "$(source_for "$1")" >"$ws/JOURNAL.jsonl"
    fi
    echo "$ws"
}

# load DB FILE: the events of FILE into DB's journal_events, as appends
# would have stored them (the line as json text, the indexed columns).
load() {
    local db=$1 file=$2 url
    psql -Atqc "DROP DATABASE IF EXISTS $db" 2>/dev/null
    psql -Atqc "CREATE DATABASE $db"
    url="postgresql://${PGUSER}@${PGHOST}:${PGPORT}/$db"
    # Any command brings the schema up to date.
    "$AGENTCTL" -w "$data" --storage "$url" journal read --last 1 >/dev/null
    # CSV with quote and delimiter bytes no event holds: each line raw.
    psql -d "$db" -Atq -v ON_ERROR_STOP=1 <<SQL
CREATE TEMP TABLE raw (n bigserial, line text);
\\copy raw (line) FROM '$file' WITH (FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02')
INSERT INTO agentctl.journal_events (seq, id, ts, agent, status, action_type, correlation_id, host, event)
  SELECT n, e->>'id', e->>'timestamp', e->>'agent', e->>'status', e->'action'->>'type',
         e->'trace'->>'correlation_id', 'bench', line::json
  FROM (SELECT n, line, line::json AS e FROM raw) r ORDER BY n;
INSERT INTO agentctl.logs (tenant, kind, log, last_seq)
  SELECT '', 'journal', '', max(seq) FROM agentctl.journal_events;
ANALYZE agentctl.journal_events;
SQL
    echo "$url"
}

# hour_around FILE: "SINCE UNTIL", the hour holding the middle event.
hour_around() {
    local ts
    ts=$(tail -c +$(($(stat -c %s "$1") / 2)) "$1" | sed -n 2p |
        grep -o '"timestamp":"[^"]*"' | head -n1 | cut -d'"' -f4)
    echo "${ts:0:13}:00:00Z $(date -u -d "${ts:0:10} ${ts:11:2}:00 +1 hour" +%Y-%m-%dT%H:00:00Z)"
}

for events in $(cmp_sizes 20000 200000 2000000); do
    ws=$(workspace_for "$events")
    echo "compare: loading $events events into PostgreSQL" >&2
    url=$(load "jbench_$events" "$ws/JOURNAL.jsonl")
    read -r since until <<<"$(hour_around "$ws/JOURNAL.jsonl")"
    cmp_pair "postgres: journal query agent=Codex" "$events" events - "file store" \
        "$AGENTCTL -w $ws --storage $url journal query agent=Codex" \
        "$AGENTCTL -w $ws journal query agent=Codex"
    cmp_pair "postgres: journal query one hour" "$events" events - "file store" \
        "$AGENTCTL -w $ws --storage $url journal query since=$since until=$until" \
        "$AGENTCTL -w $ws journal query since=$since until=$until"
    cmp_pair "postgres: journal read --last 10" "$events" events - "file store" \
        "$AGENTCTL -w $ws --storage $url journal read --last 10" \
        "$AGENTCTL -w $ws journal read --last 10"
    psql -Atqc "DROP DATABASE IF EXISTS jbench_$events" 2>/dev/null || true
done
