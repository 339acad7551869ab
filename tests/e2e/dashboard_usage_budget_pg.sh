#!/usr/bin/env bash
# The dashboard's usage line on a PostgreSQL store: the turns agents record
# through the database (summed there, inspector.usage_by_hour) are what
# today and this month cost, against usage.budgetUsd; a turn the
# workspace's files hold is not counted on the store. Run by ctest through
# tests/pg/with-postgres.sh. Usage: dashboard_usage_budget_pg.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/pg_fleet.sh" budget

home=$ws.home
mkdir -p "$home" "$ws/.agent"
printf '{"usage":{"budgetUsd":{"day":10,"month":100}}}\n' >"$ws/.agent/config.json"
db() { HOME=$home XDG_CACHE_HOME=$ws.cache "$agentctl" -w "$ws" --storage "$URL" "$@"; }
db session create "b" --id own --tenant acme >/dev/null
# 1,000,000 input tokens of claude-sonnet-4-5: $3.00, twice.
for _ in 1 2; do
  printf '[{"role":"assistant","content":"ok"}]' |
    db session record-turn own --usage '{"inputTokens":1000000,"outputTokens":0,"model":"claude-sonnet-4-5"}' --messages - >/dev/null
done
# On files, a turn of $15.00 that the store does not hold.
HOME=$home "$agentctl" -w "$ws" session create "f" --id onfiles >/dev/null
HOME=$home "$agentctl" -w "$ws" session record-turn onfiles --usage \
  '{"inputTokens":0,"outputTokens":1000000,"model":"claude-sonnet-4-5"}' >/dev/null

prefix="env HOME=$home XDG_CACHE_HOME=$ws.cache AGENT_STORAGE_URL=$URL"
dashboard 200 30
check "the store's turns against the budgets" \
  wait_for "usage  today \$6.00 of \$10.00  month \$6.00 of \$100.00"
send q
wait_exit
rm -rf "$home" "$ws.cache"
finish
