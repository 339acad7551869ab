#!/usr/bin/env bash
# Disk full: a workspace on a 2 MiB tmpfs. With the disk completely full,
# and again with a little room left (so writes start and are cut short),
# `journal log` and `session pause` must fail with exit 1 and one line on
# stderr naming the file, and leave the journal and the session file
# byte-for-byte as they were, with no lock or temp file behind; once there
# is room again, both work. Without permission to mount (or with
# TORTURE_DISKFULL=rlimit), the same runs under RLIMIT_FSIZE (`ulimit -f`,
# SIGXFSZ ignored), which fails writes past the limit with EFBIG.
CASE=diskfull
. "$(dirname "$0")/lib.sh"

mnt=$WORK/mnt
mkdir -p "$mnt"
# TORTURE_DISKFULL=rlimit tries the fallback on purpose.
if [ "${TORTURE_DISKFULL:-tmpfs}" = tmpfs ] &&
	mount -t tmpfs -o size=2m tmpfs "$mnt" 2>"$WORK/mount.err"; then
	CLEANUP+=("umount '$mnt' 2>/dev/null || umount -l '$mnt'")
	HOW=tmpfs
	echo " a 2 MiB tmpfs at $mnt"
else
	HOW=rlimit
	echo " no tmpfs ($(head -c 200 "$WORK/mount.err" 2>/dev/null || echo "TORTURE_DISKFULL=rlimit")):" \
		"using RLIMIT_FSIZE instead"
fi
ws=$mnt/ws
J=$ws/JOURNAL.jsonl
S=$ws/.agent/sessions/s1.json
mkdir -p "$ws/.agent/sessions"

event() { # message [padding bytes]: the event, into $WORK/in for `journal log -`
	local pad=""
	[ "${2:-0}" -gt 0 ] && pad=$(head -c "$2" /dev/zero | tr '\0' x)
	printf '{"agent":"Claude","status":"SUCCESS","action":{"type":"FILE_EDIT","params":{}},"result":{"message":"%s%s"}}' "$1" "$pad" >"$WORK/in"
}
: >"$WORK/in"
for i in $(seq 1 20); do
	event "before-$i"
	"$AC" -w "$ws" journal log - <"$WORK/in" >/dev/null
done
# A session of about 300 kB, so that saving it needs room.
big=$(head -c 3000 /dev/zero | tr '\0' y)
{
	printf '{"id":"s1","createdAt":"2024-05-01T10:00:00.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"disk full","status":"running","conversationHistory":['
	for i in $(seq 1 100); do
		[ "$i" -gt 1 ] && printf ,
		printf '{"role":"user","content":"%s %d"}' "$big" "$i"
	done
	printf '],"metadata":{"userId":"u"}}'
} >"$S"
cp "$J" "$WORK/journal.before"
cp "$S" "$WORK/session.before"

# attempt ARGS...: runs agentctl with ARGS (standard input from $WORK/in,
# emptied after), under the file size limit when that is the method; sets
# RC and ERR.
attempt() {
	if [ "$HOW" = rlimit ]; then
		(trap '' XFSZ; ulimit -f "$LIMIT_KB"; exec "$AC" -w "$ws" "$@") \
			<"$WORK/in" >/dev/null 2>"$WORK/err"
	else
		"$AC" -w "$ws" "$@" <"$WORK/in" >/dev/null 2>"$WORK/err"
	fi
	RC=$?
	: >"$WORK/in"
	ERR=$(cat "$WORK/err")
}

# refused LABEL FILE: the last attempt failed cleanly, naming FILE.
refused() {
	local label=$1 file=$2
	check "$label: exit 1 (got $RC)" eq "$RC" 1
	check "$label: one line on stderr naming $(basename "$file")" \
		eq "$(wc -l <"$WORK/err")/$(grep -c -F "$(basename "$file")" "$WORK/err")" "1/1"
	echo "       | $ERR"
}

intact() { # label
	check "$1: the journal is byte-for-byte as before" cmp -s "$J" "$WORK/journal.before"
	check "$1: the session file is byte-for-byte as before" cmp -s "$S" "$WORK/session.before"
	check "$1: no lock or temp file left" \
		eq "$(find "$ws" -name '*.lock*' -o -name '*.tmp' | wc -l)" 0
}

# fill BYTES_LEFT: leaves about that much room on the tmpfs.
fill() {
	rm -f "$mnt/filler"
	if [ "$HOW" = tmpfs ]; then
		dd if=/dev/zero of="$mnt/filler" bs=4096 2>/dev/null
		[ "$1" -gt 0 ] && truncate -s "-$1" "$mnt/filler"
		sync
	fi
}

# 1. Not a byte of room.
fill 0
LIMIT_KB=1 # below the journal's and the session's size: every write fails
room() { # what is left, for the log
	if [ "$HOW" = tmpfs ]; then
		echo "$(df -k --output=avail "$mnt" | tail -1 | tr -d ' ') KiB free on the tmpfs"
	else
		echo "ulimit -f $LIMIT_KB (KiB); the journal is $(($(stat -c %s "$J") / 1024)) KiB"
	fi
}
echo " disk full: $(room)"
event full-small
attempt journal log -
refused "full, journal log" "$J"
event full-big 200000
attempt journal log -
refused "full, journal log of 200 kB" "$J"
attempt session pause s1
refused "full, session pause" "$S"
intact "full"

# 2. A little room: writes start and are cut short.
fill 40960
LIMIT_KB=$(( ($(stat -c %s "$J") + 40960) / 1024 ))
echo " almost full: $(room)"
event part-big 200000
attempt journal log -
refused "40 kB left, journal log of 200 kB" "$J"
attempt session pause s1
refused "40 kB left, session pause (300 kB file)" "$S"
intact "40 kB left"
if [ "$HOW" = tmpfs ]; then
	event small-fits
	attempt journal log -
	check "40 kB left, a small event still fits (exit $RC)" eq "$RC" 0
	cp "$J" "$WORK/journal.before"
fi

# 3. Room again: everything works, and nothing torn was left behind.
rm -f "$mnt/filler"
HOW_SAVED=$HOW HOW=tmpfs
event after-room 200000
attempt journal log -
check "room again, journal log works (exit $RC)" eq "$RC" 0
attempt session pause s1
check "room again, session pause works (exit $RC)" eq "$RC" 0
"$AC" -w "$ws" journal check >"$WORK/check.out" 2>&1
check "journal check finds no invalid line" eq "$?" 0
indent "$WORK/check.out" 3
HOW=$HOW_SAVED
finish "method=$HOW"
