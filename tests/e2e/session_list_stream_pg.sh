#!/usr/bin/env bash
# `session list` on the PostgreSQL store streams (issue 28): the rows come
# through a cursor a batch at a time and are printed as they come, the
# text and the --json document the same as the listing read whole. First a
# small store whose rows try the printing (tenants, long tasks read from
# their rows, control characters, the filters, an empty store); then
# 100,000 sessions listed under `ulimit -v` 64 MiB, which holding them all
# (about 120 MB for the text, 550 MB for --json) exceeds, and in a peak
# resident memory at most 16 MiB over the small store's: that holds under
# AddressSanitizer too, where the ulimit cannot be (CI). Needs a server
# from the PG* variables: ctest runs it through tests/pg/with-postgres.sh.
# Usage: session_list_stream_pg.sh path/to/agentctl
set -u
. "$(dirname "$0")/lib/cli.sh" "$@"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "session_list_stream_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
WS=$TMP/ws
mkdir -p "$WS/.agent"
DB=agentctl_e2e_list_stream_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
export AGENT_STORAGE_URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
sql() { psql -d "$DB" -Atq -v ON_ERROR_STOP=1 -c "$1"; }
jq_true() { jq -e "$1" "$2" >/dev/null; } # filter file
LIMIT_KB=65536
LC_ALL=C grep -qa __asan_init "$AC" && echo "AddressSanitizer build: ulimit -v left out, the peak RSS kept"
# Growth allowed from 1,203 sessions to 100,000, whatever the build (the
# peak resident memory: AddressSanitizer's shadow and runtime are in both).
GROWTH_KB=$((16 * 1024))

# ---- an empty store ----
run session list --json
check "empty: exit 0" rc_is 0
check "empty: --json is []" [ "$OUT" = "[]" ]
run session list
check "empty: the header alone" [ "$(wc -l <"$TMP/out")" = 1 ]

# ---- a small store: 1,203 sessions (three batches and some) ----
# A year old: their state (idle) does not move while the test runs.
sql "INSERT INTO agentctl.sessions (tenant, id, user_id, agent, status, created_at, updated_at,
       written_by_host, task, message_count, tokens)
     SELECT CASE WHEN g % 3 = 0 THEN 'other' ELSE 'acme' END, 's-' || lpad(g::text, 5, '0'),
            'u' || (g % 4), 'claude', (ARRAY['running','paused','completed','failed'])[1 + g % 4],
            timestamptz '2025-01-01 00:00:00Z' + (g / 2) * interval '1 minute',
            timestamptz '2025-01-01 00:00:00Z' + g * interval '1 minute', 'host-' || (g % 5),
            CASE WHEN g % 100 = 7 THEN repeat('é long task ', 40) || g
                 WHEN g % 100 = 8 THEN E'bell \x07 and escape \x1b[31m red ' || g
                 ELSE 'task ' || g END,
            g % 10, g * 3
     FROM generate_series(1, 1203) g"
expected=$(sql "SELECT id FROM agentctl.sessions ORDER BY created_at DESC, id")
run session list --json
check "small: exit 0" rc_is 0
check "small: one JSON document of 1,203 sessions" jq_true 'length == 1203' "$TMP/out"
check "small: in the listing's order (newest createdAt first, then id)" \
	[ "$(jq -r '.[].id' "$TMP/out")" = "$expected" ]
check "small: a long task whole" jq_true '.[] | select(.id == "s-00107") | .task | length == 483' "$TMP/out"
check "small: each element as the listing read whole gives it" \
	jq_true '.[] | select(.id == "s-01202") | .status == "completed" and .tenantId == "acme" and .userId == "u2" and .host == "host-2" and .messages == 2 and .tokens == 3606 and .source == "agentctl" and .state == "completed" and .parentId == null' "$TMP/out"
check "small: indented as one document (two spaces, four inside)" \
	eval '[ "$(head -3 "$TMP/out")" = "$(printf "[\n  {\n    \"id\": \"s-01202\",")" ] && [ "$(tail -2 "$TMP/out")" = "$(printf "  }\n]")" ]'
run session list
check "small text: exit 0" rc_is 0
check "small text: header and 1,203 rows" [ "$(wc -l <"$TMP/out")" = 1204 ]
check "small text: in the same order" [ "$(tail -n +2 "$TMP/out" | cut -d' ' -f1)" = "$expected" ]
check "small text: control characters made visible" eval 'grep "^s-00108 " "$TMP/out" | grep -qF "bell ^G and escape ^["'
run session list --status paused --user u1 --json
check "filters: --status and --user as before" \
	[ "$(jq -r '.[].id' "$TMP/out")" = "$(sql "SELECT id FROM agentctl.sessions WHERE status = 'paused' AND user_id = 'u1' ORDER BY created_at DESC, id")" ]
run session list --state running --json
check "filters: --state (none is running a year later)" [ "$OUT" = "[]" ]
limited "$LIMIT_KB" session list
small_peak=$PEAK_KB
limited "$LIMIT_KB" session list --json
small_json_peak=$PEAK_KB
check "small: peak memory measured ($small_peak KiB, --json $small_json_peak KiB)" \
	eval '[ "${small_peak:-0}" -gt 0 ] && [ "${small_json_peak:-0}" -gt 0 ]'

# ---- 100,000 sessions in bounded memory ----
sql "SET client_min_messages = warning; TRUNCATE agentctl.sessions CASCADE"
sql "INSERT INTO agentctl.sessions (tenant, id, user_id, agent, status, created_at, updated_at,
       written_by_host, task)
     SELECT 'acme', 'big-' || g, 'u', 'a', 'completed', timestamptz '2025-01-01 00:00:00Z' + g * interval '1 s',
            timestamptz '2025-01-01 00:00:00Z' + g * interval '1 s', 'host-a', repeat('task words ', 15) || g
     FROM generate_series(1, 100000) g; ANALYZE agentctl.sessions"
limited "$LIMIT_KB" session list
check "100,000 under ulimit -v 64 MiB: exit 0" [ "$RC" = 0 ]
check "100,000: peak memory $PEAK_KB KiB, at most 16 MiB over 1,203 sessions' (all rows held: ~120 MB)" \
	[ "$((${PEAK_KB:-999999999} - small_peak))" -le "$GROWTH_KB" ]
check "100,000: the header and every row" [ "$(wc -l <"$TMP/out")" = 100001 ]
check "100,000: newest first, to the oldest" \
	eval '[ "$(sed -n 2p "$TMP/out" | cut -d" " -f1)" = big-100000 ] && [ "$(tail -1 "$TMP/out" | cut -d" " -f1)" = big-1 ]'
echo "peak resident memory: 1,203 sessions $small_peak KiB, 100,000 $PEAK_KB KiB"
limited "$LIMIT_KB" session list --json
echo "peak resident memory, --json: 1,203 sessions $small_json_peak KiB, 100,000 $PEAK_KB KiB"
check "100,000 --json under ulimit -v 64 MiB: exit 0" [ "$RC" = 0 ]
check "100,000 --json: peak memory $PEAK_KB KiB, at most 16 MiB over 1,203 sessions' (all held: ~550 MB)" \
	[ "$((${PEAK_KB:-999999999} - small_json_peak))" -le "$GROWTH_KB" ]
check "100,000 --json: one document, every session" jq_true 'length == 100000' "$TMP/out"
finish
