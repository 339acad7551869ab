#!/usr/bin/env bash
# End-to-end checks of the PostgreSQL store from the command line: memo
# write/read/append/list, artifact list/show and trace show through
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
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
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
check "check says what is missing" out_has "schema: version 0; 2 migrations missing"
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
check "check says the version" out_has "schema: version 2 (up to date)"

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
