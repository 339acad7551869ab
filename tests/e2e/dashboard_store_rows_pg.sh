#!/usr/bin/env bash
# The dashboard on a PostgreSQL store reads what a change names, not the
# whole listing (issue 28): with AGENTCTL_DEBUG_STATS the dashboard notes
# each reading of the sessions ("full" for the listing, "row ID" for one
# session's row). Another process appends to a session, changes three
# sessions in one transaction, deletes one, then adds, removes and changes
# one each in one transaction: each shows on screen from
# row readings alone, the listing read only at start. Then what the
# dashboard cannot have heard is still seen: a change made while the
# server had dropped its listening connection (read whole once it is
# back), and, on a dashboard that reads everything every second
# (AGENTCTL_STORE_RESCAN_MS), a change whose writer notified nobody.
# Run by ctest through tests/pg/with-postgres.sh.
# Usage: dashboard_store_rows_pg.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/pg_fleet.sh" rows
stats=$ws.stats
fulls() { grep -c ' full ' "$stats" 2>/dev/null || echo 0; }
read_row() { # id: up to 5 s for a row reading of id
  for _ in $(seq 50); do grep -q " row $1\$" "$stats" 2>/dev/null && return 0; sleep 0.1; done
  cat "$stats" 2>/dev/null | tail -5; return 1
}
long_wait() { # text: up to 10 s (a reconnection waits a second first)
  for _ in $(seq 100); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
  screen; return 1
}
row_gone() { # text1 text2: up to 5 s for no screen line to hold both
  for _ in $(seq 50); do screen | grep -F -- "$1" | grep -qF -- "$2" || return 0; sleep 0.1; done
  screen; return 1
}
# One session row changed in SQL; notify: also send what agentctl sends.
touch_status() { # id status [notify]
  local notify=
  [ "${3:-}" = notify ] && notify="; SELECT pg_notify('agentctl', json_build_object('kind', 'status', 'tenant', 'acme', 'session', '$1')::text)"
  sql "BEGIN; UPDATE sessions SET status = '$2', updated_at = now() WHERE id = '$1'$notify; COMMIT" >/dev/null
}

as_host host-a create acme alice claude s-first >/dev/null
# A fleet: 300 more sessions, a day old.
sql "INSERT INTO sessions (tenant, id, user_id, agent, status, created_at, updated_at, written_by_host, task)
     SELECT 'acme', 'fleet-' || g, 'u', 'a', 'completed', now() - interval '1 day' - g * interval '1 s',
            now() - interval '1 day' - g * interval '1 s', 'host-z', 'old task ' || g
     FROM generate_series(1, 300) g" >/dev/null
prefix="env AGENT_STORAGE_URL=$URL AGENTCTL_DEBUG_STATS=$stats AGENTCTL_STORE_RESCAN_MS=600000"
dashboard 160 40

check "the stored session is listed" row_has s-first host-a
# Read whole at start, and again once listening (what came before the
# LISTEN was not heard); from then on only what changes is read.
listening() { for _ in $(seq 50); do [ "$(fulls)" -ge 2 ] && return 0; sleep 0.1; done; return 1; }
check "the listing was read whole at start, all 301 rows" eval 'listening && grep -q " full 301$" "$stats"'
f0=$(fulls)

# ---- one session: its row alone ----
as_host host-b append acme fleet-7 '[{"role":"user","content":"hello"},{"role":"assistant","content":"hi"}]'
check "an append to an old session is read as its row" read_row fleet-7
check "its messages show" row_has fleet-7 " 2 "
check "newest now: on the first line of the list" eval 'screen | grep -E "fleet-|s-first" | head -1 | grep -q "fleet-7 "'
check "no reading of the listing for it" [ "$(fulls)" = "$f0" ]

# ---- three sessions in one transaction: three rows ----
sql "BEGIN;
     UPDATE sessions SET status = 'paused', updated_at = now() WHERE id IN ('fleet-11', 'fleet-12', 'fleet-13');
     SELECT pg_notify('agentctl', json_build_object('kind', 'status', 'tenant', 'acme', 'session', s)::text)
       FROM unnest(ARRAY['fleet-11', 'fleet-12', 'fleet-13']) s;
     COMMIT" >/dev/null
check "three changed together: three row readings" eval 'read_row fleet-11 && read_row fleet-12 && read_row fleet-13'
check "each shows its new status" eval 'row_has fleet-11 paused && row_has fleet-12 paused && row_has fleet-13 paused'
check "still no reading of the listing" [ "$(fulls)" = "$f0" ]

# ---- a session deleted: its row goes ----
sql "BEGIN; DELETE FROM sessions WHERE id = 's-first';
     SELECT pg_notify('agentctl', json_build_object('kind', 'session', 'tenant', 'acme', 'session', 's-first')::text);
     COMMIT" >/dev/null
check "a deleted session is read as its row" read_row s-first
check "and leaves the list" row_gone s-first host-a
check "no reading of the listing for that either" [ "$(fulls)" = "$f0" ]

# ---- one came, one went, one changed, in one transaction ----
sql "BEGIN;
     DELETE FROM sessions WHERE id = 'fleet-41';
     INSERT INTO sessions (tenant, id, user_id, agent, status, created_at, updated_at, written_by_host, task)
       VALUES ('acme', 's-new', 'u', 'a', 'running', now(), now(), 'host-n', 'a new one');
     UPDATE sessions SET status = 'failed', updated_at = now() WHERE id = 'fleet-42';
     SELECT pg_notify('agentctl', json_build_object('kind', 'session', 'tenant', 'acme', 'session', s)::text)
       FROM unnest(ARRAY['fleet-41', 's-new', 'fleet-42']) s;
     COMMIT" >/dev/null
check "together: three row readings" eval 'read_row fleet-41 && read_row s-new && read_row fleet-42'
check "the new one is listed" row_has s-new host-n
check "the removed one is not" row_gone "fleet-41 " host-z
check "the changed one says so" row_has "fleet-42 " failed
check "and the listing was not read for them" [ "$(fulls)" = "$f0" ]

# ---- a change the dashboard could not hear ----
sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN agentctl'" >/dev/null
touch_status fleet-21 failed notify
check "what changed while the listener was dropped shows once it is back" long_wait "fleet-21"
check "its row says so" row_has fleet-21 failed
check "read whole again after the reconnection" eval '[ "$(fulls)" -gt "$f0" ]'

keys q
check "q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'

# ---- a writer that notifies nobody ----
prefix="env AGENT_STORAGE_URL=$URL AGENTCTL_DEBUG_STATS=$stats AGENTCTL_STORE_RESCAN_MS=1000"
dashboard 160 40
check "the second dashboard lists the fleet" wait_for "fleet-21"
touch_status fleet-31 running
check "a change without a notification still shows (the slow reading of everything)" row_has fleet-31 running
keys q
check "q quits with status 0 again" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
finish
