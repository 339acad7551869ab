#!/usr/bin/env bash
# Runs every benchmark in bench/ against one agentctl binary (`make bench`).
#
#   bench/run.sh AGENTCTL_BINARY
#
# A benchmark is a bench/*.sh script other than this one, called as
# `SCRIPT AGENTCTL_BINARY`; each prints a markdown report on stdout.
# Extra settings (SIZE_MB, RUNS, SLOW_RUNS, SEED) pass through the environment.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 AGENTCTL_BINARY" >&2
    exit 2
fi
agentctl=$1
here=$(cd "$(dirname "$0")" && pwd)

status=0
for script in "$here"/*.sh; do
    [ "$(basename "$script")" = run.sh ] && continue
    echo "## $(basename "$script" .sh)"
    echo
    bash "$script" "$agentctl" || status=1
    echo
done
exit $status
