# Sourced by the lone-surrogate end-to-end scripts (not a test):
#   seed_lone_surrogate WS OUT   makes WS a git repository with one commit,
#       then has the seeds' own Node code (seed_lone_surrogate.js,
#       seed004_journal.js) write a session, an operation and a journal
#       event holding lone surrogates; OUT receives "session <id>",
#       "operation <id>" and "event <JSON>" lines. Fails if a writer does.
LONE_SURROGATE_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seed_lone_surrogate() {
	git -C "$1" init -q &&
	git -C "$1" config user.email seed@example.invalid &&
	git -C "$1" config user.name seed &&
	echo base >"$1/base.txt" &&
	git -C "$1" add -A &&
	git -C "$1" commit -qm base &&
	node "$LONE_SURROGATE_LIB/seed_lone_surrogate.js" "$1" >"$2" &&
	node "$LONE_SURROGATE_LIB/seed004_journal.js" "$1/JOURNAL.jsonl" log "$(sed -n 's/^event //p' "$2")"
}
