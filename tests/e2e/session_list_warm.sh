#!/usr/bin/env bash
# What a warm `session list` (from its cache, issue 28) still does.
# 1. The racy-clean rule (git's): on a file system
# whose times are coarse, a session file rewritten in place within the
# same tick, to the same size, keeps its inode, size, mtime and ctime, so
# a stamp taken within that tick proves nothing. A listing therefore does
# not cache a file whose mtime or ctime is less than 2 s old (or in the
# future: another writer's clock): the next listing reads it again, and
# sees what such a writer wrote. Once the stamp is old, it is cached and
# the file is not read. Counted by AGENTCTL_DEBUG_STATS ("session files
# read: N of M").
# 2. A temp file a dead writer left beside the sessions is removed by a
# listing, which reads the folder once: it notes the temp name as it goes.
# 3. A folder of 2,100 sessions, whose stats are taken on two threads:
# warm, only the files changed in either half are read, and the listing
# is the cold one's, byte for byte.
# Usage: session_list_warm.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
WS=$TMP/ws
S=$WS/.agent/sessions
mkdir -p "$S"

session() { # ID TASK: a session file as another program writes it (in place)
	printf '{"id":"%s","createdAt":"2025-01-01T00:00:00.000Z","updatedAt":"2025-01-01T00:00:00.000Z","task":"%s","status":"running","conversationHistory":[],"metadata":{"userId":"u","agentId":"a"}}' \
		"$1" "$2" >"$S/$1.json"
}
reads() { sed -n 's/^agentctl: session files read: \([0-9]*\) of \([0-9]*\)$/\1 of \2/p' "$TMP/err"; }
list() { AGENTCTL_DEBUG_STATS=1 "$AC" -w "$WS" session list >"$TMP/out" 2>"$TMP/err" </dev/null; }

# ---- a young stamp is not cached ----
start=$(date +%s%N)
session fresh "task one"
list
check "first listing: the file read" [ "$(reads)" = "1 of 1" ]
list
took_ms=$((($(date +%s%N) - start) / 1000000))
if [ "$took_ms" -lt 1500 ]; then
	check "written ${took_ms} ms ago: read again, not taken from the cache" [ "$(reads)" = "1 of 1" ]
else
	echo "the machine took $took_ms ms for two listings: the young-stamp case is not checked"
fi

# ---- a stamp in the future (another writer's clock) is never cached ----
session future "task two"
touch -d '+1 hour' "$S/future.json"
sleep 2.1 # both stamps of fresh.json, and future.json's ctime, are old now
list
list
check "an old stamp is cached; one in the future is read again" [ "$(reads)" = "1 of 2" ]
# Rewritten in place, the same size, the mtime put back: listed anew.
stamp=$(stat -c %y "$S/future.json")
session future "task TWO"
touch -d "$stamp" "$S/future.json"
list
check "its in-place rewrite is listed" grep -q '^future .*task TWO' "$TMP/out"

# ---- once old, cached: not read ----
list
check "(fresh.json not read again)" [ "$(reads)" = "1 of 2" ]

# ---- a dead writer's temp file is cleaned ----
true &
dead=$!
wait "$dead"
temp=$S/.fresh.json.$dead.0000abcd.tmp
echo '{"id":' >"$temp"
touch -d '1 minute ago' "$temp"
list
check "a dead writer's temp file is removed by the listing" [ ! -e "$temp" ]
check "(the listing is the same)" [ "$(reads)" = "1 of 2" ]

# ---- 2,100 sessions: stats on two threads ----
rm -f "$S"/*.json
for i in $(seq 1000 3099); do
	printf '{"id":"b%d","createdAt":"2025-01-01T00:00:00.%03dZ","task":"task %d","status":"paused","conversationHistory":[]}' \
		"$i" $((i % 1000)) "$i" >"$S/b$i.json"
done
touch -d '1 hour ago' "$S"/*.json
sleep 2.1 # their ctimes leave the racy window
list
check "2,100: every file read" [ "$(reads)" = "2100 of 2100" ]
list
check "2,100 warm: none read" [ "$(reads)" = "0 of 2100" ]
sed -i "s/task 1001/task 100X/" "$S/b1001.json" # in the first half
sed -i "s/task 3001/task 300X/" "$S/b3001.json" # in the second half
touch -d '1 hour ago' "$S/b1001.json" "$S/b3001.json"
list
check "2,100 warm: the two changed files read, one in each half" [ "$(reads)" = "2 of 2100" ]
cp "$TMP/out" "$TMP/warm"
rm -rf "${XDG_CACHE_HOME:?}"
list
check "2,100: the same listing as a cold one" cmp -s "$TMP/warm" "$TMP/out"
check "(the changes are in it)" eval 'grep -q "task 100X" "$TMP/out" && grep -q "task 300X" "$TMP/out"'
finish
