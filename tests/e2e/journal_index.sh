#!/usr/bin/env bash
# Issue 28 item 3: `journal query` through the journal's block index
# (.agent/index/JOURNAL.jsonl.idx). On a generated journal, with events
# stamped out of time order and a few rare ids planted, every query writes
# exactly what it writes without an index, with a corrupt one and with a
# stale one; a time window and a rare id read only a few blocks (counted
# by AGENTCTL_DEBUG_STATS, not timed); a rotated or rewritten journal is
# indexed again. The index is the files store's: PostgreSQL has none (its
# journal_cli_pg.sh shows its queries as they were).
# Usage: journal_index.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
command -v python3 >/dev/null 2>&1 || { echo "python3 missing: skipped"; exit 0; }
GEN=$(cd "$(dirname "$0")/../../bench" && pwd)/gen_journal.py
WS=$TMP/ws
J=$WS/JOURNAL.jsonl
IDX=$WS/.agent/index/JOURNAL.jsonl.idx
# The same journal (a hard link) in a workspace that cannot have an index:
# its .agent/index is a file, as in a folder we may not write.
PLAIN=$TMP/plain
STATS=$TMP/stats
export AGENTCTL_DEBUG_STATS=$STATS
mkdir -p "$WS/.agent" "$PLAIN/.agent"
: >"$PLAIN/.agent/index"

python3 "$GEN" --seed 11 "$J" 24 >/dev/null 2>&1 || exit 1
# Skewed clocks: events of the window written far from it (one near the
# start, one at the end), an event from a day later in the middle, and
# the rare ids.
python3 - "$J" <<'EOF'
import sys
path = sys.argv[1]
lines = open(path, 'rb').read().split(b'\n')[:-1]
def ev(n, ts, corr, agent='Gemini'):
    return ('{"id":"evt_20250904013200_%08x","timestamp":"%s","agent":"%s","status":"SUCCESS",'
            '"action":{"type":"ANALYSIS","params":{}},"result":{"message":"planted %d"},'
            '"trace":{"correlation_id":"%s"}}' % (n, ts, agent, n, corr)).encode()
n = len(lines)
lines.insert(n // 10, ev(1, "2025-09-04T01:32:00.000Z", "rare_e2e"))
lines.insert(n // 2, ev(2, "2025-09-05T01:32:00.000Z", "rare_e2e"))
lines.insert(n * 9 // 10, b'{"not":"an event"}')
lines.append(ev(3, "2025-09-04T01:33:00.000Z", "other_e2e", "Human"))
open(path, 'wb').write(b'\n'.join(lines) + b'\n')
EOF
ln "$J" "$PLAIN/JOURNAL.jsonl"

QUERIES=(
	"since=2025-09-04T01:30:00Z until=2025-09-04T01:35:00Z"
	"trace.correlation_id=rare_e2e"
	"agent=Human since=2025-09-04T01:00:00Z until=2025-09-04T02:00:00Z"
	"status=FAILED until=2025-09-03T15:00:00Z"
	"action.type=SESSION_START since=2025-09-04T12:00:00Z"
	"text~planted"
	"agent=Bob"
)

# same LABEL [OPTIONS...]: every query (with each of OPTIONS, default
# none) writes the same stdout and stderr here as in the workspace without
# an index.
same() {
	local label=$1 q opts
	shift
	[ $# -gt 0 ] || set -- ""
	for q in "${QUERIES[@]}"; do
		for opts in "$@"; do
			# shellcheck disable=SC2086
			"$AC" -w "$WS" journal query $opts "$q" >"$TMP/a" 2>"$TMP/ae"
			# shellcheck disable=SC2086
			"$AC" -w "$PLAIN" journal query $opts "$q" >"$TMP/b" 2>"$TMP/be"
			sed -i "s|$PLAIN|$WS|g" "$TMP/be"
			check "$label: '$q' $opts: same output" cmp -s "$TMP/a" "$TMP/b"
			check "$label: '$q' $opts: same notes" cmp -s "$TMP/ae" "$TMP/be"
		done
	done
}
# stat_of FIELD: FIELD= of the last query's statistics line.
stat_of() { tail -n 1 "$STATS" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
few_blocks() { # the last query read at most 5 of its 24 blocks, through the index
	[ "$(stat_of mode)" = indexed ] && [ $(($(stat_of blocks) - $(stat_of skipped))) -le 5 ] ||
		{ tail -n 1 "$STATS" >&2; false; }
}

run journal query "since=2025-09-04T01:30:00Z until=2025-09-04T01:35:00Z"
check "the first query builds the index" eval '[ "$(stat_of index)" = built ] && [ -s "$IDX" ]'
check "the window reads only a few blocks" few_blocks
check "the window holds the events stamped out of order" \
	eval '[ "$(grep -c "planted [13]" "$TMP/out")" = 2 ]'
check "and not the one stamped a day later" eval '! grep -q "planted 2" "$TMP/out"'
run journal query "trace.correlation_id=rare_e2e"
check "a rare id: the index is used as it is" eval '[ "$(stat_of index)" = used ]'
check "a rare id reads only a few blocks" few_blocks
check "a rare id: both events" eval '[ "$(grep -c planted "$TMP/out")" = 2 ]'
check "the workspace without an index has none" eval '[ ! -s "$PLAIN/.agent/index" ]'
same "index" "" --json --strict

# Corrupt: bytes of every entry changed in place (checksums fail); then
# the header (the whole file is ignored and rebuilt).
python3 - "$IDX" <<'EOF'
import sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
for at in range(128 + 60, len(data), 4288):
    data[at] ^= 0x55
open(path, 'wb').write(data)
EOF
same "corrupt entries"
printf 'garbage' | dd of="$IDX" bs=1 seek=16 conv=notrunc status=none
same "corrupt header"
# Stale: the journal cut short under its index (same inode), then grown
# again with other bytes.
cp "$J" "$TMP/saved"
truncate -s $((8 << 20)) "$J"
same "journal cut short"
python3 "$GEN" --seed 12 "$TMP/other" 4 >/dev/null 2>&1
cat "$TMP/other" >>"$J"
same "journal cut and grown"
# An index of another journal put in its place.
cp "$IDX" "$TMP/idx.other"
cat "$TMP/saved" >"$J"
cp "$TMP/idx.other" "$IDX"
same "another journal's index"

# Appends: a reader indexes the complete new blocks.
run journal query "trace.correlation_id=rare_e2e"
blocks_before=$(stat_of blocks)
python3 "$GEN" --seed 13 "$TMP/more" 2 >/dev/null 2>&1
cat "$TMP/more" >>"$J"
run journal query "trace.correlation_id=rare_e2e"
check "appended blocks are indexed by the next reader" \
	eval '[ "$(stat_of index)" = extended ] && [ "$(stat_of blocks)" -gt "$blocks_before" ]'
same "after appends"

# Rewritten (a new inode, as a repair writes it): rebuilt.
cp "$J" "$TMP/rewritten"
mv "$TMP/rewritten" "$J"
ln -f "$J" "$PLAIN/JOURNAL.jsonl"
run journal query "trace.correlation_id=rare_e2e"
check "a rewritten journal: its index is rebuilt" eval '[ "$(stat_of index)" = built ]'
same "rewritten"

# Rotated: the archive keeps its own index; the new journal starts none.
run journal rotate
check "rotate: exit 0" rc_is 0
ARCHIVE=$(basename "$(ls "$WS"/JOURNAL-*.jsonl)")
run journal log '{"agent":"Human","status":"SUCCESS","action":{"type":"CMD_RUN","params":{}},"result":{"message":"after rotation"},"trace":{"correlation_id":"rare_e2e"}}'
check "log after rotation: exit 0" rc_is 0
run journal query --all "trace.correlation_id=rare_e2e"
check "--all after rotation: the archive's events and the new one" \
	eval '[ "$(grep -c "planted\|after rotation" "$TMP/out")" = 3 ]'
check "the archive got an index of its own" test -s "$WS/.agent/index/$ARCHIVE.idx"
run journal query "trace.correlation_id=rare_e2e"
check "the new journal: one event" eval '[ "$(wc -l <"$TMP/out")" = 1 ]'

# A query the index cannot narrow neither reads nor writes it.
rm -rf "${WS:?}/.agent/index"
: >"$STATS"
run journal query --all "text~planted"
check "a query it cannot narrow leaves no index" eval '[ ! -e "$WS/.agent/index" ] && [ ! -s "$STATS" ]'

# journal check through the index: blocks validated clean and unchanged
# (their bytes hash the same) are counted without parsing; the output and
# exit status are those of a workspace without an index, whatever changed.
WS=$TMP/ws2
J=$WS/JOURNAL.jsonl
IDX=$WS/.agent/index/JOURNAL.jsonl.idx
PLAIN=$TMP/plain2
mkdir -p "$WS/.agent" "$PLAIN/.agent"
: >"$PLAIN/.agent/index"
python3 "$GEN" --seed 12 "$J" 24 >/dev/null 2>&1 || exit 1
python3 - "$J" <<'EOF'
import sys
path = sys.argv[1]
lines = open(path, 'rb').read().split(b'\n')[:-1]
lines.insert(len(lines) * 19 // 20, b'{"not":"an event"}')
open(path, 'wb').write(b'\n'.join(lines) + b'\n')
EOF
ln "$J" "$PLAIN/JOURNAL.jsonl"
same_check() { # LABEL: journal check writes and exits here as without an index
	"$AC" -w "$WS" journal check >"$TMP/a" 2>"$TMP/ae"
	echo "rc=$?" >>"$TMP/a"
	"$AC" -w "$PLAIN" journal check >"$TMP/b" 2>"$TMP/be"
	echo "rc=$?" >>"$TMP/b"
	sed -i "s|$PLAIN|$WS|g" "$TMP/b" "$TMP/be"
	check "$1: same check output" cmp -s "$TMP/a" "$TMP/b"
	check "$1: same check notes" cmp -s "$TMP/ae" "$TMP/be"
}
check_stat() { grep "^journal-check file=$J " "$STATS" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$1=//p"; }
: >"$STATS"
same_check "first check"
check "the first check builds the index" eval '[ "$(check_stat index)" = built ] && [ -s "$IDX" ]'
same_check "second check"
check "the second counts the clean blocks unparsed" \
	eval '[ "$(check_stat mode)" = counted ] && [ "$(check_stat skipped)" -ge 15 ]'
# One byte changed inside the second block (same length, same inode):
# found, and everything from that block validated again.
python3 - "$J" <<'EOF'
import sys
f = open(sys.argv[1], 'r+b')
data = f.read(1 << 21)
at = data.index(b'"status":"', (1 << 20) + 4096) + 10
f.seek(at)
f.write(b'X')
EOF
same_check "a byte changed"
check "the changed block is validated" eval '[ "$(check_stat skipped)" -le 1 ]'
check "the changed line is reported" eval '[ "$(grep -c "^rc=1" "$TMP/a")" = 1 ] && [ -s "$TMP/a" ]'
# A block's worth appended: indexed, counted by the next check.
head -c 1500000 "$J" | sed '$d' >>"$J"
same_check "appended"
check "the appended blocks are indexed" eval '[ "$(check_stat index)" = extended ]'
same_check "appended, again"
# An index owned by someone else is not used (and built again).
if id nobody >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	chown nobody "$IDX"
	same_check "a foreign index"
	check "a foreign index is not used" eval '[ "$(check_stat index)" != used ]'
fi

finish
