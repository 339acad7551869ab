#!/usr/bin/env bash
# End-to-end checks of `agentctl gc` on the PostgreSQL store: the plan
# (--dry-run) changes no row, trace records of finished sessions and
# orchestration events a snapshot covers go by age only, compaction
# archives by --keep per session and by age, checkpoints by --keep and age
# (never a tombstone, a session's highest version or its newest
# non-tombstone), journal events only with --older-than (their seq not
# reused afterwards), a running session's trace and
# what is newer stay, seqs are not reused, a database without the schema
# is left as it is, and an unreachable store is one line without its
# password. Needs a server from the PG* variables: ctest runs it through
# tests/pg/with-postgres.sh.
# Usage: gc_pg.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

if ! psql -Atqc 'select 1' >/dev/null 2>&1; then
	echo "gc_pg: no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
fi
WS=$TMP/ws
mkdir -p "$WS/.agent"
DB=agentctl_gc_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
sql() { psql -d "$DB" -Atq -v ON_ERROR_STOP=1 -c "$1"; }
out_has() { grep -qF -- "$1" "$TMP/out"; }
no_password() { ! grep -qF -- "$PGPASSWORD" "$TMP/out" "$TMP/err"; }
rows() { sql "select count(*) from agentctl.$1"; }
everything() { sql "select (select count(*) from agentctl.log_records), (select count(*) from agentctl.compactions), (select string_agg(last_seq::text, ',' order by log) from agentctl.logs), (select count(*) from agentctl.checkpoints), (select count(*) from agentctl.journal_events)"; }
checkpoints_left() { sql "select string_agg(session_id || ':' || checkpoint_id, ',' order by session_id, version) from agentctl.checkpoints"; }

# ---- no schema: nothing to remove, nothing created ----
run --storage "$URL" gc --older-than 1d
check "no schema: exit 0" rc_is 0
check "no schema: no schema created" [ "$(sql "select count(*) from pg_namespace where nspname = 'agentctl'")" = 0 ]

# ---- the schema, and old and new records of every kind ----
"$AC" -w "$WS" --storage "$URL" memo write acme u1 user NOTE.md "x" >/dev/null
OLD="now() - interval '40 days'"
sql "insert into agentctl.sessions (tenant, id, status, created_at, updated_at) values
     ('acme', 'done', 'completed', now(), now()), ('acme', 'live', 'running', now(), now())"
sql "insert into agentctl.logs values ('acme', 'trace', 'done', 3), ('acme', 'trace', 'live', 1),
     ('acme', 'trace', 'gone', 1), ('acme', 'run', 'r1', 5)"
sql "insert into agentctl.log_records (tenant, kind, log, seq, at, data) values
     ('acme', 'trace', 'done', 1, $OLD, '{}'), ('acme', 'trace', 'done', 2, $OLD, '{}'),
     ('acme', 'trace', 'done', 3, now(), '{}'),
     ('acme', 'trace', 'live', 1, $OLD, '{}'),
     ('acme', 'trace', 'gone', 1, $OLD, '{}'),
     ('acme', 'run', 'r1', 1, $OLD, '{}'), ('acme', 'run', 'r1', 2, $OLD, '{}'),
     ('acme', 'run', 'r1', 3, $OLD, '{}'), ('acme', 'run', 'r1', 4, $OLD, '{}'),
     ('acme', 'run', 'r1', 5, now(), '{}')"
sql "insert into agentctl.snapshots (tenant, run_id, covers_seq, state) values ('acme', 'r1', 3, '{}')"
sql "insert into agentctl.compactions (tenant, session_id, at, first_seq, last_seq, messages) values
     ('acme', 'done', now() - interval '90 days', 1, 5, '[]'),
     ('acme', 'done', $OLD, 6, 9, '[]'),
     ('acme', 'done', now(), 10, 12, '[]'),
     ('acme', 'live', $OLD, 1, 3, '[]')"

# Checkpoints: 'done' has c1..c5 (c3 a tombstone, c5 new and the highest);
# 'live' has k1 and a tombstone k2 above it, both old.
ckpt() { # session id version tombstone age
	printf "('%s', '%s', %s, '%s', 1, '%s', now() - interval '%s', '{}')" "$1" "$2" "$3" \
		"$([ "$4" = t ] && echo tombstone || echo n)" "$4" "$5"
}
sql "insert into agentctl.checkpoints (session_id, checkpoint_id, version, node_id, messages, tombstone, saved_at, document) values
     $(ckpt done c1 1 f '40 days'), $(ckpt done c2 2 f '40 days'), $(ckpt done c3 3 t '40 days'),
     $(ckpt done c4 4 f '40 days'), $(ckpt done c5 5 f '0 days'),
     $(ckpt live k1 1 f '40 days'), $(ckpt live k2 2 t '40 days')"
# The journal: two old events and a new one, seqs from the logs row.
sql "insert into agentctl.logs values ('', 'journal', '', 3)"
sql "insert into agentctl.journal_events (seq, id, ts, agent, status, at, event) values
     (1, 'evt_1', '2026-01-01T00:00:00.000Z', 'Claude', 'SUCCESS', $OLD, '{}'),
     (2, 'evt_2', '2026-01-01T00:00:00.000Z', 'Claude', 'SUCCESS', $OLD, '{}'),
     (3, 'evt_3', '2026-01-01T00:00:00.000Z', 'Claude', 'SUCCESS', now(), '{}')"

# ---- the plan changes nothing ----
BEFORE=$(everything)
run --storage "$URL" gc --older-than 30d --dry-run
check "dry run: exit 0" rc_is 0
check "dry run: no row changed" [ "$(everything)" = "$BEFORE" ]
check "dry run: 3 trace records (finished and gone sessions)" out_has "trace postgresql://"
check "dry run: the trace item counts 3" eval 'grep "^would remove trace " "$TMP/out" | grep -qF "(3 records"'
check "dry run: 3 covered orchestration events" eval 'grep "orchestration events" "$TMP/out" | grep -qF "(3 records"'
check "dry run: 3 old compaction archives" eval 'grep "compaction archive" "$TMP/out" | grep -qF "(3 records"'
check "dry run: 3 old checkpoints (not a tombstone, the highest or the newest)" \
	eval 'grep "^would remove checkpoint postgresql://.* checkpoints " "$TMP/out" | grep -qF "(3 records"'
check "dry run: 2 old journal events" \
	eval 'grep "^would remove journal events postgresql://.* journal_events " "$TMP/out" | grep -qF "(2 records"'
check "dry run: the total" out_has "would free"
check "dry run: no password shown" no_password
run --storage "$URL" gc --keep 1 --dry-run
check "keep 1: archives beyond the newest of each session (2)" eval 'grep "compaction archive" "$TMP/out" | grep -qF "(2 records"'
check "keep 1: traces go by age only" eval '! grep -q "^would remove trace" "$TMP/out"'
check "keep 1: the journal goes only with --older-than" eval '! grep -q "journal events" "$TMP/out"'
run --storage "$URL" gc --keep 2 --dry-run
check "keep 2: checkpoints beyond the newest 2 non-tombstones (c1, c2)" \
	eval 'grep "^would remove checkpoint " "$TMP/out" | grep -qF "(2 records, not among the newest 2"'
run --storage "$URL" gc --keep 0 --dry-run
check "keep 0: the newest non-tombstone and the highest stay anyway (c1, c2, c4)" \
	eval 'grep "^would remove checkpoint " "$TMP/out" | grep -qF "(3 records"'

# ---- the real run ----
run --storage "$URL" gc --keep 1 --older-than 30d
check "gc: exit 0" rc_is 0
check "gc: says what it freed" out_has "freed"
check "gc: the finished session's new trace record stays" [ "$(sql "select string_agg(seq::text, ',') from agentctl.log_records where kind = 'trace' and log = 'done'")" = 3 ]
check "gc: the running session's trace stays" [ "$(sql "select count(*) from agentctl.log_records where kind = 'trace' and log = 'live'")" = 1 ]
check "gc: the gone session's trace went" [ "$(sql "select count(*) from agentctl.log_records where log = 'gone'")" = 0 ]
check "gc: events the snapshot covers went, the rest stay" [ "$(sql "select string_agg(seq::text, ',' order by seq) from agentctl.log_records where kind = 'run'")" = "4,5" ]
check "gc: the newest archive of each session stays" [ "$(sql "select string_agg(session_id || first_seq, ',' order by session_id, first_seq) from agentctl.compactions")" = "done10,live1" ]
check "gc: seqs are not reused (logs keep last_seq)" [ "$(sql "select string_agg(last_seq::text, ',' order by log) from agentctl.logs")" = "3,3,1,1,5" ]
check "gc: old checkpoints went; tombstones, the highest and the newest stay" \
	[ "$(checkpoints_left)" = "done:c3,done:c5,live:k1,live:k2" ]
check "gc: old journal events went, the new one stays" \
	[ "$(sql "select string_agg(seq::text, ',' order by seq) from agentctl.journal_events")" = 3 ]
run --storage "$URL" journal log '{"agent":"Claude","status":"SUCCESS","action":{"type":"ANALYSIS","params":{}},"result":{"message":"after gc"}}'
check "a journal event after gc takes the next seq, not a removed one" \
	eval 'rc_is 0 && [ "$(sql "select string_agg(seq::text, '"','"' order by seq) from agentctl.journal_events")" = "3,4" ]'
check "gc: the sessions stay" [ "$(rows sessions)" = 2 ]
run --storage "$URL" gc --keep 1 --older-than 30d
check "gc again: nothing more" out_has "freed 0 bytes"

# ---- a database at schema version 2: no checkpoints or journal tables ----
DB2=${DB}_v2
psql -Atqc "CREATE DATABASE $DB2" >/dev/null
URL2="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB2"
"$AC" -w "$WS" --storage "$URL2" memo write acme u1 user NOTE.md "x" >/dev/null
psql -d "$DB2" -Atq -c "drop table agentctl.checkpoints, agentctl.journal_events;
  delete from agentctl.agentctl_migrations where version >= 3" >/dev/null
run --storage "$URL2" gc --keep 1 --older-than 1d --dry-run
check "an older schema: gc skips the tables it lacks, exit 0" eval 'rc_is 0 && ! grep -q "checkpoint\|journal events" "$TMP/out"'
check "an older schema: gc migrates nothing" [ "$(psql -d "$DB2" -Atqc "select max(version) from agentctl.agentctl_migrations")" = 2 ]
psql -Atqc "DROP DATABASE IF EXISTS $DB2" >/dev/null

# ---- a URL from an untrusted project file is not used ----
WS2=$TMP/ws2
mkdir -p "$WS2/.agent"
printf '{"storage":{"url":"%s"}}\n' "$URL" >"$WS2/.agent/config.json"
BEFORE=$(everything)
"$AC" -w "$WS2" gc --older-than 1m >"$TMP/out" 2>"$TMP/err"
check "untrusted storage.url: refused" [ $? -ne 0 ]
check "untrusted storage.url: one line naming the key" eval '[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q storage.url "$TMP/err"'
check "untrusted storage.url: no row changed" [ "$(everything)" = "$BEFORE" ]

# ---- an unreachable store ----
run --storage "postgresql://u:sekrit@127.0.0.1:1/none" gc --keep 1
check "unreachable: exit 1" rc_is 1
check "unreachable: one line" [ "$(wc -l <"$TMP/err")" -eq 1 ]
check "unreachable: no password" eval '! grep -q sekrit "$TMP/err"'

finish
