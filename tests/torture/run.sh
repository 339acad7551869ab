#!/usr/bin/env bash
# Runs every torture case and prints a per-case summary:
#   tests/torture/run.sh [--short] [--keep] [path/to/agentctl]
# --short is the CI version (well under a minute); the full one takes a few
# minutes and writes a few GB to $TMPDIR (removed as it goes). --keep
# leaves the work folders. agentctl defaults to build/agentctl; the helper
# torture_writer is taken from beside it (or $TORTURE_WRITER). Run as root
# for the disk-full tmpfs and the inotify queue limit; without, those
# cases fall back and say so. The last line is "N passed, M failed" (checks).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mode=full
ac=""
for arg in "$@"; do
	case $arg in
	--short) mode=short ;;
	--keep) export TORTURE_KEEP=1 ;;
	-h | --help)
		sed -n '2,9p' "$0"
		exit 0
		;;
	*) ac=$arg ;;
	esac
done
ac=${ac:-${AGENTCTL:-$here/../../build/agentctl}}
if [ ! -x "$ac" ]; then
	echo "agentctl not found at $ac: build it (cmake -S . -B build && cmake --build build)"
	echo "0 passed, 1 failed"
	exit 2
fi
tw=${TORTURE_WRITER:-$(dirname "$(realpath "$ac")")/torture_writer}
if [ ! -x "$tw" ]; then
	echo "torture_writer not found at $tw: build it (cmake --build build --target torture_writer)"
	echo "0 passed, 1 failed"
	exit 2
fi
if [ "$mode" = short ]; then limit=120; else limit=1200; fi
# The caches agentctl keeps (the session listing's, one per workspace) go
# into a folder of the run's, not the user's home.
XDG_CACHE_HOME=$(mktemp -d)
export XDG_CACHE_HOME
trap 'rm -rf "${XDG_CACHE_HOME:?}"' EXIT

echo "agentctl torture ($mode): $ac, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, $(uname -sr)"
total_pass=0 total_fail=0
rows=()
for case in journal sessions seed_race diskfull watch; do
	echo "== $case"
	log=$(mktemp)
	start=$(date +%s)
	timeout --kill-after=10 "$limit" bash "$here/$case.sh" "$ac" "$tw" "$mode" 2>&1 | tee "$log" |
		grep -v '^RESULT '
	status=${PIPESTATUS[0]}
	secs=$(($(date +%s) - start))
	result=$(grep '^RESULT ' "$log" | tail -n 1)
	rm -f "$log"
	if [ -z "$result" ]; then
		# No summary line: the case crashed or timed out (124).
		echo "  FAIL $case ended without a result (exit $status$([ "$status" = 124 ] && echo ", timed out after ${limit} s"))"
		total_fail=$((total_fail + 1))
		rows+=("$(printf '%-9s %-6s %5s %5ss  %s' "$case" FAIL "-" "$secs" "no result (exit $status)")")
		continue
	fi
	read -r _ _ pass fail counts <<<"$result"
	# A case that exits non-zero with no failed check still fails.
	[ "$status" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	verdict=$([ "$fail" -eq 0 ] && [ "$status" -eq 0 ] && echo PASS || echo FAIL)
	rows+=("$(printf '%-9s %-6s %5s %5ss  %s' "$case" "$verdict" "$pass/$((pass + fail))" "$secs" "$counts")")
done
echo "== summary ($mode)"
printf '%-9s %-6s %5s %6s  %s\n' case result checks time counts
for row in "${rows[@]}"; do echo "$row"; done
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
