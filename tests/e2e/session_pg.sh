#!/usr/bin/env bash
# End-to-end checks of the session commands on the PostgreSQL store:
# `session list` (text and --json, with the host that last wrote each
# session; --status and --user), `session show` (text and --json, the
# document as a session file holds it), and pause|resume|complete|fail as
# a compare-and-set in the database: a change made from another host
# (another UTS host name) is recorded with that host, a refused change
# writes nothing, and of eight processes resuming one paused session at
# once exactly one succeeds. Nothing is read from or written to the
# session files. Needs a server from the PG* variables: ctest runs it
# through tests/pg/with-postgres.sh.
# Usage: session_pg.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "session_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
WS=$TMP/ws
mkdir -p "$WS/.agent"
DB=agentctl_e2e_sess_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
export AGENT_STORAGE_URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
sql() { psql -d "$DB" -Atq -v ON_ERROR_STOP=1 -c "$1"; }
out_has() { grep -qF -- "$1" "$TMP/out"; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
# Runs agentctl as a process of host $1 (a UTS namespace of its own), or
# as this host where namespaces are not permitted.
as_host() {
	local host=$1
	shift
	if [ "$UTS" = 1 ]; then
		unshare -u sh -c 'hostname "$1"; shift; exec "$@"' sh "$host" "$AC" -w "$WS" "$@"
	else
		"$AC" -w "$WS" "$@"
	fi >"$TMP/out" 2>"$TMP/err" </dev/null
	RC=$?
}
UTS=0
unshare -u true 2>/dev/null && UTS=1

# The schema, then two sessions written by agents on host-a (as the
# backend writes them: a row, its document, its messages).
run storage check >/dev/null
run memo list acme u1 user # opening the store migrates it
# A database at schema version 4 (before sessions had a task column):
# the rows below are written as that version's backend wrote them, and
# the next command must upgrade it in place, tasks filled from documents.
sql "alter table agentctl.sessions drop column task cascade;
     delete from agentctl.agentctl_migrations where version = 5;
     create index sessions_listing on agentctl.sessions (updated_at desc, id)
       include (tenant, user_id, agent, status, message_count, tokens, input_tokens, output_tokens, turns, written_by_host);
     create index sessions_tenant_listing on agentctl.sessions (tenant, updated_at desc, id)
       include (user_id, agent, status, message_count, tokens, input_tokens, output_tokens, turns, written_by_host);
     create index sessions_user_listing on agentctl.sessions (tenant, user_id, updated_at desc, id)
       include (agent, status, message_count, tokens, input_tokens, output_tokens, turns, written_by_host)"
sql "insert into agentctl.sessions (tenant, id, user_id, agent, status, created_at, updated_at,
       written_by_host, written_by_agent, last_seq, message_count, tokens)
     values ('acme', 's1', 'u1', 'claude', 'running', now() - interval '1 minute', now() - interval '1 minute',
             'host-a', 'claude', 2, 2, 9),
            ('other', 's2', 'u2', 'codex', 'completed', now() - interval '2 minutes', now() - interval '2 minutes',
             'host-a', 'codex', 0, 0, 0)"
sql "insert into agentctl.session_documents values
     ('acme', 's1', '{\"id\":\"s1\",\"createdAt\":\"2026-01-02T03:04:05.006Z\",\"updatedAt\":\"x\",\"task\":\"fix the build\",\"status\":\"running\",\"metadata\":{\"tenantId\":\"acme\",\"userId\":\"u1\",\"agentId\":\"claude\"},\"x-kept\":7}'),
     ('other', 's2', '{\"id\":\"s2\",\"task\":\"\",\"status\":\"completed\",\"metadata\":{\"tenantId\":\"other\"}}')"
sql "insert into agentctl.messages values
     ('acme', 's1', 1, '{\"role\":\"user\",\"content\":\"why \u001b[31mred\"}'),
     ('acme', 's1', 2, '{\"role\":\"assistant\",\"content\":\"fixed\"}')"

# ---- the upgrade from version 4 ----
run storage check
check "check on the old database: a migration missing" eval 'rc_is 1 && out_has "1 migration missing"'
run session list --json
check "list upgrades it: exit 0" rc_is 0
check "migration 5 recorded" [ "$(sql "select name from agentctl.agentctl_migrations where version = 5")" = "sessions carry their task" ]
check "the listing indexes carry the task's head and createdAt" \
	[ "$(sql "select count(*) from pg_indexes where schemaname = 'agentctl' and indexname like 'sessions%listing' and indexdef like '%task_head, created_at)%'")" = 3 ]
check "the task column was filled from the documents" \
	[ "$(sql "select id || ':' || task from agentctl.sessions order by id" | tr '\n' ' ')" = "s1:fix the build s2: " ]

# ---- list ----
run session list --json
check "list --json exits 0" rc_is 0
check "list --json: both sessions, newest first" \
	[ "$(jq -r '[.[].id] | join(",")' <"$TMP/out")" = "s1,s2" ]
check "list --json: the host that last wrote it" \
	[ "$(jq -r '.[0].host' <"$TMP/out")" = "host-a" ]
check "list --json: the task and createdAt, from the row" \
	[ "$(jq -r '.[0] | "\(.task)|\(.createdAt | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}[.][0-9]{3}Z$"))"' <"$TMP/out")" = "fix the build|true" ]
check "list --json: the counts and tenancy" \
	[ "$(jq -r '.[0] | "\(.messages) \(.tokens) \(.tenantId) \(.userId) \(.agentId) \(.status)"' <"$TMP/out")" = "2 9 acme u1 claude running" ]
check "list --json: turns, as on the files (issue 26)" \
	[ "$(jq -r '.[0].turns' <"$TMP/out")" = 0 ]
run session list
check "list exits 0" rc_is 0
check "list: a HOST column" eval 'head -1 "$TMP/out" | grep -q "HOST"'
check "list: the row names its host" eval 'grep "^s1 " "$TMP/out" | grep -q "host-a .*u1/claude"'
check "list: a TASK column, the task at the end of the row" \
	eval 'head -1 "$TMP/out" | grep -q "USER/AGENT *TASK$" && grep "^s1 " "$TMP/out" | grep -q "u1/claude *fix the build$"'
run session list --status completed --json
check "list --status: filtered" [ "$(jq -r '[.[].id] | join(",")' <"$TMP/out")" = "s2" ]
run session list --user u1 --json
check "list --user: filtered" [ "$(jq -r '[.[].id] | join(",")' <"$TMP/out")" = "s1" ]
run session list --status sleeping
check "list --status bad: exit 2" rc_is 2

# ---- show ----
run session show s1 --json
check "show --json exits 0" rc_is 0
check "show --json: the document, unknown keys kept" \
	[ "$(jq -r '"\(.task) \(.status) \(.createdAt) \(.["x-kept"])"' <"$TMP/out")" = "fix the build running 2026-01-02T03:04:05.006Z 7" ]
check "show --json: the history in order" \
	[ "$(jq -r '[.conversationHistory[].role] | join(",")' <"$TMP/out")" = "user,assistant" ]
check "show --json: updatedAt is the store's, not the document's stale one" \
	[ "$(jq -r '.updatedAt | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$")' <"$TMP/out")" = true ]
run session show s1
check "show exits 0" rc_is 0
check "show: the task and the host" eval 'out_has "task     fix the build" && out_has "host     host-a   written by claude"'
check "show: the messages" eval 'out_has "[1] user: why" && out_has "[2] assistant: fixed"'
check "show: escapes made visible" eval '! grep -q $'"'"'\x1b'"'"' "$TMP/out"'
# The per-turn usage rows (schema 6): every field, totals summed.
sql "insert into agentctl.turn_usage (tenant, session_id, turn, input_tokens, output_tokens,
       cache_read_input_tokens, reasoning_tokens, fields)
     values ('acme', 's1', 1, 100, 20, 5000, 7, '{\"model\":\"m-x\",\"costUsd\":0.5}'),
            ('acme', 's1', 2, 1, 2, 0, 0, '{}')"
run session show s1 --json
check "show --json: usage rows with every field" \
	[ "$(jq -r '.usage.turns[0].usage | "\(.cacheReadInputTokens) \(.reasoningTokens) \(.model) \(.costUsd)"' <"$TMP/out")" = "5000 7 m-x 0.5" ]
check "show --json: usage totals summed" \
	[ "$(jq -r '.usage.totals | "\(.inputTokens) \(.outputTokens) \(.turns)"' <"$TMP/out")" = "101 22 2" ]
run session show s1
# TOTAL: the row gives no totalTokens, so input + output.
check "show: the per-turn table" eval 'grep -qE "^ +1 [0-9T:.-]+Z +100 +20 +0 +5000 +7 +120 +0\.5000 m-x$" "$TMP/out"'
run session show nosuch
check "show unknown: exit 1" rc_is 1
check "show unknown: one line naming it" eval 'err_is_one_line && err_has nosuch'
run session show ../x
check "show bad id: exit 2" rc_is 2

# ---- status changes: a compare-and-set, from another host ----
as_host host-b session pause s1
check "pause from host-b exits 0" rc_is 0
check "pause says so" out_has "session s1 paused"
check "the database has it paused" [ "$(sql "select status from agentctl.sessions where id = 's1'")" = paused ]
if [ "$UTS" = 1 ]; then
	check "the writer is host-b now" [ "$(sql "select written_by_host from agentctl.sessions where id = 's1'")" = host-b ]
	run session list --json
	check "list shows host-b" [ "$(jq -r '.[] | select(.id == "s1") | .host' <"$TMP/out")" = host-b ]
fi
check "the pause is journaled in the store's journal" \
	[ "$(sql "select count(*) from agentctl.journal_events where action_type = 'SESSION_PAUSE' and correlation_id = 's1'")" = 1 ]
run session pause s1
check "pause a paused session: exit 1" rc_is 1
check "pause a paused session: says it is paused already" eval 'err_is_one_line && err_has "paused already"'
run session resume s2
check "resume a completed session: exit 1" rc_is 1
check "refused: nothing written" [ "$(sql "select status from agentctl.sessions where id = 's2'")" = completed ]
run session fail nosuch
check "status of an unknown session: exit 1, one line" eval 'rc_is 1 && err_is_one_line'
run --read-only session pause s1
check "--read-only refuses: exit 2" rc_is 2

# Eight processes resume the paused session at once: one wins the
# compare-and-set, the others are refused and write nothing.
for p in 1 2 3 4 5 6 7 8; do
	("$AC" -w "$WS" session resume s1 >"$TMP/out.$p" 2>"$TMP/err.$p"; echo $? >"$TMP/rc.$p") &
done
wait
wins=$(cat "$TMP"/rc.* | grep -c '^0$')
check "8 concurrent resumes: exactly one succeeds" [ "$wins" -eq 1 ]
check "the others say why" [ "$(cat "$TMP"/err.* | grep -c 'running already\|no longer paused')" -eq 7 ]
check "the session is running" [ "$(sql "select status from agentctl.sessions where id = 's1'")" = running ]
run session complete s1
check "complete exits 0" rc_is 0
check "complete says so" out_has "session s1 completed"

# ---- create, append, compact: through the store too ----
# run with standard input (a here-string: a pipe would set RC in a subshell)
run_in() { "$AC" -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err"; RC=$?; }
run session create "write the tests" --tenant acme --user u1 --agent claude --id c1
check "create exits 0" rc_is 0
check "create prints the id" [ "$(cat "$TMP/out")" = c1 ]
check "create: the row has the task, tenancy and this host" \
	[ "$(sql "select task || '|' || tenant || '|' || user_id || '|' || agent || '|' || status || '|' || (written_by_host <> '') from agentctl.sessions where id = 'c1'")" = "write the tests|acme|u1|claude|running|true" ]
check "create: the document as a session file starts" \
	[ "$(sql "select document->>'task' || '|' || (document->'metadata'->>'tenantId') || '|' || (document->>'createdAt') from agentctl.session_documents where session_id = 'c1'" | sed 's/|[0-9T:.Z-]*$/|ts/')" = "write the tests|acme|ts" ]
run session list --json
check "list shows the created session's task and createdAt" \
	[ "$(jq -r '.[] | select(.id == "c1") | "\(.task)|\(.createdAt | length)|\(.messages)"' <"$TMP/out")" = "write the tests|24|0" ]
created=$(jq -r '.[] | select(.id == "c1") | .createdAt' <"$TMP/out")
run session show c1 --json
check "list's createdAt is the document's" [ "$(jq -r .createdAt <"$TMP/out")" = "$created" ]
run session create "again" --tenant acme --id c1
check "create over an existing id: exit 1, one line" eval 'rc_is 1 && err_is_one_line && err_has "exists already"'
run session create "theirs" --tenant other --id c1
check "create over another tenant's id: exit 1, nothing changed" \
	eval 'rc_is 1 && [ "$(sql "select tenant || task from agentctl.sessions where id = '"'c1'"'")" = "acmewrite the tests" ]'
# Without --tenant: the default tenant, the user's name (storage.tenant
# unset; issue 25: it was refused, --tenant needed every time).
run session create "no tenant" --id nt1
check "create without --tenant: exit 0, in the user's tenant" \
	eval 'rc_is 0 && [ "$(sql "select tenant from agentctl.sessions where id = '"'nt1'"'")" = "$(id -un)" ]'
run session create "bad" --tenant acme --id ../x
check "create with a bad id: exit 2" rc_is 2
long=$(printf 'ünïcödé task %.0s' $(seq 30))
run session create "$long" --tenant acme --id long1
run session list --json
check "a task longer than the indexes' head is listed whole" \
	[ "$(jq -r '.[] | select(.id == "long1") | .task' <"$TMP/out")" = "$long" ]
check "... while the index holds its head" \
	[ "$(sql "select length(task_head) || ' ' || length(task) from agentctl.sessions where id = 'long1'")" = "200 ${#long}" ]
run session create "fresh" --tenant acme --json
check "create --json: the document" \
	[ "$(jq -r '"\(.task) \(.status) \(.metadata.tenantId) \(.conversationHistory | length)"' <"$TMP/out")" = "fresh running acme 0" ]
check "create without --id: a new uuid" \
	eval 'jq -r .id <"$TMP/out" | grep -qE "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"'

run_in session append c1 - <<<'[{"role":"user","content":"one"},{"role":"assistant","content":"two"}]'
check "append exits 0" rc_is 0
check "append prints the history's length" [ "$(cat "$TMP/out")" = 2 ]
run_in session append c1 - --json <<<'{"role":"user","content":"three \u001b[2J"}'
check "append --json: the session with the new message" \
	[ "$(jq -r '[.conversationHistory[].content] | length' <"$TMP/out")" = 3 ]
check "append: rows in seq order" \
	[ "$(sql "select string_agg(seq::text || '=' || (message->>'content'), ',' order by seq) from agentctl.messages where session_id = 'c1'" | cut -c1-17)" = "1=one,2=two,3=thr" ]
run_in session append c1 - <<<'{"role":"user"'
check "append bad JSON: exit 2, nothing written" \
	eval 'rc_is 2 && [ "$(sql "select message_count from agentctl.sessions where id = '"'c1'"'")" = 3 ]'
run_in session append nosuch - <<<'{"role":"user","content":"x"}'
check "append to an unknown session: exit 1, one line naming it" eval 'rc_is 1 && err_is_one_line && err_has nosuch'
run session show c1
check "show: an appended escape made visible" eval 'out_has "[3] user: three" && ! grep -q $'"'"'\x1b'"'"' "$TMP/out"'

# --resume: a paused session is set running and kept
run session pause c1
run session create "ignored" --tenant acme --id c1 --resume
check "create --resume of a paused session: its id" eval 'rc_is 0 && [ "$(cat "$TMP/out")" = c1 ]'
check "create --resume: running again" [ "$(sql "select status from agentctl.sessions where id = 'c1'")" = running ]
run session create "next" --tenant acme --id c1 --resume
check "create --resume of a running session: a new id" \
	eval 'rc_is 0 && [ "$(cat "$TMP/out")" != c1 ] && [ "$(sql "select count(*) from agentctl.sessions where task = '"'next'"'")" = 1 ]'

# compact: below the trigger, then forced; a large tool result to an artifact
big=$(head -c 6000 /dev/zero | tr '\0' x)
run_in session append c1 - <<<"$(printf '[{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"read","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"%s"}]},{"role":"assistant","content":"done"}]' "$big")"
check "append of a tool call and its large result: exit 0" rc_is 0
run session compact c1
check "compact below the trigger: exit 0, says why not" \
	eval 'rc_is 0 && out_has "not compacted: below the compaction trigger"'
check "compact: the large result moved to an artifact" \
	eval 'out_has "1 tool result (6000 bytes) moved to artifacts" && [ "$(sql "select length(data) from agentctl.artifacts where session_id = '"'c1'"' and tool_call_id = '"'call_1'"'")" = 6000 ]'
run artifact show c1 call_1
check "artifact show gives the result back" [ "$(wc -c <"$TMP/out")" -ge 6000 ]
run session compact c1 --force
check "compact --force: exit 0" rc_is 0
check "compact --force: summarised, archived in the store" \
	eval 'out_has "messages summarised" && out_has "originals archived in the store (compactions)"'
check "compact: the archive row and fewer messages" \
	eval '[ "$(sql "select count(*) from agentctl.compactions where session_id = '"'c1'"'")" = 1 ] && [ "$(sql "select message_count < 6 from agentctl.sessions where id = '"'c1'"'")" = t ]'
# The document records it as the files do, naming the archive as a copy to
# files names its file (storage migrate --from), so the record leads there.
archive_name=$(sql "select to_char(at at time zone 'UTC', 'YYYYMMDD\"T\"HH24MISS.US\"Z\"') || '-s' || first_seq from agentctl.compactions where session_id = 'c1'")
run session show c1 --json
check "compact: metadata.compactions records it, naming its archive row" \
	eval 'rc_is 0 && jq -e --arg a ".compactions/c1/$archive_name.json" '"'"'.metadata.compactions | length == 1 and .[0].archive == $a and .[0].messages > 0 and .[0].tokensBefore > 0'"'"' <"$TMP/out" >/dev/null'
check "compact is journaled in the store's journal" \
	[ "$(sql "select count(*) from agentctl.journal_events where action_type = 'SESSION_COMPACT' and correlation_id = 'c1'")" = 1 ]
run session compact nosuch
check "compact of an unknown session: exit 1, one line" eval 'rc_is 1 && err_is_one_line && err_has nosuch'
# A session only the database holds is known to the commands that name one.
run checkpoint list c1 --json
check "checkpoint list of a database session without checkpoints: exit 0, none" \
	eval 'rc_is 0 && [ "$(jq length <"$TMP/out")" = 0 ]'
run checkpoint list nosuch
check "checkpoint list of an unknown session: exit 1, one line naming it" \
	eval 'rc_is 1 && err_is_one_line && err_has nosuch'
run ops record --session c1 --type command_run --details '{"command":"make"}'
check "ops record for a database session: exit 0" rc_is 0
run ops record --session nosuch --type command_run --details '{"command":"make"}'
check "ops record for an unknown session: exit 1, one line" eval 'rc_is 1 && err_is_one_line && err_has nosuch'
run --read-only session create x --tenant acme
check "--read-only refuses create: exit 2" rc_is 2

# ---- many hosts at once, through the commands ----
# Six processes, each a host of its own name (a UTS namespace), create one
# shared session at once (one wins, the others are told it exists) and
# one of their own each, then append to both in turns: every message is
# there exactly once, the shared session's seqs are 1..n without a gap,
# and each own session names its host as its writer.
ROUNDS=15
cat >"$TMP/writer.sh" <<'WRITER'
host=$1 ac=$2 ws=$3 uts=$4 rounds=$5
[ "$uts" = 1 ] && hostname "$host"
"$ac" -w "$ws" session create "shared work" --tenant fleet --id shared >/dev/null 2>"$ws/../create-$host.err"
echo $? >"$ws/../create-$host.rc"
"$ac" -w "$ws" session create "$host work" --tenant fleet --user "$host" --id "own-$host" >/dev/null ||
	echo "lost create $host"
i=1
while [ $i -le "$rounds" ]; do
	"$ac" -w "$ws" session append shared - >/dev/null <<<"{\"role\":\"user\",\"content\":\"$host #$i\"}" ||
		echo "lost shared $host $i"
	"$ac" -w "$ws" session append "own-$host" - >/dev/null <<<"[{\"role\":\"user\",\"content\":\"$host #$i\"},{\"role\":\"assistant\",\"content\":\"ok $i\"}]" ||
		echo "lost own $host $i"
	i=$((i + 1))
done
WRITER
for h in h1 h2 h3 h4 h5 h6; do
	if [ "$UTS" = 1 ]; then
		unshare -u bash "$TMP/writer.sh" "$h" "$AC" "$WS" 1 "$ROUNDS" >"$TMP/writer-$h" 2>&1 &
	else
		bash "$TMP/writer.sh" "$h" "$AC" "$WS" 0 "$ROUNDS" >"$TMP/writer-$h" 2>&1 &
	fi
done
wait
check "many hosts: no create or append failed" [ -z "$(cat "$TMP"/writer-*)" ]
check "many hosts: exactly one created the shared session" [ "$(cat "$TMP"/create-*.rc | grep -c '^0$')" = 1 ]
check "many hosts: the others were told it exists" [ "$(cat "$TMP"/create-*.err | grep -c 'exists already')" = 5 ]
check "many hosts: every shared message once" \
	[ "$(sql "select count(*) || ' ' || count(distinct message->>'content') from agentctl.messages where session_id = 'shared'")" = "$((6 * ROUNDS)) $((6 * ROUNDS))" ]
check "many hosts: shared seqs 1..n without a gap, and the row's count agrees" \
	[ "$(sql "select min(m.seq) = 1 and max(m.seq) = count(*) and max(s.message_count) = count(*) and max(s.last_seq) = count(*) from agentctl.messages m join agentctl.sessions s on s.id = m.session_id where m.session_id = 'shared'")" = t ]
check "many hosts: each host's own session whole and in order" \
	[ "$(sql "select string_agg(session_id || '=' || n, ',' order by session_id) from (select session_id, count(*) as n from agentctl.messages where session_id like 'own-%' and seq = (select count(*) from agentctl.messages x where x.session_id = messages.session_id and x.seq <= messages.seq) group by session_id) t")" = "own-h1=$((2 * ROUNDS)),own-h2=$((2 * ROUNDS)),own-h3=$((2 * ROUNDS)),own-h4=$((2 * ROUNDS)),own-h5=$((2 * ROUNDS)),own-h6=$((2 * ROUNDS))" ]
check "many hosts: no message of one host in another's session" \
	[ "$(sql "select count(*) from agentctl.messages where session_id like 'own-%' and message->>'role' = 'user' and session_id <> 'own-' || split_part(message->>'content', ' ', 1)")" = 0 ]
if [ "$UTS" = 1 ]; then
	check "many hosts: each own session names its host" \
		[ "$(sql "select count(*) from agentctl.sessions where id like 'own-%' and written_by_host = substr(id, 5)")" = 6 ]
fi
run session list --json
check "many hosts: the listing has each task" \
	[ "$(jq -r '[.[] | select(.id | startswith("own-")) | .task] | sort | join(",")' <"$TMP/out")" = "h1 work,h2 work,h3 work,h4 work,h5 work,h6 work" ]

# record-turn on the store: the messages, the turn's row with every field,
# the totals, and the automatic checkpoint the stored document asks for,
# all in the database.
run session create "turns" --id rt1 --tenant acme --user u1 --agent a1
check "record-turn: a session to record in" rc_is 0
run checkpoint auto rt1 on
check "record-turn: automatic checkpoints on" rc_is 0
printf '[{"role":"user","content":"go"},{"role":"assistant","content":"done"}]' >"$TMP/turn.json"
"$AC" -w "$WS" session record-turn rt1 --usage '{"inputTokens":900,"outputTokens":80,"cacheReadInputTokens":4000,"model":"claude-sonnet-4-5","note":"kept"}' \
	--messages - <"$TMP/turn.json" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "record-turn: exit 0, prints the turn's number" eval 'rc_is 0 && [ "$(cat "$TMP/out")" = 1 ]'
run session record-turn rt1 --input 5 --output 6
check "record-turn again: turn 2" eval 'rc_is 0 && [ "$(cat "$TMP/out")" = 2 ]'
check "record-turn: the messages are in the database" \
	[ "$(sql "select string_agg(message->>'content', ',' order by seq) from agentctl.messages where session_id = 'rt1'")" = "go,done" ]
check "record-turn: a row per turn with every field" \
	[ "$(sql "select string_agg(turn || ':' || input_tokens || ':' || cache_read_input_tokens || ':' || coalesce(fields->>'note', '-'), ',' order by turn) from agentctl.turn_usage where session_id = 'rt1'")" = "1:900:4000:kept,2:5:0:-" ]
check "record-turn: the totals" \
	[ "$(sql "select input_tokens || ' ' || output_tokens || ' ' || turns from agentctl.sessions where id = 'rt1'")" = "905 86 2" ]
check "record-turn: an automatic checkpoint per turn, in the database" \
	[ "$(sql "select string_agg(node_id, ',' order by version) from agentctl.checkpoints where session_id = 'rt1'")" = "turn-1,turn-2" ]
run session record-turn rt1 --usage '{"inputTokens":-3}'
check "record-turn: bad usage refused, exit 2" eval 'rc_is 2 && err_is_one_line'
check "record-turn: nothing written by the refusal" \
	[ "$(sql "select count(*) from agentctl.turn_usage where session_id = 'rt1'")" = 2 ]
run session record-turn nosuch --input 1 --output 1
check "record-turn: an unknown session, exit 1, one line" eval 'rc_is 1 && err_is_one_line'

check "nothing journaled to the journal file" [ ! -s "$WS/JOURNAL.jsonl" ]
check "no session file was written" [ ! -e "$WS/.agent/sessions" ] || [ -z "$(ls -A "$WS/.agent/sessions")" ]

finish
