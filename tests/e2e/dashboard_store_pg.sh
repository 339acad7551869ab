#!/usr/bin/env bash
# The real dashboard in tmux on a PostgreSQL store (storage.url): a second
# process with another host name (pg_agent, a second machine's agent)
# creates a session, appends messages and changes its status, and each
# shows up on screen by LISTEN/NOTIFY, with the host in its column; h
# filters by host; p and r are a compare-and-set in the database, and one
# that another host's change overtook is refused with a message, nothing
# written; c compacts through the store (the archive in the database); a connection the server drops is made again. Needs a server
# from the PG* variables: ctest runs it through tests/pg/with-postgres.sh.
# Usage: dashboard_store_pg.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/pg_fleet.sh" dash
status_is() { # id status: up to 5 s for the database to say so
  for _ in $(seq 50); do
    [ "$(sql "select status from agentctl.sessions where id = '$1'")" = "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

as_host host-a create acme alice claude s-first >/dev/null
prefix="env AGENT_STORAGE_URL=$URL"
dashboard 120 30

check "the stored session is listed" wait_for "s-first"
check "with its host" row_has s-first host-a
check "a HOST column" wait_for "HOST"
check "the log says which panes still read files" eval 'keys L; wait_for "still reads the workspace"'
keys Escape

# ---- another host's changes appear live ----
as_host host-b create acme bob codex s-second
check "a session created on host-b appears" wait_for "s-second"
check "named with host-b" row_has s-second host-b
as_host host-b append acme s-second '[{"role":"user","content":"hello from b"},{"role":"assistant","content":"hi"}]'
check "its messages are counted" row_has s-second " 2 "
as_host host-b status acme s-second running paused
check "its status change appears" row_has s-second paused

# ---- the conversation follows the store too ----
keys g
keys Enter
check "its conversation opens from the store" wait_for "hello from b"
as_host host-b append acme s-second '[{"role":"assistant","content":"a later reply"}]'
check "an append shows in the open conversation" wait_for "a later reply"
keys Escape

# ---- h: filter by host ----
keys h
check "h: host-a only" eval 'wait_for "[host host-a]" >/dev/null && screen | grep -q s-first && absent s-second'
keys h
check "h again: host-b only" eval 'wait_for "[host host-b]" >/dev/null && screen | grep -q s-second && absent s-first'
keys h
check "h again: every host" eval 'wait_for s-first >/dev/null && wait_for s-second >/dev/null'
check "the hint line offers h" eval 'hints | grep -q "h host"'

# ---- p / r: a compare-and-set ----
# s-second (paused) is the newest row: select it, resume it by key.
keys g
keys r
check "resume asks, naming the compare-and-set" wait_for "only if it is still paused"
keys y
check "resumed in the database" status_is s-second running
check "the writer is this dashboard's host" [ "$(sql "select written_by_host from agentctl.sessions where id = 's-second'")" != host-b ]
check "the row says running" row_has s-second running
# The dialog is open when host-b changes the status first: refused.
keys p
check "pause asks" wait_for "only if it is still running"
as_host host-b status acme s-second running failed
keys y
check "the overtaken pause is refused with a message" wait_for "no longer running"
check "nothing written: failed stays" [ "$(sql "select status from agentctl.sessions where id = 's-second'")" = failed ]

# ---- c: compaction through the store ----
# s-second (three messages) is still the newest row.
compacted() { # up to 5 s for s-second's archive row
  for _ in $(seq 50); do
    [ "$(sql "select count(*) from agentctl.compactions where session_id = 's-second'")" = 1 ] && return 0
    sleep 0.1
  done
  return 1
}
keys g
keys c
check "c asks, saying the originals go to the database" wait_for "in the database (compactions)"
keys y
check "compacted in the database: the archive row" compacted
check "the status line says so" wait_for "compacted s-second"
# Seed 001 cuts Math.floor(3 * 0.5) = 1 message: the summary takes its
# place, so the row still counts 3 (the archive row holds the one).
check "the row counts the summary in place of the one message" row_has s-second " 3 "
check "no session file was read or written" [ ! -e "$ws/.agent/sessions/s-second.json" ]

# ---- a dropped connection comes back ----
sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN agentctl'" >/dev/null
sleep 0.3
as_host host-c create acme carol gemini s-third >/dev/null
check "after the server dropped the listener, changes show again" wait_for "s-third"

keys q
check "q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
finish
