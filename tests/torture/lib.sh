# Shared by the torture cases (sourced, not run). A case script is run as
#   bash CASE.sh path/to/agentctl path/to/torture_writer short|full
# prints one line per check ("  ok   ..." / "  FAIL ..."), and ends with
#   RESULT <case> <passed> <failed> <counts...>
# which run.sh collects into its summary.
set -u

AC=$(realpath "${1:?usage: $0 path/to/agentctl path/to/torture_writer short|full}")
TW=$(realpath "${2:?usage: $0 path/to/agentctl path/to/torture_writer short|full}")
MODE=${3:-full}
KEEP=${TORTURE_KEEP:-0}
PASS=0
FAIL=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/agentctl-torture.XXXXXX")

# Extra clean-up steps a case adds (unmount, restore a sysctl, tmux...);
# they run before the work folder goes, whatever way the script ends.
CLEANUP=()
cleanup() {
	local step
	for step in "${CLEANUP[@]+"${CLEANUP[@]}"}"; do eval "$step"; done
	if [ "$KEEP" = 1 ]; then echo "  (kept $WORK)"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# check NAME COMMAND...: one check, passing when COMMAND succeeds.
check() {
	local name=$1
	shift
	if "$@"; then
		PASS=$((PASS + 1))
		echo "  ok   $name"
	else
		FAIL=$((FAIL + 1))
		echo "  FAIL $name"
	fi
}

# kv KEY TEXT: the value of KEY=VALUE in TEXT (empty when absent).
kv() {
	sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2" | head -n 1
}

# eq A B / le A B: numeric comparisons for check.
eq() { [ "${1:-x}" = "${2:-y}" ]; }
le() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -le "$2" ]; }

# indent FILE: shows a file's first lines under a check, for diagnosis.
indent() {
	[ -s "$1" ] && head -n "${2:-10}" "$1" | cut -c1-300 | sed 's/^/       | /'
	return 0
}

finish() {
	echo "RESULT $CASE $PASS $FAIL $*"
	[ "$FAIL" -eq 0 ]
}
