#!/usr/bin/env bash
# Issue 26 item 4 (seed 001 §7a): `session compact` on the files moves
# large tool results to the session's artifacts before it summarises, as
# the library's compact_if_needed and the PostgreSQL store do, instead of
# summarising them away. The session is written by seed 000's own
# JsonSessionStore (tests/e2e/lib/seed000.js) with its tenant in metadata,
# and read back by JSON.parse after.
# Usage: compact_artifacts.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
command -v node >/dev/null || { echo "node missing: skipped"; exit 0; }
SEED=$(cd "$(dirname "$0")/lib" && pwd)/seed000.js
WS=$TMP/ws
S=$WS/.agent/sessions
mkdir -p "$S"

# ID METADATA: 8 messages; a 9000-byte tool result early (summarised) and
# one late (kept), each after its tool call.
seed_session() {
	node -e '
const [id, meta] = process.argv.slice(1);
const big = (tag) => `${tag} ` + "0123456789abcdef".repeat(560);
const call = (tid) => ({ role: "assistant", content: [{ type: "tool_use", id: tid, name: "read_file", input: { path: "big.txt" } }] });
const result = (tid) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: tid, content: big(tid) }] });
const msgs = [{ role: "user", content: "read big.txt" }, call("toolu_early"), result("toolu_early"),
  { role: "assistant", content: "done" }, { role: "user", content: "again" }, call("toolu_late"), result("toolu_late"),
  { role: "assistant", content: "done again" }];
process.stdout.write(JSON.stringify({ id, createdAt: "2025-09-03T14:25:10.591Z", updatedAt: "2025-09-03T14:25:10.591Z",
  task: "read", status: "running", conversationHistory: msgs, metadata: JSON.parse(meta) }));' "$@" |
		node "$SEED" save "$S"
}
content_of() { # ID INDEX: the tool result's content at message INDEX, by JSON.parse
	node -e 'const s = JSON.parse(require("fs").readFileSync(process.argv[1])); const c = s.conversationHistory[Number(process.argv[2])].content; console.log(Array.isArray(c) ? c[0].content : c)' "$S/$1.json" "$2"
}

seed_session s1 '{"tenantId":"t1","userId":"u1","agentId":"a1"}'
original=$(content_of s1 6)
run session compact s1 --force
check "compact: exit 0" rc_is 0
check "compact: says both results moved to artifacts" \
	eval 'grep -q "2 tool results over 4096 bytes moved to artifacts" "$TMP/err"'
run artifact list s1
check "artifact list: both tool calls" eval 'grep -q toolu_early "$TMP/out" && grep -q toolu_late "$TMP/out"'
run artifact show s1 toolu_late
check "artifact show: the result whole" eval '[ "$OUT" = "$original" ]'
run artifact show s1 toolu_early
check "artifact show: the summarised one's result whole too" eval '[ "$(printf %s "$OUT" | wc -c)" = 8972 ]'
late=$(node -e 'const s = JSON.parse(require("fs").readFileSync(process.argv[1])); const m = s.conversationHistory.find((m) => Array.isArray(m.content) && m.content[0].tool_use_id === "toolu_late"); console.log(m.content[0].content)' "$S/s1.json")
check "the session (JSON.parse) holds the reference where the result was" \
	eval 'case "$late" in "[artifact toolu_late: 8971 bytes; agentctl artifact show s1 toolu_late]"*) true ;; *) false ;; esac'
check "the summary replaced the oldest messages" \
	eval 'node -e "const s = JSON.parse(require(\"fs\").readFileSync(process.argv[1])); process.exit(/^\[Conversation summary\]/.test(s.conversationHistory[0].content) ? 0 : 1)" "$S/s1.json"'

# A session of no tenant has no artifact store: said, and nothing lost
# (the compaction archive holds the originals).
seed_session s2 '{}'
run session compact s2 --force
check "no tenant: exit 0" rc_is 0
check "no tenant: the results that stay inline are named" \
	eval 'grep -q "2 tool results over 4096 bytes not moved to artifacts: the session has no metadata.tenantId" "$TMP/err"'
check "no tenant: archived" eval 'ls "$S/.compactions/s2/"*.json >/dev/null 2>&1'
finish
