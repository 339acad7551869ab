#!/usr/bin/env bash
# `session search` over one Claude Code transcript holding a line of
# LINE_MB MiB (default 2048: a sparse file's zeros between a real start and
# end, as a broken or hostile writer leaves), with a real line before and
# after it: wall time and maximum resident memory (GNU time) of a search
# for the line after it (found) and for a needle inside the long line (not
# searched: said on stderr). The sources cache is warmed first, so the
# index does not read the file again.
#
#   bench/sources_search_long_line.sh AGENTCTL_BINARY [AGENTCTL_BINARY...]
set -euo pipefail
line_mb=${LINE_MB:-2048}
data=$(mktemp -d /tmp/agentctl-longline.XXXXXX)
: "${data:?}"
trap 'rm -rf "$data"' EXIT
ws=$data/ws
mkdir -p "$ws/.agent/sessions"
ws=$(realpath "$ws")
home=$data/home
slug=$(printf %s "$ws" | sed 's/[^a-zA-Z0-9]/-/g')
mkdir -p "$home/.claude/projects/$slug"
f=$home/.claude/projects/$slug/0c0c0c0c-0000-4000-8000-00000000001f.jsonl
printf '{"type":"user","cwd":"%s","timestamp":"2025-10-03T10:00:00Z","message":{"role":"user","content":"alpha before"}}\n' "$ws" >"$f"
printf '{"type":"assistant","cwd":"%s","message":{"role":"assistant","content":"beta-in-long ' "$ws" >>"$f"
truncate -s "+${line_mb}M" "$f"
printf 'beta-in-long"}}\n' >>"$f"
printf '{"type":"assistant","cwd":"%s","timestamp":"2025-10-03T10:00:02Z","message":{"role":"assistant","content":[{"type":"text","text":"gamma after"}]}}\n' "$ws" >>"$f"
echo "| binary | search | hits | wall | max RSS |"
echo "|---|---|---:|---:|---:|"
for bin in "$@"; do
	rm -rf "$data/cache"
	HOME=$home XDG_CACHE_HOME=$data/cache "$bin" -w "$ws" session list >/dev/null
	for needle in "gamma after" "beta-in-long"; do
		HOME=$home XDG_CACHE_HOME=$data/cache /usr/bin/time -f '%e %M' -o "$data/time" \
			"$bin" -w "$ws" session search "$needle" 2>"$data/err" | cat >"$data/out" || true
		read -r wall rss <"$data/time"
		echo "| $(basename "$bin") | \`$needle\` | $(grep -c . "$data/out" || true) | ${wall} s | $((rss / 1024)) MB |"
	done
done
