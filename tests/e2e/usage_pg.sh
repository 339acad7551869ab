#!/usr/bin/env bash
# agentctl usage on a PostgreSQL store: agentctl's own turn rows are read
# from the database (summed there by session, model and hour), not from
# the workspace's files: turns recorded through the store on two sessions
# of two tenants are in the daily, session and block reports with every
# count and the priced cost; turns a file workspace holds are not (the
# store is where a team's agents record); a row `storage migrate` brought
# counts as recorded, a carried total without a time does not; the sums
# the database keeps (usage_hours) stay the rows' sums through inserts, a
# removal and the migration that builds them; an unreachable store is one
# line, exit 1. Needs a server from the PG*
# variables: ctest runs it through tests/pg/with-postgres.sh.
# Usage: usage_pg.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "usage_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
unset AGENT_STORAGE_URL
DB=agentctl_usage_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
WS=$TMP/ws
mkdir -p "$WS/.agent" "$TMP/home"
export HOME=$TMP/home XDG_CACHE_HOME=$TMP/cache
db() { "$AC" -w "$WS" --storage "$URL" "$@"; }
turn() { # session usage-json
	printf '[{"role":"assistant","content":"ok"}]' | db session record-turn "$1" --usage "$2" --messages - >/dev/null
}

db session create "first" --id u1 --tenant acme --user a --agent Claude >/dev/null
db session create "second" --id u2 --tenant beta --user b --agent Codex >/dev/null
turn u1 '{"inputTokens":1000,"outputTokens":500,"cacheCreationInputTokens":100,"cacheReadInputTokens":2000,"model":"claude-sonnet-4-5"}'
turn u1 '{"inputTokens":10,"outputTokens":5,"model":"claude-sonnet-4-5"}'
turn u2 '{"inputTokens":7,"outputTokens":3,"reasoningTokens":2,"model":"gpt-5"}'
# A file workspace's own turn, which the store does not hold.
"$AC" -w "$WS" session create "files" --id f1 >/dev/null
printf '[{"role":"user","content":"x"}]' | "$AC" -w "$WS" session record-turn f1 --input 999 --output 1 --messages - >/dev/null
check "setup: three turn rows in the database" [ "$(psql -d "$DB" -Atqc 'select count(*) from agentctl.turn_usage')" = 3 ]

"$AC" -w "$WS" --storage "$URL" usage session --json >"$TMP/out" 2>"$TMP/err"
RC=$?
check "session: exit 0" rc_is 0
check "session: the two store sessions, not the file one" jq_is "$TMP/out" '[.rows[] | .sessionId] | sort | join(",")' "u1,u2"
check "session: u1's counts summed over its turns" jq_is "$TMP/out" \
	'[.rows[] | select(.sessionId == "u1") | .inputTokens, .outputTokens, .cacheCreationTokens, .cacheReadTokens] | join(",")' "1010,505,100,2000"
check "session: u2's reasoning tokens" jq_is "$TMP/out" '[.rows[] | select(.sessionId == "u2") | .reasoningTokens][0]' 2
check "session: the source is agentctl" jq_is "$TMP/out" '[.rows[] | .source] | unique | join(",")' agentctl
check "session: u1 priced" jq_is "$TMP/out" '[.rows[] | select(.sessionId == "u1") | .costUsd > 0][0]' true
"$AC" -w "$WS" --storage "$URL" usage >"$TMP/out" 2>"$TMP/err"
RC=$?
check "daily: exit 0" rc_is 0
check "daily: today's line sums every store turn" eval "grep -qE '^$(date -u +%F) +1017 +508 +100 +2000 ' '$TMP/out'"
"$AC" -w "$WS" --storage "$URL" usage block --json >"$TMP/out" 2>"$TMP/err"
check "block: one block with every turn" jq_is "$TMP/out" '[(.rows | length), .totals.inputTokens] | join(",")' "1,1017"
"$AC" -w "$WS" usage session --json >"$TMP/out" 2>"$TMP/err"
check "on files: only the file session's turn" jq_is "$TMP/out" '[.rows[] | .sessionId] | join(",")' f1

# A copied row with its time counts; a carried total (no time) does not.
psql -d "$DB" -Atq -v ON_ERROR_STOP=1 <<'SQL'
INSERT INTO agentctl.turn_usage (tenant, session_id, turn, at, input_tokens, output_tokens, fields, copied_row)
VALUES ('beta', 'u2', 2, '2026-01-02T03:04:05Z', 40, 4, '{"model":"gpt-5"}',
        '{"turn":2,"timestamp":"2026-01-02T03:04:05.000Z","usage":{"inputTokens":40,"outputTokens":4,"model":"gpt-5"}}'),
       ('beta', 'u2', 3, now(), 5000, 5000, '{}', '{"turn":3,"carried":true,"usage":{"inputTokens":5000,"outputTokens":5000}}');
SQL
"$AC" -w "$WS" --storage "$URL" usage --json >"$TMP/out" 2>"$TMP/err"
check "a copied row counts on its own day" jq_is "$TMP/out" '[.rows[] | select(.date == "2026-01-02") | .inputTokens][0]' 40
check "a carried total does not" jq_is "$TMP/out" '.totals.inputTokens' 1057

# The sums the database keeps (usage_hours, triggers) are the rows' own:
# after the inserts above, after a row removed, and built again from the
# rows by the migration that made them (schema 9) on an older database.
SUMS_OF_ROWS="SELECT string_agg(concat_ws(':', session_id, m, h, n, i, o, cc, cr, r), ',' ORDER BY session_id, h, m) FROM (
  SELECT session_id, coalesce(fields->>'model', '') m, date_trunc('hour', at, 'UTC') h, count(*) n, sum(input_tokens) i,
         sum(output_tokens) o, sum(cache_creation_input_tokens) cc, sum(cache_read_input_tokens) cr, sum(reasoning_tokens) r
  FROM agentctl.turn_usage WHERE copied_row IS NULL OR copied_row->>'timestamp' IS NOT NULL GROUP BY 1, 2, 3) x"
SUMS_KEPT="SELECT string_agg(concat_ws(':', session_id, model, hour, turns, input_tokens, output_tokens, cache_creation_input_tokens,
  cache_read_input_tokens, reasoning_tokens), ',' ORDER BY session_id, hour, model) FROM agentctl.usage_hours"
same_sums() { [ "$(psql -d "$DB" -Atqc "$SUMS_OF_ROWS")" = "$(psql -d "$DB" -Atqc "$SUMS_KEPT")" ] && [ -n "$(psql -d "$DB" -Atqc "$SUMS_KEPT")" ]; }
check "the kept sums are the rows' sums" same_sums
psql -d "$DB" -Atqc "DELETE FROM agentctl.turn_usage WHERE session_id = 'u2' AND turn = 2" >/dev/null
"$AC" -w "$WS" --storage "$URL" usage --json >"$TMP/out" 2>"$TMP/err"
check "a removed row is no longer counted" jq_is "$TMP/out" '[.rows[] | select(.date == "2026-01-02")] | length' 0
check "the kept sums are the rows' sums after a removal" same_sums
psql -d "$DB" -Atq -v ON_ERROR_STOP=1 <<'SQL'
SET search_path = agentctl;
DROP TABLE usage_hours;
DROP FUNCTION usage_hours_add() CASCADE;
DROP FUNCTION usage_hours_remove() CASCADE;
DELETE FROM agentctl_migrations WHERE version = 9;
SQL
"$AC" -w "$WS" --storage "$URL" usage --json >"$TMP/out" 2>"$TMP/err"
RC=$?
check "a database at schema 8 brought to 9: exit 0, same totals" bash -c "[ $RC = 0 ] && [ \"\$(jq .totals.inputTokens '$TMP/out')\" = 1017 ]"
check "its sums built from the rows" same_sums

"$AC" -w "$WS" --storage "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2" usage >"$TMP/out" 2>"$TMP/err"
RC=$?
check "unreachable store: exit 1, one line" bash -c "[ $RC = 1 ] && [ \"\$(wc -l <'$TMP/err')\" = 1 ] && grep -q '^agentctl: usage:' '$TMP/err'"
# storage.url from a project file nobody trusted is refused, as by every
# command: usage does not connect where an untrusted file points.
WSU=$TMP/untrusted
mkdir -p "$WSU/.agent"
printf '{"storage":{"url":"%s"}}' "$URL" >"$WSU/.agent/config.json"
"$AC" -w "$WSU" usage >"$TMP/out" 2>"$TMP/err"
RC=$?
check "untrusted storage.url: exit 1, refused by name" bash -c "[ $RC = 1 ] && grep -q 'storage.url comes from .*not trusted' '$TMP/err'"
finish
