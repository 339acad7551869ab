#!/usr/bin/env bash
# A hostile transcript: a sparse file of SIZE_GB (default 1) with no line
# break at all, as `truncate -s 1G` leaves one in a Claude Code project
# folder. Prints the wall time and peak resident memory (GNU time's %M)
# of a cold `agentctl session list` (no cache) and a cold `agentctl usage`
# (no index) over it. Before the line limit both held the whole "line";
# after it they hold at most AC_SOURCE_LINE_MAX (64 MiB) and skip the rest.
# Use a build without sanitizers (ASan's shadow memory is not the
# program's) and run it against both binaries to compare.
#
#   bench/hostile_sparse.sh AGENTCTL_BINARY     (SIZE_GB=1)
set -euo pipefail
agentctl=$(realpath "$1")
size_gb=${SIZE_GB:-1}
command -v /usr/bin/time >/dev/null || { echo "hostile_sparse.sh: needs GNU time" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws/.agent/sessions"
ws=$(realpath "$tmp/ws")
slug=$(printf %s "$ws" | sed 's/[^a-zA-Z0-9]/-/g')
proj=$tmp/home/.claude/projects/$slug
mkdir -p "$proj"
printf '{"cwd":"%s","type":"user","message":{"role":"user","content":"hi"},"timestamp":"2025-10-01T10:00:00.000Z"}\n' \
    "$ws" >"$proj/c1a0de00-1111-4222-8333-444455556666.jsonl"
truncate -s "${size_gb}G" "$proj/c1a0de00-1111-4222-8333-444455556666.jsonl"
for what in "session list" "usage"; do
    rm -rf "$tmp/cache"
    # shellcheck disable=SC2086
    HOME=$tmp/home XDG_CACHE_HOME=$tmp/cache /usr/bin/time -f "$what: %e s, %M KB peak RSS" \
        "$agentctl" -w "$ws" $what >/dev/null 2>"$tmp/err" || true
    tail -n 1 "$tmp/err"
done
