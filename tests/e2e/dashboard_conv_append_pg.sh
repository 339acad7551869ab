#!/usr/bin/env bash
# The open conversation on a PostgreSQL store reads only what changed: an
# agent on another host appends, and the dashboard reads the messages
# after the last it holds (session.load_after), numbered on; a compaction
# or a checkpoint rollback done on the database rewrites the history and
# the dashboard reads it whole (the rewritten history, never old + new).
# That an append reads only the new rows is shown with a message changed
# behind the store's back (SQL, the history epoch left alone): an append
# does not bring it; moving the epoch on does. Run by ctest through
# tests/pg/with-postgres.sh. Usage: dashboard_conv_append_pg.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/pg_fleet.sh" convappend
msg() { printf '{"role":"%s","content":"%s"}' "$1" "$2"; }
aa() { AGENT_STORAGE_URL=$URL "$agentctl" -w "$ws" "$@"; }

as_host fleet-b create acme bob codex s-conv >/dev/null
as_host fleet-b append acme s-conv "[$(msg user 'first ask'),$(msg assistant 'first answer'),$(msg user 'second ask')]"
as_host fleet-b checkpoint acme s-conv ck-three
as_host fleet-b append acme s-conv "[$(msg assistant 'second answer'),$(msg user 'third ask'),$(msg assistant 'third answer')]"
prefix="env AGENT_STORAGE_URL=$URL"
dashboard 160 120

check "the session is listed" wait_for "s-conv"
keys /
send s-conv
keys Enter
keys Enter
check "its conversation opens from the store" wait_for "third answer"
check "numbered to #6" wait_for "assistant  #6"

# ---- appends: the new messages, numbered on ----
as_host fleet-b append acme s-conv "[$(msg user 'fourth ask, live')]"
check "an append shows" wait_for "fourth ask, live"
check "numbered #7" wait_for "user  #7"
as_host fleet-b append acme s-conv "[$(msg assistant 'fourth answer'),$(msg user 'fifth ask')]"
check "two appended at once show" wait_for "fifth ask"
check "numbered #9" wait_for "user  #9"
check "each message once" [ "$(screen | grep -c 'first answer')" = 1 ]

# ---- only the new rows are read ----
sql "UPDATE messages SET message = '{\"role\":\"assistant\",\"content\":\"changed behind its back\"}'
     WHERE session_id = 's-conv' AND seq = 2" >/dev/null
as_host fleet-b append acme s-conv "[$(msg assistant 'fifth answer')]"
check "after an append: the new message" wait_for "fifth answer"
check "the rows before it were not read again" absent "changed behind its back"
check "and still show as read" wait_for "first answer"
sql "UPDATE sessions SET history_epoch = history_epoch + 1 WHERE id = 's-conv'" >/dev/null
as_host fleet-b append acme s-conv "[$(msg user 'sixth ask')]"
check "a moved epoch: read whole" wait_for "changed behind its back"
check "with the append" wait_for "sixth ask"
check "the old text gone" absent "first answer"
# Put back (the checkpoint's history must match for the rollback).
sql "UPDATE messages SET message = '{\"role\":\"assistant\",\"content\":\"first answer\"}'
     WHERE session_id = 's-conv' AND seq = 2;
     UPDATE sessions SET history_epoch = history_epoch + 1 WHERE id = 's-conv'" >/dev/null
as_host fleet-b append acme s-conv "[$(msg assistant 'sixth answer')]"
check "read whole again" wait_for "first answer"

# ---- a rollback on the database: the rewritten history ----
check "checkpoint rollback through the store" aa checkpoint rollback s-conv ck-three --yes
check "the tail is gone from the screen" eval 'for _ in $(seq 50); do screen | grep -qF "sixth ask" || break; sleep 0.1; done; absent "sixth ask"'
check "the kept messages show" wait_for "second ask"
check "not old + new: ends at #3" eval 'screen | grep -q "user  #3" && ! screen | grep -q "#4"'
as_host fleet-b append acme s-conv "[$(msg assistant 'after the rollback')]"
check "an append after the rollback shows" wait_for "after the rollback"
check "numbered #4" wait_for "assistant  #4"

# ---- a compaction on the database: the rewritten history ----
as_host fleet-b append acme s-conv "[$(msg user 'ask five'),$(msg assistant 'answer five'),$(msg user 'ask six')]"
check "the appends show" wait_for "ask six"
check "session compact through the store" aa session compact s-conv --force
check "the summary shows" wait_for "[Conversation summary]"
check "the summarised messages' own lines are gone" eval '! screen | grep -qx "  first ask"'
rows=$(sql "select count(*) from messages where session_id = 's-conv'")
check "as many messages as the database holds ($rows)" wait_for "#$rows"
check "and no more" absent "#$((rows + 1))"
as_host fleet-b append acme s-conv "[$(msg assistant 'after the compaction')]"
check "an append after the compaction shows" wait_for "after the compaction"
check "numbered on" wait_for "assistant  #$((rows + 1))"

keys q
check "q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
finish
