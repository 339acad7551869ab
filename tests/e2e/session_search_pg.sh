#!/usr/bin/env bash
# `session search` and `session export` on the PostgreSQL store (the
# histories read through the backend), and `session fork` there (the
# fork in the parent's tenant, no session file written). Needs a server from the PG* variables: ctest runs
# it through tests/pg/with-postgres.sh.
# Usage: session_search_pg.sh path/to/agentctl
set -u
. "$(dirname "$0")/lib/cli.sh" "$@"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "session_search_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
WS=$TMP/ws
mkdir -p "$WS/.agent"
DB=agentctl_e2e_search_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
export AGENT_STORAGE_URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
sql() { psql -d "$DB" -Atq -v ON_ERROR_STOP=1 -c "$1"; }
out_has() { grep -qF -- "$1" "$TMP/out"; }

# Two sessions as the backend writes them (row, document, messages).
run memo list acme u1 user # opening the store migrates it
sql "insert into agentctl.sessions (tenant, id, user_id, agent, status, created_at, updated_at,
       written_by_host, written_by_agent, last_seq, message_count, tokens)
     values ('acme', 's1', 'u1', 'claude', 'running', now() - interval '1 minute', now() - interval '1 minute',
             'host-a', 'claude', 2, 2, 9),
            ('other', 's2', 'u2', 'codex', 'completed', now() - interval '2 minutes', now() - interval '2 minutes',
             'host-a', 'codex', 1, 1, 3)"
sql "insert into agentctl.session_documents values
     ('acme', 's1', '{\"id\":\"s1\",\"task\":\"fix the build\",\"status\":\"running\",\"metadata\":{\"tenantId\":\"acme\"}}'),
     ('other', 's2', '{\"id\":\"s2\",\"task\":\"other\",\"status\":\"completed\",\"metadata\":{\"tenantId\":\"other\"}}')"
sql "insert into agentctl.messages values
     ('acme', 's1', 1, '{\"role\":\"user\",\"content\":\"the Config loader \u001b[31mfails\"}'),
     ('acme', 's1', 2, '{\"role\":\"assistant\",\"content\":\"fixed </pre><script>x</script>\"}'),
     ('other', 's2', 1, '{\"role\":\"user\",\"content\":\"an older CONFIG question\"}')"

run session search config --json
check "search on the store: exit 0" rc_is 0
check "search on the store: both sessions, newest first" \
	[ "$(jq -r '[.results[] | "\(.sessionId):\(.message)"] | join(",")' <"$TMP/out")" = "s1:1,s2:1" ]
check "search on the store: the source is the database" jq_is "$TMP/out" '.results[0].source' postgresql
check "search on the store: escapes visible in the snippet" \
	[ "$(jq -r '.results[0].snippet' <"$TMP/out")" = "the Config loader ^[[31mfails" ]
run session search config --limit 1 --json
check "search on the store: --limit" jq_is "$TMP/out" '[(.results | length), .limited] | join(" ")' "1 true"
run session search nowhere
check "search on the store: no match is exit 0" bash -c "[ $RC -eq 0 ] && [ ! -s '$TMP/out' ]"
# A coding agent's transcript of the workspace is searched beside the store.
export HOME=$TMP/home
tslug=$(printf %s "$(realpath "$WS")" | sed 's/[^a-zA-Z0-9]/-/g')
mkdir -p "$HOME/.claude/projects/$tslug"
printf '{"type":"user","cwd":"%s","timestamp":"2020-01-01T00:00:00Z","message":{"role":"user","content":"the config of a transcript"}}\n' \
	"$(realpath "$WS")" >"$HOME/.claude/projects/$tslug/0d0d0d0d-0000-4000-8000-000000000001.jsonl"
run session search "config of a transcript" --json
check "search on the store: a transcript too, with its source" \
	jq_is "$TMP/out" '[.results[] | .source + " " + (.message | tostring)] | join(",")' "claude-code 1"
run session search config --limit 1 --json
check "search on the store: the older transcript cut by --limit" \
	jq_is "$TMP/out" '[.results[].source] | join(",")' "postgresql"
run session export 0d0d0d0d-0000-4000-8000-000000000001 --format md
check "export on the store: a transcript the store does not have" \
	eval 'rc_is 0 && out_has "claude-code transcript (read-only)"'
run session export s1 --format html
check "export on the store: exit 0" rc_is 0
check "export on the store: the messages, escaped" out_has "fixed &lt;/pre&gt;&lt;script&gt;x&lt;/script&gt;"
run session fork s1 --id s1f
check "fork on the store: exit 0, the new id" bash -c "[ $RC -eq 0 ] && [ \"\$(cat '$TMP/out')\" = s1f ]"
check "fork on the store: a row of acme with both messages" \
	[ "$(sql "select tenant || ' ' || message_count from agentctl.sessions where id = 's1f'")" = "acme 2" ]
check "fork on the store: no session file" [ ! -e "$WS/.agent/sessions/s1f.json" ]
finish
