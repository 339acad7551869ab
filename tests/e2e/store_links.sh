#!/usr/bin/env bash
# Store folders are never followed through a symbolic link out of the
# workspace (issue 23, item 4; DESIGN.md "Trust is given to content, not to
# a path"). With B's .agent/checkpoints a link to A's, `gc --keep 1` in B
# removed 3 of A's 4 checkpoints; with .agent/sessions a link out,
# `session create` wrote there. Now both are refused with one line naming
# the path and where the link leads, exit 1, nothing written or removed;
# the same for .agent itself, the journal, the operation log and the
# archive folders. A link that stays inside the workspace is followed, and
# a folder the operator configured outside it is used as given.
# Usage: store_links.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

err_has() { grep -qF -- "$1" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
count() { find "$1" -type f 2>/dev/null | wc -l; }
# Refused: exit 1, one line naming the path and where it leads.
refused() {
	rc_is 1 && err_is_one_line && err_has "$1" && err_has "$2" &&
		err_has "never followed out of the workspace"
}

A=$TMP/A
mkdir -p "$A"
WS=$A
run session create "task of A" --id s1
check "A: a session" rc_is 0
for node in n1 n2 n3 n4; do run checkpoint create s1 --node "$node"; done
check "A: four checkpoints" test "$(count "$A/.agent/checkpoints/s1")" -eq 4

# B's checkpoints folder is a link to A's: gc refuses, A keeps its four.
WS=$TMP/B
mkdir -p "$WS/.agent"
ln -s "$A/.agent/checkpoints" "$WS/.agent/checkpoints"
run gc --keep 1
check "gc through a linked checkpoints folder is refused" \
	refused "$WS/.agent/checkpoints" "$A/.agent/checkpoints"
check "A keeps its 4 checkpoints (4 before, 4 after)" \
	test "$(count "$A/.agent/checkpoints/s1")" -eq 4
run gc --keep 1 --dry-run
check "gc --dry-run is refused the same way" rc_is 1

# C's sessions folder is a link out: session create writes nothing there.
WS=$TMP/C
mkdir -p "$WS/.agent" "$TMP/target"
ln -s "$TMP/target" "$WS/.agent/sessions"
run session create "task" --id z
check "session create through a linked sessions folder is refused" \
	refused "$WS/.agent/sessions" "$TMP/target"
check "nothing is written where the link leads" test "$(ls -A "$TMP/target" | wc -l)" -eq 0
run session list
check "reading is refused too" rc_is 1

# The whole .agent a link to A's.
WS=$TMP/D
mkdir -p "$WS"
ln -s "$A/.agent" "$WS/.agent"
run session create "task" --id d1
check ".agent linked out is refused" refused "$WS/.agent" "$A/.agent"
check "nothing written in A" test ! -e "$A/.agent/sessions/d1.json"

# An archive folder inside the sessions folder a link out.
WS=$TMP/E
mkdir -p "$WS/.agent/sessions" "$TMP/archives"
ln -s "$TMP/archives" "$WS/.agent/sessions/.compactions"
run session create "task" --id e1
check ".compactions linked out is refused" \
	refused "$WS/.agent/sessions/.compactions" "$TMP/archives"

# The journal and the operation log, each a link to a file out.
WS=$TMP/F
mkdir -p "$WS/.agent"
printf '' >"$TMP/victim.jsonl"
ln -s "$TMP/victim.jsonl" "$WS/JOURNAL.jsonl"
run journal log '{"agent":"claude","action":"x"}'
check "a journal linked out is refused" refused "$WS/JOURNAL.jsonl" "$TMP/victim.jsonl"
check "nothing appended to its target" test ! -s "$TMP/victim.jsonl"
rm "$WS/JOURNAL.jsonl"
ln -s "$TMP/victim.jsonl" "$WS/.agent/operations.jsonl"
run session create "task" --id f1
check "an operation log linked out is refused" \
	refused "$WS/.agent/operations.jsonl" "$TMP/victim.jsonl"
# A link that leads nowhere (a file created through it would land there).
rm "$WS/.agent/operations.jsonl"
ln -s "$TMP/nowhere/ops.jsonl" "$WS/.agent/operations.jsonl"
run session create "task" --id f2
check "a dangling link is refused, naming what it holds" \
	bash -c '[ "$0" -eq 1 ] && grep -qF "$1" "$2"' "$RC" "$TMP/nowhere/ops.jsonl" "$TMP/err"
check "nothing created where it points" test ! -e "$TMP/nowhere"

# A session's own archive folder, below a .compactions or .rollbacks that
# is a real folder, linked to A's: compaction wrote its archive into A's
# folder, and a checkpoint rollback read, wrote and then removed A's
# compensated.json (A's record of compensations that ran). Refused now,
# before anything changes.
WS=$TMP/K
mkdir -p "$WS"
msgs() { jq '.conversationHistory | length' "$WS/.agent/sessions/$1.json"; }
run session create "task" --id s1
for i in $(seq 1 30); do
	run session append s1 "{\"role\":\"user\",\"content\":\"message $i with some words to count\"}"
done
run session create "task" --id s2
run session append s2 '{"role":"user","content":"before the checkpoint"}'
run checkpoint create s2 --id k1
run session append s2 '{"role":"user","content":"after the checkpoint"}'
mkdir -p "$A/.agent/sessions/.compactions/s1" "$A/.agent/sessions/.rollbacks/s2" \
	"$WS/.agent/sessions/.compactions" "$WS/.agent/sessions/.rollbacks"
printf '{"sessionId":"s2","calls":{"c1":{"tool":"t","at":"x"}}}\n' \
	>"$A/.agent/sessions/.rollbacks/s2/compensated.json"
cp "$A/.agent/sessions/.rollbacks/s2/compensated.json" "$TMP/compensated.before"
ln -s "$A/.agent/sessions/.compactions/s1" "$WS/.agent/sessions/.compactions/s1"
ln -s "$A/.agent/sessions/.rollbacks/s2" "$WS/.agent/sessions/.rollbacks/s2"
run session compact s1 --force
check "compaction through a linked archive folder is refused" \
	refused "$WS/.agent/sessions/.compactions/s1" "$A/.agent/sessions/.compactions/s1"
check "no archive written into A's folder" test "$(count "$A/.agent/sessions/.compactions/s1")" -eq 0
check "the session keeps its 30 messages" test "$(msgs s1)" -eq 30
run checkpoint rollback s2 k1 --yes
check "a checkpoint rollback through a linked archive folder is refused" \
	bash -c '[ "$0" -eq 1 ] && grep -qF "$1" "$2" && grep -qF "never followed out" "$2"' \
	"$RC" "$WS/.agent/sessions/.rollbacks/s2" "$TMP/err"
check "A's compensated.json is left as it was" \
	cmp -s "$A/.agent/sessions/.rollbacks/s2/compensated.json" "$TMP/compensated.before"
check "nothing else in A's rollbacks folder" test "$(count "$A/.agent/sessions/.rollbacks/s2")" -eq 1
check "the session keeps its 2 messages" test "$(msgs s2)" -eq 2

# A link that stays inside the workspace is followed.
WS=$TMP/G
mkdir -p "$WS/.agent/store"
ln -s store "$WS/.agent/sessions"
run session create "task" --id g1
check "a link inside the workspace is followed" rc_is 0
check "the session is where it leads" test -f "$WS/.agent/store/g1.json"
run gc --keep 1
check "gc runs there" rc_is 0

# The operator's own folder outside the workspace (user config,
# environment) is used as given, even through a link.
WS=$TMP/H
mkdir -p "$WS" "$TMP/operator-store"
ln -s "$TMP/operator-store" "$TMP/operator-link"
AGENT_SESSION_DIR=$TMP/operator-link run session create "task" --id h1
check "an operator's folder outside the workspace is used" rc_is 0
check "the session is there" test -f "$TMP/operator-store/h1.json"

finish
