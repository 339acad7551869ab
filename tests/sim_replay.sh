#!/usr/bin/env bash
# A seed of the simulator replays exactly: two runs of one seed print the
# same trace, step for step (and the trace is a real run, not a few lines).
#   tests/sim_replay.sh AGENTCTL_SIM
set -euo pipefail
sim=${1:?usage: sim_replay.sh AGENTCTL_SIM}
for scenario in sessions seed journal compact checkpoint ops sandbox; do
  a=$("$sim" --seed 7 --scenario "$scenario" --verbose)
  b=$("$sim" --seed 7 --scenario "$scenario" --verbose)
  lines=$(printf '%s\n' "$a" | wc -l)
  if [ "$a" != "$b" ]; then
    echo "FAIL: seed 7 of $scenario ran differently twice"
    diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | head -20
    exit 1
  fi
  # ops traces processes' writes, not every call: fewer lines a run.
  min=300
  [ "$scenario" = ops ] && min=150
  if [ "$lines" -lt "$min" ]; then
    echo "FAIL: seed 7 of $scenario traced only $lines lines"
    exit 1
  fi
  echo "ok: seed 7 of $scenario replays exactly ($lines trace lines)"
done
