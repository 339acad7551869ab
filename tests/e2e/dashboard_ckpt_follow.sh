#!/usr/bin/env bash
# The checkpoints pane follows new checkpoints: those written into a
# session's folder that exists (.agent/checkpoints/<sessionId>/), and those
# of a session whose folder appears while the pane is open. (The dashboard
# has no switch to force polling yet: test_watch.c covers the polling
# fallback. Node names fit the NODE column.)
. "$(dirname "$0")/lib/tmux.sh" "$@"
ac() { "$agentctl" -w "$ws" "$@" >/dev/null; }
ac session create "has checkpoints" --id old1
ac checkpoint create old1 --node first-node
ac session create "no checkpoints yet" --id new1

for mode in ino; do
  dashboard 120 30
  check "$mode: listed" wait_for "has checkpoints"
  keys j
  keys 3
  check "$mode: old1's checkpoint" wait_for "first-node"
  ac checkpoint create old1 --node "$mode-2nd"
  check "$mode: a checkpoint written into the session's folder shows" wait_for "$mode-2nd"
  ac checkpoint create old1 --node "$mode-3rd"
  check "$mode: and the next one" wait_for "$mode-3rd"
  keys 1
  keys k
  keys 3
  ac checkpoint create new1 --node "$mode-new1"
  check "$mode: the first checkpoint of a session (its folder is new) shows" wait_for "$mode-new1"
  sleep 0.3
  ac checkpoint create new1 --node "$mode-new2"
  check "$mode: and the next one in that new folder" wait_for "$mode-new2"
  keys q
  wait_gone
  rm -rf "$ws/.agent/checkpoints/new1"
done
finish
