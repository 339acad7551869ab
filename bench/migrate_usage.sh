#!/usr/bin/env bash
# storage migrate's rate for turn usage rows: SESSIONS small sessions
# (bench/gen_sessions.py, 1 KB each) with TURNS rows each
# (bench/gen_turn_usage.py) copied into an empty PostgreSQL database
# (--to), a second time (nothing new), and back into an empty workspace
# (--from), whose rows files must come back byte-equal (checked). Prints
# wall time, the rate in rows and peak RSS for each; judges nothing.
#
#   tests/pg/with-postgres.sh bench/migrate_usage.sh AGENTCTL [SESSIONS] [TURNS]
set -euo pipefail

AC=$(realpath "${1:?usage: $0 AGENTCTL [SESSIONS] [TURNS]}")
SESSIONS=${2:-200}
TURNS=${3:-100}
BENCH=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agentctl-migrate-usage-bench.XXXXXX")
DB=agentctl_migrate_usage_bench_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"

WS=$TMP/ws
mkdir -p "$WS/.agent/sessions"
python3 "$BENCH/gen_sessions.py" "$WS/.agent/sessions" "$SESSIONS" 1 >/dev/null
python3 "$BENCH/gen_turn_usage.py" "$WS/.agent/sessions" "$TURNS"
ROWS=$((SESSIONS * TURNS))
echo "workspace: $SESSIONS sessions with $TURNS turn rows each ($ROWS rows, $(du -sk "$WS/.agent/sessions/.usage" | cut -f1) KB of rows files)"

measure() { # measure LABEL WS ARGS...
	local label=$1 ws=$2
	shift 2
	/usr/bin/time -f "%e %M" -o "$TMP/time" "$AC" -w "$ws" storage migrate "$@" >"$TMP/out" 2>"$TMP/err" || {
		cat "$TMP/err" >&2
		exit 1
	}
	grep -q "verified turn usage rows: $ROWS in the source, $ROWS of them" "$TMP/out" || {
		echo "$label: not every row verified" >&2
		cat "$TMP/out" >&2
		exit 1
	}
	read -r wall rss <"$TMP/time"
	awk -v l="$label" -v n="$ROWS" -v w="$wall" -v r="$rss" \
		'BEGIN { printf "%-28s %8d rows %7.2f s %9.0f rows/s %6.0f MB\n", l, n, w, n / (w > 0 ? w : 0.01), r / 1024 }'
}

measure "rows --to (empty database)" "$WS" --to "$URL"
measure "rows --to again (0 new)" "$WS" --to "$URL"
WS2=$TMP/back
mkdir -p "$WS2/.agent"
measure "rows --from (empty workspace)" "$WS2" --from "$URL"
for f in "$WS"/.agent/sessions/.usage/*.jsonl; do
	cmp -s "$f" "$WS2/.agent/sessions/.usage/$(basename "$f")" || { echo "rows file differs: $f" >&2; exit 1; }
done
echo "rows files back byte-equal: $SESSIONS of $SESSIONS"
