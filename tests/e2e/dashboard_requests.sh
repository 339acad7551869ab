#!/usr/bin/env bash
# The dashboard and operator requests, driven in tmux with real keys: a
# session whose agent overrode a pause shows "overridden" (in the failure
# colour) and the override is journaled once; `r` on a paused session whose
# resumeCommand cannot start leaves it paused, says why on a red line and
# marks it "resume failed"; `r` with a command that starts shows "resuming"
# until the agent writes "running"; `r` on the overridden one withdraws
# its pause request.
. "$(dirname "$0")/lib/tmux.sh" "$@"
S=$ws/.agent/sessions
mkdir -p "$S/.requests" "$ws/xdg/agent"
export XDG_CONFIG_HOME=$ws/xdg
session() { # id status
  jq -n --arg id "$1" --arg st "$2" '{id: $id, createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z", task: "task of \($id)", status: $st,
    conversationHistory: [], metadata: {}}' >"$S/$1.json"
}
session aaa-over running
session bbb-dead paused
session ccc-slow paused
now=$(date +%s)
touch -d "@$((now - 60))" "$S"/*.json
# aaa-over: paused by agentctl, then saved "running" by its agent in the
# same second (a session quiet long after its pause was resumed elsewhere).
applied=$(date -u -d "@$((now - 60))" +%Y-%m-%dT%H:%M:%S.000Z)
printf '{"sessionId":"aaa-over","request":"pause","state":"applied","requestedAt":"%s","requestedBy":"Human","appliedAt":"%s"}' \
  "$applied" "$applied" >"$S/.requests/aaa-over.json"
cat >"$ws/xdg/agent/config.json" <<'EOF'
{"resumeCommand": ["no-such-agent-program", "{id}"], "session": {"quietMs": 50}}
EOF

dashboard 120 30
check "an overridden pause is shown" wait_for "! overridden"
humans() { "$agentctl" -w "$ws" journal query agent=Human --json 2>/dev/null | jq -c "$1"; }
check "and journaled as FAILED, once" \
  bash -c "[ \"\$(XDG_CONFIG_HOME=$XDG_CONFIG_HOME $agentctl -w $ws journal query agent=Human --json | jq -c '[.[] | .status]')\" = '[\"FAILED\"]' ]"
keys 1 j
keys r
keys y
check "resume with a missing program says why" wait_for "no-such-agent-program"
check "and marks the session" wait_for "! no resume"
check "the session stays paused" bash -c "[ \"\$(jq -r .status $S/bbb-dead.json)\" = paused ]"

# A command that starts, and an agent that takes over a moment later.
cat >"$ws/xdg/agent/config.json" <<EOF
{"resumeCommand": ["/bin/sh", "-c", "sleep 1; f=.agent/sessions/\$0.json; jq '.status=\"running\"' \$f > \$f.tmp && mv \$f.tmp \$f", "{id}"], "session": {"quietMs": 50}}
EOF
send q
wait_gone
dashboard 120 30
wait_for "ccc-slow" >/dev/null
keys 1 G
keys r
keys y
check "a started resume shows resuming" wait_for "~ resuming"
check "until the agent takes over" wait_for "running"
check "then the request is gone" bash -c "for i in \$(seq 30); do [ ! -e $S/.requests/ccc-slow.json ] && exit 0; sleep 0.1; done; exit 1"

# r on the session whose agent overrode the pause takes the request back:
# asked first, then no longer shown overridden, the request file gone, the
# session left running and the withdrawal journaled.
keys /
send a a a - o v e r
keys Enter
keys r
check "r on an overridden pause asks to withdraw it" wait_for "Withdraw the pause request for aaa-over?"
keys y
check "and says it did" wait_for "withdrew the pause request for aaa-over"
check "the row is no longer overridden" bash -c "for i in \$(seq 30); do ! tmux -L $sock capture-pane -p -t e2e | grep -q 'overridden aaa-over' && exit 0; sleep 0.1; done; exit 1"
check "the request file is gone" [ ! -e "$S/.requests/aaa-over.json" ]
check "the session still runs" bash -c "[ \"\$(jq -r .status $S/aaa-over.json)\" = running ]"
check "the withdrawal is journaled" bash -c "$agentctl -w $ws journal query agent=Human --json | jq -e 'any(.[]; .result.message | test(\"withdrawn\"))' >/dev/null"
send q
finish
