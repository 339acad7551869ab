#!/usr/bin/env bash
# Checkpoints as seed 002's own code writes them (issue 26, items 2 and 6),
# by tests/e2e/lib/seed002_checkpoint.js: no sessionId (the folder names
# the session), Koog's tombstone, Koog's own layout (no .json); and
# `rollback --latest` when the newest is a tombstone. Item 5: a rollback to
# a checkpoint older than the last compaction (Koog restores it and skips
# the compensations; here only those of calls before the compaction). The
# same cases on
# PostgreSQL: checkpoint_seed002_pg.sh (it sources this with STORE=pg).
# Usage: checkpoint_seed002.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
SEED=$(dirname "$0")/lib/seed002_checkpoint.js
A=aaaaaaaa-0000-4000-8000-000000000001
B=aaaaaaaa-0000-4000-8000-000000000002
K=aaaaaaaa-0000-4000-8000-00000000000b

err_has() { grep -qE -- "$1" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
history_of() { "$AC" -w "$WS" session show "${1:-s1}" --json | jq -c .conversationHistory; }
# seed CMD ARGS...: the seed's writer into the workspace's checkpoint
# folder, the session document (the agent's context) on its stdin.
seed() {
	local cmd=$1
	shift
	"$AC" -w "$FILES" session show s1 --json |
		node "$SEED" "$cmd" "$FILES/.agent/checkpoints" s1 "$@" >/dev/null
}
append() { echo "$1" | "$AC" -w "$FILES" session append s1 - >/dev/null; }

# The seed's files are written into a files workspace; on PostgreSQL it is
# then copied in (storage migrate), which reads them as the file store does.
PG_URL=${AGENT_STORAGE_URL:-}
unset AGENT_STORAGE_URL
FILES=$TMP/files
WS=$FILES
mkdir -p "$FILES/.agent"
printf '{"rollbackTools":{"createUser":["/bin/sh","-c","cat >> %s/LOG; echo >> %s/LOG"]}}\n' \
	"$TMP" "$TMP" >"$FILES/.agent/config.json"
"$AC" -w "$FILES" config trust >/dev/null
"$AC" -w "$FILES" session create t --id s1 --tenant acme >/dev/null
append '[{"role":"user","content":"make users"},{"role":"assistant","content":"ok"}]'
seed create plan 1 "$A"
append '[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"createUser","input":{"name":"Daniel"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]'
seed create act 2 "$B"
seed tombstone 3
# Koog's own layout is a files matter (storage migrate names it as unread).
[ "${STORE:-files}" = files ] && seed create act 4 "$K" --koog
append '[{"role":"assistant","content":"done"}]'
check "the seed's checkpoint has no sessionId" \
	jq_is "$FILES/.agent/checkpoints/s1/$A.json" 'has("sessionId")' false
if [ "${STORE:-files}" = pg ]; then
	"$AC" -w "$FILES" storage migrate --to "$PG_URL" >"$TMP/out" 2>"$TMP/err"
	check "storage migrate copies the seed's checkpoints" eval '[ $? -eq 0 ]'
	export AGENT_STORAGE_URL=$PG_URL
	WS=$TMP/pg
	mkdir -p "$WS/.agent"
	cp "$FILES/.agent/config.json" "$WS/.agent/"
	"$AC" -w "$WS" config trust >/dev/null
fi

# ---- item 2: the session from the folder; Koog's layout named ---------
run checkpoint list s1 --json
check "list: exit 0" rc_is 0
check "list: the seed's two checkpoints and its tombstone, by version" \
	eval '[ "$(jq -c "[.[] | [.version, .tombstone]]" "$TMP/out")" = "[[1,false],[2,false],[3,true]]" ]'
if [ "${STORE:-files}" = files ]; then
	check "list: Koog's own layout named in one line, not silently skipped" \
		eval 'err_is_one_line && err_has "checkpoints/s1/$K: not read: .*Koog"'
	check "list: no 'sessionId: missing'" eval '! err_has "sessionId"'
fi

# ---- item 6: a tombstone newest --------------------------------------
BEFORE=$(history_of)
run checkpoint rollback s1 --latest --yes
check "rollback --latest, tombstone newest: exit 1" rc_is 1
check "... one line: the newest checkpoint is a tombstone, name an older one" \
	eval 'err_has "newest checkpoint .* \\(version 3\\) is a tombstone.*name an older checkpoint" &&
		[ "$(grep -vc Koog "$TMP/err")" -eq 1 ]'
check "... nothing changed" eval '[ "$(history_of)" = "$BEFORE" ]'
check "... no compensation ran" test ! -e "$TMP/LOG"

# ---- a seed checkpoint as a rollback's target ---------------------------
run checkpoint rollback s1 "$A" --yes
check "rollback to the seed's first checkpoint: exit 0" rc_is 0
check "... its history is the session's again" \
	eval '[ "$(history_of)" = "$(jq -c .messageHistory "$FILES/.agent/checkpoints/s1/$A.json")" ]'
check "... createUser Daniel compensated" grep -q Daniel "$TMP/LOG"

# ---- item 5: a checkpoint older than the last compaction ----------------
"$AC" -w "$WS" session create t --id s2 --tenant acme >/dev/null
add2() { echo "$1" | "$AC" -w "$WS" session append s2 - >/dev/null; }
add2 '[{"role":"user","content":"make users"},{"role":"assistant","content":"ok"}]'
OLD=$("$AC" -w "$WS" checkpoint create s2)
add2 '[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"createUser","input":{"name":"Daniel"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},{"role":"assistant","content":"more"},{"role":"user","content":"next"}]'
run session compact s2 --force
check "compact: exit 0" rc_is 0
check "compact: the checkpoint's messages are summarised" \
	eval '[ "$(history_of s2 | jq ".[0].content | startswith(\"[Conversation summary]\")")" = true ]'
add2 '[{"role":"assistant","content":[{"type":"tool_use","id":"t9","name":"createUser","input":{"name":"Zed"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"ok"}]}]'
rm -f "$TMP/LOG"
run checkpoint rollback s2 "$OLD" --yes
check "rollback behind the compaction: exit 0" rc_is 0
check "... the plan says it is rebuilt from the compaction's archive" \
	grep -q "older than the session's last compaction: its history is rebuilt from the archive of 1 compaction" "$TMP/out"
check "... and that the call before the compaction is not compensated" \
	grep -q "compensations skipped for 1 tool call(s) made before the compaction" "$TMP/out"
check "... only the call after the compaction compensated (Zed, not Daniel)" \
	eval '[ "$(cat "$TMP/LOG")" = "{\"name\":\"Zed\"}" ]'
check "... the session holds the checkpoint's history" \
	eval '[ "$(history_of s2)" = "[{\"role\":\"user\",\"content\":\"make users\"},{\"role\":\"assistant\",\"content\":\"ok\"}]" ]'
run checkpoint rollback s2 "$OLD" --yes
check "again: nothing to roll back (the compaction is not unfolded twice)" \
	eval 'rc_is 0 && grep -q "is already at checkpoint" "$TMP/out"'

finish
