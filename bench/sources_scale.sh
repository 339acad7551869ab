#!/usr/bin/env bash
# `agentctl session list` over many small transcripts, cold and warm, wall
# time and maximum resident memory (GNU time -v), for one or more builds
# side by side (e.g. before and after a change): COUNT transcripts of
# ~SIZE_KB each (default 200,000 of ~2 KB), made once by
# bench/gen_sources.py (bench/lib/sources_data.sh). Each binary gets its
# own cache folder; cold is its first run (no cache), warm the median of
# RUNS more (default 3). Output goes through a pipe.
#
#   COUNT=200000 SIZE_KB=2 bench/sources_scale.sh BINARY [BINARY...]
set -euo pipefail
export COUNT=${COUNT:-200000} SIZE_KB=${SIZE_KB:-2}
runs=${RUNS:-3}
agentctl=$(realpath "$1")
. "$(dirname "$0")/lib/sources_data.sh"
work=$(mktemp -d /tmp/agentctl-scale.XXXXXX)
: "${work:?}"
trap 'rm -rf "$work"' EXIT

one() { # binary cache: "wall user sys maxrss_MB"
	HOME=$home XDG_CACHE_HOME=$2 /usr/bin/time -v -o "$work/t" "$1" -w "$ws" session list | cat >"$work/out"
	awk -F': ' '/Elapsed/ { n = split($2, p, ":"); w = (n == 3 ? p[1] * 3600 + p[2] * 60 + p[3] : p[1] * 60 + p[2]) }
		/User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { m = $2 }
		END { printf "%.2f %.2f %.2f %d\n", w, u, s, m / 1024 }' "$work/t"
}
median() { sort -n -k1,1 | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'; }

echo "$count transcripts, $total MB; $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/Mem:/ {print $2}') GiB; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| binary | run | wall | user | sys | max RSS | rows |"
echo "|---|---|---:|---:|---:|---:|---:|"
for bin in "$@"; do
	c=$work/cache-$(basename "$bin")-$RANDOM
	read -r w u s m < <(one "$bin" "$c")
	echo "| $(basename "$bin") | cold | $w s | $u s | $s s | $m MB | $(($(wc -l <"$work/out") - 1)) |"
	read -r w u s m < <(for _ in $(seq "$runs"); do one "$bin" "$c"; done | median)
	echo "| $(basename "$bin") | warm (median of $runs) | $w s | $u s | $s s | $m MB | $(($(wc -l <"$work/out") - 1)) |"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
