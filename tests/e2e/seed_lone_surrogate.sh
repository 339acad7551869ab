#!/usr/bin/env bash
# Issue 26 item 1: a Node agent cuts text with .slice() inside an emoji and
# the seeds' own code writes the half it kept as "\ud83d" (JSON.stringify),
# in a session file, an operations.jsonl line and a journal line
# (tests/e2e/lib/seed_lone_surrogate.js, seed004_journal.js). JSON.parse
# reads them; so must agentctl: listed, shown (the escape made visible),
# paused, resumed, compacted and rolled back with those bytes kept, the
# journal line valid. Node reads back everything agentctl rewrote.
# Usage: seed_lone_surrogate.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
command -v node >/dev/null || { echo "node missing: skipped"; exit 0; }
. "$(dirname "$0")/lib/lone_surrogate.sh"
WS=$TMP/ws
mkdir -p "$WS"
seed_lone_surrogate "$WS" "$TMP/seeded" || { echo "seed writers failed"; exit 1; }
SID=$(sed -n 's/^session //p' "$TMP/seeded")
OP=$(sed -n 's/^operation //p' "$TMP/seeded")
F=$WS/.agent/sessions/$SID.json
cp "$F" "$TMP/seed.json"
out_has() { grep -qF -- "$1" "$TMP/out"; }
# JS evaluated with s = JSON.parse(FILE) and cut = the seed's cut text.
node_is() { # FILE EXPRESSION: true when EXPRESSION holds
	node -e 'const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const cut = "ship🚀🚀".slice(0, 5), low = "🚀ok".slice(1);
		process.exit(eval(process.argv[2]) ? 0 : 1);' "$1" "$2" 2>/dev/null
}
check "the seed wrote lone surrogates" grep -qF '"task": "deploy ship\ud83d"' "$F"

run session list
check "list: exit 0" rc_is 0
check "list: the session, its task's half emoji shown as the escape" \
	eval 'grep -qE "^$SID +running .*deploy ship\\\\ud83d$" "$TMP/out"'
check "list: nothing skipped" eval '! grep -q skipped "$TMP/err"'
run session list --json
check "list --json: the task as JSON.parse reads it" \
	node_is "$TMP/out" 's.length === 1 && s[0].task === "deploy " + cut'

run session show "$SID"
check "show: exit 0" rc_is 0
check "show: both halves visible" eval 'out_has "launch ship\ud83d" && out_has "\ude80ok done"'
run session show "$SID" --json
check "show --json: the values JSON.parse gives" \
	node_is "$TMP/out" 's.conversationHistory[1].content[0].text === low + " done"'

run session fork "$SID"
CHILD=$(head -n 1 "$TMP/out")
check "fork: exit 0, the child keeps the task and messages" \
	eval 'rc_is 0 && node_is "$WS/.agent/sessions/$CHILD.json" "s.task === \"deploy \" + cut && s.conversationHistory[0].content === \"launch \" + cut"'

# Pause and resume rewrite the file: only status and updatedAt change.
same_but_status() { # STATUS
	grep -qF "  \"status\": \"$1\"," "$F" &&
	cmp -s <(grep -vE '^  "(status|updatedAt)"' "$TMP/seed.json") <(grep -vE '^  "(status|updatedAt)"' "$F")
}
run session pause "$SID"
check "pause: exit 0" rc_is 0
check "pause: the file byte for byte but status and updatedAt" same_but_status paused
check "pause: the seed's load() reads it back" node_is "$F" 's.status === "paused" && s.task === "deploy " + cut'
run session resume "$SID"
check "resume: exit 0" rc_is 0
check "resume: the file byte for byte but status and updatedAt" same_but_status running

run session compact "$SID" --force
check "compact: exit 0" rc_is 0
check "compact: the summary quotes the halves as they were" \
	node_is "$F" 's.conversationHistory[0].content.includes("launch ship" + cut.slice(4)) && s.task === "deploy " + cut'
ARCHIVE=$(ls "$WS/.agent/sessions/.compactions/$SID/"*.json 2>/dev/null | head -n 1)
check "compact: the archive holds the original messages" \
	eval '[ -n "$ARCHIVE" ] && node -e "
		const a = JSON.parse(require(\"fs\").readFileSync(process.argv[1], \"utf8\"));
		const o = JSON.parse(require(\"fs\").readFileSync(process.argv[2], \"utf8\"));
		const m = a.messages || a.conversationHistory;
		process.exit(JSON.stringify(m) === JSON.stringify(o.conversationHistory.slice(0, m.length)) ? 0 : 1);" \
		"$ARCHIVE" "$TMP/seed.json"'
check "compact: the lone escapes kept in the archive's bytes" grep -qF '"content": "launch ship\ud83d"' "$ARCHIVE"

run journal check
check "journal check: the seed's line is valid (and the operator's events)" \
	eval 'rc_is 0 && out_has " 0 invalid lines"'
run journal read
check "journal read: the event, the escape visible" \
	eval 'grep -qE "Claude +SUCCESS +FILE_EDIT +wrote ship\\\\ud83d$" "$TMP/out"'

run ops list
check "ops list: the seed's operation" eval 'rc_is 0 && out_has "$OP" && ! grep -q skipped "$TMP/err"'
run ops show "$OP"
check "ops show: its details as written" eval 'rc_is 0 && out_has "\"preview\":\"ship\ud83d\""'
check "the operation's file is there" test -e "$WS/notes.txt"
run ops rollback "$OP" --yes
check "ops rollback: exit 0" rc_is 0
check "ops rollback: the file it added is gone" test ! -e "$WS/notes.txt"
check "the seed's loadAll() reads the log back" eval 'node -e "
	const raw = require(\"fs\").readFileSync(process.argv[1], \"utf8\");
	const e = raw.trim().split(\"\n\").map((l) => JSON.parse(l));
	process.exit(e[0].details.preview === \"ship🚀🚀\".slice(0, 5) && e.length === 2 ? 0 : 1);" \
	"$WS/.agent/operations.jsonl"'
run journal check
check "journal check: still every line valid" eval 'rc_is 0 && out_has " 0 invalid lines"'

finish
