# The PostgreSQL store (issue 15), measured by bench_backend_pg (built
# beside agentctl): listing 1,000, 10,000 and 100,000 sessions through the
# inspector (target 0.2 s at 100,000; no other tool lists them: alone), and
# 8 writer processes appending 30, 300 and 3,000 records each to one shared
# trace, PostgreSQL (synchronous commit) paired with the file store doing
# the same. The server: the one PG* variables name, else a throwaway
# cluster from pg_virtualenv (fsync on) for this script.
set -euo pipefail
. "$BENCH_DIR/lib/compare.sh"

bench=$(dirname "$AGENTCTL")/bench_backend_pg
if [ ! -x "$bench" ]; then
    echo "compare: $bench not built; the PostgreSQL rows are skipped" >&2
    exit 0
fi
if [ -z "${PGHOST:-}${PGPORT:-}" ]; then
    if ! cmp_have pg_virtualenv; then exit 0; fi
    exec pg_virtualenv -t -o fsync=on bash "$0"
fi
url="application_name=compare"
runs=$CMP_RUNS
[ "$CMP_QUICK" = 1 ] && runs=3

for count in $(cmp_sizes 1000 10000 100000); do
    line=$("$bench" list pg "$url" "$count" "$runs" | grep '^inspector, every session')
    median=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' <<<"$line")
    best=$(sed -n 's/.*best \([0-9.]*\) ms.*/\1/p' <<<"$line")
    cmp_record "postgres: list sessions" "$count" sessions "time<=0.2" - \
        "$(awk "BEGIN {print $median / 1000}")" "$(awk "BEGIN {print $best / 1000}")" - - - - -
done

data=$BENCH_DATA/postgres-store
mkdir -p "$data"
for count in $(cmp_sizes 30 300 3000); do
    pg=() fs=()
    for _ in $(seq "$runs"); do
        psql -Atqc 'DROP SCHEMA IF EXISTS bench_appends CASCADE' 2>/dev/null
        pg+=("$("$bench" appends pg "$url" 8 "$count" traces | sed -n 's/.*traces_seconds=\([0-9.]*\).*/\1/p')")
        rm -rf "$data/fs"
        fs+=("$("$bench" appends fs "$data/fs" 8 "$count" traces | sed -n 's/.*traces_seconds=\([0-9.]*\).*/\1/p')")
    done
    rm -rf "$data/fs"
    stats() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)], v[1]}'; }
    read -r pg_median pg_min <<<"$(stats "${pg[@]}")"
    read -r fs_median fs_min <<<"$(stats "${fs[@]}")"
    cmp_record "postgres: 8 writers append to a trace" "$((8 * count))" records - "file store" \
        "$pg_median" "$pg_min" - "$fs_median" "$fs_min" - \
        "$(awk "BEGIN {printf \"%.2f\", $pg_median / $fs_median}")"
done
