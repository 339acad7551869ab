#!/usr/bin/env bash
# The same Claude Code transcript copied into the project folders of two
# workspaces (an operator who copied a session, or a project folder moved
# and copied back): each workspace's `usage` counts its copy's 1,235
# tokens whichever workspace's cache was built first, and --all-projects
# counts the message once. Before, the copy read second counted 0 (the
# message was booked to the first file read, in the other project).
# Usage: usage_copies.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/usage_home.sh"

projects=$HOME/.claude/projects
rm -rf "${projects:?}/-elsewhere" "${HOME:?}/.codex"
mkdir -p "$TMP/ws2" "$TMP/ws/sub"
WS1=$WS
WS2=$(cd "$TMP/ws2" && pwd -P)
SUB=$WS1/sub
original=$projects/-ws/c1111111-1111-4111-8111-111111111111.jsonl
copy_to() { # WORKSPACE: the transcript as if it had run there
	local dir
	dir=$projects/$(printf '%s' "$1" | sed 's|[/.]|-|g')
	mkdir -p "$dir"
	sed "s|\"cwd\":\"$WS1\"|\"cwd\":\"$1\"|g" "$original" >"$dir/c1111111-1111-4111-8111-111111111111.jsonl"
}
copy_to "$WS2"
total_of() { # WORKSPACE [ARGS...]: the total tokens usage reports there
	"$AC" -w "$1" usage --json "${@:2}" | jq -r '.totals.totalTokens'
}
both_orders() { # prints "ws1 ws2 ws1" after a fresh cache, then "ws2 ws1 ws2"
	rm -rf "${XDG_CACHE_HOME:?}"
	echo "$(total_of "$WS1") $(total_of "$WS2") $(total_of "$WS1")"
	rm -rf "${XDG_CACHE_HOME:?}"
	echo "$(total_of "$WS2") $(total_of "$WS1") $(total_of "$WS2")"
}
out=$(both_orders)
check "each workspace counts its copy, whichever is read first" \
	test "$out" = "$(printf '1235 1235 1235\n1235 1235 1235')"
check "all projects: the message once" test "$(total_of "$WS1" --all-projects)" = 1235

# A copy inside the same workspace (a sub-folder's project): once there.
copy_to "$SUB"
rm -rf "${XDG_CACHE_HOME:?}"
check "two copies inside one workspace count once" test "$(total_of "$WS1")" = 1235
check "the sub-folder alone counts its copy" test "$(total_of "$SUB")" = 1235
check "the other workspace still counts its copy" test "$(total_of "$WS2")" = 1235
check "by session: one row for the workspace" \
	test "$("$AC" -w "$WS1" usage session --json | jq '.rows | length')" = 1
finish
