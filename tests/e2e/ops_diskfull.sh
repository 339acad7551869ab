#!/usr/bin/env bash
# `ops record` and `ops rollback` on a full disk (issue 23 item 15): exit 1
# with one line that names the file being staged, the git folder written
# and the system's reason ("No space left on device"), and nothing changed:
# HEAD, the index, the operation log and the worktree are as before. Once
# there is room again, both work.
#
# The workspace is on a 4 MiB tmpfs. Without permission to mount, the same
# runs under RLIMIT_FSIZE (`ulimit -f 0`, SIGXFSZ ignored), where every
# write fails with EFBIG ("File too large") instead, as in
# tests/torture/diskfull.sh.
# Usage: ops_diskfull.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
export GIT_CONFIG_NOSYSTEM=1 HOME=$TMP/home
mkdir -p "$HOME"

MNT=$TMP/mnt
mkdir -p "$MNT"
if [ "${AC_E2E_DISKFULL:-tmpfs}" = tmpfs ] &&
	mount -t tmpfs -o size=4m tmpfs "$MNT" 2>/dev/null; then
	trap 'umount "$MNT" 2>/dev/null || umount -l "$MNT"; rm -rf "${TMP:?}"' EXIT
	HOW=tmpfs
	REASON="No space left on device"
else
	HOW=rlimit
	REASON="File too large"
fi
echo "full disk by $HOW"

WS=$MNT/ws
mkdir -p "$WS"
g() { git -C "$WS" "$@"; }
g init -q
g config user.email e2e@example.com
g config user.name e2e
printf 'one\n' >"$WS/a.txt"
g add a.txt
g commit -q -m "the user's first commit"
run session create "disk full" --id s1
check "session create" rc_is 0
printf 'two\n' >"$WS/a.txt"
run ops record --session s1 --type file_write --details '{"path":"a.txt"}'
check "ops record with room" rc_is 0
OP1=$OUT

# The agent's next change: an edit and a file of 300 kB that does not
# compress, which the disk cannot take.
printf 'three\n' >"$WS/a.txt"
head -c 300000 /dev/urandom >"$WS/big.bin"

# full: no room left on the tmpfs (under the limit: nothing to do).
full() {
	[ "$HOW" = tmpfs ] || return 0
	rm -f "$MNT/filler"
	dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null
	# tmpfs counts in pages: a last partial page may still be free.
	head -c 4096 /dev/zero >>"$MNT/filler" 2>/dev/null
	return 0
}
attempt() { # ARGS...: agentctl ARGS on the full disk; RC, ERR
	if [ "$HOW" = rlimit ]; then
		# stderr through a pipe: a file would be over the limit too.
		(trap '' XFSZ; ulimit -f 0; exec "$AC" -w "$WS" "$@") 2>&1 >/dev/null </dev/null |
			cat >"$TMP/err"
		RC=${PIPESTATUS[0]}
		ERR=$(cat "$TMP/err")
		return
	else
		"$AC" -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	fi
	RC=$?
	ERR=$(cat "$TMP/err")
}
# state: what must not change: HEAD, the index, the log, the worktree.
state() {
	g rev-parse HEAD
	g ls-files -s # the entries: a put-back rewrites the file's stat data
	cat "$WS/.agent/operations.jsonl"
	(cd "$WS" && find . -path ./.git -prune -o -type f -print | LC_ALL=C sort | xargs md5sum)
}
# one_line LABEL COMMAND...: exit 1, a single line on stderr saying what
# was staged or written, into which file, and why.
one_line() {
	local label=$1
	check "$label: exit 1 (got $RC)" rc_is 1
	check "$label: one line on stderr" [ "$(wc -l <"$TMP/err")" = 1 ]
	check "$label: names the git file written ($ERR)" grep -q "writing $WS/\.git/" "$TMP/err"
	check "$label: says why ($ERR)" grep -qF "$REASON" "$TMP/err"
	check "$label: not libgit2's lost reason" [ -z "$(grep 'callback returned' "$TMP/err")" ]
	echo "  | $ERR"
}

state >"$TMP/before"
full
attempt ops record --session s1 --type file_write --details '{"path":"big.bin"}'
one_line "ops record on a full disk"
check "ops record on a full disk: names the file staged" grep -Eq 'staging (a\.txt|big\.bin): ' "$TMP/err"
check "ops record on a full disk: ops record: first" grep -q '^agentctl: ops record: ' "$TMP/err"
rm -f "$MNT/filler"
state >"$TMP/after"
check "ops record on a full disk changed nothing" cmp -s "$TMP/before" "$TMP/after"

full
attempt ops rollback "$OP1" --yes
one_line "ops rollback on a full disk"
check "ops rollback on a full disk: ops rollback: first" grep -q '^agentctl: ops rollback: ' "$TMP/err"
rm -f "$MNT/filler"
state >"$TMP/after"
check "ops rollback on a full disk changed nothing" cmp -s "$TMP/before" "$TMP/after"
check "no temp file left in the worktree" [ -z "$(cd "$WS" && find . -path ./.git -prune -o -name '*.tmp' -print)" ]

# A little room: the writes start and are cut short at some later step
# (the snapshot's objects or tree, the index, a worktree file, the commit).
# Each attempt either works, or fails naming a file and the reason and
# leaves all as it was. big.bin's object takes about 300 kB: around that,
# staging passes and a later step fails.
# squeeze CMD ARGS...: runs agentctl CMD ARGS with less and less room
# taken away until it works; sets HONEST.
squeeze() {
	local room
	state >"$TMP/before"
	for room in 8 64 $(seq 280 4 360) 400 480 640 1024; do
		rm -f "$MNT/filler"
		avail=$(df -k --output=avail "$MNT" | tail -1)
		head -c $(((avail - room) * 1024)) /dev/zero >"$MNT/filler" 2>/dev/null
		attempt "$@"
		rm -f "$MNT/filler"
		[ -n "${AC_E2E_VERBOSE:-}" ] && echo "  $room kB, $1 $2: exit $RC: $ERR"
		if [ "$RC" = 0 ]; then
			echo "  | $1 $2 worked with $room kB free"
			return
		fi
		state >"$TMP/after"
		if [ "$RC" != 1 ] || [ "$(wc -l <"$TMP/err")" != 1 ] ||
			! grep -q "$WS/[^:]*: $REASON" "$TMP/err" || ! cmp -s "$TMP/before" "$TMP/after"; then
			HONEST="no: $1 $2 with $room kB free: exit $RC: $ERR"
			return
		fi
	done
}
if [ "$HOW" = tmpfs ]; then
	HONEST=yes
	squeeze ops rollback "$OP1" --yes
	check "with a little room, a rollback fails naming the file, changing nothing ($HONEST)" \
		[ "$HONEST" = yes ]
	check "then works" [ "$(cat "$WS/a.txt")" = one ]
	printf 'four\n' >"$WS/a.txt"
	head -c 300000 /dev/urandom >"$WS/big.bin"
	squeeze ops record --session s1 --type file_write --details '{"path":"big.bin"}'
	check "with a little room, a record fails naming the file, changing nothing ($HONEST)" \
		[ "$HONEST" = yes ]
	check "then works" rc_is 0
	OP1=$(tail -1 "$WS/.agent/operations.jsonl" | jq -r .id)
	printf 'five\n' >"$WS/a.txt"
fi

# Cut short while writing the worktree: the rollback restores a file of
# 300 kB whose object git has, with 40 kB free. It says which file and
# why, and puts the worktree back.
if [ "$HOW" = tmpfs ]; then
	head -c 300000 /dev/urandom >"$WS/restored.bin"
	run ops record --session s1 --type file_write --details '{"path":"restored.bin"}'
	rm "$WS/restored.bin"
	run ops record --session s1 --type file_delete --details '{"path":"restored.bin"}'
	check "midway: the deletion recorded" rc_is 0
	OPD=$OUT
	state >"$TMP/before"
	rm -f "$MNT/filler"
	avail=$(df -k --output=avail "$MNT" | tail -1)
	head -c $(((avail - 40) * 1024)) /dev/zero >"$MNT/filler" 2>/dev/null
	attempt ops rollback "$OPD" --yes
	rm -f "$MNT/filler"
	check "midway: exit 1" rc_is 1
	check "midway: one line naming the file and why ($ERR)" \
		[ "$(grep -c "ops rollback: $WS/restored.bin: .*$REASON" "$TMP/err")" = 1 ]
	check "midway: the worktree put back" bash -c "[ ! -e '$WS/restored.bin' ]"
	state >"$TMP/after"
	check "midway: HEAD, index, log and files as before" cmp -s "$TMP/before" "$TMP/after"
	echo "  | $ERR"
fi

# Room again: both work.
run ops record --session s1 --type file_write --details '{"path":"big.bin"}'
check "ops record once there is room" rc_is 0
run ops rollback "$OP1" --yes
check "ops rollback once there is room" rc_is 0
HASH=$(jq -r --arg id "$OP1" 'select(.id == $id) | .gitCommitHash' <"$WS/.agent/operations.jsonl")
check "and the rollback put a.txt back" [ "$(cat "$WS/a.txt")" = "$(g show "$HASH^:a.txt")" ]

finish
