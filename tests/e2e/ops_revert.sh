#!/usr/bin/env bash
# End-to-end checks of `agentctl ops show OPID --patch` (the commit's diff,
# exact, agent state left out, hostile bytes made visible) and `agentctl ops
# revert` (one operation undone, later ones kept; a collision refused
# naming the path with nothing changed; --dry-run changes nothing), and of
# the sessions a rollback or revert names. The git command-line tool only
# sets up and inspects repositories; agentctl never runs it.
# Usage: ops_revert.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
export GIT_CONFIG_NOSYSTEM=1 HOME=$TMP/home
mkdir -p "$HOME"

g() { git -C "${WS:?no workspace}" "$@"; }

# commit_op ID SESSION PATH: commits the workspace as an agent would and
# logs the operation with its hash.
commit_op() {
	g add -A -- . ':!.agent' ':!JOURNAL*' >/dev/null 2>&1
	g commit -q --allow-empty -m "[agent] file_write: $3"
	printf '{"id":"%s","timestamp":"2025-01-01T00:00:01.000Z","sessionId":"%s","type":"file_write","details":{"path":"%s"},"gitCommitHash":"%s"}\n' \
		"$1" "$2" "$3" "$(g rev-parse HEAD)" >>"$WS/.agent/operations.jsonl"
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
}

lines() { printf 'line %s\n' 1 "$1" 3 4 5 6 7 8 "$2" 10; }

# --- the patch --------------------------------------------------------
new_ws
printf 'one\n' >"$WS/a.txt"
commit_op op0 s0 a.txt
printf 'two\n' >"$WS/a.txt"
printf 'agent\n' >"$WS/.agent/notes.txt"
g add -f .agent/notes.txt
commit_op op1 s1 a.txt
run ops show op1 --patch
check "show --patch exits 0" rc_is 0
printf 'diff --git a/a.txt b/a.txt\nindex %s..%s 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n' \
	"$(printf '%.7s' "$(printf 'one\n' | g hash-object --stdin)")" \
	"$(printf '%.7s' "$(printf 'two\n' | g hash-object --stdin)")" >"$TMP/want"
check "show --patch prints the exact unified diff (agent state left out)" cmp -s "$TMP/want" "$TMP/out"
run ops show op1 -p
check "show -p is --patch" cmp -s "$TMP/want" "$TMP/out"

printf 'tab\there \033]0;pwned\007 \033[31mred\n' >"$WS/evil.txt"
printf 'bin\000ary' >"$WS/bin.dat"
commit_op op2 s1 evil.txt
run ops show op2 --patch
check "show --patch of hostile bytes exits 0" rc_is 0
check "no escape byte reaches the terminal" sh -c '! grep -q "$(printf "\033")" "$1" && ! grep -q "$(printf "\007")" "$1"' _ "$TMP/out"
check "escape and bell are made visible" grep -qF '+tab	here ^[]0;pwned^G ^[[31mred' "$TMP/out"
check "a binary file says so" grep -qx 'Binary files /dev/null and b/bin.dat differ' "$TMP/out"

printf '{"id":"op3","timestamp":"2025-01-01T00:00:03.000Z","sessionId":"s2","type":"command_run","details":{"command":"make"}}\n' \
	>>"$WS/.agent/operations.jsonl"
run ops show op3 --patch
check "show --patch of an operation without a commit exits 1" rc_is 1
check "... saying it has no commit" grep -q 'op3.*no git commit' "$TMP/err"
run ops show op1 --bogus
check "show with an unknown option exits 2" rc_is 2

# --- revert -----------------------------------------------------------
# login.js: s1 changes line 2 (op1), s2 line 9 and adds other.txt (op2).
new_ws
lines 2 9 >"$WS/login.js"
commit_op op0 s0 login.js
lines TWO 9 >"$WS/login.js"
commit_op op1 s1 login.js
lines TWO NINE >"$WS/login.js"
printf 'other\n' >"$WS/other.txt"
commit_op op2 s2 other.txt

before=$(state)
run ops revert op1 --dry-run
check "revert --dry-run exits 0" rc_is 0
check "revert --dry-run changes nothing" [ "$(state)" = "$before" ]
check "revert --dry-run lists the file it changes" grep -q '^  change *login.js$' "$TMP/out"
check "revert --dry-run names only the reverted operation's session" \
	grep -qx 'Undoes the work of session: s1 (this operation only)' "$TMP/out"
check "revert --dry-run says so" grep -q 'dry run: nothing changed' "$TMP/out"

run ops rollback op1 --dry-run
check "rollback --dry-run names every session it undoes" \
	grep -qx 'Undoes the work of sessions: s1, s2 (this operation and every later one)' "$TMP/out"
check "rollback --dry-run would remove other.txt" grep -q '^  remove *other.txt$' "$TMP/out"

run ops revert op1
check "revert without --yes and no terminal exits 2" rc_is 2
check "... and changes nothing" [ "$(state)" = "$before" ]
"$AC" -w "$WS" --read-only ops revert op1 --yes >/dev/null 2>&1
check "revert with --read-only exits 2" [ $? = 2 ]

head_before=$(g rev-parse HEAD)
run ops revert op1 --yes
check "revert exits 0" rc_is 0
lines 2 NINE >"$TMP/want"
check "revert undid op1's line" cmp -s "$TMP/want" "$WS/login.js"
check "revert kept op2's file" [ "$(cat "$WS/other.txt")" = other ]
check "revert made a commit on top of the old HEAD" g merge-base --is-ancestor "$head_before" HEAD
check "the revert commit says what it is" [ "$(g log -1 --format=%s)" = "[agent] revert of op1" ]
check "the worktree is clean after the revert" [ -z "$(g status --porcelain -- . ':!.agent')" ]
check "revert is in the operation log" \
	sh -c 'tail -n 1 "$1" | jq -e ".details.revertOf == \"op1\" and .sessionId == \"s1\" and (.gitCommitHash | length) == 40" >/dev/null' _ "$WS/.agent/operations.jsonl"
check "revert is journaled" \
	sh -c 'tail -n 1 "$1" | jq -e ".action.type == \"ROLLBACK\" and .agent == \"Human\" and .action.params.revert == true" >/dev/null' _ "$WS/JOURNAL.jsonl"
check "revert names its operation" grep -q '^Recorded as operation ' "$TMP/out"

# A later change of the same line: refused, naming the path, nothing changed.
lines THREE NINE >"$WS/login.js"
commit_op op3 s3 login.js
before=$(state)
run ops revert op2 --dry-run
check "revert of a non-colliding op still works after" rc_is 0
run ops show op3 --patch
run ops revert "$(tail -n 2 "$WS/.agent/operations.jsonl" | head -n 1 | jq -r .id)" --yes
check "reverting the revert (line 2 changed since) is refused" rc_is 1
check "... naming the path" grep -q "'login.js'" "$TMP/err"
check "... and changes nothing" [ "$(state)" = "$before" ]
run ops revert op1 --dry-run
check "a colliding dry run is refused too" rc_is 1
check "... with nothing changed" [ "$(state)" = "$before" ]

# Reverting an operation that added a file removes it, keeping the rest.
run ops revert op2 --yes
check "revert of an added file exits 0" rc_is 0
check "... removes it" [ ! -e "$WS/other.txt" ]
check "... and keeps the later line change" grep -qx 'line THREE' "$WS/login.js"
check "... and line 9 goes back" grep -qx 'line 9' "$WS/login.js"

run ops revert nosuch --dry-run
check "revert of an unknown id exits 1" rc_is 1
run ops revert
check "revert without an id exits 2" rc_is 2

finish
