#!/usr/bin/env bash
# The dashboard's "/" search inside conversations on 10,000 sessions
# (bench/gen_sessions.py, as bench/sessions.sh makes them): the dashboard
# runs in tmux; the text is typed at once and the time is taken from the
# Enter that closes the filter line to the status line saying the search
# is complete (polled every 20 ms, so +-20 ms), page cache warm.
#
#   bench/dashboard_conv_search.sh AGENTCTL [WORKSPACE]
set -euo pipefail
agentctl=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
ws=${2:-"$here/data/sessions-10000-50"}
[ -d "$ws/.agent/sessions" ] || { echo "no sessions in $ws: run bench/sessions.sh first" >&2; exit 1; }
sock=agentctl-bench-csearch-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"' EXIT
cat "$ws/.agent/sessions"/*.json > /dev/null
screen() { tmux -L "$sock" capture-pane -p -t b; }
until_seen() { until screen | grep -qF -- "$1"; do sleep 0.02; done; }

echo "| search typed | sessions found | until complete |"
echo "|---|---:|---:|"
for text in zebrafish-nowhere 設定ファイル LOADER; do
    tmux -L "$sock" new-session -d -s b -x 160 -y 40 "$agentctl -w $ws --read-only"
    until_seen "10000"
    tmux -L "$sock" send-keys -t b / "$text"
    start=$(date +%s%N)
    tmux -L "$sock" send-keys -t b Enter
    until_seen "found in the conversation of"
    end=$(date +%s%N)
    found=$(screen | grep -o "found in the conversation of [0-9]*" | grep -o "[0-9]*$")
    echo "| \`$text\` | $found | $(( (end - start) / 1000000 )) ms |"
    tmux -L "$sock" kill-server; sleep 0.5
done
