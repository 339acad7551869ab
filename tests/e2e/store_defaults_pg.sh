#!/usr/bin/env bash
# store_defaults.sh on a PostgreSQL store (issue 25): session list --state
# and --all-projects were parsed, then ignored; session create needed
# --tenant every time; an empty database said ".agent/sessions/ is empty".
# Needs a server from the PG* variables: ctest runs it through
# tests/pg/with-postgres.sh.
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/pg_fleet.sh" defaults
STORE=pg
ac() { "$agentctl" -w "$ws" --storage "$URL" "$@"; }
shown_url="postgresql://${PGUSER}@${PGHOST}:${PGPORT}/$DB"
empty_text="no sessions yet (the store $shown_url holds none)"
prefix="env AGENT_STORAGE_URL=$URL"
pg_exit() { psql -Atqc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1; }
at_exit() { pg_exit; rm -rf "$ws.home" "$ws.xdg" "$ws.err"; }
. "$(dirname "$0")/lib/store_defaults.sh"
