#!/usr/bin/env bash
# storage migrate's rate: a generated workspace (bench/gen_sessions.py:
# SESSIONS sessions of about SESSION_KB each; bench/gen_journal.py: a
# JOURNAL_MB journal) copied into an empty PostgreSQL database (--to), a
# second time (nothing new: the cost of recognising what is there), and
# back into an empty workspace (--from). Prints wall time, sessions/s,
# events/s and peak RSS for each; judges nothing.
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

WS=$TMP/ws
mkdir -p "$WS/.agent/sessions"
python3 "$BENCH/gen_sessions.py" "$WS/.agent/sessions" "$SESSIONS" "$SESSION_KB" >/dev/null
python3 "$BENCH/gen_journal.py" "$WS/JOURNAL.jsonl" "$JOURNAL_MB" >/dev/null
EVENTS=$(wc -l <"$WS/JOURNAL.jsonl")
echo "workspace: $SESSIONS sessions of ~${SESSION_KB} KB ($(du -sm "$WS/.agent/sessions" | cut -f1) MB), journal ${JOURNAL_MB} MB, $EVENTS events"

measure() { # measure LABEL WS ARGS...
	local label=$1 ws=$2
	shift 2
	/usr/bin/time -f "%e %M" -o "$TMP/time" "$AC" -w "$ws" storage migrate "$@" >"$TMP/out" 2>"$TMP/err" || {
		cat "$TMP/err" >&2
		exit 1
	}
	read -r secs kb <"$TMP/time"
	python3 - "$label" "$secs" "$kb" "$SESSIONS" "$EVENTS" <<'PY'
import sys
label, secs, kb, sessions, events = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
print(f"| {label} | {secs:.2f} s | {sessions / secs:,.0f} sessions/s | {events / secs:,.0f} events/s | {kb / 1024:.0f} MB |")
PY
}
echo "| run | wall | sessions | journal | peak RSS |"
echo "|---|---|---|---|---|"
measure "--to (empty database)" "$WS" --to "$URL"
grep -q "journal events: copied $EVENTS," "$TMP/out" || { cat "$TMP/out" >&2; exit 1; }
measure "--to again (0 new)" "$WS" --to "$URL"
grep -q "journal events: copied 0, already there $EVENTS" "$TMP/out" || { cat "$TMP/out" >&2; exit 1; }
mkdir -p "$TMP/back/.agent"
measure "--from (empty workspace)" "$TMP/back" --from "$URL"
cmp -s "$WS/JOURNAL.jsonl" "$TMP/back/JOURNAL.jsonl" || { echo "journal differs after --from" >&2; exit 1; }
