#!/usr/bin/env bash
# The Sessions pane's / filter finds text inside conversations on a
# PostgreSQL store as it does in session files (issue 25, one seam: the
# conversation search asks the workspace's store, and reads the sessions it
# keeps as rows through it, a few at a time): the matching message's number
# and snippet in the row, a session without it filtered out, the count,
# and a stored session another host appends to searched again, live.
# Needs a server from the PG* variables: ctest runs it through
# tests/pg/with-postgres.sh.
# Usage: dashboard_conv_search_pg.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/pg_fleet.sh" csearch

as_host host-a create acme alice claude s-alpha >/dev/null
as_host host-a append acme s-alpha \
  '[{"role":"user","content":"message one filler"},{"role":"assistant","content":"the ZANZIBAR treasure \u001b[31mmap"}]'
as_host host-a create acme bob codex s-beta >/dev/null
as_host host-a append acme s-beta '[{"role":"user","content":"nothing to see"}]'
prefix="env AGENT_STORAGE_URL=$URL"
dashboard 140 30

check "the stored sessions are listed" eval 'wait_for s-alpha >/dev/null && wait_for s-beta'
keys /
send z a n z i b a r
check "a stored conversation's match shows its message and snippet" \
  wait_for "#2 the ZANZIBAR treasure"
check "its escape sequence is made visible" wait_for "^[[31mmap"
check "a stored session without it is filtered out" absent "s-beta"
check "the count of sessions found is shown" wait_for "/zanzibar: found in the conversation of 1 session"
keys Enter
# Another host appends the text to s-beta: its row alone is searched again.
as_host host-b append acme s-beta '[{"role":"user","content":"now Zanzibar is here too"}]'
check "a stored conversation that changes is searched again" wait_for "#2 now Zanzibar is here too"
keys Escape
keys Escape
check "Esc back to the full list" eval 'wait_for s-alpha >/dev/null && wait_for s-beta'
send q
check "q quits" wait_gone
finish
