#!/usr/bin/env bash
# storage migrate's rate: a generated workspace (bench/gen_sessions.py:
# SESSIONS sessions of about SESSION_KB each; bench/gen_journal.py: a
# JOURNAL_MB journal) copied into an empty PostgreSQL database (--to), a
# second time (nothing new: the cost of recognising what is there), and
# back into an empty workspace (--from), sessions and journal in workspaces
# of their own so each rate is its own. Prints wall time, the rate and
# peak RSS for each; judges nothing.
#
#   tests/pg/with-postgres.sh bench/migrate.sh AGENTCTL [SESSIONS] [SESSION_KB] [JOURNAL_MB]
#
# Needs a server from the PG* variables (with-postgres.sh starts one).
set -euo pipefail

AC=$(realpath "${1:?usage: $0 AGENTCTL [SESSIONS] [SESSION_KB] [JOURNAL_MB]}")
SESSIONS=${2:-2000}
SESSION_KB=${3:-8}
JOURNAL_MB=${4:-100}
BENCH=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agentctl-migrate-bench.XXXXXX")
DB=agentctl_migrate_bench_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"

# Two workspaces, so each rate is its own: sessions alone, the journal alone.
SW=$TMP/sessions
JW=$TMP/journal
mkdir -p "$SW/.agent/sessions" "$JW/.agent"
python3 "$BENCH/gen_sessions.py" "$SW/.agent/sessions" "$SESSIONS" "$SESSION_KB" >/dev/null
python3 "$BENCH/gen_journal.py" "$JW/JOURNAL.jsonl" "$JOURNAL_MB" >/dev/null
EVENTS=$(wc -l <"$JW/JOURNAL.jsonl")
echo "workspaces: $SESSIONS sessions of ~${SESSION_KB} KB ($(du -sm "$SW/.agent/sessions" | cut -f1) MB on disk); a ${JOURNAL_MB} MB journal of $EVENTS events"

measure() { # measure LABEL WS UNIT COUNT ARGS...
	local label=$1 ws=$2 unit=$3 count=$4
	shift 4
	/usr/bin/time -f "%e %M" -o "$TMP/time" "$AC" -w "$ws" storage migrate "$@" >"$TMP/out" 2>"$TMP/err" || {
		cat "$TMP/err" >&2
		exit 1
	}
	read -r secs kb <"$TMP/time"
	python3 - "$label" "$secs" "$kb" "$unit" "$count" <<'PY'
import sys
label, secs, kb, unit, count = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
print(f"| {label} | {count:,} {unit} | {secs:.2f} s | {count / secs:,.0f} {unit}/s | {kb / 1024:.0f} MB |")
PY
}
echo "| run | items | wall | rate | peak RSS |"
echo "|---|---|---|---|---|"
psql -Atqc "CREATE DATABASE ${DB}_j" >/dev/null
JURL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/${DB}_j"
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; psql -Atqc "DROP DATABASE IF EXISTS ${DB}_j" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
measure "sessions --to (empty database)" "$SW" sessions "$SESSIONS" --to "$URL"
grep -q "sessions: copied $SESSIONS," "$TMP/out" || { cat "$TMP/out" >&2; exit 1; }
measure "sessions --to again (0 new)" "$SW" sessions "$SESSIONS" --to "$URL"
mkdir -p "$TMP/sback/.agent"
measure "sessions --from (empty workspace)" "$TMP/sback" sessions "$SESSIONS" --from "$URL"
measure "journal --to (empty database)" "$JW" events "$EVENTS" --to "$JURL"
grep -q "journal events: copied $EVENTS," "$TMP/out" || { cat "$TMP/out" >&2; exit 1; }
measure "journal --to again (0 new)" "$JW" events "$EVENTS" --to "$JURL"
grep -q "journal events: copied 0, already there $EVENTS" "$TMP/out" || { cat "$TMP/out" >&2; exit 1; }
mkdir -p "$TMP/jback/.agent"
measure "journal --from (empty workspace)" "$TMP/jback" events "$EVENTS" --from "$JURL"
cmp -s "$JW/JOURNAL.jsonl" "$TMP/jback/JOURNAL.jsonl" || { echo "journal differs after --from" >&2; exit 1; }
