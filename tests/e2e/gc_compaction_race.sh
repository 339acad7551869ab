#!/usr/bin/env bash
# End-to-end check that `agentctl gc` never races a compaction of the same
# session, whatever the clocks say (issue 23, item 11), on the file store:
# a compaction of 300 messages is held between writing its archive and
# publishing the session (another process holds the sessions folder's
# lock, which the publish waits for), gc runs meanwhile with its clock
# 20 minutes ahead (AGENTCTL_TEST_GC_CLOCK_AHEAD, seconds), and the
# compaction is let go. gc must leave the archive (saying the session is
# busy), the compaction must publish a session that names an archive that
# exists, and the session's messages plus the archive's are the 300.
# gc_compaction_race_pg.sh is the PostgreSQL store's.
# Usage: gc_compaction_race.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

WS=$TMP/ws
S=$WS/.agent/sessions
mkdir -p "$S"
jq -n '{id: "s1", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z",
	task: "t", status: "running", metadata: {},
	conversationHistory: [range(0; 300) | {role: (if . % 2 == 0 then "user" else "assistant" end),
						content: "message \(.)"}]}' >"$S/s1.json"

archive() { find "$S/.compactions/s1" -type f -name '*.json' -size +0 2>/dev/null | head -n 1; }
has_archive() { [ -n "$(archive)" ]; }
# Distinct original messages in the session and in the archives it names
# that exist.
messages_kept() {
	{
		jq -r '.conversationHistory[].content | select(type == "string") |
			select(startswith("message "))' "$S/s1.json"
		jq -r '.metadata.compactions[]?.archive' "$S/s1.json" | while read -r a; do
			[ -f "$S/$a" ] && jq -r '.messages[].content' "$S/$a"
		done
	} | sort -u | wc -l
}

# The publish waits for the sessions folder's lock, held here until told.
mkfifo "$TMP/release"
flock "$S" -c "echo held >'$TMP/held'; read -r _ <'$TMP/release'" &
HOLDER=$!
check "holder: has the lock" wait_until test -e "$TMP/held"
"$AC" -w "$WS" session compact s1 --force >"$TMP/compact.out" 2>"$TMP/compact.err" &
COMPACT=$!
check "compaction: its archive is written" wait_until has_archive

export AGENTCTL_TEST_GC_CLOCK_AHEAD=1200
run gc --older-than 1m
unset AGENTCTL_TEST_GC_CLOCK_AHEAD
check "gc during the compaction: exit 0" rc_is 0
check "gc during the compaction: the archive stays" has_archive
check "gc during the compaction: says the session is busy" \
	grep -q "s1.*operator action" "$TMP/err"

echo go >"$TMP/release"
wait "$HOLDER"
wait "$COMPACT"
CRC=$?
check "compaction: exit 0" [ "$CRC" -eq 0 ]
check "compaction: the session names an archive that exists" \
	eval '[ -f "$S/$(jq -r ".metadata.compactions[0].archive" "$S/s1.json")" ]'
check "nothing lost: 300 messages in the session and its archive" [ "$(messages_kept)" -eq 300 ]

# Afterwards, with the clock still ahead: the named archive stays.
export AGENTCTL_TEST_GC_CLOCK_AHEAD=1200
run gc --older-than 1m
unset AGENTCTL_TEST_GC_CLOCK_AHEAD
check "gc after: exit 0" rc_is 0
check "gc after: nothing lost" [ "$(messages_kept)" -eq 300 ]

# An archive the session does not name, of a session no action holds, goes.
mkdir -p "$S/.compactions/s1"
echo '{"sessionId":"s1","messages":[]}' >"$S/.compactions/s1/20250101T000000.000Z.json"
touch -d '2025-01-01' "$S/.compactions/s1/20250101T000000.000Z.json"
run gc --older-than 1m
check "gc of an idle session: an unnamed old archive goes" \
	eval '[ ! -e "$S/.compactions/s1/20250101T000000.000Z.json" ] && [ "$(messages_kept)" -eq 300 ]'

finish
