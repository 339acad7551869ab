#!/usr/bin/env bash
# `session list` through the cache of the last listing (issue 28 item 4):
# a warm listing reads only the session files whose stamp (name, size,
# inode, mtime, ctime) changed, counted by AGENTCTL_DEBUG_STATS ("session
# files read: N of M", not timed); its output, text and JSON, with every
# filter, is byte-identical to a cold one's; a file rewritten in place to
# the same size and mtime is not missed (its ctime moved); a cache that is
# damaged, truncated, another user's, writable by others, a link or of
# another version is ignored and rewritten. PostgreSQL lists from its
# tables, not files: session_cli_pg.sh covers its listing.
# Usage: session_list_cache.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
export XDG_CACHE_HOME=$TMP/cache HOME=$TMP/home
mkdir -p "$HOME"
WS=$TMP/ws
S=$WS/.agent/sessions
mkdir -p "$S"

# session ID STATUS USER TASK: a session file as another program writes it.
session() {
	printf '{"id":"%s","createdAt":"2025-01-%02dT00:00:00.000Z","updatedAt":"2025-02-01T00:00:00.000Z","task":"%s","status":"%s","conversationHistory":[{"role":"user","content":"hello %s"}],"metadata":{"userId":"%s","agentId":"a","tenantId":"t","usage":{"inputTokens":%d,"outputTokens":7,"turns":1}}}' \
		"$1" "$(( ${1#s} % 28 + 1 ))" "$4" "$2" "$1" "$3" "${1#s}" >"$S/$1.json.tmp.json"
	mv "$S/$1.json.tmp.json" "$S/$1.json"
}
statuses=(running paused completed failed)
for i in $(seq 1 20); do
	session "s$i" "${statuses[$((i % 4))]}" "u$((i % 3))" "task $i"
done
printf '{"id":"n1","createdAt":"2025-03-01T00:00:00.000Z","task":"a\\u0000b","status":"running","conversationHistory":[]}' >"$S/n1.json"
printf '{"id":' >"$S/torn.json" # never listed, reported on every run
touch -d '1 hour ago' "$S"/*.json
# A stamp younger than 2 s is not cached (coarse clocks: see
# ac_session_index.c, RACY_NS); the files' ctimes are now.
sleep 2.1

reads() { # the "N" of the last run's "session files read: N of M"
	sed -n 's/^agentctl: session files read: \([0-9]*\) of [0-9]*$/\1/p' "$TMP/err"
}
list() { AGENTCTL_DEBUG_STATS=1 "$AC" -w "$WS" session list "$@" >"$TMP/out" 2>"$TMP/err" </dev/null; }
cache_file() { ls "$XDG_CACHE_HOME"/agentctl/sessions-*.bin 2>/dev/null | head -n 1; }

# ---- cold and warm say the same, byte for byte ------------------------------
variants=("" "--json" "--status running" "--user u1" "--all-projects" "--json --status paused"
	"--json --user u2" "--state idle" "--json --all-projects")
n=0
for v in "${variants[@]}"; do
	n=$((n + 1))
	rm -rf "${XDG_CACHE_HOME:?}"
	# shellcheck disable=SC2086 # the variant is words
	list $v
	cp "$TMP/out" "$TMP/cold.$n"
	grep -v 'session files read' "$TMP/err" >"$TMP/cold_err.$n"
	check "cold ($v): every file read" [ "$(reads)" = 22 ]
	# shellcheck disable=SC2086
	list $v
	check "warm ($v): only the unreadable file read again" [ "$(reads)" = 1 ]
	check "warm ($v): the same output" cmp -s "$TMP/out" "$TMP/cold.$n"
	grep -v 'session files read' "$TMP/err" >"$TMP/warm_err.$n"
	check "warm ($v): the same problems reported" cmp -s "$TMP/warm_err.$n" "$TMP/cold_err.$n"
done
check "the listing is not empty" grep -q '^s7 ' "$TMP/cold.1"
check "the unreadable file is reported" grep -q 'torn.json' "$TMP/cold_err.1"
check "the cache is private (no group or world write)" \
	[ "$(( 0$(stat -c %a "$(cache_file)") & 022 ))" = 0 ]

# ---- only what changed is read ----------------------------------------------
list
cp "$TMP/out" "$TMP/before"
session s3 completed u9 "task three, done" # replaced: a new inode
rm "$S/s4.json"
list
check "a replaced file is read, the others are not" [ "$(reads)" = 2 ]
check "its new summary is listed" grep -q '^s3 .*completed.*task three, done' "$TMP/out"
check "a removed file is no longer listed" eval '! grep -q "^s4 " "$TMP/out"'

# Rewritten in place, same size, mtime put back: only the ctime tells.
f=$S/s5.json
stamp=$(stat -c %y "$f")
size=$(stat -c %s "$f")
sed 's/task 5/TSK! 5/' "$f" >"$TMP/in_place"
cat "$TMP/in_place" >"$f" # the same inode
touch -d "$stamp" "$f"
check "(the rewrite kept size and mtime)" \
	[ "$(stat -c %s "$f")" = "$size" ] && [ "$(stat -c %y "$f")" = "$stamp" ]
list
check "an in-place rewrite with the same size and mtime is read again" \
	grep -q '^s5 .*TSK! 5' "$TMP/out"

# ---- a cache that is not to be believed is ignored, then rewritten ---------
sleep 2.1 # the files just written leave the racy window
list
list
check "(warm again)" [ "$(reads)" = 1 ]
cp "$TMP/out" "$TMP/good"
c=$(cache_file)
c=${c:-$XDG_CACHE_HOME/agentctl/none} # none: the cases fail, quietly
ignored() { # NAME: the next listing reads every file, says the same, and heals
	list
	check "$1: ignored (every file read)" [ "$(reads)" = 21 ]
	check "$1: the same output" cmp -s "$TMP/out" "$TMP/good"
	list
	check "$1: rewritten (warm again)" [ "$(reads)" = 1 ]
}
printf 'X' | dd of="$c" bs=1 seek=$(( $(stat -c %s "$c") / 2 )) conv=notrunc status=none
ignored "a damaged byte"
truncate -s $(( $(stat -c %s "$c") - 5 )) "$c"
ignored "a truncated cache"
sed -i '1s/sessions cache [0-9]*/sessions cache 0/' "$c"
ignored "another version"
chown 65534 "$c"
ignored "another user's"
chmod 0666 "$c"
ignored "writable by others"
mv "$c" "$TMP/real.bin"
ln -s "$TMP/real.bin" "$c"
ignored "a symbolic link"
check "(the link was replaced by a file)" [ -f "$c" ] && [ ! -L "$c" ]

finish
