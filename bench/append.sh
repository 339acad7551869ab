#!/usr/bin/env bash
# Journal append rate through the core (lock file + flock + one write per
# event): one writer and 8 concurrent writers, without and with fsync; and
# `agentctl journal log` as a command (a process per event).
#
#   bench/append.sh AGENTCTL_BINARY
set -euo pipefail
agentctl=$(realpath "$1")
appender="$(dirname "$agentctl")/bench_append"
here=$(cd "$(dirname "$0")" && pwd)
ws="$here/data/append-ws"
field() { echo "$1" | awk -v k="$2" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
run() { rm -rf "$ws" && mkdir -p "$ws" && "$appender" "$ws/JOURNAL.jsonl" "$@"; }
check() { "$agentctl" -w "$ws" journal check | tail -1; }

one=$(run 1 20000);           one_check=$(check)
eight=$(run 8 5000);          eight_check=$(check)
one_sync=$(run 1 2000 always)
eight_sync=$(run 8 500 always)
rm -rf "$ws" && mkdir -p "$ws"
start=$(date +%s.%N)
for i in $(seq 500); do
    "$agentctl" -w "$ws" journal log '{"agent":"Claude","status":"SUCCESS","action":{"type":"FILE_EDIT","params":{}},"result":{"message":"m"}}' >/dev/null
done
end=$(date +%s.%N)

echo "## append"
echo
echo "Journal appends on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), file system of \`bench/data\`: $(df -T "$here/data" | awk 'NR==2 {print $2}')."
echo
echo "| writers | fsync | events | events/s | check afterwards |"
echo "|---:|---|---:|---:|---|"
echo "| 1 | never | $(field "$one" events) | $(field "$one" events_per_second) | $one_check |"
echo "| 8 | never | $(field "$eight" events) | $(field "$eight" events_per_second) | $eight_check |"
echo "| 1 | always | $(field "$one_sync" events) | $(field "$one_sync" events_per_second) | |"
echo "| 8 | always | $(field "$eight_sync" events) | $(field "$eight_sync" events_per_second) | |"
echo "| \`agentctl journal log\`, one process per event | never | 500 | $(echo "500 / ($end - $start)" | bc) | |"
rm -rf "$ws"
