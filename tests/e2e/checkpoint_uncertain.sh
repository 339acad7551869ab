#!/usr/bin/env bash
# A checkpoint rollback killed while a compensation runs (issue 23, item
# 12), on the file store: see lib/checkpoint_uncertain.sh.
# checkpoint_uncertain_pg.sh is the PostgreSQL store's.
# Usage: checkpoint_uncertain.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

WS=$TMP/ws
mkdir -p "$WS/.agent/sessions"
BASE='{"role":"user","content":"make users"},{"role":"assistant","content":"ok"}'
TOOLS=',{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"createUser","input":{"name":"Daniel"}}]}'
TOOLS+=',{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}'
TOOLS+=',{"role":"assistant","content":[{"type":"tool_use","id":"c3","name":"createUser","input":{"name":"Maria"}}]}'
write_session() {
	printf '{"id":"s1","createdAt":"2025-01-01T00:00:00.000Z","updatedAt":"2025-01-01T00:00:00.000Z","task":"t","status":"running","conversationHistory":[%s],"metadata":{}}\n' \
		"$1" >"$WS/.agent/sessions/s1.json"
}
make_session() {
	write_session "$BASE"
	CKPT=$("$AC" -w "$WS" checkpoint create s1)
	write_session "$BASE$TOOLS"
}
UNCERTAIN_FLAG=--skip-uncertain
. "$(dirname "$0")/lib/checkpoint_uncertain.sh"
check "the session is back at the checkpoint" \
	[ "$(jq '.conversationHistory | length' "$WS/.agent/sessions/s1.json")" -eq 2 ]

finish
