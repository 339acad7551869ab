#!/usr/bin/env bash
# Issue 26 item 3: `journal read|query|check --all` over the archives other
# writers leave beside the journal, written by seed 004's own journal.js
# (tests/e2e/lib/seed004_journal.js): a monthly archive
# (JOURNAL-YYYY-MM.jsonl, seed 004 §5's "monthly" rotation), logrotate's
# numbered ones (JOURNAL.jsonl.N: logrotate renames the file; higher N is
# older), one logrotate compressed (.gz: named, not read) and agentctl's own
# rotated file. All events come out in time order; each archive-like file
# that is not read is named on stderr, one line each.
# Usage: journal_archives.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
command -v node >/dev/null || { echo "node missing: skipped"; exit 0; }
SEED=$(cd "$(dirname "$0")/lib" && pwd)/seed004_journal.js
WS=$TMP/ws
J=$WS/JOURNAL.jsonl
mkdir -p "$WS/.agent"

event() { # FILE MONTH DAY: one event of 2025-MONTH-DAY, by journal.js log
	node "$SEED" "$1" log "$(printf '{"id":"evt_2025%s%s120000_0000%s%s","timestamp":"2025-%s-%sT12:00:00.000Z","agent":"Claude","status":"SUCCESS","action":{"type":"ANALYSIS","params":{}},"result":{"message":"day %s-%s"}}' \
		"$2" "$3" "$2" "$3" "$2" "$3" "$2" "$3")"
}
# logrotate's rotate (no copytruncate): the numbered files move up, the
# journal is renamed to .1, and a writer starts a new one.
logrotate_rotate() {
	for n in 3 2 1; do [ -e "$J.$n" ] && mv "$J.$n" "$J.$((n + 1))"; done
	mv "$J" "$J.1"
}

event "$WS/JOURNAL-2025-06.jsonl" 06 10 # a monthly archive of June
event "$J" 07 01
event "$J" 07 02
logrotate_rotate
event "$J" 08 01
logrotate_rotate
event "$J" 09 01
event "$J" 09 02
logrotate_rotate                         # now .1 = September, .2 = August, .3 = July
gzip "$J.3"                              # logrotate's compress: July is JOURNAL.jsonl.3.gz
event "$J" 09 11
run journal rotate                       # agentctl's own: JOURNAL-<now>.jsonl
check "agentctl's rotate: exit 0" rc_is 0
event "$J" 09 21
printf '{"not":"an event"}\n' >"$WS/JOURNAL-notes.jsonl.bak"

run journal read --all --json
check "read --all: exit 0" rc_is 0
check "read --all: every readable archive, in time order" \
	eval '[ "$(jq -r "[.[].result.message] | join(\",\")" <"$TMP/out")" = "day 06-10,day 08-01,day 09-01,day 09-02,day 09-11,day 09-21" ]'
check "read --all: the compressed one named, not read" \
	eval '[ "$(grep -c "JOURNAL.jsonl.3.gz: compressed; not read" "$TMP/err")" = 1 ]'
check "read --all: an archive-like name it does not know, named" \
	eval '[ "$(grep -c "JOURNAL-notes.jsonl.bak: named like a rotated journal" "$TMP/err")" = 1 ]'
check "read --all: one line each, nothing else (the lock file is no archive)" \
	eval '[ "$(wc -l <"$TMP/err")" = 2 ]'
run journal read --all --last 2 --json
check "read --all --last 2: the newest two" \
	eval '[ "$(jq -r "[.[].result.message] | join(\",\")" <"$TMP/out")" = "day 09-11,day 09-21" ]'
run journal query --all "agent=Claude" --json
check "query --all: all six" eval '[ "$(jq length <"$TMP/out")" = 6 ]'
run journal check --all
check "check --all: each file read checked (4 archives + the journal)" \
	eval '[ "$RC" = 0 ] && [ "$(grep -c ": [0-9]* valid, 0 invalid line" "$TMP/out")" = 5 ]'
check "check --all: the unread ones named" eval 'grep -q "3.gz: compressed" "$TMP/err"'
run journal read --json
check "read without --all: the journal alone, no notes" \
	eval '[ "$(jq length <"$TMP/out")" = 1 ] && [ ! -s "$TMP/err" ]'

finish
