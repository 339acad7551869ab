#!/usr/bin/env bash
# dashboard_raw_ckpt_op_ids.sh's checkpoint half on a PostgreSQL store
# (issue 23 item 6): checkpoints "c<ESC>" and "c^[" of one session look the
# same; R and Enter on the "c<ESC>" row act on it, not on its look-alike
# (on 7d9f97d R planned "c^[": keep 1, remove 5). Needs a server from the
# PG* variables: ctest runs it through tests/pg/with-postgres.sh.
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/pg_fleet.sh" rawckpt
export XDG_CONFIG_HOME=$ws.state/xdg AGENT_STORAGE_URL=$URL
a=$agentctl
add() { for i in "$@"; do "$a" -w "$ws" session append s1 "{\"role\":\"user\",\"content\":\"m$i\"}" >/dev/null; done; }
msgs() { "$a" -w "$ws" session show s1 --json | jq '.conversationHistory | length'; }
"$a" -w "$ws" session create t --id s1 --tenant t1 --user u1 --agent claude >/dev/null
add 1
"$a" -w "$ws" checkpoint create s1 --id 'c^[' >/dev/null      # version 1: 1 message
add 2 3 4
# version 2: 4 messages. agentctl makes no new id with a control byte
# (checkpoint create --id refuses it); a row another program wrote may.
"$a" -w "$ws" checkpoint create s1 --id c-esc >/dev/null
sql "UPDATE checkpoints SET checkpoint_id = E'c\\x1b', document = jsonb_set(document::jsonb, '{checkpointId}', to_jsonb(E'c\\x1b'::text))::json WHERE session_id = 's1' AND checkpoint_id = 'c-esc'"
add 5 6
check "two checkpoints that look the same" \
  [ "$("$a" -w "$ws" checkpoint list s1 | grep -c ' c^\[ ')" -eq 2 ]
prefix="env AGENT_STORAGE_URL=$URL"
dashboard 120 30
wait_for "s1" >/dev/null
keys 1 g 3 g j
check "the second row (c<ESC>, version 2) is selected" wait_for "of s1  2/2"
keys Enter
check "Enter previews the selected checkpoint (version 2, 4 messages)" wait_for "m4"
keys Escape
keys R
check "R plans the selected checkpoint, not its look-alike" wait_for "(version 2)?"
check "keeping its 4 messages" wait_for "messages: keep 4, remove 2"
keys y
check "y rolls back to it" wait_for "rolled back session s1 to checkpoint"
check "the session has the checkpoint's 4 messages" [ "$(msgs)" = 4 ]
send q
check "q quits" wait_gone
finish
