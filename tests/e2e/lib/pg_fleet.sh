# The PostgreSQL half of the dashboard's fleet scripts (sourced after
# lib/tmux.sh, not a test): a database of its own, dropped on exit, and a
# second machine's agent. After `. lib/pg_fleet.sh NAME`:
#   DB, URL       the database and its URL (from the PG* variables)
#   sql SQL       runs SQL there (search_path agentctl), rows as text
#   as_host HOST VERB ARGS...   bench/pg_agent writing as HOST
#   row_has TEXT1 TEXT2         up to 10 s for a screen line with both
name=${1:?usage: . lib/pg_fleet.sh NAME}
agent=$(dirname "$agentctl")/pg_agent
[ -x "$agent" ] || { echo "$name: $agent is not built"; exit 1; }
psql -Atqc 'select 1' >/dev/null 2>&1 || { echo "$name: no PostgreSQL server"; exit 1; }
DB=agentctl_e2e_${name}_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
at_exit() { psql -Atqc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1; }
URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
sql() { PGOPTIONS="-c search_path=agentctl" psql -d "$DB" -Atq -v ON_ERROR_STOP=1 -c "$1"; }
as_host() { "$agent" "$URL" "$@"; }
row_has() {
  for _ in $(seq 100); do screen | grep -F -- "$1" | grep -qF -- "$2" && return 0; sleep 0.1; done
  screen; return 1
}
