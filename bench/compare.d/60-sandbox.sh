# `sandbox sync` and `sandbox mirror` (seed 001 §6-7) of a session with 100,
# 1,000 and 10,000 memory documents of 1 KiB, over a mirror nobody changed:
# the steady state a host pays each time it syncs a sandbox (every mirror
# file read and hashed, every store document read and compared) and each
# refresh. No peer: the seed has no mirror code to run. Against `cp -r` of
# the same documents (what a host without agentctl would do to refresh a
# mirror, with no conflict check) as the floor. Data under
# $BENCH_DATA/sandbox/.
set -euo pipefail
. "$BENCH_DIR/lib/compare.sh"

data=$BENCH_DATA/sandbox

# workspace_for N: a workspace whose session s1 (tenant bench) has N
# session documents, mirrored once into $ws/mirror; made once.
workspace_for() {
    local n=$1 ws=$data/docs-$1
    if [ ! -f "$ws/done" ]; then
        echo "compare: generating $ws ($n documents)" >&2
        rm -rf "$ws"
        mkdir -p "$ws"
        "$AGENTCTL" -w "$ws" session create bench --id s1 --tenant bench --user u1 --agent a1 >/dev/null
        python3 - "$ws/.agent/memo/bench/s1/session" "$n" <<'PY'
import os, sys
folder, n = sys.argv[1], int(sys.argv[2])
os.makedirs(folder, exist_ok=True)
for i in range(n):
    with open(os.path.join(folder, "doc-%05d.md" % i), "w") as f:
        f.write(("note %d " % i).ljust(1023, "x") + "\n")
PY
        "$AGENTCTL" -w "$ws" sandbox mirror bench s1 "$ws/mirror" >/dev/null
        touch "$ws/done"
    fi
    echo "$ws"
}

for n in $(cmp_sizes 100 1000 10000); do
    ws=$(workspace_for "$n")
    cmp_pair "sandbox sync (unchanged mirror)" "$n" documents "time<=1" "cp -r" \
        "$AGENTCTL -w $ws sandbox sync bench s1 $ws/mirror" \
        "sh -c 'rm -rf $ws/copy && exec cp -r $ws/.agent/memo/bench/s1/session $ws/copy'"
    cmp_alone "sandbox mirror (refresh)" "$n" documents "time<=1" \
        "$AGENTCTL -w $ws sandbox mirror bench s1 $ws/mirror"
done
