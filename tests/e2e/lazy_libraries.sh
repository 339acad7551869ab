#!/usr/bin/env bash
# libgit2 and curses are loaded when a command first needs them, not linked
# (issue 14: loading them and their dependencies was most of every process
# start). Checks: the program links neither; with a broken copy of each
# first on the library path every other command still works, and a git
# command or the dashboard fails with one line naming the library; a
# rollback writes its files and syncs the file system twice (after the
# snapshot, after the writes) with no fsync per file, and leaves the
# worktree and index clean.
# Usage: lazy_libraries.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
export GIT_CONFIG_NOSYSTEM=1 HOME=$TMP/home
mkdir -p "$HOME"

g() { git -C "$WS" "$@"; }

WS=$TMP/ws
mkdir -p "$WS/.agent" "$WS/src"
g init -q
g config user.email e2e@example.com
g config user.name e2e
for i in 1 2 3 4 5; do printf 'v1 %s\n' "$i" >"$WS/src/f$i.txt"; done
g add -A -- . ':!.agent' >/dev/null
g commit -q -m base
base_tree=$(g rev-parse 'HEAD^{tree}')
for i in 1 2 3 4 5; do printf 'v2 %s\n' "$i" >"$WS/src/f$i.txt"; done
printf 'new\n' >"$WS/src/added.txt"
g add -A -- . ':!.agent' >/dev/null
g commit -q -m change
printf '{"id":"op1","timestamp":"2025-01-01T00:00:01.000Z","sessionId":"s1","type":"file_write","details":{"path":"src"},"gitCommitHash":"%s"}\n' \
	"$(g rev-parse HEAD)" >"$WS/.agent/operations.jsonl"

# --- not linked ------------------------------------------------------------
soname=$(grep -aoE 'libgit2\.so\.[0-9][0-9.]*' "$AC" | head -1)
curses_soname=$(grep -aoE 'libncursesw\.so\.[0-9][0-9.]*' "$AC" | head -1)
check "the binary names the libgit2 soname it loads" [ -n "$soname" ]
check "the binary names the ncursesw soname it loads" [ -n "$curses_soname" ]
check "the binary does not link libgit2" \
	bash -c "! readelf -d '$AC' | grep NEEDED | grep -q libgit2"
check "the binary does not link curses" \
	bash -c "! readelf -d '$AC' | grep NEEDED | grep -qE 'curses|tinfo'"

# --- a broken libgit2 and ncursesw -------------------------------------------
broken=$TMP/broken-lib
mkdir -p "$broken"
printf 'not a shared object\n' >"$broken/$soname"
printf 'not a shared object\n' >"$broken/$curses_soname"
broken_run() { LD_LIBRARY_PATH=$broken${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} run "$@"; }

broken_run journal log '{"agent":"Human","status":"SUCCESS","action":{"type":"ANALYSIS","params":{}},"result":{"message":"hello"}}'
check "journal log works without libgit2" rc_is 0
broken_run journal read --last 1
check "journal read works without libgit2" [ "$RC" = 0 ]
check "journal read shows the event" grep -q hello "$TMP/out"
broken_run ops list
check "ops list works without libgit2" rc_is 0
check "ops list lists the operation" grep -q op1 "$TMP/out"
broken_run --version
check "--version works without libgit2" rc_is 0

before=$(g rev-parse HEAD; g status --porcelain; cat "$WS"/src/*)
broken_run ops rollback op1 --yes
check "ops rollback without libgit2 exits 1" rc_is 1
check "its error is one line" [ "$(wc -l <"$TMP/err")" = 1 ]
check "its error names the library" grep -q "needs $soname, which cannot be loaded" "$TMP/err"
check "nothing changed" [ "$(g rev-parse HEAD; g status --porcelain; cat "$WS"/src/*)" = "$before" ]
broken_run ops show op1 --patch
check "ops show --patch without libgit2 exits non-zero, naming the library" \
	bash -c "[ $RC != 0 ] && grep -q '$soname' '$TMP/err'"

# The dashboard, on a terminal (script(1) gives it one).
if command -v script >/dev/null; then
	LD_LIBRARY_PATH=$broken${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} TERM=xterm \
		script -qec "'$AC' -w '$WS'" /dev/null </dev/null >"$TMP/out" 2>&1
	RC=$?
	check "the dashboard without curses exits 1" rc_is 1
	check "its error names the library, in one line" \
		[ "$(grep -c "needs $curses_soname, which cannot be loaded" "$TMP/out")" = 1 ]
fi

# --- a rollback with libgit2: one sync at the end ------------------------------
if command -v strace >/dev/null; then
	# LeakSanitizer cannot run under ptrace.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -y -e trace=fsync,fdatasync,syncfs -o "$TMP/strace" \
		"$AC" -w "$WS" ops rollback op1 --yes >"$TMP/out" 2>"$TMP/err" </dev/null
	RC=$?
	check "ops rollback exits 0" rc_is 0
	check "two syncfs calls (after the snapshot, after the writes)" \
		[ "$(grep -c 'syncfs(' "$TMP/strace")" = 2 ]
	# The fsyncs left are agentctl's own records: the exclude block in
	# .git/info (its first write) and the rollback intent (.agent/
	# rollback-intent.json and its folder, before the first file; the
	# folder again once it is removed); none is of a worktree file
	# (strace -y names each descriptor's file).
	check "no fsync per worktree file" \
		eval '! grep -E "^[0-9]+ +f(data)?sync\(.*/src/" "$TMP/strace" >/dev/null &&
			[ "$(grep -cE "^[0-9]+ +f(data)?sync\(" "$TMP/strace")" -le 5 ]' 
else
	run ops rollback op1 --yes
	check "ops rollback exits 0" rc_is 0
fi
check "the files are back" [ "$(cat "$WS/src/f3.txt")" = "v1 3" ]
check "the added file is gone" [ ! -e "$WS/src/added.txt" ]
check "git sees a clean worktree and index" [ -z "$(g status --porcelain)" ]
check "HEAD and the index hold the tree before the operation" \
	[ "$(g write-tree)" = "$base_tree" ] && [ "$(g rev-parse 'HEAD^{tree}')" = "$base_tree" ]

finish
