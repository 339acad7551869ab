#!/usr/bin/env bash
# `agentctl usage daily` over COUNT transcripts of TOTAL_MB (Claude Code
# and Codex, bench/gen_transcripts.py) under a HOME of their own, against
# ccusage's reported 74 s on 8,714 files / 3.3 GB: cold (no index: every
# byte read), warm (nothing changed: nothing read), and after a turn was
# appended to 10 files (only those bytes read). With CCUSAGE=path/to/ccusage
# also ccusage itself on the same Claude files (it reads no Codex files).
# "cold" is the index's cold: the files stay in the page cache. "cold disk"
# is also the disk's: each transcript is first dropped from the page cache
# (posix_fadvise DONTNEED, file by file: no root needed, and the rest of a
# shared machine's cache stays), which is what `echo 3 >
# /proc/sys/vm/drop_caches` does to them, without the folders' metadata.
# Target: warm < 1 s.
#
#   bench/usage.sh AGENTCTL_BINARY    (COUNT=10000 TOTAL_MB=3300 by default)
#   PEER=path/to/other/agentctl       also the cold disk run of that binary,
#                                     alternating with this one, REPEAT times
set -euo pipefail
agentctl=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
count=${COUNT:-10000}
total_mb=${TOTAL_MB:-3300}
data=${DATA:-$here/data/transcripts-$count-$total_mb}
home=$data/home
cache=$data/cache

if [ ! -d "$home" ]; then
	echo "usage.sh: generating $count transcripts, $total_mb MB, in $home" >&2
	python3 "$here/gen_transcripts.py" "$home" "$count" "$total_mb"
fi
files=$(find "$home" -name '*.jsonl' | wc -l)
mb=$(du -sm "$home" | cut -f1)
export HOME=$home XDG_CACHE_HOME=$cache
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT

# "WALL s (CPU s)" of one run of "$@": wall clock, and user + system time,
# which a loaded shared machine inflates less. Output kept in $ws/out.
timed() {
	/usr/bin/time -f '%e %U %S' -o "$ws/time" "$@" >"$ws/out"
	awk '{ printf "%.2f s (CPU %.2f s)", $1, $2 + $3 }' "$ws/time"
}
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

# Drops every transcript from the page cache.
evict() {
	find "$home" -type f -print0 | python3 -c '
import os, sys
for p in sys.stdin.buffer.read().split(b"\0"):
    if p:
        fd = os.open(p, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)'
}
# "WALL s (CPU s)" of a run of binary $1 with no index and no transcript in
# the page cache; its totals (without the file counts) in $ws/totals-$2.
cold_disk() {
	rm -rf "$cache"
	evict
	timed "$1" -w "$ws" usage daily --all-projects --json
	jq -S 'del(.files)' "$ws/out" >"$ws/totals-$2"
}

disk=$(cold_disk "$agentctl" this)
rm -rf "$cache"
cold=$(timed "$agentctl" -w "$ws" usage daily --all-projects --json)
read_mb=$(jq '.files.bytesRead / 1e6 | floor' "$ws/out")
w1=$(timed "$agentctl" -w "$ws" usage daily --all-projects)
w2=$(timed "$agentctl" -w "$ws" usage daily --all-projects)
w3=$(timed "$agentctl" -w "$ws" usage daily --all-projects --json)
warm=$(median3 "$w1" "$w2" "$w3")
warm_read=$(jq '.files.read' "$ws/out")
index_mb=$(du -m "$cache/agentctl/usage-index.bin" | cut -f1)
# A turn appended to 10 transcripts: only those bytes are read.
for f in $(find "$home/.claude/projects" -name '*.jsonl' | sort | head -10); do
	tail -n 3 "$f" | sed 's/"msg_/"msg_new_/; s/"req_/"req_new_/' >>"$f"
done
inc=$(timed "$agentctl" -w "$ws" usage daily --all-projects --json)
inc_files=$(jq '.files.read' "$ws/out")
inc_kb=$(jq '.files.bytesRead / 1e3 | floor' "$ws/out")

echo "## usage"
echo
echo "$files transcript files, $mb MB ($(find "$home/.codex" -name '*.jsonl' | wc -l) Codex rollouts), on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
echo "| measurement | result | target / anchor |"
echo "|---|---:|---:|"
echo "| cold: no index, every file read ($read_mb MB) | ${cold} | ccusage users: 74 s on 3.3 GB |"
echo "| cold disk: the same, every transcript dropped from the page cache first | ${disk} | |"
if [ -n "${PEER:-}" ]; then
	for ((i = 1; i <= ${REPEAT:-2}; i++)); do
		peer=$(cold_disk "$PEER" peer)
		again=$(cold_disk "$agentctl" this)
		same=$(cmp -s "$ws/totals-peer" "$ws/totals-this" && echo "same totals" || echo "TOTALS DIFFER")
		echo "| cold disk, pair $i (load $(cut -d' ' -f1 /proc/loadavg)): this / $(basename "$(dirname "$PEER")")/$(basename "$PEER") | ${again} / ${peer} | $same |"
	done
fi
echo "| warm: nothing changed (median of 3; $warm_read files read) | ${warm} | < 1 s |"
echo "| a turn appended to 10 files ($inc_files files, $inc_kb KB read) | ${inc} | |"
echo "| index size | $index_mb MB | |"
if [ -n "${CCUSAGE:-}" ]; then
	cc=$(timed "$CCUSAGE" daily --offline --json)
	echo "| ccusage daily --offline --json, the same Claude files | ${cc} | |"
fi
