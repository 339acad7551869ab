#!/usr/bin/env bash
# End-to-end checks of the PostgreSQL store from the command line: memo
# write/read/append/list, artifact list/show, trace show, checkpoint
# create/list/rollback/auto (parallel creates too) and session fork on a
# session the database holds (its file never read or changed), journal log/read/query/check
# (the same bytes as from the file; parallel appends) through
# storage.url (the --storage option, AGENT_STORAGE_URL and the config key),
# `storage check` before and after the schema exists, concurrent appends
# from many processes, a password never printed (config show, errors), and
# one-line errors. Needs a server from the PG* variables: ctest runs it
# through tests/pg/with-postgres.sh.
# Usage: store_pg.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "store_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
WS=$TMP/ws
mkdir -p "$WS/.agent"
# A database of its own, so the default schema name is free.
DB=agentctl_e2e_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; psql -Atqc "DROP DATABASE IF EXISTS ${DB}_journal" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
SHOWN="postgresql://${PGUSER}@${PGHOST}:${PGPORT}/$DB"
sql() { psql -d "$DB" -Atq -v ON_ERROR_STOP=1 -c "$1"; }
out_is() { [ "$(cat "$TMP/out")" = "$1" ]; }
out_has() { grep -qF -- "$1" "$TMP/out"; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
no_password() { ! grep -qF -- "$PGPASSWORD" "$TMP/out" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }

# ---- storage check on an empty database ----
run --storage "$URL" storage check
check "check before any schema: exit 1" rc_is 1
check "check names the store without its password" out_has "store: postgresql $SHOWN"
check "check says what is missing" grep -qE -- "schema: version 0; [0-9]+ migrations? missing" "$TMP/out"
check "check hides the password" no_password
check "check created nothing" [ "$(sql "select count(*) from pg_namespace where nspname = 'agentctl'")" = 0 ]

# ---- memo through --storage ----
run --storage "$URL" memo write acme u1 user USER.md $'# User\nlikes tea\n'
check "memo write exits 0" rc_is 0
check "memo write landed in the database" \
	[ "$(sql "select convert_from(data, 'UTF8') from agentctl.memos where name = 'USER.md'")" = $'# User\nlikes tea' ]
check "nothing written to the workspace's files" [ ! -e "$WS/.agent/memo" ]
run --storage "$URL" memo read acme u1 user USER.md
check "memo read exits 0" rc_is 0
check "memo read gives the document back" out_is $'# User\nlikes tea'
run --storage "$URL" memo append acme u1 user USER.md $'- and cake\n'
run --storage "$URL" memo read acme u1 user USER.md
check "memo append added to it" out_is $'# User\nlikes tea\n- and cake'
run --storage "$URL" memo write acme u1 user NOTES.md x
run --storage "$URL" memo list acme u1 user
check "memo list: sorted names" out_is $'NOTES.md\nUSER.md'
run --storage "$URL" memo read acme u1 user NOPE.md
check "missing memo: exit 1" rc_is 1
check "missing memo: one line" err_is_one_line

# ---- storage check once the store was opened ----
run --storage "$URL" storage check
check "check when up to date: exit 0" rc_is 0
check "check says the version" grep -qE -- "schema: version [0-9]+ \(up to date\)" "$TMP/out"

# ---- the environment and the config key choose it too ----
AGENT_STORAGE_URL=$URL "$AC" -w "$WS" memo read acme u1 user NOTES.md >"$TMP/out" 2>"$TMP/err"
check "AGENT_STORAGE_URL picks the database" out_is x
mkdir -p "$XDG_CONFIG_HOME/agent"
printf '{"storage": {"url": "%s"}}\n' "$URL" >"$XDG_CONFIG_HOME/agent/config.json"
run memo read acme u1 user NOTES.md
check "storage.url in the user config picks the database" out_is x
run config show
check "config show lists storage.url" out_has "storage.url = \"$SHOWN\""
check "config show hides the password" no_password
run config show --json
check "config show --json hides the password" no_password
rm -f "$XDG_CONFIG_HOME/agent/config.json"

# ---- concurrent appends from 8 processes all land once ----
for p in 1 2 3 4 5 6 7 8; do
	(for i in 1 2 3 4 5; do
		"$AC" -w "$WS" --storage "$URL" memo append acme u1 user LOG.md "p$p-$i
" >/dev/null 2>&1
	done) &
done
wait
run --storage "$URL" memo read acme u1 user LOG.md
check "40 appends from 8 processes: 40 lines" [ "$(wc -l <"$TMP/out")" -eq 40 ]
check "each line once" [ "$(sort -u "$TMP/out" | wc -l)" -eq 40 ]

# ---- artifacts and traces of a session kept in the database ----
sql "insert into agentctl.sessions (tenant, id, user_id, status, created_at, updated_at)
     values ('acme', 's1', 'u1', 'running', now(), now())"
sql "insert into agentctl.artifacts (tenant, session_id, tool_call_id, data)
     values ('acme', 's1', 'toolu_1', convert_to(E'full output\n\x1b[2J', 'UTF8')),
            ('acme', 's1', 'call_0', 'x'::bytea)"
sql "insert into agentctl.logs values ('acme', 'trace', 's1', 2)"
sql "insert into agentctl.log_records (tenant, kind, log, seq, data) values
     ('acme', 'trace', 's1', 1, '{\"type\":\"step\",\"n\":1}'),
     ('acme', 'trace', 's1', 2, '{\"type\":\"done\"}')"
run --storage "$URL" artifact list s1
check "artifact list exits 0" rc_is 0
check "artifact list: sorted ids" out_is $'call_0\ntoolu_1'
run --storage "$URL" artifact show s1 toolu_1
check "artifact show: the bytes, escapes made visible" eval '[ "$(head -1 "$TMP/out")" = "full output" ] && ! grep -q $'"'"'\x1b'"'"' "$TMP/out"'
run --storage "$URL" trace show s1 --json
check "trace show --json exits 0" rc_is 0
check "trace show: two records in order" [ "$(jq -r '[.[].seq] | join(",")' <"$TMP/out")" = "1,2" ]
run --storage "$URL" trace show s1
check "trace show: kinds listed" eval 'out_has step && out_has done'
run --storage "$URL" artifact list nosuch
check "unknown session: exit 1" rc_is 1
check "unknown session: one line" err_is_one_line

# ---- checkpoints, and the session they save, in the database ----
# c1 is copied into the database (storage migrate); its file stays as it
# was, and must stay so: with a store set, every command reads and
# changes the database's session (it gains a third message there only).
CWS=$TMP/cws
mkdir -p "$CWS/.agent/sessions"
printf '{"id":"c1","createdAt":"2025-01-01T00:00:00.000Z","updatedAt":"2025-01-01T00:00:00.000Z","task":"t","status":"running","conversationHistory":[{"role":"user","content":"hi"},{"role":"assistant","content":"ok"}],"metadata":{"tenantId":"acme","agentId":"claude"}}\n' >"$CWS/.agent/sessions/c1.json"
"$AC" -w "$CWS" storage migrate --to "$URL" >/dev/null 2>"$TMP/err" || { cat "$TMP/err"; exit 1; }
files_before=$(cd "$CWS/.agent/sessions" && find . -type f | sort | xargs sha256sum)
add_message() { # SEQ TEXT: an agent's append to c1 in the database
	sql "insert into agentctl.messages values ('acme', 'c1', $1, '{\"role\":\"user\",\"content\":\"$2\"}');
	     update agentctl.sessions set last_seq = $1, message_count = $1 where id = 'c1'"
}
add_message 3 more
ckpt() { "$AC" -w "$CWS" --storage "$URL" checkpoint "$@" >"$TMP/out" 2>"$TMP/err" </dev/null; RC=$?; }
ckpt create c1
check "checkpoint create: exit 0" rc_is 0
FIRST=$(cat "$TMP/out")
check "checkpoint create saves the database's history (3 messages, not the file's 2)" \
	[ "$(sql "select messages || ' ' || (document->'messageHistory'->2->>'content') from agentctl.checkpoints where checkpoint_id = '$FIRST'")" = "3 more" ]
ckpt create c1 --node plan --input '{"q":1}' --input-type json
SECOND=$(cat "$TMP/out")
check "checkpoint rows in the database, versions 1 and 2" \
	[ "$(sql "select string_agg(version || ':' || node_id, ',' order by version) from agentctl.checkpoints where session_id = 'c1'")" = "1:manual,2:plan" ]
check "create --input/--input-type kept" \
	[ "$(sql "select (document->'lastInput'->>'q') || (document->>'lastInputType') from agentctl.checkpoints where checkpoint_id = '$SECOND'")" = "1json" ]
check "no checkpoint file written" [ ! -e "$CWS/.agent/checkpoints" ]
check "the document is kept as json with its header columns" \
	[ "$(sql "select document->>'parentId' from agentctl.checkpoints where checkpoint_id = '$SECOND'")" = "$FIRST" ]
ckpt list c1
check "checkpoint list: exit 0" rc_is 0
check "checkpoint list: version 2 second" eval '[ "$(sed -n 3p "$TMP/out" | awk "{print \$1, \$2, \$3}")" = "2 $SECOND plan" ]'
ckpt list c1 --json
check "checkpoint list --json: two, messages counted" \
	eval '[ "$(jq -c "[.[].messages]" <"$TMP/out")" = "[3,3]" ]'
ckpt create nosuch
check "checkpoint create of an unknown session: exit 1, one line" eval '[ $RC = 1 ] && err_is_one_line'
add_message 4 'fourth \u001b[31m'
ckpt rollback c1 --latest
check "rollback without --yes, not a terminal: exit 2, the plan shown, nothing changed" \
	eval '[ $RC = 2 ] && out_has "messages that will be removed: 1 (of 4; 3 kept)" && [ "$(sql "select count(*) from agentctl.messages where session_id = '"'c1'"'")" = 4 ]'
ckpt rollback c1 --latest --yes
check "checkpoint rollback --latest from the database: exit 0" rc_is 0
check "rollback output as on files" \
	out_has "rolled back session c1 to checkpoint $SECOND: 1 messages removed, 0 compensations ran"
check "rollback cut the database's history to the checkpoint's" \
	[ "$(sql "select count(*) || ' ' || max(seq) from agentctl.messages where session_id = 'c1'")" = "3 3" ]
check "the session row's count follows" \
	[ "$(sql "select message_count from agentctl.sessions where id = 'c1'")" = 3 ]
check "the removed message is archived in compactions" \
	[ "$(sql "select count(*) from agentctl.compactions where session_id = 'c1'")" = 1 ]
check "metadata.rollbacks records it in the stored document" \
	[ "$(sql "select (document->'metadata'->'rollbacks'->0->>'checkpointId') || ' ' || (document->'metadata'->'rollbacks'->0->>'removedMessages') from agentctl.session_documents where session_id = 'c1'")" = "$SECOND 1" ]
ckpt rollback c1 --latest --yes
check "rollback again: nothing to roll back" eval 'rc_is 0 && out_has "is already at checkpoint $SECOND"'
ckpt auto c1 on
check "checkpoint auto on: exit 0" rc_is 0
check "auto on: metadata.persistence.automatic in the stored document" \
	[ "$(sql "select document->'metadata'->'persistence'->>'automatic' from agentctl.session_documents where session_id = 'c1'")" = true ]
check "auto on kept metadata.rollbacks" \
	[ "$(sql "select json_array_length(document->'metadata'->'rollbacks') from agentctl.session_documents where session_id = 'c1'")" = 1 ]
ckpt auto c1 off
check "checkpoint auto off: false in the database" \
	[ "$(sql "select document->'metadata'->'persistence'->>'automatic' from agentctl.session_documents where session_id = 'c1'")" = false ]
ckpt auto nosuch on
check "auto of an unknown session: exit 1, one line" eval '[ $RC = 1 ] && err_is_one_line'
ckpt create c1 --node tombstone
ckpt list c1
check "list marks the tombstone" grep -qE -- "tombstone.*\(tombstone\)" "$TMP/out"
ckpt rollback c1 --latest --yes
check "rollback --latest with a tombstone newest: exit 1, one line" \
	eval '[ $RC = 1 ] && err_is_one_line && grep -q "is a tombstone" "$TMP/err"'
ckpt rollback c1 "$SECOND" --yes
check "rollback to the one before it by id" grep -qF -- "at checkpoint $SECOND" "$TMP/out"
check "the tombstone row is marked" \
	[ "$(sql "select count(*) from agentctl.checkpoints where session_id = 'c1' and tombstone")" = 1 ]
ckpt rollback c1 nope --yes
check "unknown checkpoint: exit 1, one line" eval '[ $RC = 1 ] && err_is_one_line'
# A tool call after the checkpoint: its rollbackTools compensation runs
# (trusted project config) and is journaled, as on files.
printf '{"rollbackTools":{"createUser":["/bin/sh","-c","cat >> %s/LOG; echo >> %s/LOG"]}}\n' "$CWS" "$CWS" >"$CWS/.agent/config.json"
"$AC" -w "$CWS" config trust >/dev/null
sql "insert into agentctl.messages values ('acme', 'c1', 9, '{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"createUser\",\"input\":{\"name\":\"Daniel\"}}]}');
     update agentctl.sessions set last_seq = 9, message_count = 4 where id = 'c1'"
ckpt rollback c1 "$SECOND" --yes
check "rollback with a tool call: exit 0, one compensation ran" \
	eval 'rc_is 0 && out_has "compensations that will run, newest first: 1" && out_has "1 messages removed, 1 compensations ran"'
check "the compensation got the call's input on stdin" [ "$(cat "$CWS/LOG")" = '{"name":"Daniel"}' ]
check "the compensation is journaled in the database" \
	[ "$(sql "select count(*) from agentctl.journal_events where action_type = 'CMD_RUN' and status = 'SUCCESS' and correlation_id = 'c1'")" = 1 ]
check "the history is the checkpoint's again" \
	[ "$(sql "select count(*) from agentctl.messages where session_id = 'c1'")" = 3 ]
# Many processes as many hosts creating at once: each version once.
for k in 1 2 3 4 5 6; do
	"$AC" -w "$CWS" --storage "$URL" checkpoint create c1 --node "p$k" >/dev/null 2>"$TMP/par-$k" &
done
wait
check "parallel creates: none failed" [ -z "$(cat "$TMP"/par-*)" ]
check "parallel creates: versions unique and gap-free" \
	[ "$(sql "select count(distinct version) = count(*) and max(version) = count(*) and count(*) = 9 from agentctl.checkpoints where session_id = 'c1'")" = t ]

# ---- session fork in the database: one transaction, the parent's tenant ----
fork() { "$AC" -w "$CWS" --storage "$URL" session fork "$@" >"$TMP/out" 2>"$TMP/err" </dev/null; RC=$?; }
fork c1 --id f1 --at 2
check "session fork --at on the database: exit 0, the new id" eval 'rc_is 0 && out_is f1'
check "fork: a row in the parent's tenant, paused, two messages" \
	[ "$(sql "select tenant || ' ' || status || ' ' || message_count from agentctl.sessions where id = 'f1'")" = "acme paused 2" ]
check "fork: the messages are the parent's first two" \
	[ "$(sql "select string_agg(message->>'content', ',' order by seq) from agentctl.messages where session_id = 'f1'")" = "hi,ok" ]
check "fork: metadata.parent and the task in the stored document" \
	[ "$(sql "select (document->'metadata'->'parent'->>'sessionId') || (document->'metadata'->'parent'->>'atMessage') || (document->>'task') from agentctl.session_documents where session_id = 'f1'")" = "c12t" ]
fork c1 --id f2 --checkpoint "$FIRST" --json
check "fork --checkpoint: the checkpoint's three messages" \
	eval 'rc_is 0 && [ "$(sql "select message_count from agentctl.sessions where id = '"'f2'"'")" = 3 ] && [ "$(jq -r .metadata.parent.checkpointId <"$TMP/out")" = "$FIRST" ]'
fork c1 --id f1
check "fork onto an existing id: exit 1, one line, nothing changed" \
	eval '[ $RC = 1 ] && err_is_one_line && err_has "exists already" && [ "$(sql "select message_count from agentctl.sessions where id = '"'f1'"'")" = 2 ]'
fork nosuch
check "fork of an unknown session: exit 1, one line" eval '[ $RC = 1 ] && err_is_one_line'
check "fork is journaled in the database" \
	[ "$(sql "select count(*) from agentctl.journal_events where action_type = 'SESSION_START' and correlation_id = 'f2'")" = 1 ]
check "no session file created or changed in the workspace" \
	[ "$(cd "$CWS/.agent/sessions" && find . -type f | sort | xargs sha256sum)" = "$files_before" ]

# The operator's events go to the store's journal: the rollbacks above
# are there. The comparison below starts from an empty journal.
check "checkpoint rollback is journaled in the database" \
	[ "$(sql "select count(*) > 0 from agentctl.journal_events where action_type = 'ROLLBACK'")" = t ]
sql "delete from agentctl.journal_events; update agentctl.logs set last_seq = 0 where kind = 'journal'" >/dev/null

# ---- the journal in the database: the same answers as the file ----
# The comparison with a fresh file journal below uses a database of its own.
JDB=${DB}_journal
psql -Atqc "CREATE DATABASE $JDB" >/dev/null
JURL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$JDB"
jsql() { psql -d "$JDB" -Atq -v ON_ERROR_STOP=1 -c "$1"; }
JWS=$TMP/jws
mkdir -p "$JWS/.agent"
jev() { printf '{"id":"evt_2025010%d000000_0000000%d","timestamp":"2025-01-0%dT00:00:00.000Z","agent":"%s","status":"%s","action":{"type":"FILE_EDIT","params":{}},"result":{"message":"m%d"},"trace":{"correlation_id":"c%d"}}' "$1" "$1" "$1" "$2" "$3" "$1" "$(($1 % 2))"; }
for i in 1 2 3 4 5; do
	agent=Claude; [ $((i % 2)) = 0 ] && agent=Codex
	for store in file pg; do
		if [ $store = pg ]; then "$AC" -w "$JWS" --storage "$JURL" journal log "$(jev $i $agent SUCCESS)" >/dev/null
		else "$AC" -w "$JWS" journal log "$(jev $i $agent SUCCESS)" >/dev/null; fi
	done
done
check "journal log wrote five rows, seq 1..5" \
	[ "$(jsql "select string_agg(seq::text, ',' order by seq) from agentctl.journal_events")" = "1,2,3,4,5" ]
check "the event text is kept exactly" \
	[ "$(jsql "select event::text from agentctl.journal_events where seq = 1")" = "$(head -1 "$JWS/JOURNAL.jsonl")" ]
check "indexed columns filled" \
	[ "$(jsql "select agent || ' ' || status || ' ' || action_type || ' ' || correlation_id from agentctl.journal_events where seq = 2")" = "Codex SUCCESS FILE_EDIT c0" ]
same() { # ARGS...: journal ARGS gives the same bytes and exit from the file and the database
	"$AC" -w "$JWS" journal "$@" >"$TMP/file.out" 2>/dev/null; local f=$?
	"$AC" -w "$JWS" --storage "$JURL" journal "$@" >"$TMP/pg.out" 2>"$TMP/err"; local p=$?
	[ $f = $p ] && cmp -s "$TMP/file.out" "$TMP/pg.out"
}
check "journal read: same as the file" same read
check "journal read --json: same as the file" same read --json
check "journal read --last 2: same as the file" same read --last 2
check "journal query agent=Codex: same as the file" same query agent=Codex
check "journal query agent=Claude --last 1: same" same query agent=Claude --last 1
check "journal query trace.correlation_id=c1 text~m3: same" same query trace.correlation_id=c1 text~m3
check "journal query since/until: same" same query since=2025-01-02 until=2025-01-04
check "journal query with no match: same" same query agent=Nobody --json
"$AC" -w "$JWS" --storage "$JURL" journal check >"$TMP/out" 2>"$TMP/err"; RC=$?
check "journal check: exit 0, counts" eval '[ $RC = 0 ] && out_has "5 valid, 0 invalid lines"'
check "journal check: names the store without its password" eval 'out_has "${SHOWN}_journal" && no_password'
"$AC" -w "$JWS" --storage "$JURL" journal log '{"agent":"Bob"}' >"$TMP/out" 2>"$TMP/err"; RC=$?
check "bad event: exit 2, one line, nothing stored" \
	eval '[ $RC = 2 ] && err_is_one_line && [ "$(jsql "select count(*) from agentctl.journal_events")" = 5 ]'
"$AC" -w "$JWS" --storage "$JURL" journal rotate >"$TMP/out" 2>"$TMP/err"; RC=$?
check "journal rotate: refused in one line" eval '[ $RC != 0 ] && err_is_one_line'
# Many processes as many hosts appending at once: nothing lost, seq gap-free.
for k in 1 2 3 4 5 6 7 8; do
	( for i in 1 2 3 4 5; do
		"$AC" -w "$JWS" --storage "$JURL" journal log '{"agent":"Claude","status":"SUCCESS","action":{"type":"CMD_RUN","params":{}},"result":{"message":"p"}}' >/dev/null || echo lost
	done ) >"$TMP/writer-$k" &
done
wait
check "parallel journal log: none failed" [ -z "$(cat "$TMP"/writer-*)" ]
check "parallel journal log: 45 rows, seq 1..45 without gaps" \
	[ "$(jsql "select count(*) = 45 and min(seq) = 1 and max(seq) = 45 from agentctl.journal_events")" = t ]

# ---- an unreachable store: one line, exit 1, no password ----
run --storage "postgresql://agent:hunter2-secret@127.0.0.1:1/x?connect_timeout=2" memo list acme u1 user
check "unreachable: exit 1" rc_is 1
check "unreachable: one line" err_is_one_line
check "unreachable: names the store" err_has "postgresql://agent@127.0.0.1:1/x"
check "unreachable: no password" eval '! grep -q hunter2 "$TMP/err"'
run --storage "postgresql://agent:hunter2-secret@127.0.0.1:1/x?connect_timeout=2" storage check
check "storage check unreachable: exit 1" rc_is 1
check "storage check unreachable: one line, no password" eval 'err_is_one_line && ! grep -q hunter2 "$TMP/err"'

finish
