# The harness of the command-line end-to-end scripts (sourced, not a test:
# ctest runs only tests/e2e/*.sh). After `. lib/cli.sh "$@"`:
#   AC   the agentctl binary (the script's first argument)
#   TMP  a private temp folder, removed on exit (XDG_CONFIG_HOME and
#        XDG_STATE_HOME are in it)
#   check NAME COMMAND...   one case: passes when COMMAND succeeds
#   run ARGS...             agentctl -w "$WS" ARGS with no input; sets RC,
#                           OUT and ERR (also in $TMP/out and $TMP/err)
#   finish                  prints "N passed, M failed"; exits 1 on a failure
#   rc_is N                 the last run exited N
#   jq_is FILE FILTER VALUE FILTER applied to FILE gives VALUE
#   wait_until COMMAND...   below
#   limited KB ARGS...      below

AC=$(realpath "${1:?usage: $(basename "$0") path/to/agentctl}")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agentctl-e2e.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# The user's config folder (and the trust store in it) is the test's own.
export XDG_CONFIG_HOME=$TMP/xdg XDG_STATE_HOME=$TMP/state
# Caches too (the session listing's is one per workspace): none is left in
# the user's home, one per run.
export XDG_CACHE_HOME=$TMP/cache
PASS=0
FAIL=0

pass() { PASS=$((PASS + 1)); }
fail() {
	FAIL=$((FAIL + 1))
	printf 'FAIL: %s\n' "$1" >&2
	[ -s "$TMP/err" ] && printf '  stderr: %s\n' "$(head -c 400 "$TMP/err")" >&2
	return 0
}
check() {
	local name=$1
	shift
	if "$@"; then pass; else fail "$name"; fi
}
run() {
	"$AC" -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}
finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
}
rc_is() { [ "$RC" -eq "$1" ]; }
jq_is() { [ "$(jq -r "$2" <"$1" 2>/dev/null)" = "$3" ]; }
# wait_until COMMAND...   polls COMMAND (every 10 ms, at most 10 s) until it
#                         succeeds: a file appears, a process ends
wait_until() {
	for _ in $(seq 1 1000); do
		"$@" && return 0
		sleep 0.01
	done
	return 1
}
# limited KB ARGS...      agentctl -w "$WS" ARGS with no input, in at most
#                         KB of address space (ulimit -v): sets RC and
#                         PEAK_KB, its peak resident memory (output in
#                         $TMP/out and $TMP/err). AddressSanitizer reserves
#                         terabytes of address space: under it the ulimit
#                         is left out, and PEAK_KB still bounds the memory,
#                         ASan's quarantine of freed blocks kept small so
#                         that the peak follows what is held at once, not
#                         all that was ever freed.
limited() {
	local kb=$1
	shift
	if LC_ALL=C grep -qa __asan_init "$AC"; then
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1 \
			peak_kb "$TMP/peak" "$AC" -w "$WS" "$@"
	else
		(ulimit -v "$kb" && peak_kb "$TMP/peak" "$AC" -w "$WS" "$@")
	fi >"$TMP/out" 2>"$TMP/err" </dev/null
	RC=$?
	PEAK_KB=$(tail -n 1 "$TMP/peak")
}
# peak_kb FILE COMMAND...  runs COMMAND; its peak resident memory (KiB) is
#                          the last line of FILE
peak_kb() {
	local file=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -o "$file" -f %M "$@"
	else
		python3 -c 'import os, resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc if rc >= 0 else 128 - rc)' "$file" "$@"
	fi
}
