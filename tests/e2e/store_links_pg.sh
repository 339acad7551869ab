#!/usr/bin/env bash
# store_links.sh's rule on the PostgreSQL store (issue 23, item 4): the
# sessions and checkpoints live in the database, but a workspace on it
# still has folders on disk that agentctl writes or removes from (the
# .rollbacks compensation records, .usage, the journal, the file store's
# checkpoints and archives that gc sweeps): a link out of the workspace is
# refused the same way, and nothing reaches the database either.
# Needs a server from the PG* variables: ctest runs it through
# tests/pg/with-postgres.sh.
# Usage: store_links_pg.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "store_links_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
DB=agentctl_e2e_links_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
sql() { psql -d "$DB" -Atq -v ON_ERROR_STOP=1 -c "$1"; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
count() { find "$1" -type f 2>/dev/null | wc -l; }
refused() {
	rc_is 1 && [ "$(wc -l <"$TMP/err")" -eq 1 ] && err_has "$1" && err_has "$2" &&
		err_has "never followed out of the workspace"
}

# A: a files workspace with four checkpoints.
A=$TMP/A
WS=$A
mkdir -p "$WS"
run session create "task of A" --id s1
for node in n1 n2 n3 n4; do run checkpoint create s1 --node "$node"; done
check "A: four checkpoints on disk" test "$(count "$A/.agent/checkpoints/s1")" -eq 4

# B on PostgreSQL, its checkpoints folder a link to A's: gc refuses.
export AGENT_STORAGE_URL=$URL
WS=$TMP/B
mkdir -p "$WS/.agent"
run session create "task of B" --id b1 --tenant t1 --user u1 --agent claude
check "B: a session in the database" rc_is 0
ln -s "$A/.agent/checkpoints" "$WS/.agent/checkpoints"
run gc --keep 1
check "gc on pg through a linked checkpoints folder is refused" \
	refused "$WS/.agent/checkpoints" "$A/.agent/checkpoints"
check "A keeps its 4 checkpoints (4 before, 4 after)" \
	test "$(count "$A/.agent/checkpoints/s1")" -eq 4

# C on PostgreSQL, its sessions folder a link out: nothing written on
# disk or in the database.
WS=$TMP/C
mkdir -p "$WS/.agent" "$TMP/target"
ln -s "$TMP/target" "$WS/.agent/sessions"
run session create "task" --id c1 --tenant t1 --user u1 --agent claude
check "session create on pg through a linked sessions folder is refused" \
	refused "$WS/.agent/sessions" "$TMP/target"
check "nothing written where the link leads" test "$(ls -A "$TMP/target" | wc -l)" -eq 0
check "no row in the database (only B's)" \
	test "$(sql "select count(*) from agentctl.sessions where id = 'c1'")" -eq 0

# Only .rollbacks a link out (the compensation record of a checkpoint
# rollback is written there even on PostgreSQL).
WS=$TMP/D
mkdir -p "$WS/.agent/sessions" "$TMP/rollbacks"
ln -s "$TMP/rollbacks" "$WS/.agent/sessions/.rollbacks"
run checkpoint list b1
check ".rollbacks linked out is refused on pg" \
	refused "$WS/.agent/sessions/.rollbacks" "$TMP/rollbacks"
check "nothing written there" test "$(ls -A "$TMP/rollbacks" | wc -l)" -eq 0

# Only the session's own folder below .rollbacks a link, to A's: a
# checkpoint rollback on pg read, rewrote and removed A's compensated.json.
WS=$TMP/E
mkdir -p "$WS"
run session create "task" --id e1 --tenant t1 --user u1 --agent claude
run session append e1 '{"role":"user","content":"before the checkpoint"}'
run checkpoint create e1 --id k1
run session append e1 '{"role":"user","content":"after the checkpoint"}'
mkdir -p "$A/.agent/sessions/.rollbacks/e1" "$WS/.agent/sessions/.rollbacks"
printf '{"sessionId":"e1","calls":{"c1":{"tool":"t","at":"x"}}}\n' \
	>"$A/.agent/sessions/.rollbacks/e1/compensated.json"
cp "$A/.agent/sessions/.rollbacks/e1/compensated.json" "$TMP/compensated.before"
ln -s "$A/.agent/sessions/.rollbacks/e1" "$WS/.agent/sessions/.rollbacks/e1"
run checkpoint rollback e1 k1 --yes
check "a rollback on pg through a linked .rollbacks/<id> is refused" \
	bash -c '[ "$0" -eq 1 ] && grep -qF "$1" "$2" && grep -qF "never followed out" "$2"' \
	"$RC" "$WS/.agent/sessions/.rollbacks/e1" "$TMP/err"
check "A's compensated.json is left as it was" \
	cmp -s "$A/.agent/sessions/.rollbacks/e1/compensated.json" "$TMP/compensated.before"
run session show e1 --json
check "the session keeps its 2 messages" test "$(jq '.conversationHistory | length' "$TMP/out")" -eq 2

finish
