#!/usr/bin/env bash
# The checkpoints pane follows new checkpoints: those written into a
# session's folder that exists (.agent/checkpoints/<sessionId>/), and those
# of a session whose folder appears while the pane is open. (The dashboard
# has no switch to force polling yet: test_watch.c covers the polling
# fallback. Node names fit the NODE column.)
# On either store (lib/store.sh: STORE=files|pg).
# Usage: [STORE=pg] dashboard_ckpt_follow.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
ac() { "$agentctl" -w "$ws" "$@" >/dev/null; }
ac session create "has checkpoints" --id old1
ac checkpoint create old1 --node first-node
ac session create "no checkpoints yet" --id new1

dashboard 120 30
check "listed" wait_for "has checkpoints"
keys j
keys 3
check "old1's checkpoint" wait_for "first-node"
# The title names the session, as it does when there are none (it did
# only then).
check "the title names the session" wait_for "3 Checkpoints  of old1  1/1"
ac checkpoint create old1 --node "node-b"
check "a checkpoint written into the session's folder shows" wait_for "node-b"
ac checkpoint create old1 --node "node-c"
check "and the next one" wait_for "node-c"
keys 1
keys k
keys 3
ac checkpoint create new1 --node "fresh-a"
check "the first checkpoint of a session (its folder is new) shows" wait_for "fresh-a"
sleep 0.3
ac checkpoint create new1 --node "fresh-b"
check "and the next one in that new folder" wait_for "fresh-b"
keys q
wait_gone
finish
