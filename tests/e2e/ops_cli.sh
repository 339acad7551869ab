#!/usr/bin/env bash
# End-to-end checks of `agentctl ops ...`: list, show, rollback (dry run,
# confirmation, the real thing, undoing it) and the error exits. The git
# command-line tool only sets up and inspects repositories here; agentctl
# itself never runs it.
# Usage: ops_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
export XDG_CONFIG_HOME=$TMP/xdg GIT_CONFIG_NOSYSTEM=1 HOME=$TMP/home
mkdir -p "$HOME"

g() { git -C "$WS" "$@"; }

# commit_op ID TYPE PATH: commits the workspace as an agent would and logs
# the operation with its hash.
commit_op() {
	g add -A -- . ':!.agent' ':!JOURNAL*' >/dev/null
	g commit -q --allow-empty -m "[agent] $2: $3"
	printf '{"id":"%s","timestamp":"2025-01-01T00:00:0%s.000Z","sessionId":"s1","type":"%s","details":{"path":"%s"},"gitCommitHash":"%s","extra":"kept"}\n' \
		"$1" "${#3}" "$2" "$3" "$(g rev-parse HEAD)" >>"$WS/.agent/operations.jsonl"
}

# state: every worktree file and its contents, git's status and HEAD.
state() {
	(cd "$WS" && find . -path ./.git -prune -o -type f -print | LC_ALL=C sort | while read -r f; do
		printf '%s\n' "$f"
		cat "$f"
	done
	git status --porcelain
	git rev-parse HEAD)
}

new_ws() {
	WS=$(mktemp -d "$TMP/ws.XXXXXX")
	g init -q
	g config user.email e2e@example.com
	g config user.name e2e
	mkdir -p "$WS/.agent"
	printf 'one\n' >"$WS/a.txt"
	printf 'keep\n' >"$WS/keep.txt"
	commit_op op1 file_write a.txt
	printf 'two\n' >"$WS/a.txt"
	printf 'bee\n' >"$WS/b.txt"
	rm "$WS/keep.txt"
	commit_op op2 file_write b.txt
	printf '{"id":"op3","timestamp":"2025-01-01T00:00:03.000Z","sessionId":"s2","type":"command_run","details":{"command":"make test"}}\n' \
		>>"$WS/.agent/operations.jsonl"
	printf 'this line is not json\n' >>"$WS/.agent/operations.jsonl"
	mkdir -p "$WS/sub"
	printf 'sea\n' >"$WS/sub/c.txt"
	commit_op op4 file_write sub/c.txt
}

# --- list -------------------------------------------------------------
WS=$(mktemp -d "$TMP/empty.XXXXXX")
run ops list
check "list of an empty workspace exits 0" [ "$RC" = 0 ]
check "list of an empty workspace prints only the header" [ "$(printf '%s\n' "$OUT" | wc -l)" = 1 ]

new_ws
run ops list
check "list exits 0 despite a corrupt line" [ "$RC" = 0 ]
check "list shows every valid operation" [ "$(printf '%s\n' "$OUT" | grep -c '^2025-')" = 4 ]
check "list names the corrupt line" grep -q 'operations.jsonl:4: not JSON' "$TMP/err"
check "list shows command_run as not reversible" grep -q 'op3 .*command_run *not reversible *make test' "$TMP/out"
check "list shows the short commit" grep -q "op2 .*file_write *$(g rev-parse HEAD~1 | cut -c1-12)" "$TMP/out"

run ops list --session s2
check "list --session filters" [ "$(printf '%s\n' "$OUT" | grep -c '^2025-')" = 1 ]

run ops list --json
check "list --json exits 0" [ "$RC" = 0 ]
check "list --json is one JSON document keeping unknown keys" python3 -c '
import json, sys
ops = json.load(open(sys.argv[1]))
assert [o["id"] for o in ops] == ["op1", "op2", "op3", "op4"], ops
assert ops[0]["extra"] == "kept"
' "$TMP/out"

printf '{"id":"esc","sessionId":"s","type":"command_run","details":{"command":"x\\u001b[31mred"}}\n' \
	>>"$WS/.agent/operations.jsonl"
run ops list
check "list makes escape bytes visible" bash -c '! grep -q $'"'"'\x1b'"'"' "$1" && grep -q "x^\[\[31mred" "$1"' _ "$TMP/out"

# --- show -------------------------------------------------------------
run ops show op2
check "show exits 0" [ "$RC" = 0 ]
check "show lists the modified file with line counts" grep -Eq 'modified +a\.txt +\+1 -1' "$TMP/out"
check "show lists the added file" grep -Eq 'added +b\.txt +\+1 -0' "$TMP/out"
check "show lists the deleted file" grep -Eq 'deleted +keep\.txt +\+0 -1' "$TMP/out"
run ops show op3
check "show of a command_run says not reversible" grep -q 'not reversible' "$TMP/out"
run ops show nope
check "show of an unknown id exits 1" [ "$RC" = 1 ]
check "show of an unknown id names it" grep -q 'nope' "$TMP/err"
# An empty id was looked up: exit 1, "operation : not in ..." (naming nothing).
for verb in show "rollback --dry-run" "revert --yes"; do
	read -r cmd opt <<<"$verb"
	run ops "$cmd" "" $opt
	check "ops $verb '': bad usage asking for an operation id" \
		eval '[ "$RC" = 2 ] && grep -q "operation id" "$TMP/err"'
done

# --- rollback: refusals -----------------------------------------------
BEFORE=$(state)
run ops rollback op2
check "rollback without --yes on a non-tty exits 2" [ "$RC" = 2 ]
check "rollback without --yes says it needs --yes" grep -q 'needs --yes' "$TMP/err"
run ops rollback op3 --yes
check "rollback of a command_run exits 1" [ "$RC" = 1 ]
check "rollback of a command_run says why" grep -q 'not reversible' "$TMP/err"
run ops rollback nope --yes
check "rollback of an unknown id exits 1" [ "$RC" = 1 ]
printf '{"id":"lost","sessionId":"s","type":"file_write","details":{},"gitCommitHash":"0123456789abcdef0123456789abcdef01234567"}\n' \
	>>"$WS/.agent/operations.jsonl"
BEFORE=$(state)
run ops rollback lost --yes
check "rollback to a hash git lacks exits 1" [ "$RC" = 1 ]
check "rollback to a hash git lacks names it" grep -q '0123456789abcdef' "$TMP/err"
run ops rollback
check "rollback without an id exits 2" [ "$RC" = 2 ]
run ops frobnicate
check "an unknown ops command exits 2" [ "$RC" = 2 ]
check "refusals change nothing" [ "$BEFORE" = "$(state)" ]

# --- rollback: dry run, then for real ---------------------------------
run ops rollback op2 --dry-run
check "dry run exits 0" [ "$RC" = 0 ]
check "dry run lists the change" grep -Eq '^  change +a\.txt$' "$TMP/out"
check "dry run lists the restore" grep -Eq '^  restore +keep\.txt$' "$TMP/out"
check "dry run lists the removals" bash -c 'grep -Eq "^  remove +b\.txt$" "$1" && grep -Eq "^  remove +sub/c\.txt$" "$1"' _ "$TMP/out"
check "dry run counts" grep -q '2 removed, 1 restored, 1 changed' "$TMP/out"
check "dry run changes nothing" [ "$BEFORE" = "$(state)" ]

printf 'uncommitted\n' >"$WS/sub/c.txt"
printf 'untracked\n' >"$WS/notes.txt"
run ops rollback op2 --yes
check "rollback exits 0" [ "$RC" = 0 ]
check "rollback restores the changed file" [ "$(cat "$WS/a.txt")" = one ]
check "rollback brings back the deleted file" [ "$(cat "$WS/keep.txt")" = keep ]
check "rollback removes files added since" [ ! -e "$WS/b.txt" -a ! -e "$WS/sub" ]
check "rollback leaves never-seen files" [ "$(cat "$WS/notes.txt")" = untracked ]
check "rollback commits on top" bash -c '[ "$(git -C "$1" log -1 --format=%s)" = "[agent] rollback to before op2" ]' _ "$WS"
check "rollback snapshots the dirty tree first" bash -c '[ "$(git -C "$1" show HEAD~1:sub/c.txt)" = uncommitted ]' _ "$WS"
check "rollback leaves a clean tree for the files it touched" bash -c '[ -z "$(git -C "$1" status --porcelain -- a.txt keep.txt b.txt sub)" ]' _ "$WS"
check "rollback is journaled as ROLLBACK by Human" grep -q '"agent":"Human".*"ROLLBACK"' "$WS/JOURNAL.jsonl"
RB=$(tail -n 1 "$WS/.agent/operations.jsonl" | python3 -c 'import json,sys; o=json.load(sys.stdin); assert o["details"]["rollbackOf"]=="op2"; print(o["id"])')
check "rollback is recorded as an operation" [ -n "$RB" ]

run ops rollback "$RB" --yes
check "undoing the rollback exits 0" [ "$RC" = 0 ]
check "undoing the rollback brings the uncommitted edit back" [ "$(cat "$WS/sub/c.txt")" = uncommitted ]
check "undoing the rollback brings b.txt back" [ "$(cat "$WS/b.txt")" = bee ]
check "undoing the rollback removes keep.txt again" [ ! -e "$WS/keep.txt" ]

# --- hostile trees (issue 11 item 1) ----------------------------------
# tree ENTRY...: writes a raw tree object (git's own tools refuse these
# names) from "MODE NAME HASH" entries; prints its hash.
tree() {
	local e mode name hash
	for e in "$@"; do
		read -r mode name hash <<<"$e"
		printf '%s %s\0' "$mode" "$name"
		printf '%s' "$hash" | xxd -r -p
	done | g hash-object -t tree --literally -w --stdin
}
# hostile_op ID TREE: logs an operation whose commit's parent has TREE.
hostile_op() {
	local parent commit
	parent=$(g commit-tree "$2" -m hostile </dev/null)
	commit=$(g commit-tree "$(g rev-parse 'HEAD^{tree}')" -p "$parent" -m op </dev/null)
	printf '{"id":"%s","sessionId":"evil","type":"file_write","details":{},"gitCommitHash":"%s"}\n' \
		"$1" "$commit" >>"$WS/.agent/operations.jsonl"
}
new_ws
rm -f "$TMP/escape.txt" "$TMP/PWNED"
BLOB=$(printf 'escaped\n' | g hash-object -w --stdin)
CFG=$(printf '[core]\n\tfsmonitor = touch %s/PWNED\n' "$TMP" | g hash-object -w --stdin)
UP=$(tree "100644 escape.txt $BLOB")
hostile_op up "$(tree "40000 .. $UP")"
hostile_op up2 "$(tree "100644 ../../escape.txt $BLOB")"
hostile_op dotgit "$(tree "40000 .git $(tree "100644 config $CFG")")"
hostile_op ntfs "$(tree "40000 GIT~1 $(tree "100644 config $CFG")")"
hostile_op link "$(tree "120000 out $(printf '../../..' | g hash-object -w --stdin)")"
BEFORE=$(state)
for id in up up2 dotgit ntfs link; do
	run ops rollback $id --dry-run
	check "hostile $id: dry run exits 1" [ "$RC" = 1 ]
	check "hostile $id: one error line naming the path" bash -c \
		'[ "$(wc -l <"$1")" = 1 ] && grep -Eq "(\.\.|\.git|GIT~1|out).*unsafe path" "$1"' _ "$TMP/err"
	run ops rollback $id --yes
	check "hostile $id: rollback exits 1" [ "$RC" = 1 ]
done
check "hostile trees change nothing" [ "$BEFORE" = "$(state)" ]
check "nothing escaped the workspace" [ ! -e "$TMP/escape.txt" ] && [ ! -e "$WS/../escape.txt" ]
g status >/dev/null 2>&1
check "no planted fsmonitor ran" [ ! -e "$TMP/PWNED" ]

# --- agent state stays out of git (issue 10 items 3, 4) ----------------
new_ws
mkdir -p "$WS/.agent/memo"
printf 'memo\n' >"$WS/.agent/memo/m.md"
g add -f .agent/memo/m.md && g commit -q -m "memo tracked by hand"
printf 'user line\n' >>"$WS/.git/info/exclude"
run ops rollback op4 --yes
check "rollback with tracked agent state exits 0" [ "$RC" = 0 ]
check "tracked agent state is reported with the untrack command" \
	grep -q "git tracks agent state.*rm --cached -r -- .agent" "$TMP/err"
check "the exclude file keeps the user's line" grep -q '^user line$' "$WS/.git/info/exclude"
run ops list
check "list also names tracked agent state, in one line" bash -c \
	'[ "$(grep -c "git tracks agent state" "$1")" = 1 ]' _ "$TMP/err"
EXCL=$(cat "$WS/.git/info/exclude")
mkdir -p "$WS/.agent/artifacts"
printf 'art\n' >"$WS/.agent/artifacts/a.md"
printf '{}\n' >"$WS/JOURNAL-2025-01.jsonl"
printf '1\n' >"$WS/JOURNAL.jsonl.lock"
printf 'user\n' >"$WS/user.txt"
g add -A
check "git add -A stages no agent state" bash -c \
	'! git -C "$1" diff --cached --name-only | grep -Eq "^(\.agent/artifacts|\.agent/operations|JOURNAL)"' _ "$WS"
check "git add -A still stages the user's file" bash -c \
	'git -C "$1" diff --cached --name-only | grep -qx user.txt' _ "$WS"
g reset -q
run ops rollback op2 --dry-run
check "the exclude block is written once" [ "$EXCL" = "$(cat "$WS/.git/info/exclude")" ]

# --- a clone inside the workspace (issue 11 item 7) ---------------------
new_ws
git init -q "$WS/vendor/lib"
printf 'lib\n' >"$WS/vendor/lib/lib.c"
run ops rollback op4 --yes
check "rollback beside an untracked clone exits 0" [ "$RC" = 0 ]
check "the clone is untouched" [ "$(cat "$WS/vendor/lib/lib.c")" = lib ]

# --- one id on two lines (issue 11 item 8) -------------------------------
new_ws
tail -n 1 "$WS/.agent/operations.jsonl" | sed 's/"op4"/"op1"/' >>"$WS/.agent/operations.jsonl"
BEFORE=$(state)
run ops rollback op1 --yes
check "rollback of an ambiguous id exits 1" [ "$RC" = 1 ]
check "rollback of an ambiguous id names the id and lines" grep -q 'op1: ambiguous.*lines 1, 6' "$TMP/err"
run ops show op1
check "show of an ambiguous id exits 1" [ "$RC" = 1 ]
check "ambiguous ids change nothing" [ "$BEFORE" = "$(state)" ]

# --- a merge in progress (issue 11 item 5) -------------------------------
new_ws
g checkout -q -b side HEAD~1
printf 'side\n' >"$WS/a.txt"
g commit -q -am side
g checkout -q -
printf 'main\n' >"$WS/a.txt"
g commit -q -am main
g merge side >/dev/null 2>&1
run ops rollback op4 --yes
check "rollback during a merge exits 1" [ "$RC" = 1 ]
check "rollback during a merge says which" grep -q 'a merge is in progress' "$TMP/err"
check "the merge state is kept" [ -e "$WS/.git/MERGE_HEAD" ]
check "the conflict stages are kept" [ -n "$(g ls-files -u)" ]

# --- an ignored file the rollback overwrites (issue 11 item 4) -----------
new_ws
printf 'old committed\n' >"$WS/config.local"
commit_op cfg1 file_write config.local
g rm -q --cached config.local
printf 'config.local\n' >"$WS/.gitignore"
printf "user's own\n" >"$WS/config.local"
printf 'later\n' >"$WS/a.txt"
commit_op cfg2 file_write a.txt
run ops rollback cfg2 --dry-run
check "dry run says the ignored file is kept in the snapshot" grep -q '1 file git does not track (ignored) will be overwritten' "$TMP/out"
run ops rollback cfg2 --yes
check "rollback over an ignored file exits 0" [ "$RC" = 0 ]
check "the snapshot keeps the ignored file" bash -c '[ "$(git -C "$1" show HEAD~1:config.local)" = "user'"'"'s own" ]' _ "$WS"

# --- the record of a rollback cannot be written (issue 11 item 16) --------
new_ws
printf 'a file where the journal folder must be\n' >"$WS/blocker"
printf '{"journalPath":"blocker/JOURNAL.jsonl"}\n' >"$WS/.agent/config.json"
run ops rollback op4 --yes
check "a rollback that could not be journaled exits 1" [ "$RC" = 1 ]
check "and says the files did change" grep -q 'files were rolled back.*journal was not written' "$TMP/err"

# --- few file descriptors (issue 11 item 16) -------------------------------
# At every limit a rollback either succeeds and is recorded, or exits 1
# with the real reason (not "not in the git repository"): never exit 0
# without its operation-log line.
new_ws
HONEST=yes
for n in 4 5 6 7 8 9 10 12 16; do
	LINES=$(wc -l <"$WS/.agent/operations.jsonl")
	(ulimit -n $n; exec "$AC" -w "$WS" ops rollback op4 --yes) >"$TMP/out" 2>"$TMP/err" </dev/null
	RC=$?
	NOW=$(wc -l <"$WS/.agent/operations.jsonl")
	if [ "$RC" = 0 ]; then
		[ "$NOW" = $((LINES + 1)) ] || { HONEST="no: exit 0 at ulimit -n $n without a record"; }
	elif [ "$RC" -lt 126 ]; then # 126, 127: the shell could not start it at all
		[ "$RC" = 1 ] && [ -s "$TMP/err" ] || HONEST="no: exit $RC at ulimit -n $n"
		! grep -q 'not in the git repository' "$TMP/err" ||
			HONEST="no: a wrong cause at ulimit -n $n: $(cat "$TMP/err")"
	fi
done
check "under ulimit -n, exit 0 only with the rollback recorded ($HONEST)" [ "$HONEST" = yes ]

# --- not a repository --------------------------------------------------
WS=$(mktemp -d "$TMP/plain.XXXXXX")
mkdir -p "$WS/.agent"
printf 'x\n' >"$WS/f.txt"
printf '{"id":"p1","sessionId":"s","type":"file_write","details":{},"gitCommitHash":"0123456789abcdef0123456789abcdef01234567"}\n' \
	>"$WS/.agent/operations.jsonl"
BEFORE=$(find "$WS" -type f -exec cat {} +)
run ops rollback p1 --yes
check "rollback outside a repository exits 1" [ "$RC" = 1 ]
check "rollback outside a repository says so" grep -q 'not in a git repository' "$TMP/err"
check "rollback outside a repository changes nothing" [ "$BEFORE" = "$(find "$WS" -type f -exec cat {} +)" ]
run ops show p1
check "show outside a repository exits 1" [ "$RC" = 1 ]

finish
