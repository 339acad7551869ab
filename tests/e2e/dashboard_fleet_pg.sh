#!/usr/bin/env bash
# The whole fleet on one screen (issue 15): the real dashboard in tmux on a
# PostgreSQL store while a second machine's agent (pg_agent, another
# process with another host name) creates a session, appends messages,
# logs journal events and creates checkpoints; each appears live through
# LISTEN/NOTIFY: the session row with its host, the conversation, the
# journal pane's line (invalid records marked, the / filter), the
# checkpoints pane's row. Then R + y rolls the session back to a
# checkpoint in the database, and after the server drops the listening
# connection everything later still shows. Run by ctest through
# tests/pg/with-postgres.sh. Usage: dashboard_fleet_pg.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/pg_fleet.sh" fleet
event() { # host message [session]: one journal event written from host
  as_host "$1" journal "{\"agent\":\"Codex\",\"status\":\"SUCCESS\",\"action\":{\"type\":\"FILE_EDIT\",\"params\":{\"path\":\"src/fix.c\"}},\"result\":{\"message\":\"$2\"},\"trace\":{\"correlation_id\":\"${3:-s-remote}\"}}" >/dev/null
}
long_wait() { # text: up to 10 s (a reconnection waits a second first)
  for _ in $(seq 100); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
  screen; return 1
}

as_host host-a create acme alice claude s-local >/dev/null
prefix="env AGENT_STORAGE_URL=$URL"
dashboard 160 40

check "the stored session is listed" wait_for "s-local"
check "the log says the journal and checkpoints come from the database" \
  eval 'keys L; wait_for "the journal and checkpoints from the database"'
keys Escape

# ---- a second host: session, messages, checkpoint, journal ----
as_host fleet-b create acme bob codex s-remote >/dev/null
check "a session created on fleet-b appears" wait_for "s-remote"
check "with its host" row_has s-remote fleet-b
as_host fleet-b append acme s-remote '[{"role":"user","content":"plan the fix"},{"role":"assistant","content":"step one done"}]'
check "its messages are counted" row_has s-remote " 2 "
as_host fleet-b checkpoint acme s-remote ck-remote-1
as_host fleet-b append acme s-remote '[{"role":"assistant","content":"step two: risky change"},{"role":"assistant","content":"step three"}]'
check "the later messages are counted" row_has s-remote " 4 "
event fleet-b "edited from fleet-b"

keys 4
check "journal: fleet-b's event appears" wait_for "edited from fleet-b"
event fleet-b "second edit from fleet-b"
check "journal: a later event appears live" wait_for "second edit from fleet-b"
# An event the validator no longer accepts (written before journal.agents
# changed): shown, marked, with the reason.
sql "WITH next AS (UPDATE logs SET last_seq = last_seq + 1 WHERE kind = 'journal' RETURNING last_seq)
     INSERT INTO journal_events (seq, id, ts, agent, status, action_type, host, event)
     SELECT last_seq, 'evt_20250101000000_0000abcd', '2025-01-01T00:00:00.000Z', 'Robot', 'SUCCESS', 'ANALYSIS', 'fleet-b',
       '{\"id\":\"evt_20250101000000_0000abcd\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"agent\":\"Robot\",\"status\":\"SUCCESS\",\"action\":{\"type\":\"ANALYSIS\",\"params\":{}},\"result\":{\"message\":\"robot was here\"}}'
     FROM next; SELECT pg_notify('agentctl', '{\"kind\":\"journal\",\"tenant\":\"\"}')" >/dev/null
check "journal: an invalid record is shown with its reason" wait_for "invalid: agent"
check "journal: and marked" eval "screen | grep -q '! Robot'"
keys /
send "second"
keys Enter
check "journal: / filters the database's events" wait_for "second edit from fleet-b"
check "journal: / hides the others" absent "edited from fleet-b"
keys Enter
check "journal: Enter opens the event from the database" wait_for '"path": "src/fix.c"'
check "journal: the whole event" wait_for '"message": "second edit from fleet-b"'
keys Escape
keys /
keys Escape
check "journal: Esc clears the filter" wait_for "edited from fleet-b"
keys S
send "text~second"
keys Enter
check "journal: S searches the database's journal" wait_for "1 match in the database"
check "journal: S finds the event" wait_for "second edit from fleet-b"
keys Enter
check "journal: Enter on a match opens it by id" wait_for '"message": "second edit from fleet-b"'
keys Escape
keys Escape

# ---- the conversation ----
keys 1
keys g
check "the newest row is fleet-b's session" eval "screen | grep -A1 HOST | tail -1 | grep -q s-remote"
keys Enter
check "its conversation opens from the store" wait_for "step three"
as_host fleet-b append acme s-remote '[{"role":"assistant","content":"step four, live"}]'
check "an append shows in the open conversation" wait_for "step four, live"
keys Escape

# ---- the checkpoints pane, live ----
keys g
keys 3
check "checkpoints: fleet-b's checkpoint is listed" wait_for "ck-remote-1"
as_host fleet-b checkpoint acme s-remote ck-remote-2
check "checkpoints: one created on fleet-b appears live" wait_for "ck-remote-2"

# ---- R + y: roll back to ck-remote-1 in the database ----
keys g
keys R
check "R opens the dialog naming the checkpoint" wait_for "back to checkpoint ck-remote-1"
check "the dialog says what goes" wait_for "keep 2, remove 3"
check "and where: the database" wait_for "archived in the database"
keys y
check "the rollback is reported" long_wait "rolled back session s-remote to checkpoint ck-remote-1"
check "the database keeps 2 messages" \
  [ "$(sql "select count(*) from messages where session_id = 's-remote'")" = 2 ]
keys 1
check "the row says so" row_has s-remote " 2 "
check "the removed messages are archived" \
  [ "$(sql "select json_array_length(messages) from compactions where session_id = 's-remote'")" = 3 ]
check "the rollback is journaled in the database" \
  [ "$(sql "select count(*) from journal_events where action_type = 'ROLLBACK'")" = 1 ]
check "metadata.rollbacks records it in the stored document (the CLI's core path)" \
  [ "$(sql "select (document->'metadata'->'rollbacks'->0->>'checkpointId') || ' ' || (document->'metadata'->'rollbacks'->0->>'removedMessages') from session_documents where session_id = 's-remote'")" = "ck-remote-1 3" ]
keys 4
check "and shown in the journal pane" wait_for "Rolled back session s-remote"

# ---- dropped connections: everything is read again once ----
# Every connection the dashboard has (the listener, the sessions', the
# journal's, the checkpoints'), as a server restart drops them.
sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid()" >/dev/null
sleep 0.3
event fleet-c "written while the listener was down"
as_host fleet-c create acme carol gemini s-third >/dev/null
check "after reconnecting: the journal event" long_wait "written while the listener was down"
keys 1
check "after reconnecting: the session" long_wait "s-third"
check "with its host" row_has s-third fleet-c
event fleet-c "after the reconnection"
keys 4
check "and later changes are followed again" long_wait "after the reconnection"
keys 1
keys g
keys 3
as_host fleet-c checkpoint acme s-third ck-after-drop
check "and checkpoints too" long_wait "ck-after-drop"
check "the server's goodbye (a libpq notice) never reaches the screen" absent "terminating connection"

keys q
check "q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
finish
