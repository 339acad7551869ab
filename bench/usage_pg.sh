#!/usr/bin/env bash
# `agentctl usage` on a PostgreSQL store: SESSIONS sessions (made by
# bench/pg_agent) with TURNS turn rows each, inserted in one statement over
# the hours before now, half of them on each of two models; then `usage
# session --json` and `usage` (daily) RUNS times each, wall time and peak
# RSS per run, and the turns and sums the database keeps (usage_hours,
# schema 9). Judges nothing; the figures go in docs/BENCHMARKS.md.
#
#   tests/pg/with-postgres.sh bench/usage_pg.sh build-rel/agentctl [SESSIONS] [TURNS] [RUNS]
set -euo pipefail

AC=$(realpath "${1:?usage: $0 AGENTCTL [SESSIONS] [TURNS] [RUNS]}")
SESSIONS=${2:-10000}
TURNS=${3:-100}
RUNS=${4:-5}
AGENT=$(dirname "$AC")/pg_agent
[ -x "$AGENT" ] || { echo "$AGENT is not built" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agentctl-usage-pg-bench.XXXXXX")
DB=agentctl_usage_bench_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
URL="dbname=$DB"
mkdir -p "$TMP/ws/.agent" "$TMP/home"
export HOME=$TMP/home XDG_CACHE_HOME=$TMP/cache

printf '' | "$AGENT" "$URL" bench-host latency bench "$SESSIONS" >/dev/null
start=$(date +%s.%N)
psql -d "$DB" -Atq -v ON_ERROR_STOP=1 -c "SET search_path = agentctl;
INSERT INTO turn_usage (tenant, session_id, turn, at, input_tokens, output_tokens,
  cache_creation_input_tokens, cache_read_input_tokens, reasoning_tokens, fields)
SELECT s.tenant, s.id, g, now() - (g || ' minutes')::interval, 1000, 200, 10, 5000, 0,
  jsonb_build_object('model', CASE WHEN g % 2 = 0 THEN 'claude-sonnet-4-5' ELSE 'gpt-5' END)
FROM sessions s, generate_series(1, $TURNS) g; ANALYZE turn_usage;"
end=$(date +%s.%N)
echo "database: $(psql -d "$DB" -Atqc 'select count(*) from agentctl.turn_usage') turn rows in $SESSIONS sessions," \
	"$(psql -d "$DB" -Atqc 'select count(*) from agentctl.usage_hours') sums kept;" \
	"inserted in $(echo "$end - $start" | bc) s"
for report in "session --json" ""; do
	for _ in $(seq "$RUNS"); do
		# shellcheck disable=SC2086 # the report's words
		/usr/bin/time -f "%e %M" -o "$TMP/time" "$AC" -w "$TMP/ws" --storage "$URL" usage $report >/dev/null
		read -r secs kb <"$TMP/time"
		echo "usage ${report:-daily}: $secs s, peak RSS $((kb / 1024)) MB"
	done
done
