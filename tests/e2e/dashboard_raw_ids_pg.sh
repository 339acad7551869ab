#!/usr/bin/env bash
# dashboard_raw_ids.sh on a PostgreSQL store (issue 23 item 6): a row
# whose id holds an escape byte (written into the database by another
# program: the store itself makes no such id) and a session whose id is
# that id's display text. p on the first never pauses the second: the
# store refuses the control byte, with a message, and nothing is written;
# a status change another writer makes reaches hooks.onStatusChange with
# the raw id. Needs a server from the PG* variables: ctest runs it through
# tests/pg/with-postgres.sh.
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/pg_fleet.sh" rawids
export XDG_CONFIG_HOME=$ws.state/xdg
out=$ws.state/hook.out
evil=$(printf 'evil\033[0mX')
shown='evil^[[0mX'
mkdir -p "$XDG_CONFIG_HOME/agent"
cat > "$XDG_CONFIG_HOME/agent/config.json" <<JSON
{"hooks": {"onStatusChange": ["sh", "-c", "printf '%s|%s|%s\\\\n' \"\$1\" \"\$AGENT_SESSION_ID\" \"\$2\" >> $out", "hook", "{id}", "{new}"]}}
JSON
as_host host-a create acme alice claude "$shown" >/dev/null
as_host host-a create acme alice claude s-renamed >/dev/null
# Another program's row: the escape byte in the id, and the newer one.
sql "INSERT INTO sessions (tenant, id, user_id, agent, status, created_at, updated_at)
       SELECT tenant, E'evil\\x1b[0mX', user_id, agent, status, created_at,
         now() + interval '1 hour' FROM sessions WHERE id = 's-renamed';
     UPDATE session_documents SET session_id = E'evil\\x1b[0mX' WHERE session_id = 's-renamed';
     DELETE FROM sessions WHERE id = 's-renamed'"
status_of() { sql "select status from sessions where id = E'$1'"; }
prefix="env AGENT_STORAGE_URL=$URL"
dashboard 120 30

check "the sessions are listed" wait_for "evil^[[0…"
check "both rows are listed, escaped" eval '[ "$(screen | grep -cF "evil^[[0…")" -ge 2 ]'
check "no escape byte reaches the screen" eval '! screen | grep -q "$(printf "\033")"'
keys g
keys p
check "p asks about the selected row" wait_for "Pause session $shown?"
keys y
check "the store refuses the escape-byte id, saying why" wait_for "holds a control byte"
sleep 1
check "the escape-byte session stayed running" [ "$(status_of 'evil\x1b[0mX')" = running ]
check "the look-alike session stayed running" [ "$(status_of "$shown")" = running ]
check "no hook ran" [ ! -s "$out" ]

# Another writer pauses the escape-byte session: the hook gets its bytes.
sql "UPDATE sessions SET status = 'paused' WHERE id = E'evil\\x1b[0mX'
     RETURNING pg_notify('agentctl', json_build_object('kind', 'status', 'tenant', tenant,
       'session', id)::text)" >/dev/null
wait_hook() { for _ in $(seq 100); do [ -s "$out" ] && return 0; sleep 0.1; done; return 1; }
check "the hook ran" wait_hook
check "the hook got the raw id in {id} and AGENT_SESSION_ID" \
  [ "$(head -n 1 "$out" 2>/dev/null)" = "$evil|$evil|paused" ]
check "the hook ran for that session only" [ "$(wc -l < "$out")" -eq 1 ]
send q
check "q quits" wait_gone
finish
