#!/usr/bin/env bash
# End-to-end checks of `agentctl storage migrate (--to URL | --from URL)`:
# a workspace with every kind (sessions with hostile text, a key agentctl
# does not know and recorded usage; memos; artifacts; traces; orchestration
# events and a snapshot; checkpoints with a tombstone; a journal with a
# rotated file, control bytes, unicode and a long line) is copied into a
# database and read back through the CLI on the database equal; a second
# run copies nothing; copied back into an empty workspace everything is
# JSON-equal and the journal byte-equal; a conflicting item is reported and
# left alone, the rest copied, exit 1; a run killed with SIGKILL midway
# completes on the next without duplicating anything; a bad URL changes
# nothing. Needs a server from the PG* variables: ctest runs it through
# tests/pg/with-postgres.sh.
# Usage: storage_migrate_pg.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "storage_migrate_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
unset AGENT_STORAGE_URL
DBS=""
newdb() { # newdb NAME: a fresh database; its URL in $URL
	psql -Atqc "CREATE DATABASE $1" >/dev/null
	DBS="$DBS $1"
	URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$1"
}
trap 'for d in $DBS; do psql -Atqc "DROP DATABASE IF EXISTS $d" >/dev/null 2>&1; done; rm -rf "$TMP"' EXIT
out_has() { grep -qF -- "$1" "$TMP/out"; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
ac() { "$AC" -w "$WS" "$@"; }

# ---- a workspace with every kind ----
WS=$TMP/ws
mkdir -p "$WS/.agent"
ESC=$(printf '\033]0;owned\007')
LONG=$(head -c 20000 /dev/zero | tr '\0' 'x')
ac session create "first task" --id s1 --tenant acme --user u1 --agent a1 >/dev/null
ac session create "second" --id s2 --tenant acme --user u2 --agent a1 >/dev/null
ac session create "other tenant" --id s3 --tenant beta --user u9 --agent a2 >/dev/null
jq -n --arg esc "bell$ESC é 日本 🚀" --arg long "$LONG" \
	'[{role:"user",content:$esc},{role:"assistant",content:[{type:"text",text:$long},
	  {type:"tool_use",id:"call_1",name:"bash",input:{cmd:"ls"}}]},
	  {role:"user",content:[{type:"tool_result",tool_use_id:"call_1",content:"ok\u0000nul"}]}]' |
	ac session append s1 - >/dev/null
printf '[{"role":"user","content":"hi"}]' | ac session record-turn s2 --input 120 --output 45 --messages - >/dev/null
# A key agentctl does not know, as another writer leaves it.
jq '. + {"foreignKey": {"kept": [1, 2.50, "x"]}}' "$WS/.agent/sessions/s1.json" >"$TMP/s1" &&
	mv "$TMP/s1" "$WS/.agent/sessions/s1.json"
ac memo write acme u1 user NOTES.md "$(printf 'line one\nbell\a 日本')" >/dev/null
ac memo write beta s3 session plan.md "plan" >/dev/null
mkdir -p "$WS/.agent/artifacts/acme/s1"
printf 'big output \001\002 %s' "$LONG" >"$WS/.agent/artifacts/acme/s1/call_1"
mkdir -p "$WS/.agent/traces/acme"
printf '%s\n' '{"seq":1,"at":"2026-01-02T03:04:05.678Z","data":{"type":"llm_call","text":"é\u001b[2J"}}' \
	'{"seq":2,"at":"2026-01-02T03:04:06.000Z","data":{"type":"tool_call","name":"bash"}}' \
	>"$WS/.agent/traces/acme/s1.jsonl"
mkdir -p "$WS/.agent/orchestration/acme/run1"
printf '%s\n' '{"seq":1,"at":"2026-01-02T03:04:05.000Z","data":{"step":"plan"}}' \
	'{"seq":2,"at":"2026-01-02T03:04:07.000Z","data":{"step":"act"}}' \
	'{"seq":3,"at":"2026-01-02T03:04:09.000Z","data":{"step":"check"}}' \
	>"$WS/.agent/orchestration/acme/run1/events.jsonl"
printf '{"seq":2,"at":"2026-01-02T03:04:08.000Z","state":{"done":["plan","act"]}}\n' \
	>"$WS/.agent/orchestration/acme/run1/snapshot.json"
ac checkpoint create s1 --node plan --input '{"q":"é\u0007"}' --id c1 >/dev/null
ac checkpoint create s1 --node act --id c2 >/dev/null
ac checkpoint create s1 --tombstone --id c3 >/dev/null
for i in 1 2 3; do
	ac journal log "{\"agent\":\"Claude\",\"status\":\"SUCCESS\",\"action\":{\"type\":\"ANALYSIS\",\"params\":{}},\"result\":{\"message\":\"old $i\"}}" >/dev/null
done
ac journal rotate >/dev/null
ac journal log "$(jq -cn --arg m "esc$ESC 日本 $LONG" '{agent:"Codex",status:"FAILED",action:{type:"CMD_RUN",params:{command:"make"}},result:{message:$m}}')" >/dev/null
ac journal log '{"agent":"Human","status":"SUCCESS","action":{"type":"ANALYSIS","params":{}},"result":{"message":"last"}}' >/dev/null
check "setup: a rotated journal file" [ "$(ls "$WS"/JOURNAL*.jsonl | wc -l)" -ge 2 ]
check "setup: 5 journal events" [ "$(ac journal read --all --json | jq length)" = 5 ]

# ---- a bad URL: one line, exit 1, nothing written ----
(cd "$WS" && find . -type f -exec sha256sum {} + | sort) >"$TMP/before"
run storage migrate --to "postgresql://nobody:sekrit@127.0.0.1:1/none"
check "bad url: exit 1" rc_is 1
check "bad url: one line" [ "$(wc -l <"$TMP/err")" -eq 1 ]
check "bad url: no password shown" bash -c "! grep -q sekrit '$TMP/err' '$TMP/out'"
run storage migrate --from "postgresql://nobody:sekrit@127.0.0.1:1/none"
check "bad url --from: exit 1" rc_is 1
(cd "$WS" && find . -type f -exec sha256sum {} + | sort) >"$TMP/after"
check "bad url: workspace unchanged" cmp -s "$TMP/before" "$TMP/after"
run storage migrate
check "no direction: usage" rc_is 2
run storage migrate --to a --from b
check "both directions: usage" rc_is 2

# ---- --to: everything, read back equal through the CLI on the database ----
newdb agentctl_mig_a_$$
A=$URL
mkdir -p "$TMP/tmpd"
TMPDIR=$TMP/tmpd run storage migrate --to "$A" --dry-run
check "dry run: exit 0" rc_is 0
check "dry run: would copy 3 sessions" out_has "sessions: would copy 3, already there 0"
check "dry run: would copy 5 journal events" out_has "journal events: would copy 5, already there 0"
check "dry run: the database is left as it was, not even a schema made" [ "$(psql -d agentctl_mig_a_$$ -Atqc "select count(*) from information_schema.schemata where schema_name = 'agentctl'")" = 0 ]
check "dry run: its empty stand-in store is gone" [ -z "$(ls -A "$TMP/tmpd")" ]
run storage migrate --to "$A"
check "to: exit 0" rc_is 0
check "to: sessions copied" out_has "sessions: copied 3, already there 0, conflicts 0"
check "to: memos copied" out_has "memos: copied 2,"
check "to: artifacts copied" out_has "artifacts: copied 1,"
check "to: trace records copied" out_has "trace records: copied 2,"
check "to: events copied" out_has "orchestration events: copied 3,"
check "to: snapshot copied" out_has "snapshots: copied 1,"
check "to: checkpoints copied" out_has "checkpoints: copied 3,"
check "to: journal copied" out_has "journal events: copied 5,"
check "to: journal verified" out_has "verified journal events: 5 in the source, 5 of them at the destination"
check "to: sessions verified" out_has "verified sessions: 3 in the source, 3 of them at the destination"
check "to: says what stays" out_has "operation log and git history"
check "to: no mismatch" bash -c "! grep -q MISMATCH '$TMP/out'"
same_json() { # same_json CMD... : the output of CMD on files and on $DBURL is JSON-equal
	"$AC" -w "$WS" "$@" >"$TMP/f.json" 2>/dev/null && "$AC" -w "$WS" --storage "$DBURL" "$@" >"$TMP/d.json" 2>/dev/null &&
		[ "$(jq -S "$FILTER" "$TMP/f.json")" = "$(jq -S "$FILTER" "$TMP/d.json")" ]
}
DBURL=$A
FILTER='del(.host, .writer, .writtenBy)'
for s in s1 s2 s3; do check "to: session $s equal" same_json session show $s --json; done
FILTER=.
check "to: session s1 keeps the foreign key" bash -c "'$AC' -w '$WS' --storage '$A' session show s1 --json | jq -e '.foreignKey.kept[1] == 2.50' >/dev/null"
check "to: usage kept" bash -c "'$AC' -w '$WS' --storage '$A' session show s2 --json | jq -e '.metadata.usage.inputTokens == 120 and .metadata.usage.turns == 1' >/dev/null"
check "to: tenancy kept" [ "$(psql -d agentctl_mig_a_$$ -Atqc "select string_agg(id || ':' || tenant || ':' || user_id || ':' || agent, ',' order by id) from agentctl.sessions")" = "s1:acme:u1:a1,s2:acme:u2:a1,s3:beta:u9:a2" ]
"$AC" -w "$WS" memo read acme u1 user NOTES.md >"$TMP/m1"; "$AC" -w "$WS" --storage "$A" memo read acme u1 user NOTES.md >"$TMP/m2"
check "to: memo bytes equal" cmp -s "$TMP/m1" "$TMP/m2"
check "to: artifact bytes equal" bash -c "cmp -s <('$AC' -w '$WS' artifact show s1 call_1) <('$AC' -w '$WS' --storage '$A' artifact show s1 call_1)"
check "to: trace equal" same_json trace show s1 --json
check "to: checkpoints equal" same_json checkpoint list s1 --json
check "to: journal equal" same_json journal read --all --json
check "to: journal lines byte-equal" bash -c "cat '$WS'/JOURNAL*.jsonl | sort >'$TMP/j1'; psql -d agentctl_mig_a_$$ -Atqc 'select event from agentctl.journal_events order by seq' | sort >'$TMP/j2'; cmp -s '$TMP/j1' '$TMP/j2'"
check "to: snapshot kept" [ "$(psql -d agentctl_mig_a_$$ -Atqc "select covers_seq || ' ' || state::text from agentctl.snapshots")" = '2 {"done":["plan","act"]}' ]
check "to: trace time kept" [ "$(psql -d agentctl_mig_a_$$ -Atqc "select to_char(at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') from agentctl.log_records where kind = 'trace' and seq = 1")" = "2026-01-02 03:04:05.678" ]

# ---- the task column: listings show each session's task (issue 25) ----
check "to: session list on the database shows the tasks" bash -c "'$AC' -w '$WS' --storage '$A' session list --json | jq -e '[.[] | select(.id | test(\"^s[123]$\")) | .task] | sort == [\"first task\", \"other tenant\", \"second\"]' >/dev/null"
# Rows an older agentctl copied with an empty task column (the document
# kept the task) get it back from schema 11 on their next open. A NUL in
# a task ("^@" in the column) and an escaped backslash before "u0000"
# (not a NUL) come back as put_session writes them.
newdb agentctl_mig_task_$$
TK=$URL
"$AC" -w "$WS" storage migrate --to "$TK" >/dev/null 2>&1
psql -d agentctl_mig_task_$$ -Atq -v ON_ERROR_STOP=1 <<'SQL' >/dev/null
update agentctl.session_documents set document = (replace(document::text, '"task":"second"', '"task":"sec\u0000ond \\u0000x"'))::json where session_id = 's2';
update agentctl.sessions set task = '';
delete from agentctl.agentctl_migrations where version = 11;
SQL
check "old copy: the task column is empty (as an older agentctl left it)" [ "$(psql -d agentctl_mig_task_$$ -Atqc "select count(*) from agentctl.sessions where task = ''")" = 3 ]
"$AC" -w "$WS" --storage "$TK" session list --json >"$TMP/tasks.json" 2>"$TMP/err"
check "old copy: the next open puts each task back" jq_is "$TMP/tasks.json" '[.[] | select(.id | test("^s[123]$")) | .task] | sort == ["first task", "other tenant", "sec^@ond \\u0000x"]' true
check "old copy: the column as put_session writes it" [ "$(psql -d agentctl_mig_task_$$ -Atqc "select task from agentctl.sessions where id = 's2'")" = 'sec^@ond \u0000x' ]

# ---- again: 0 new ----
run storage migrate --to "$A"
check "again: exit 0" rc_is 0
check "again: 0 new sessions" out_has "sessions: copied 0, already there 3, conflicts 0 (0 new)"
check "again: 0 new journal events" out_has "journal events: copied 0, already there 5, conflicts 0 (0 new)"
check "again: 0 new checkpoints" out_has "checkpoints: copied 0, already there 3, conflicts 0 (0 new)"
check "again: 0 new records" out_has "trace records: copied 0, already there 2, conflicts 0 (0 new)"
check "again: journal not doubled" [ "$(psql -d agentctl_mig_a_$$ -Atqc 'select count(*) from agentctl.journal_events')" = 5 ]
run storage migrate --to "$A" --json
check "again --json: one document, ok" jq_is "$TMP/out" '.ok and .kinds.sessions.alreadyThere == 3' true

# ---- --from into a fresh workspace: equal to the original ----
WS2=$TMP/ws2
mkdir -p "$WS2/.agent"
"$AC" -w "$WS2" storage migrate --from "$A" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "from: exit 0" rc_is 0
check "from: sessions copied" out_has "sessions: copied 3,"
check "from: journal copied" out_has "journal events: copied 5,"
for s in s1 s2 s3; do
	check "from: session $s JSON-equal" bash -c "[ \"\$(jq -S . '$WS/.agent/sessions/$s.json')\" = \"\$(jq -S . '$WS2/.agent/sessions/$s.json')\" ]"
done
check "from: memo bytes equal" cmp -s "$WS/.agent/memo/acme/u1/user/NOTES.md" "$WS2/.agent/memo/acme/u1/user/NOTES.md"
check "from: artifact bytes equal" cmp -s "$WS/.agent/artifacts/acme/s1/call_1" "$WS2/.agent/artifacts/acme/s1/call_1"
check "from: trace JSON-equal" bash -c "[ \"\$(jq -cS . '$WS/.agent/traces/acme/s1.jsonl')\" = \"\$(jq -cS . '$WS2/.agent/traces/acme/s1.jsonl')\" ]"
check "from: events JSON-equal" bash -c "[ \"\$(jq -cS . '$WS/.agent/orchestration/acme/run1/events.jsonl')\" = \"\$(jq -cS . '$WS2/.agent/orchestration/acme/run1/events.jsonl')\" ]"
check "from: snapshot state equal" bash -c "[ \"\$(jq -cS '[.seq,.state]' '$WS/.agent/orchestration/acme/run1/snapshot.json')\" = \"\$(jq -cS '[.seq,.state]' '$WS2/.agent/orchestration/acme/run1/snapshot.json')\" ]"
for c in c1 c2 c3; do
	check "from: checkpoint $c JSON-equal" bash -c "[ \"\$(jq -S . '$WS/.agent/checkpoints/s1/$c.json')\" = \"\$(jq -S . '$WS2/.agent/checkpoints/s1/$c.json')\" ]"
done
check "from: journal byte-equal, in order" bash -c "cat \$(ls '$WS'/JOURNAL-*.jsonl) '$WS/JOURNAL.jsonl' | cmp -s - '$WS2/JOURNAL.jsonl'"
"$AC" -w "$WS2" storage migrate --from "$A" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "from again: exit 0, 0 new" bash -c "[ $RC = 0 ] && grep -qF 'journal events: copied 0, already there 5' '$TMP/out' && grep -qF 'sessions: copied 0, already there 3' '$TMP/out'"

# ---- a conflict: reported, left alone, the rest copied, exit 1 ----
newdb agentctl_mig_b_$$
B=$URL
mkdir -p "$TMP/other"
"$AC" -w "$TMP/other" --storage "$B" memo write acme u1 user NOTES.md "someone else's" >/dev/null
run storage migrate --to "$B"
check "conflict: exit 1" rc_is 1
check "conflict: one line naming the memo" bash -c "[ \"\$(grep -c 'conflict: memos acme/u1/user/NOTES.md' '$TMP/err')\" = 1 ]"
check "conflict: counted" out_has "memos: copied 1, already there 0, conflicts 1"
check "conflict: the rest copied" out_has "sessions: copied 3,"
check "conflict: not overwritten" [ "$("$AC" -w "$WS" --storage "$B" memo read acme u1 user NOTES.md)" = "someone else's" ]
check "conflict: verification says so" out_has "verified memos: 2 in the source, 1 of them at the destination (MISMATCH)"

# ---- SIGKILL midway, then again: complete, nothing twice ----
newdb agentctl_mig_c_$$
C=$URL
for n in 2 2 3; do
	AGENTCTL_TEST_MIGRATE_KILL_AFTER=$n "$AC" -w "$WS" storage migrate --to "$C" >/dev/null 2>&1
	RC=$?
	check "kill after $n writes: killed" [ "$RC" -eq 137 ]
done
run storage migrate --to "$C"
check "after kills: exit 0" rc_is 0
counts() { psql -d "$1" -Atqc "select concat_ws(',', (select count(*) from agentctl.sessions), (select count(*) from agentctl.messages), (select count(*) from agentctl.journal_events), (select count(*) from agentctl.checkpoints), (select count(*) from agentctl.log_records), (select count(*) from agentctl.memos), (select count(*) from agentctl.snapshots), (select count(*) from agentctl.artifacts))"; }
check "after kills: nothing twice" [ "$(counts agentctl_mig_c_$$)" = "$(counts agentctl_mig_a_$$)" ]
C_COUNTS=$(counts agentctl_mig_c_$$)
check "after kills: the counts are the workspace's ($C_COUNTS)" [ "$C_COUNTS" = "3,4,5,3,5,2,1,1" ]
check "after kills: all verified" bash -c "! grep -q MISMATCH '$TMP/out'"
WS3=$TMP/ws3
mkdir -p "$WS3/.agent"
AGENTCTL_TEST_MIGRATE_KILL_AFTER=4 "$AC" -w "$WS3" storage migrate --from "$A" >/dev/null 2>&1
"$AC" -w "$WS3" storage migrate --from "$A" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "from after a kill: exit 0" rc_is 0
check "from after a kill: journal byte-equal" cmp -s "$WS2/JOURNAL.jsonl" "$WS3/JOURNAL.jsonl"
# Killed right after the journal's batch (the 14th write), before the
# verification: the next run finds every line there and adds none.
WS5=$TMP/ws5
mkdir -p "$WS5/.agent"
AGENTCTL_TEST_MIGRATE_KILL_AFTER=14 "$AC" -w "$WS5" storage migrate --from "$A" >/dev/null 2>&1
RC=$?
check "killed after the journal: killed" [ "$RC" -eq 137 ]
check "killed after the journal: the journal is whole" cmp -s "$WS2/JOURNAL.jsonl" "$WS5/JOURNAL.jsonl"
"$AC" -w "$WS5" storage migrate --from "$A" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "killed after the journal: re-run exit 0" rc_is 0
check "killed after the journal: 0 new events" out_has "journal events: copied 0, already there 5, conflicts 0 (0 new)"
check "killed after the journal: still byte-equal" cmp -s "$WS2/JOURNAL.jsonl" "$WS5/JOURNAL.jsonl"

# ---- a database is not trusted: ids that would leave the folder, a row
# spanning lines; each one line, nothing written outside, the rest copied ----
newdb agentctl_mig_d_$$
D=$URL
"$AC" -w "$WS" storage migrate --to "$D" >/dev/null 2>&1
psql -d agentctl_mig_d_$$ -Atq -v ON_ERROR_STOP=1 <<'SQL' >/dev/null
insert into agentctl.checkpoints (session_id, checkpoint_id, version, messages, tombstone, document)
  values ('../../../escape', 'c9', 1, 0, false,
  '{"checkpointId":"c9","sessionId":"../../../escape","version":1,"messageHistory":[]}');
insert into agentctl.memos (tenant, owner, scope, name, data) values ('acme', '..', 'user', 'x', 'x');
update agentctl.logs set last_seq = last_seq + 1 where kind = 'journal';
insert into agentctl.journal_events (seq, id, ts, agent, status, event)
  select last_seq, 'evt_20250101000000_deadbeef', '2025-01-01T00:00:00.000Z', 'Human', 'SUCCESS',
  E'{"id":"evt_20250101000000_deadbeef",\n"timestamp":"2025-01-01T00:00:00.000Z","agent":"Human","status":"SUCCESS","action":{"type":"ANALYSIS","params":{}},"result":{"message":"two lines"}}'
  from agentctl.logs where kind = 'journal';
SQL
WS4=$TMP/deep/ws4
mkdir -p "$WS4/.agent"
"$AC" -w "$WS4" storage migrate --from "$D" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "untrusted: exit 1" rc_is 1
check "untrusted: the checkpoint named" err_has "not copied: checkpoints ../../../escape/c9"
check "untrusted: the memo named" err_has "not copied: memos acme/../user/x"
check "untrusted: the two-line event named" err_has "not copied: journal events evt_20250101000000_deadbeef"
check "untrusted: three lines" [ "$(wc -l <"$TMP/err")" -eq 3 ]
check "untrusted: nothing outside the workspace" [ ! -e "$TMP/deep/escape" ]
check "untrusted: the rest copied" bash -c "cmp -s '$WS2/JOURNAL.jsonl' '$WS4/JOURNAL.jsonl' && [ -f '$WS4/.agent/sessions/s1.json' ]"

# ---- turn usage rows, and documents the database used to rebuild ----
# t3: three turns, each row with every Usage field and keys agentctl does
# not know; its metadata.usage (derived from the rows) gets a key of another
# writer's. p1: updatedAt without milliseconds. p2: metadata.usage with
# extra keys and no rows (totals from before rows were kept). Each must
# read back from the database as written, so a second run finds them equal.
WSU=$TMP/wsu
mkdir -p "$WSU/.agent"
au() { "$AC" -w "$WSU" "$@"; }
au session create "three turns" --id t3 --tenant acme --user u1 --agent a1 >/dev/null
au session create "no millis" --id p1 --tenant acme --user u1 --agent a1 >/dev/null
au session create "extra usage keys" --id p2 --tenant beta --user u2 --agent a2 >/dev/null
for i in 1 2 3; do
	au session record-turn t3 --usage "{\"inputTokens\":${i}00,\"outputTokens\":${i}1,\"cacheCreationInputTokens\":${i}2,\"cacheReadInputTokens\":${i}3,\"reasoningTokens\":${i}4,\"totalTokens\":${i}50,\"model\":\"m-$i\",\"costUsd\":0.25,\"unknownKey\":{\"nested\":[1,\"é\",null]},\"provider\":\"x\"}" >/dev/null
done
jq '.metadata.usage.note = "another writer"' "$WSU/.agent/sessions/t3.json" >"$TMP/d" && mv "$TMP/d" "$WSU/.agent/sessions/t3.json"
jq '.updatedAt = "2026-03-04T05:06:07Z"' "$WSU/.agent/sessions/p1.json" >"$TMP/d" && mv "$TMP/d" "$WSU/.agent/sessions/p1.json"
jq '.metadata.usage = {"inputTokens": 10, "outputTokens": 2, "turns": 1, "note": "kept", "cacheReadInputTokens": 4}' \
	"$WSU/.agent/sessions/p2.json" >"$TMP/d" && mv "$TMP/d" "$WSU/.agent/sessions/p2.json"
ROWS=$WSU/.agent/sessions/.usage/t3.jsonl
check "usage setup: 3 rows with every field" [ "$(jq -s 'map(.usage | has("cacheReadInputTokens") and has("reasoningTokens") and has("totalTokens") and has("unknownKey")) | all and length == 3' "$ROWS")" = true ]
newdb agentctl_mig_u_$$
U=$URL
"$AC" -w "$WSU" storage migrate --to "$U" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "usage to: exit 0" rc_is 0
check "usage to: 4 rows copied (p2's carried one too)" out_has "turn usage rows: copied 4, already there 0, conflicts 0"
check "usage to: rows verified" out_has "verified turn usage rows: 4 in the source, 4 of them at the destination"
check "usage to: no mismatch" bash -c "! grep -q MISMATCH '$TMP/out'"
check "usage to: 3 rows in turn_usage" [ "$(psql -d agentctl_mig_u_$$ -Atqc "select string_agg(turn || ':' || input_tokens || ':' || cache_read_input_tokens || ':' || reasoning_tokens || ':' || reported_total_tokens || ':' || (fields->>'model'), ',' order by turn) from agentctl.turn_usage where session_id = 't3'")" = "1:100:13:14:150:m-1,2:200:23:24:250:m-2,3:300:33:34:350:m-3" ]
check "usage to: totals kept on the session row" [ "$(psql -d agentctl_mig_u_$$ -Atqc "select input_tokens || ',' || output_tokens || ',' || turns from agentctl.sessions where id = 't3'")" = "600,63,3" ]
check "usage to: row times kept" [ "$(psql -d agentctl_mig_u_$$ -Atqc "select count(*) from agentctl.turn_usage u where to_char(u.at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') = u.copied_row->>'timestamp'")" = 3 ]
WS=$WSU DBURL=$U FILTER='del(.host, .writer, .writtenBy)'
for s in t3 p1 p2; do check "usage to: session $s equal (rows and totals)" same_json session show $s --json; done
WS=$TMP/ws
check "usage to: p1 keeps its updatedAt text" [ "$("$AC" -w "$WSU" --storage "$U" session show p1 --json | jq -r .updatedAt)" = "2026-03-04T05:06:07Z" ]
check "usage to: p2 keeps its usage keys" [ "$("$AC" -w "$WSU" --storage "$U" session show p2 --json | jq -c .metadata.usage)" = '{"inputTokens":10,"outputTokens":2,"turns":1,"note":"kept","cacheReadInputTokens":4}' ]
"$AC" -w "$WSU" storage migrate --to "$U" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "usage again: exit 0" rc_is 0
check "usage again: no false conflict" bash -c "! grep -q conflict '$TMP/err'"
check "usage again: 0 new sessions" out_has "sessions: copied 0, already there 3, conflicts 0 (0 new)"
check "usage again: 0 new rows" out_has "turn usage rows: copied 0, already there 4, conflicts 0 (0 new)"
"$AC" -w "$WSU" storage migrate --to "$U" --json >"$TMP/out" 2>"$TMP/err"
check "usage again --json: rows a kind of their own" jq_is "$TMP/out" '.ok and .kinds["turn usage rows"].alreadyThere == 4 and .kinds["turn usage rows"].verified == 4' true
# ---- and back: the rows file byte-equal, the documents JSON-equal ----
WSU2=$TMP/wsu2
mkdir -p "$WSU2/.agent"
"$AC" -w "$WSU2" storage migrate --from "$U" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "usage from: exit 0" rc_is 0
check "usage from: 4 rows copied" out_has "turn usage rows: copied 4, already there 0, conflicts 0"
check "usage from: rows file byte-equal" cmp -s "$ROWS" "$WSU2/.agent/sessions/.usage/t3.jsonl"
check "usage from: rows JSON-equal" bash -c "[ \"\$(jq -cS . '$ROWS')\" = \"\$(jq -cS . '$WSU2/.agent/sessions/.usage/t3.jsonl')\" ]"
check "usage from: p2's carried row as the file store shows it" bash -c "[ \"\$('$AC' -w '$WSU' session show p2 --json | jq -c .usage)\" = \"\$('$AC' -w '$WSU2' session show p2 --json | jq -c .usage)\" ]"
for s in t3 p1 p2; do
	check "usage from: session $s JSON-equal" bash -c "[ \"\$(jq -S . '$WSU/.agent/sessions/$s.json')\" = \"\$(jq -S . '$WSU2/.agent/sessions/$s.json')\" ]"
done
"$AC" -w "$WSU2" storage migrate --from "$U" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "usage from again: exit 0, 0 new" bash -c "[ $RC = 0 ] && grep -qF 'turn usage rows: copied 0, already there 4, conflicts 0 (0 new)' '$TMP/out' && grep -qF 'sessions: copied 0, already there 3, conflicts 0 (0 new)' '$TMP/out'"
# ---- killed between a session and its rows: the next run adds the rows ----
newdb agentctl_mig_k_$$
K=$URL
for n in 1 2 3; do
	psql -d agentctl_mig_k_$$ -Atqc "truncate agentctl.sessions cascade" >/dev/null
	AGENTCTL_TEST_MIGRATE_KILL_AFTER=$n "$AC" -w "$WSU" storage migrate --to "$K" >/dev/null 2>&1
	RC=$?
	check "rows kill after $n writes: killed" [ "$RC" -eq 137 ]
	"$AC" -w "$WSU" storage migrate --to "$K" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	check "rows kill after $n writes: the next run completes" bash -c "[ $RC = 0 ] && ! grep -q MISMATCH '$TMP/out' && [ \"\$(psql -d agentctl_mig_k_$$ -Atqc 'select count(*) from agentctl.turn_usage')\" = 4 ]"
done
# ---- a row with the same turn and other content: reported, left alone ----
newdb agentctl_mig_e_$$
E=$URL
"$AC" -w "$WSU" storage migrate --to "$E" >/dev/null 2>&1
psql -d agentctl_mig_e_$$ -Atqc "update agentctl.turn_usage set input_tokens = 201, copied_row = replace(copied_row::text, '\"inputTokens\":200', '\"inputTokens\":201')::json where session_id = 't3' and turn = 2" >/dev/null
"$AC" -w "$WSU" storage migrate --to "$E" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "row conflict: exit 1" rc_is 1
check "row conflict: one line naming the row" bash -c "[ \"\$(grep -c 'conflict: turn usage rows acme/t3/turn 2' '$TMP/err')\" = 1 ] && [ \"\$(wc -l <'$TMP/err')\" = 1 ]"
check "row conflict: counted" out_has "turn usage rows: copied 0, already there 3, conflicts 1"
check "row conflict: not overwritten" [ "$(psql -d agentctl_mig_e_$$ -Atqc "select input_tokens || ' ' || (copied_row->'usage'->>'inputTokens') from agentctl.turn_usage where session_id = 't3' and turn = 2")" = "201 201" ]
check "row conflict: verification says so" out_has "verified turn usage rows: 4 in the source, 3 of them at the destination (MISMATCH)"

# ---- compaction and rollback archives: rows of compactions, and back ----
# k1 compacted on files (.compactions/k1/<UTC>.json), r1 rolled back to a
# checkpoint (.rollbacks/r1/<UTC>.json): each archive is one row, its
# messages as the file has them; a re-run adds none; copied back into an
# empty workspace each file is there under its name, byte-equal.
WSA=$TMP/wsa
mkdir -p "$WSA/.agent"
aa() { "$AC" -w "$WSA" "$@"; }
aa session create "long" --id k1 --tenant acme --user u1 --agent a1 >/dev/null
jq -cn --arg esc "$ESC" '[range(0;12) | {role:(if . % 2 == 0 then "user" else "assistant" end), content:"message \(.) é 日本 \($esc)", n:2.5}]' |
	sed 's/"n":2.5/"n":2.50/g' | aa session append k1 - >/dev/null
aa session compact k1 --force >/dev/null
aa session create "rolled back" --id r1 --tenant beta --user u2 --agent a2 >/dev/null
printf '[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]' | aa session append r1 - >/dev/null
aa checkpoint create r1 --id cp1 >/dev/null
printf '[{"role":"user","content":"c\\u0007"},{"role":"assistant","content":"d","x":1.0}]' | aa session append r1 - >/dev/null
aa checkpoint rollback r1 --latest --yes >/dev/null
KA=$(ls "$WSA/.agent/sessions/.compactions/k1/")
RA=$(ls "$WSA/.agent/sessions/.rollbacks/r1/")
check "archives setup: one compaction, one rollback archive" [ -n "$KA" -a -n "$RA" ]
check "archives setup: the archive keeps 2.50" grep -qF '2.50' "$WSA/.agent/sessions/.compactions/k1/$KA"
newdb agentctl_mig_ar_$$
AR=$URL
"$AC" -w "$WSA" storage migrate --to "$AR" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "archives to: exit 0" rc_is 0
check "archives to: 2 copied" out_has "compaction archives: copied 2, already there 0, conflicts 0"
check "archives to: verified" out_has "verified compaction archives: 2 in the source, 2 of them at the destination"
check "archives to: no longer said to stay behind" bash -c "! grep -q 'compaction archives (' '$TMP/out'"
check "archives to: two rows, kind and name kept" [ "$(psql -d agentctl_mig_ar_$$ -Atqc "select string_agg(session_id || ':' || kind || ':' || name, ',' order by session_id) from agentctl.compactions")" = "k1:compaction:${KA%.json},r1:rollback:${RA%.json}" ]
for a in "k1 .compactions/k1/$KA" "r1 .rollbacks/r1/$RA"; do
	set -- $a
	check "archives to: $1's messages in the row" bash -c "[ \"\$(psql -d agentctl_mig_ar_$$ -Atqc \"select messages::text from agentctl.compactions where session_id = '$1'\" | jq -cS .)\" = \"\$(jq -cS .messages '$WSA/.agent/sessions/$2')\" ]"
done
check "archives to: number text kept" bash -c "psql -d agentctl_mig_ar_$$ -Atqc \"select messages::text from agentctl.compactions where session_id = 'k1'\" | grep -qF '2.50'"
"$AC" -w "$WSA" storage migrate --to "$AR" --json >"$TMP/out" 2>"$TMP/err"
RC=$?
check "archives again: exit 0" rc_is 0
check "archives again --json: 0 new, 2 there, verified" jq_is "$TMP/out" '.kinds["compaction archives"] | [.copied, .alreadyThere, .verified] == [0, 2, 2]' true
check "archives again: still two rows" [ "$(psql -d agentctl_mig_ar_$$ -Atqc 'select count(*) from agentctl.compactions')" = 2 ]
WSA2=$TMP/wsa2
mkdir -p "$WSA2/.agent"
"$AC" -w "$WSA2" storage migrate --from "$AR" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "archives from: exit 0" rc_is 0
check "archives from: 2 copied" out_has "compaction archives: copied 2, already there 0, conflicts 0"
for f in ".compactions/k1/$KA" ".rollbacks/r1/$RA"; do
	check "archives from: $f JSON-equal" bash -c "[ \"\$(jq -S . '$WSA/.agent/sessions/$f')\" = \"\$(jq -S . '$WSA2/.agent/sessions/$f' 2>/dev/null)\" ]"
	check "archives from: $f byte-equal" cmp -s "$WSA/.agent/sessions/$f" "$WSA2/.agent/sessions/$f"
done
check "archives from: the session still names its archive" bash -c "[ \"\$(jq -S .metadata.compactions '$WSA/.agent/sessions/k1.json')\" = \"\$(jq -S .metadata.compactions '$WSA2/.agent/sessions/k1.json')\" ]"
"$AC" -w "$WSA2" storage migrate --from "$AR" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "archives from again: exit 0, 0 new" bash -c "[ $RC = 0 ] && grep -qF 'compaction archives: copied 0, already there 2, conflicts 0 (0 new)' '$TMP/out'"
# An archive the database wrote itself (no name): back as a file named
# from its time and first seq.
"$AC" -w "$WSA" --storage "$AR" session compact k1 --force >/dev/null 2>&1
check "archives: a compaction on the database" [ "$(psql -d agentctl_mig_ar_$$ -Atqc 'select count(*) from agentctl.compactions where name is null')" = 1 ]
"$AC" -w "$WSA2" storage migrate --from "$AR" >"$TMP/out" 2>"$TMP/err"
check "archives from: the database's own archive copied" out_has "compaction archives: copied 1, already there 2"
NATIVE=$(psql -d agentctl_mig_ar_$$ -Atqc "select messages::text from agentctl.compactions where name is null" | jq -cS .)
check "archives from: its file holds its messages" bash -c "[ \"\$(jq -cS .messages \$(ls '$WSA2/.agent/sessions/.compactions/k1/'*-s*.json))\" = '$(printf %s "$NATIVE" | sed "s/'/'\\\\''/g")' ]"
"$AC" -w "$WSA2" storage migrate --to "$AR" >"$TMP/out" 2>"$TMP/err"
check "archives: and back to the database, nothing doubled" bash -c "grep -qF 'compaction archives: copied 0, already there 3' '$TMP/out' && [ \"\$(psql -d agentctl_mig_ar_$$ -Atqc 'select count(*) from agentctl.compactions')\" = 3 ]"
# A rollback on the database: its row is of kind rollback, and it comes to
# files under .rollbacks.
printf '[{"role":"user","content":"e"}]' | "$AC" -w "$WSA" --storage "$AR" session append r1 - >/dev/null 2>&1
"$AC" -w "$WSA" --storage "$AR" checkpoint rollback r1 --latest --yes >/dev/null 2>&1
check "archives: a rollback on the database is of kind rollback" [ "$(psql -d agentctl_mig_ar_$$ -Atqc "select string_agg(kind, ',') from agentctl.compactions where name is null and session_id = 'r1'")" = rollback ]
"$AC" -w "$WSA2" storage migrate --from "$AR" >"$TMP/out" 2>"$TMP/err"
check "archives from: the database's rollback under .rollbacks" bash -c "grep -qF 'compaction archives: copied 1, already there 3' '$TMP/out' && [ \"\$(jq -c .messages '$WSA2/.agent/sessions/.rollbacks/r1/'*-s*.json)\" = '[{\"role\":\"user\",\"content\":\"e\"}]' ]"
# A conflict: the same archive with other messages is left alone.
newdb agentctl_mig_ac_$$
AK=$URL
"$AC" -w "$WSA" storage migrate --to "$AK" >/dev/null 2>&1
psql -d agentctl_mig_ac_$$ -Atqc "update agentctl.compactions set messages = '[{\"role\":\"user\",\"content\":\"other\"}]' where session_id = 'r1'" >/dev/null
"$AC" -w "$WSA" storage migrate --to "$AK" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "archive conflict: exit 1" rc_is 1
check "archive conflict: one line naming it" bash -c "[ \"\$(grep -c 'conflict: compaction archives beta/r1/rollback/${RA%.json}' '$TMP/err')\" = 1 ] && [ \"\$(wc -l <'$TMP/err')\" = 1 ]"
check "archive conflict: counted" out_has "compaction archives: copied 0, already there 1, conflicts 1"
check "archive conflict: not overwritten" [ "$(psql -d agentctl_mig_ac_$$ -Atqc "select messages::text from agentctl.compactions where session_id = 'r1'")" = '[{"role":"user","content":"other"}]' ]
# Killed right after an archive's write: the next run completes it once.
newdb agentctl_mig_ak_$$
for n in 1 2 3 4 5; do
	AGENTCTL_TEST_MIGRATE_KILL_AFTER=$n "$AC" -w "$WSA" storage migrate --to "$URL" >/dev/null 2>&1
done
"$AC" -w "$WSA" storage migrate --to "$URL" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "archives after kills: exit 0, verified, two rows" bash -c "[ $RC = 0 ] && grep -qF 'verified compaction archives: 2 in the source, 2 of them' '$TMP/out' && [ \"\$(psql -d agentctl_mig_ak_$$ -Atqc 'select count(*) from agentctl.compactions')\" = 2 ]"

# ---- a dry run against a database of an older schema: said, not upgraded ----
newdb agentctl_mig_old_$$
"$AC" -w "$WS" storage migrate --to "$URL" >/dev/null 2>&1
psql -d agentctl_mig_old_$$ -Atqc "DELETE FROM agentctl.agentctl_migrations WHERE version = (SELECT max(version) FROM agentctl.agentctl_migrations)" >/dev/null
OLDV=$(psql -d agentctl_mig_old_$$ -Atqc "SELECT max(version) FROM agentctl.agentctl_migrations")
"$AC" -w "$WS" storage migrate --to "$URL" --dry-run >"$TMP/out" 2>"$TMP/err"
RC=$?
check "dry run, older schema: exit 1, one line naming the versions" bash -c "[ $RC = 1 ] && [ \"\$(wc -l <'$TMP/err')\" = 1 ] && grep -q 'schema version $OLDV and this agentctl expects $((OLDV + 1))' '$TMP/err'"
check "dry run, older schema: not upgraded" [ "$(psql -d agentctl_mig_old_$$ -Atqc "SELECT max(version) FROM agentctl.agentctl_migrations")" = "$OLDV" ]

# ---- sessions that name no tenant (seed-style files) ----
# The seeds' session files carry no metadata.tenantId; a database keeps
# every session under a tenant. Without --tenant they are named, not
# copied, exit 1; with --tenant T each is copied under T with its turn
# rows and its archive, the document gaining only metadata.tenantId; a
# re-run adds nothing; back in an empty workspace each file is the source's
# plus that key. The source files are never changed.
WST=$TMP/wst
mkdir -p "$WST/.agent/sessions"
at() { "$AC" -w "$WST" "$@"; }
for i in 1 2; do
	printf '{"id":"seed-%s","createdAt":"2026-01-0%sT10:00:00.000Z","updatedAt":"2026-01-0%sT10:00:00.000Z","task":"seed task %s","status":"running","conversationHistory":[{"role":"user","content":"hi %s é"}],"metadata":{"userId":"u","agentId":"Codex","custom":2.50}}' \
		"$i" "$i" "$i" "$i" "$i" >"$WST/.agent/sessions/seed-$i.json"
done
printf '[{"role":"assistant","content":"done"}]' | at session record-turn seed-1 --input 10 --output 5 --messages - >/dev/null
at checkpoint create seed-2 --id cp1 >/dev/null
printf '[{"role":"assistant","content":"undo me"}]' | at session append seed-2 - >/dev/null
at checkpoint rollback seed-2 --latest --yes >/dev/null
check "no tenant setup: a turn row and a rollback archive" bash -c "[ -s '$WST/.agent/sessions/.usage/seed-1.jsonl' ] && [ -n \"\$(ls '$WST/.agent/sessions/.rollbacks/seed-2/' 2>/dev/null)\" ]"
(cd "$WST" && find . -type f -exec sha256sum {} + | sort) >"$TMP/wst-before"
newdb agentctl_mig_nt_$$
NT=$URL
at storage migrate --to "$NT" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "no tenant, no --tenant: exit 1" rc_is 1
check "no tenant, no --tenant: each session named, with the way out" bash -c "grep -q 'not copied: sessions /seed-1: .*--tenant T' '$TMP/err' && grep -q 'not copied: sessions /seed-2: .*--tenant T' '$TMP/err'"
check "no tenant, no --tenant: no session in the database" [ "$(psql -d agentctl_mig_nt_$$ -Atqc 'select count(*) from agentctl.sessions')" = 0 ]
at storage migrate --to "$NT" --tenant 'a/b' >"$TMP/out" 2>"$TMP/err"
RC=$?
check "--tenant a/b: exit 2, one line naming --tenant" bash -c "[ $RC = 2 ] && [ \"\$(wc -l <'$TMP/err')\" = 1 ] && grep -q -- '--tenant' '$TMP/err'"
at storage migrate --to "$NT" --tenant team >"$TMP/out" 2>"$TMP/err"
RC=$?
check "--tenant team: exit 0" rc_is 0
check "--tenant team: sessions copied 2" out_has "sessions: copied 2, already there 0, conflicts 0"
check "--tenant team: the turn row copied" out_has "turn usage rows: copied 1, already there 0, conflicts 0"
check "--tenant team: the rollback archive copied" out_has "compaction archives: copied 1, already there 0, conflicts 0"
check "--tenant team: verified" out_has "verified sessions: 2 in the source, 2 of them at the destination"
check "--tenant team: rows under team" [ "$(psql -d agentctl_mig_nt_$$ -Atqc "select string_agg(id || ':' || tenant, ',' order by id) from agentctl.sessions")" = "seed-1:team,seed-2:team" ]
check "--tenant team: the session reads back on the database" bash -c "'$AC' -w '$WST' --storage '$NT' session show seed-1 --json | jq -e '.conversationHistory | length == 2' >/dev/null"
check "--tenant team: the source files are unchanged" bash -c "cd '$WST' && find . -type f -exec sha256sum {} + | sort | cmp -s - '$TMP/wst-before'"
at storage migrate --to "$NT" --tenant team >"$TMP/out" 2>"$TMP/err"
RC=$?
check "--tenant team again: exit 0, nothing new" bash -c "[ $RC = 0 ] && grep -qF 'sessions: copied 0, already there 2, conflicts 0 (0 new)' '$TMP/out' && grep -qF 'compaction archives: copied 0, already there 1' '$TMP/out'"
WST2=$TMP/wst2
mkdir -p "$WST2/.agent"
"$AC" -w "$WST2" storage migrate --from "$NT" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "no tenant, back: exit 0" rc_is 0
for i in 1 2; do
	check "no tenant, back: seed-$i is the source plus its tenant" bash -c "[ \"\$(jq -S 'del(.metadata.tenantId)' '$WST2/.agent/sessions/seed-$i.json')\" = \"\$(jq -S . '$WST/.agent/sessions/seed-$i.json')\" ] && [ \"\$(jq -r .metadata.tenantId '$WST2/.agent/sessions/seed-$i.json')\" = team ]"
done
check "no tenant, back: 2.50 as written" grep -qF '2.50' "$WST2/.agent/sessions/seed-1.json"
check "no tenant, back: the turn row" bash -c "[ \"\$('$AC' -w '$WST2' session show seed-1 --json | jq -c '[.usage.turns[] | .usage.inputTokens]')\" = '[10]' ]"
check "no tenant, back: the archive byte-equal" bash -c "cd '$WST/.agent/sessions/.rollbacks/seed-2' && for f in *.json; do cmp -s \"\$f\" '$WST2/.agent/sessions/.rollbacks/seed-2/'\"\$f\" || exit 1; done"

# ---- --from --tenant T: only T's sessions and data (issue 25) ----
# $A holds acme's s1 and s2 (memo, artifact, trace, run, checkpoints of
# s1) and beta's s3 (a memo). The journal names no tenant: copied whole.
WTB=$TMP/wtb
mkdir -p "$WTB/.agent"
"$AC" -w "$WTB" storage migrate --from "$A" --tenant beta >"$TMP/out" 2>"$TMP/err"
RC=$?
check "--from --tenant beta: exit 0" rc_is 0
check "--from --tenant beta: one session copied" out_has "sessions: copied 1, already there 0, conflicts 0"
check "--from --tenant beta: only s3" [ "$(ls "$WTB/.agent/sessions" | tr '\n' ' ')" = "s3.json " ]
check "--from --tenant beta: its memo, not acme's" bash -c "[ -f '$WTB/.agent/memo/beta/s3/session/plan.md' ] && [ ! -e '$WTB/.agent/memo/acme' ]"
check "--from --tenant beta: no acme artifact, trace, run or checkpoint" bash -c "[ ! -e '$WTB/.agent/artifacts' ] && [ ! -e '$WTB/.agent/traces' ] && [ ! -e '$WTB/.agent/orchestration' ] && [ -z \"\$(ls '$WTB/.agent/checkpoints' 2>/dev/null)\" ]"
check "--from --tenant beta: the journal whole" out_has "journal events: copied 5,"
check "--from --tenant beta: verified, no mismatch" bash -c "grep -qF 'verified sessions: 1 in the source, 1 of them' '$TMP/out' && ! grep -q MISMATCH '$TMP/out'"
WTA=$TMP/wta
mkdir -p "$WTA/.agent"
"$AC" -w "$WTA" storage migrate --from "$A" --tenant acme >"$TMP/out" 2>"$TMP/err"
RC=$?
check "--from --tenant acme: exit 0" rc_is 0
check "--from --tenant acme: s1 and s2" [ "$(ls "$WTA/.agent/sessions" | grep -c json)" = 2 ]
check "--from --tenant acme: s1's checkpoints come along" out_has "checkpoints: copied 3,"
check "--from --tenant acme: no beta memo" [ ! -e "$WTA/.agent/memo/beta" ]
"$AC" -w "$WTA" storage migrate --from "$A" --tenant nobody >"$TMP/out" 2>"$TMP/err"
check "--from --tenant nobody: no session" out_has "sessions: copied 0, already there 0"

finish
