#!/usr/bin/env bash
# Agent state is kept out of `git add -A` from agentctl's first write into
# a workspace that is a git repository (issue 23 item 14), not from the
# first commit: after `journal log` and `session create`, a seed agent's
# `git add -A` stages no JOURNAL.jsonl and nothing under .agent/, and the
# user's own lines of .git/info/exclude stay. Concurrent agentctl
# processes write one block; a .git/info that is a symbolic link is not
# followed, a .git owned by another user is not touched, gitEnabled off
# leaves git alone, and a folder that is no repository gets no .git.
# Usage: git_exclude.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
export GIT_CONFIG_NOSYSTEM=1 HOME=$TMP/home
mkdir -p "$HOME"

EVENT='{"agent":"Claude","status":"SUCCESS","action":{"type":"FILE_EDIT","params":{"path":"a.txt"}},"result":{"message":"edited"}}'
BEGIN='# >>> agentctl: agent state'

new_repo() { # a fresh repository with a file and the user's own exclude lines
	WS=$(mktemp -d "$TMP/ws.XXXXXX")
	git -C "$WS" init -q
	printf 'hello\n' >"$WS/a.txt"
	printf '# my own rules\n*.bak\n' >"$WS/.git/info/exclude"
}
staged() { # what `git add -A` stages, as the seed agent runs it
	(cd "$WS" && git add -A && git status --porcelain)
}

# ---- the first writes ----
new_repo
run journal log "$EVENT"
check "journal log exit 0" rc_is 0
check "journal log: nothing on stderr ($ERR)" [ -z "$ERR" ]
run session create "a task" --id s1
check "session create exit 0" rc_is 0
check "the journal and the session were written" [ -f "$WS/JOURNAL.jsonl" ] && [ -f "$WS/.agent/sessions/s1.json" ]
STAGED=$(staged)
check "git add -A stages a.txt ($STAGED)" grep -q 'a\.txt' <<<"$STAGED"
check "git add -A stages no JOURNAL.jsonl" [ -z "$(grep JOURNAL <<<"$STAGED")" ]
check "git add -A stages nothing under .agent/" [ -z "$(grep '\.agent' <<<"$STAGED")" ]
check "the user's lines stay, first" [ "$(head -2 "$WS/.git/info/exclude")" = "$(printf '# my own rules\n*.bak')" ]
check "one block" [ "$(grep -c "^$BEGIN" "$WS/.git/info/exclude")" = 1 ]
# A later write finds it there and rewrites nothing.
cp -p "$WS/.git/info/exclude" "$TMP/exclude.before"
INODE=$(stat -c %i "$WS/.git/info/exclude")
run journal log "$EVENT"
check "a second write leaves the file alone" [ "$(stat -c %i "$WS/.git/info/exclude")" = "$INODE" ]
check "... byte for byte" cmp -s "$WS/.git/info/exclude" "$TMP/exclude.before"
# A user line added after the block survives the next commit's rewrite.
printf '*.orig\n' >>"$WS/.git/info/exclude"
git -C "$WS" -c user.name=u -c user.email=u@e commit -qm first
run ops record --session s1 --type file_write --details '{"path":"a.txt"}'
check "ops record exit 0" rc_is 0
check "the user's later line stays" grep -qx '\*\.orig' "$WS/.git/info/exclude"
check "still one block" [ "$(grep -c "^$BEGIN" "$WS/.git/info/exclude")" = 1 ]

# ---- a workspace in a subfolder of the repository ----
new_repo
mkdir -p "$WS/sub/ws"
"$AC" -w "$WS/sub/ws" journal log "$EVENT" >/dev/null 2>"$TMP/err"
check "subfolder: exit 0" [ $? = 0 ]
STAGED=$(staged)
check "subfolder: its journal is not staged ($STAGED)" [ -z "$(grep JOURNAL <<<"$STAGED")" ]

# ---- concurrent first writes ----
new_repo
for i in 1 2 3 4 5 6 7 8; do
	"$AC" -w "$WS" journal log "$EVENT" >/dev/null 2>>"$TMP/err.par" &
done
wait
check "concurrent: every write worked" [ "$(wc -l <"$WS/JOURNAL.jsonl")" = 8 ]
check "concurrent: one block" [ "$(grep -c "^$BEGIN" "$WS/.git/info/exclude")" = 1 ]
check "concurrent: the user's lines stay" grep -qx '\*\.bak' "$WS/.git/info/exclude"
check "concurrent: no temp file left" [ -z "$(ls -A "$WS/.git/info" | grep -v '^exclude$')" ]
check "concurrent: JOURNAL.jsonl not staged" [ -z "$(staged | grep JOURNAL)" ]

# ---- .git/info a symbolic link: not followed ----
new_repo
mkdir "$TMP/elsewhere"
printf 'not yours\n' >"$TMP/elsewhere/exclude"
rm -rf "$WS/.git/info"
ln -s "$TMP/elsewhere" "$WS/.git/info"
run journal log "$EVENT"
check "info link: the write still works" rc_is 0
check "info link: said in one line" [ "$(grep -c 'symbolic link' "$TMP/err")" = 1 ]
check "info link: nothing written through it" [ "$(cat "$TMP/elsewhere/exclude")" = 'not yours' ] &&
	[ "$(ls -A "$TMP/elsewhere")" = exclude ]

# ---- .git owned by another user: not touched ----
if [ "$(id -u)" = 0 ]; then
	new_repo
	chown -R 65534:65534 "$WS/.git"
	cp -p "$WS/.git/info/exclude" "$TMP/exclude.before"
	run journal log "$EVENT"
	check "other owner: the write still works" rc_is 0
	check "other owner: exclude not touched" cmp -s "$WS/.git/info/exclude" "$TMP/exclude.before"
	check "other owner: nothing new in .git/info" [ "$(ls -A "$WS/.git/info")" = exclude ]
fi

# ---- gitEnabled off; no repository ----
new_repo
mkdir -p "$WS/.agent"
printf '{"gitEnabled": false}\n' >"$WS/.agent/config.json"
run journal log "$EVENT"
check "gitEnabled off: exclude not touched" [ "$(cat "$WS/.git/info/exclude")" = "$(printf '# my own rules\n*.bak')" ]
WS=$(mktemp -d "$TMP/plain.XXXXXX")
run journal log "$EVENT"
check "no repository: exit 0" rc_is 0
check "no repository: no .git made" [ ! -e "$WS/.git" ]

# ---- gc: its first write is a session lock ----
# A seed agent's session and checkpoints (made elsewhere, copied in): gc
# --keep 1 takes the session's lock (.agent/sessions/.locks/s1.lock) before
# it removes; that file was staged by git add -A (no block was written:
# gc has no subcommand in main's table of writers). --dry-run writes nothing.
SEED=$(mktemp -d "$TMP/seed.XXXXXX")
"$AC" -w "$SEED" session create "a task" --id s1 >/dev/null
for i in 1 2 3; do "$AC" -w "$SEED" checkpoint create s1 >/dev/null; done
new_repo
mkdir -p "$WS/.agent"
cp -r "$SEED/.agent/sessions" "$SEED/.agent/checkpoints" "$WS/.agent/"
run gc --keep 1 --dry-run
check "gc --dry-run: exit 0" rc_is 0
check "gc --dry-run: no block written" [ "$(grep -c "^$BEGIN" "$WS/.git/info/exclude")" = 0 ]
run gc --keep 1
check "gc: exit 0" rc_is 0
check "gc: two checkpoints removed" [ "$(ls "$WS/.agent/checkpoints/s1" | wc -l)" = 1 ]
STAGED=$(staged)
check "gc: git add -A stages nothing under .agent/ ($STAGED)" [ -z "$(grep '\.agent' <<<"$STAGED")" ]

# ---- --read-only writes nothing ----
new_repo
run --read-only session list
check "--read-only: exclude not touched" [ "$(grep -c "^$BEGIN" "$WS/.git/info/exclude")" = 0 ]

finish
