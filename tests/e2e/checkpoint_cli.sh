#!/usr/bin/env bash
# End-to-end checks of `agentctl checkpoint ...`: create, list, rollback
# with compensations from rollbackTools, and the error exits. On either
# store (lib/store.sh: STORE=files|pg); the checkpoint files' own cases (a
# corrupt file, one Koog wrote) are the files'.
# Usage: [STORE=pg] checkpoint_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
UUID_RE='[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}'

out_has() { grep -qE -- "$1" "$TMP/out"; }
err_has() { grep -qE -- "$1" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
# The session s1 as the store holds it: its digest, its message count.
doc_sum() { doc_of s1 | sha256sum; }
messages_in() { doc_of s1 | jq '.conversationHistory | length'; }
# ckpt_doc ID: checkpoint ID of s1 as the store holds it, in $TMP/ck.json.
ckpt_doc() {
	if on_pg; then
		psql -d "$STORE_DB" -Atc "select document from agentctl.checkpoints where session_id = 's1' and checkpoint_id = '$1'" >"$TMP/ck.json"
	else
		cat "$WS/.agent/checkpoints/s1/$1.json" >"$TMP/ck.json" 2>/dev/null
	fi
	[ -s "$TMP/ck.json" ]
}
# ckpt_is ID FILTER VALUE: FILTER applied to checkpoint ID gives VALUE.
ckpt_is() { ckpt_doc "$1" && jq_is "$TMP/ck.json" "$2" "$3"; }
ckpt_count() {
	if on_pg; then
		psql -d "$STORE_DB" -Atc "select count(*) from agentctl.checkpoints where session_id = 's1'"
	else
		find "$WS/.agent/checkpoints/s1" -maxdepth 1 -type f | wc -l
	fi
}

BASE='{"role":"user","content":"make users"},{"role":"assistant","content":"ok"}'
# After the checkpoint: createUser Daniel (t1), sendMail (t2, no
# compensation), createUser Maria as an OpenAI call (c3).
TOOLS=',{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"createUser","input":{"name":"Daniel"}}]}'
TOOLS+=',{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}'
TOOLS+=',{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"sendMail","input":{"to":"x"}}]}'
TOOLS+=',{"role":"assistant","content":null,"tool_calls":[{"id":"c3","type":"function","function":{"name":"createUser","arguments":"{\"name\":\"Maria\"}"}}]}'

# write_session MESSAGES: session s1 with that conversationHistory body
# (an agent saved it; on the database the session is replaced by that
# document, its checkpoints kept).
write_session() {
	printf '{"id":"s1","createdAt":"2025-01-01T00:00:00.000Z","updatedAt":"2025-01-01T00:00:00.000Z","task":"t","status":"running","conversationHistory":[%s],"metadata":{"agentId":"claude"},"x-keep":1}\n' "$1" >"$S"
	if on_pg; then
		psql -d "$STORE_DB" -Atqc "delete from agentctl.sessions where id = 's1'" 2>/dev/null
		store_seed acme
	fi
}

# new_ws [COMMAND_JSON]: a workspace whose createUser compensation is
# COMMAND_JSON (default: append stdin and a newline to LOG).
new_ws() {
	store_fresh
	WS=$(mktemp -d "$TMP/ws.XXXXXX")
	LOG=$WS/LOG
	S=$WS/.agent/sessions/s1.json
	mkdir -p "$WS/.agent/sessions"
	local cmd=${1:-"[\"/bin/sh\",\"-c\",\"cat >> '$LOG'; echo >> '$LOG'\"]"}
	printf '{"rollbackTools":{"createUser":%s}}\n' "$cmd" >"$WS/.agent/config.json"
	# The project file is written by agents: its commands run once trusted.
	"$AC" -w "$WS" config trust >/dev/null
	write_session "$BASE"
}

# ---- create and list ----------------------------------------------------
new_ws
run checkpoint create s1
check "create: exit 0" rc_is 0
check "create: prints the id, a UUID v4, alone" eval '[ "$(grep -cxE "$UUID_RE" "$TMP/out")" = 1 ] && [ "$(wc -l <"$TMP/out")" = 1 ]'
FIRST=$(grep -oE "$UUID_RE" "$TMP/out")
check "create: stored" ckpt_doc "$FIRST"
check "create: version 1" ckpt_is "$FIRST" .version 1
run checkpoint create s1 --node plan
check "create --node: exit 0" rc_is 0
SECOND=$(grep -oE "$UUID_RE" "$TMP/out")
check "create --node: version 2, node plan" \
	ckpt_is "$SECOND" '"\(.version) \(.nodeId)"' "2 plan"
check "create: parentId is the previous latest" \
	ckpt_is "$SECOND" .parentId "$FIRST"
run checkpoint list s1
check "list: exit 0" rc_is 0
check "list: version 1 first" eval '[ "$(sed -n 2p "$TMP/out" | awk "{print \$1, \$2}")" = "1 $FIRST" ]'
check "list: version 2 second" eval '[ "$(sed -n 3p "$TMP/out" | awk "{print \$1, \$2, \$3}")" = "2 $SECOND plan" ]'
run checkpoint list s1 --json
check "list --json: exit 0" rc_is 0
check "list --json: two checkpoints" eval '[ "$(jq length <"$TMP/out")" = 2 ]'
check "list --json: messages counted" eval '[ "$(jq ".[1].messages" <"$TMP/out")" = 2 ]'

# ---- rollback --latest --------------------------------------------------
write_session "$BASE$TOOLS"
BEFORE=$(doc_sum)
# rollbackTools from a project file changed since `config trust`: refused.
cp "$WS/.agent/config.json" "$TMP/trusted-config.json"
printf ' \n' >>"$WS/.agent/config.json"
run checkpoint rollback s1 --latest --yes
check "untrusted rollbackTools: exit 1" rc_is 1
check "untrusted rollbackTools: one line naming the key, the file, how to trust" \
	eval 'err_is_one_line && err_has "rollbackTools comes from .*config.json, which is not trusted.*config trust"'
check "untrusted rollbackTools: session unchanged" eval '[ "$(doc_sum)" = "$BEFORE" ]'
check "untrusted rollbackTools: nothing ran" test ! -e "$LOG"
cp "$TMP/trusted-config.json" "$WS/.agent/config.json"
run checkpoint rollback s1 --latest
check "rollback without --yes on a non-tty: exit 2" rc_is 2
check "rollback without --yes: says needs --yes" err_has "needs --yes"
check "rollback without --yes: plan printed" out_has "messages that will be removed: 4"
check "rollback without --yes: session unchanged" eval '[ "$(doc_sum)" = "$BEFORE" ]'
check "rollback without --yes: nothing ran" test ! -e "$LOG"
run checkpoint rollback s1 --latest --yes
check "rollback --latest --yes: exit 0" rc_is 0
check "rollback: plan lists the unconfigured tool" out_has "sendMail call t2: no compensation configured"
check "rollback: plan lists the command" out_has 'createUser call c3: \["/bin/sh","-c"'
check "rollback: newest first in the plan" \
	eval '[ "$(grep -oE "call (c3|t2|t1)" "$TMP/out" | tr "\n" " ")" = "call c3 call t2 call t1 " ]'
check "rollback: compensations ran newest first with their arguments" \
	eval '[ "$(cat "$LOG")" = "$(printf "{\"name\":\"Maria\"}\n{\"name\":\"Daniel\"}")" ]'
check "rollback: history cut to the checkpoint" eval '[ "$(messages_in)" = 2 ]'
check "rollback: unknown keys kept" eval '[ "$(doc_of s1 | jq ".\"x-keep\"")" = 1 ]'
check "rollback: journaled" \
	eval '"$AC" -w "$WS" journal query action.type=ROLLBACK --json | jq -e "length == 1" >/dev/null'
run checkpoint rollback s1 --latest --yes
check "rollback again: nothing to do, exit 0" rc_is 0
check "rollback again: says so" out_has "nothing to roll back"

# ---- tombstones -----------------------------------------------------------
run checkpoint create s1 --node tombstone
check "tombstone create: version 3" \
	ckpt_is "$(cat "$TMP/out")" .version 3
run checkpoint list s1
check "list marks the tombstone" out_has "tombstone.*\(tombstone\)"
write_session "$BASE$TOOLS"
rm -f "$LOG"
BEFORE=$(doc_sum)
run checkpoint rollback s1 --latest --yes
check "rollback --latest with a tombstone newest: exit 1 (Koog: the run finished)" rc_is 1
check "... one line saying the newest is a tombstone" \
	eval 'err_is_one_line && err_has "newest checkpoint .* is a tombstone"'
check "... the session unchanged" eval '[ "$(doc_sum)" = "$BEFORE" ]'
run checkpoint rollback s1 "$SECOND" --yes
check "rollback by id to the checkpoint before the tombstone" out_has "to checkpoint $SECOND"
write_session "$BASE$TOOLS"
check "rollback by id to the first checkpoint" eval 'run checkpoint rollback s1 "$FIRST" --yes; rc_is 0'

# ---- a failing compensation ----------------------------------------------
new_ws '["/bin/sh","-c","echo refused >&2; exit 3"]'
run checkpoint create s1
write_session "$BASE$TOOLS"
BEFORE=$(doc_sum)
run checkpoint rollback s1 --latest --yes
check "failing compensation: exit 1" rc_is 1
check "failing compensation: names the tool and call" err_has "createUser.*c3"
check "failing compensation: says how it failed" err_has "status 3"
check "failing compensation: one line" err_is_one_line
check "failing compensation: session byte-identical" eval '[ "$(doc_sum)" = "$BEFORE" ]'

# ---- refusals and errors ------------------------------------------------
new_ws
run checkpoint create s1
ID=$(grep -oE "$UUID_RE" "$TMP/out")
write_session '{"role":"user","content":"make users"},{"role":"assistant","content":"changed"}'
run checkpoint rollback s1 --latest --yes
check "diverged history: exit 1" rc_is 1
check "diverged history: names the index" err_has "index 1 differs"
write_session '{"role":"user","content":"make users"}'
run checkpoint rollback s1 "$ID" --yes
check "checkpoint longer than session: exit 1" rc_is 1
check "checkpoint longer than session: says so" err_has "holds 2 messages"
run checkpoint list nope
check "list unknown session: exit 1" rc_is 1
check "list unknown session: names it" err_has "nope"
run checkpoint create nope
check "create unknown session: exit 1" rc_is 1
run checkpoint rollback s1 nope --yes
check "rollback unknown checkpoint: exit 1" rc_is 1
check "rollback unknown checkpoint: names it" err_has "'nope'"
run checkpoint list ../x
check "list bad session id: exit 2" rc_is 2
run checkpoint rollback s1 ../../x --yes
check "rollback bad checkpoint id: exit 2" rc_is 2
run checkpoint create ../s1
check "create bad session id: exit 2" rc_is 2
# A new checkpoint id the operator types is held to the store's rules, as
# session create --id is: an escape byte would be shown as look-alike text.
run checkpoint create s1 --id "$(printf 'c\033[0m')"
check "create --id with a control byte: exit 2, one line" eval 'rc_is 2 && err_has "holds a control byte"'
run checkpoint rollback s1
check "rollback with neither CKPT nor --latest: exit 2" rc_is 2
run --read-only checkpoint create s1
check "read-only create: exit 2" rc_is 2
run --read-only checkpoint rollback s1 --latest --yes
check "read-only rollback: exit 2" rc_is 2
run --read-only checkpoint list s1
check "read-only list: exit 0" rc_is 0

# ---- a corrupt checkpoint file is reported and skipped -------------------
# Skipped on the database: it holds the checkpoints that parsed.
if ! on_pg; then
	printf '{oops' >"$WS/.agent/checkpoints/s1/broken.json"
	run checkpoint list s1 --json
	check "corrupt file: list still exit 0" rc_is 0
	check "corrupt file: reported by name" err_has "broken.json"
	check "corrupt file: the good one listed" eval '[ "$(jq length <"$TMP/out")" = 1 ]'
fi

# ---- tombstones: Koog's form read, and written -------------------------
# Koog's tombstoneCheckpoint(): an empty history and properties.tombstone =
# true (its node is not "tombstone" in newer versions). As the newest
# checkpoint it must not be taken for "latest": an empty history is a
# prefix of every history, and rolling back to it emptied the session.
new_ws
write_session "$BASE$TOOLS"
run checkpoint create s1 --node plan
REAL=$(grep -oE "$UUID_RE" "$TMP/out")
write_session "$BASE$TOOLS"',{"role":"assistant","content":"after"}'
# Skipped on the database: Koog writes its file; a database gets it by
# storage migrate (storage_migrate_pg.sh, checkpoint_seed002_pg.sh).
if ! on_pg; then
	KOOG=0b0b0b0b-0000-4000-8000-00000000000b
	printf '{"checkpointId":"%s","sessionId":"s1","createdAt":"2025-01-02T00:00:00Z","version":2,"nodeId":"__finish__","lastInput":null,"messageHistory":[],"properties":{"tombstone":true}}\n' \
		"$KOOG" >"$WS/.agent/checkpoints/s1/$KOOG.json"
	run checkpoint list s1
	check "koog tombstone: listed as a tombstone" eval 'grep "$KOOG" "$TMP/out" | grep -q "(tombstone)"'
	run checkpoint list s1 --json
	check "koog tombstone: --json says tombstone" \
		eval '[ "$(jq -r ".[] | select(.checkpointId == \"$KOOG\") | .tombstone" <"$TMP/out")" = true ]'
	BEFORE=$(doc_sum)
	run checkpoint rollback s1 --latest --yes
	check "koog tombstone newest: rollback --latest exit 1" rc_is 1
	check "koog tombstone newest: one line naming it, the session unchanged" \
		eval 'err_is_one_line && err_has "$KOOG.* is a tombstone" && [ "$(doc_sum)" = "$BEFORE" ]'
	run checkpoint rollback s1 "$KOOG" --yes
	check "rollback to a tombstone by id: exit 1" rc_is 1
	check "... one line saying it is a tombstone" eval 'err_is_one_line && err_has "is a tombstone"'
	check "... the session unchanged" eval '[ "$(doc_sum)" = "$BEFORE" ]'
fi
run checkpoint create s1 --tombstone
check "create --tombstone: exit 0" rc_is 0
MINE=$(grep -oE "$UUID_RE" "$TMP/out")
check "create --tombstone: written as Koog does (empty history, properties.tombstone)" \
	ckpt_is "$MINE" '"\(.messageHistory | length) \(.properties.tombstone) \(.nodeId)"' "0 true tombstone"
run checkpoint rollback s1 --latest
check "our tombstone newest: --latest refused too, naming it" \
	eval 'rc_is 1 && err_has "$MINE.* is a tombstone"'
run checkpoint rollback s1 "$REAL"
check "the checkpoint before it, named: the plan names it" out_has "$REAL"

# ---- the runtime half: automatic persistence, versions, the provider -----
new_ws
run checkpoint auto s1 on
check "auto on: exit 0" rc_is 0
doc_of s1 >"$TMP/doc.json"
check "auto on: recorded in the session" jq_is "$TMP/doc.json" .metadata.persistence.automatic true
check "auto on: other keys kept" jq_is "$TMP/doc.json" '."x-keep"' 1
run session record-turn s1 --input 10 --output 5
check "record-turn with automatic persistence: exit 0" rc_is 0
run session record-turn s1 --input 10 --output 5 --messages '{"role":"assistant","content":"two"}'
run checkpoint list s1 --json
check "a checkpoint per completed turn (turn-1, turn-2)" \
	eval '[ "$(jq -r "[.[].nodeId] | join(\",\")" <"$TMP/out")" = "turn-1,turn-2" ]'
check "... the second holds the turn's message" \
	eval '[ "$(jq -r ".[-1].messages" <"$TMP/out")" = 3 ]'
run checkpoint auto s1 off
run session record-turn s1 --input 1 --output 1
run checkpoint list s1 --json
check "auto off: no more automatic checkpoints" eval '[ "$(jq length <"$TMP/out")" = 2 ]'
run checkpoint auto s1 sometimes
check "auto with a bad value: exit 2" rc_is 2
run checkpoint auto nope on
check "auto on a missing session: exit 1" rc_is 1
run checkpoint create s1 --id run-1 --version 0
check "create --version 0 (Koog's example): exit 0" rc_is 0
check "... version 0 written" ckpt_is run-1 .version 0
run checkpoint create s1 --id run-2 --version 0
check "create --version taken: exit 1 naming the holder" eval 'rc_is 1 && err_has "taken by run-1"'
run checkpoint create s1 --version -3
check "create --version -3: exit 2" rc_is 2
AGENT_CHECKPOINT_PROVIDER=none run checkpoint create s1
check "provider none: create exit 1, saying nothing was saved" \
	eval 'rc_is 1 && err_has "checkpoint.provider is none"'
run checkpoint auto s1 on
BEFORE=$(ckpt_count)
AGENT_CHECKPOINT_PROVIDER=none run session record-turn s1 --input 1 --output 1
check "provider none: a turn saves no checkpoint" \
	eval 'rc_is 0 && [ "$(ckpt_count)" = "$BEFORE" ]'
run checkpoint list s1 --json
LATEST=$(jq -r '.[-1].checkpointId' <"$TMP/out")
run session append s1 '{"role":"user","content":"after the turn"}'
run checkpoint rollback s1 --latest --yes
check "rollback: exit 0" rc_is 0
check "rollback: the execution point restored (node and checkpoint)" \
	eval 'doc_of s1 >"$TMP/doc.json" && jq_is "$TMP/doc.json" ".metadata.executionPoint | \"\\(.nodeId) \\(.checkpointId)\"" "turn-2 $LATEST"'

finish
