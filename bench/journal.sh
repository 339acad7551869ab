#!/usr/bin/env bash
# Journal benchmark: agentctl against tail, grep and jq on one large journal.
#
#   bench/journal.sh AGENTCTL_BINARY [SIZE_MB]
#
# SIZE_MB (MiB) defaults to $SIZE_MB from the environment, else 1024.
#
# Generates bench/data/ws/JOURNAL.jsonl with bench/gen_journal.py (reused when
# it already exists for the same size, seed and generator), warms the page
# cache, times every command RUNS times (SLOW_RUNS for jq) and prints a
# markdown report on stdout; a copy goes to bench/data/journal-report.md.
#
# Other settings, from the environment:
#   RUNS=5 SLOW_RUNS=3   timed runs per command (median is reported)
#   SEED=42              generator seed
#   BENCH_PEERS_ONLY=1   time only tail/grep/jq (when no agentctl is built)
#   BENCH_TIMER=python   time with the python loop even if hyperfine is there
#
# All output of a timed command goes through a pipe and is then discarded.
# Not straight to /dev/null: GNU grep notices a /dev/null stdout and stops at
# the first match, which would make it look thousands of times faster.
set -euo pipefail

usage() {
    echo "usage: $0 AGENTCTL_BINARY [SIZE_MB]" >&2
    exit 2
}
if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
AGENTCTL=$1
SIZE_MB=${2:-${SIZE_MB:-1024}}
case $SIZE_MB in '' | *[!0-9]*) usage ;; esac
[ "$SIZE_MB" -gt 0 ] || usage

RUNS=${RUNS:-5}
SLOW_RUNS=${SLOW_RUNS:-3}
SEED=${SEED:-42}
PEERS_ONLY=${BENCH_PEERS_ONLY:-0}

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
DATA=$BENCH_DIR/data
WS=$DATA/ws
FILE=$WS/JOURNAL.jsonl
META=$DATA/journal.meta
RESULTS=$DATA/journal-results.tsv
REPORT=$DATA/journal-report.md
LOGS=$DATA/logs
NEEDLE=needle_corr

die() { echo "journal.sh: $*" >&2; exit 1; }
note() { echo "journal.sh: $*" >&2; }

for tool in python3 jq grep tail; do
    command -v "$tool" >/dev/null || die "$tool is required"
done

if [ "$PEERS_ONLY" != 1 ]; then
    [ -x "$AGENTCTL" ] || die "$AGENTCTL: not an executable (build it first, or BENCH_PEERS_ONLY=1)"
    AGENTCTL=$(cd "$(dirname "$AGENTCTL")" && pwd)/$(basename "$AGENTCTL")
fi

# hyperfine when available; installed here only if we may (root + apt-get).
# BENCH_TIMER=python forces the fallback (to test it).
if [ "${BENCH_TIMER:-}" = python ]; then
    :
elif ! command -v hyperfine >/dev/null && [ "$(id -u)" = 0 ] &&
    command -v apt-get >/dev/null; then
    note "installing hyperfine"
    apt-get install -y hyperfine >/dev/null 2>&1 ||
        { apt-get update >/dev/null 2>&1 &&
            apt-get install -y hyperfine >/dev/null 2>&1; } ||
        note "could not install hyperfine; using the python timing loop"
fi
if [ "${BENCH_TIMER:-}" != python ] && command -v hyperfine >/dev/null; then
    TIMER="hyperfine $(hyperfine --version | awk '{print $2}')"
else
    TIMER="python timing loop"
fi

# ---- the journal ------------------------------------------------------------
mkdir -p "$WS" "$LOGS"
GEN_SUM=$(sha256sum "$BENCH_DIR/gen_journal.py" | cut -c1-16)
WANT_META="size_mb=$SIZE_MB seed=$SEED gen=$GEN_SUM"
have_meta=$(head -n1 "$META" 2>/dev/null || true)
have_bytes=$(sed -n 2p "$META" 2>/dev/null || true)
if [ -f "$FILE" ] && [ "$have_meta" = "$WANT_META" ] &&
    [ "$(stat -c %s "$FILE")" = "$have_bytes" ]; then
    note "reusing $FILE ($have_bytes bytes)"
else
    note "generating $FILE ($SIZE_MB MiB, seed $SEED)"
    rm -f "$META"
    python3 "$BENCH_DIR/gen_journal.py" "$FILE.tmp" "$SIZE_MB" --seed "$SEED"
    mv -f "$FILE.tmp" "$FILE"
    printf '%s\n%s\n' "$WANT_META" "$(stat -c %s "$FILE")" >"$META"
fi
FILE_BYTES=$(stat -c %s "$FILE")
FILE_MTIME=$(stat -c %Y "$FILE")

note "warming the page cache"
cat "$FILE" >/dev/null
FILE_LINES=$(wc -l <"$FILE")

# ---- timing -----------------------------------------------------------------
# time_cmd RUNS WARMUP CMD -> prints the median wall time in seconds.
# CMD is one command with quoted arguments, run without a shell (no pipes or
# redirections), so that millisecond commands are not swamped by sh's start.
time_cmd() {
    local runs=$1 warmup=$2 cmd=$3 json
    if [[ $TIMER == hyperfine* ]]; then
        json=$(mktemp)
        hyperfine -N -i --runs "$runs" --warmup "$warmup" --output=pipe \
            --style none --export-json "$json" -- "$cmd" >/dev/null
        python3 -c '
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(repr(statistics.median(r["times"])))' "$json"
        rm -f "$json"
    else
        python3 - "$runs" "$warmup" "$cmd" <<'EOF'
import shlex, statistics, subprocess, sys, time
runs, warmup, cmd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
argv = shlex.split(cmd)
times = []
for i in range(warmup + runs):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE)
    while p.stdout.read(1 << 16):
        pass
    p.wait()
    if i >= warmup:
        times.append(time.perf_counter() - t0)
print(repr(statistics.median(times)))
EOF
    fi
}

# bench KEY GROUP RUNS WARMUP SHOWN CMD
#   Runs CMD once to count its output lines and check its exit status, then
#   times it. SHOWN is the command as the report shows it.
: >"$RESULTS"
bench() {
    local key=$1 group=$2 runs=$3 warmup=$4 shown=$5 cmd=$6 lines rc med
    note "$key: $shown"
    lines=$({ sh -c "$cmd" 2>"$LOGS/$key.stderr" || echo $? >"$LOGS/$key.rc"; } | wc -l)
    rc=$(cat "$LOGS/$key.rc" 2>/dev/null || echo 0)
    rm -f "$LOGS/$key.rc"
    # grep exits 1 when nothing matched; anything else non-zero is a failure.
    if [ "$rc" != 0 ] && ! { [ "$rc" = 1 ] && [[ $cmd == grep* ]]; }; then
        note "$key: exit status $rc: $(head -c 300 "$LOGS/$key.stderr")"
        printf '%s\t%s\t%s\tFAILED\t%s\t%s\t%s\n' "$key" "$group" "$shown" \
            "$runs" "$lines" "$rc" >>"$RESULTS"
        return 0
    fi
    med=$(time_cmd "$runs" "$warmup" "$cmd")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$group" "$shown" "$med" \
        "$runs" "$lines" "$rc" >>"$RESULTS"
}

F=$(printf %q "$FILE")
W=$(printf %q "$WS")
A=$(printf %q "$AGENTCTL")
agent_bench() {
    if [ "$PEERS_ONLY" = 1 ]; then return 0; fi
    bench "$@"
}

bench tail10 last10 "$RUNS" 1 "tail -n 10 FILE" "tail -n 10 $F"
agent_bench read10 last10 "$RUNS" 1 "agentctl -w WS journal read --last 10" \
    "$A -w $W journal read --last 10"
bench tail1000 last1000 "$RUNS" 1 "tail -n 1000 FILE" "tail -n 1000 $F"
agent_bench read1000 last1000 "$RUNS" 1 "agentctl -w WS journal read --last 1000" \
    "$A -w $W journal read --last 1000"

bench grep_agent agent "$RUNS" 1 "grep -F '\"agent\":\"Codex\"' FILE" \
    "grep -F '\"agent\":\"Codex\"' $F"
bench jq_agent agent "$SLOW_RUNS" 0 "jq -c 'select(.agent==\"Codex\")' FILE" \
    "jq -c 'select(.agent==\"Codex\")' $F"
agent_bench query_agent agent "$RUNS" 1 "agentctl -w WS journal query agent=Codex" \
    "$A -w $W journal query agent=Codex"

bench grep_needle needle "$RUNS" 1 "grep -F $NEEDLE FILE" "grep -F $NEEDLE $F"
bench jq_needle needle "$SLOW_RUNS" 0 \
    "jq -c 'select(.trace.correlation_id==\"$NEEDLE\")' FILE" \
    "jq -c 'select(.trace.correlation_id==\"$NEEDLE\")' $F"
agent_bench query_needle needle "$RUNS" 1 \
    "agentctl -w WS journal query trace.correlation_id=$NEEDLE" \
    "$A -w $W journal query trace.correlation_id=$NEEDLE"

bench jq_check check "$SLOW_RUNS" 0 "jq -c . FILE" "jq -c . $F"
agent_bench check check "$RUNS" 1 "agentctl -w WS journal check" \
    "$A -w $W journal check"

# ---- do the queries return the same events? -----------------------------------
# Line counts are in the table; here the event ids are compared as well, with
# agentctl's --json output (one JSON document: an array of events, or an
# object holding one).
IDCHECK=$DATA/journal-idcheck.txt
: >"$IDCHECK"
ids_equal() {
    local label=$1 grep_cmd=$2 agent_cmd=$3
    set +e
    python3 - "$label" "$grep_cmd" "$agent_cmd" >>"$IDCHECK" 2>&1 <<'EOF'
import json, subprocess, sys
label, grep_cmd, agent_cmd = sys.argv[1:4]
want = []
with subprocess.Popen(["sh", "-c", grep_cmd], stdout=subprocess.PIPE) as p:
    for line in p.stdout:
        want.append(json.loads(line)["id"])
out = subprocess.run(["sh", "-c", agent_cmd], stdout=subprocess.PIPE)
try:
    doc = json.loads(out.stdout)
except ValueError as e:
    print(f"{label}: agentctl --json output is not one JSON document ({e})")
    sys.exit(1)
events = doc
if isinstance(doc, dict):
    lists = [v for v in doc.values() if isinstance(v, list)]
    events = lists[0] if lists else []
got = [e.get("id") if isinstance(e, dict) else None for e in events]
if got == want:
    print(f"{label}: same {len(want)} event ids, in the same order")
    sys.exit(0)
if sorted(map(str, got)) == sorted(want):
    print(f"{label}: same {len(want)} event ids, in a different order")
    sys.exit(0)
missing = len(set(want) - set(map(str, got)))
extra = len(set(map(str, got)) - set(want))
print(f"{label}: MISMATCH: grep {len(want)} events, agentctl --json "
      f"{len(got)} ({missing} missing, {extra} extra)")
sys.exit(1)
EOF
    local rc=$?
    set -e
    return $rc
}
if [ "$PEERS_ONLY" != 1 ]; then
    note "comparing event ids"
    ids_equal "query agent=Codex" "grep -F '\"agent\":\"Codex\"' $F" \
        "$A -w $W journal query agent=Codex --json" || true
    ids_equal "query trace.correlation_id=$NEEDLE" "grep -F $NEEDLE $F" \
        "$A -w $W journal query trace.correlation_id=$NEEDLE --json" || true
    ids_equal "read --last 1000" "tail -n 1000 $F" \
        "$A -w $W journal read --last 1000 --json" || true
    if [ "$(stat -c %s "$FILE")" != "$FILE_BYTES" ] ||
        [ "$(stat -c %Y "$FILE")" != "$FILE_MTIME" ]; then
        echo "WARNING: agentctl changed $FILE while reading it" >>"$IDCHECK"
    fi
fi

# ---- report -------------------------------------------------------------------
export R_MACHINE R_JOURNAL R_TOOLS
# shellcheck disable=SC1091
R_MACHINE="$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), \
$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM, \
kernel $(uname -r) ($(uname -m)), \
$( (. /etc/os-release && echo "$PRETTY_NAME") 2>/dev/null || uname -s); \
$(df -h --output=avail "$DATA" | tail -n1 | tr -d ' ') free on the data disk"
R_JOURNAL="$FILE_BYTES bytes \
($(awk -v b="$FILE_BYTES" 'BEGIN {
    if (b >= 1073741824) printf "%.2f GiB", b / 1073741824
    else printf "%.1f MiB", b / 1048576 }')), \
$FILE_LINES lines, made by \`bench/gen_journal.py FILE $SIZE_MB --seed $SEED\`"
R_TOOLS="$(jq --version), $(grep --version | head -n1), \
$(tail --version | head -n1), timed with $TIMER"

python3 "$BENCH_DIR/report.py" "$RESULTS" "$IDCHECK" >"$REPORT"
cat "$REPORT"
if grep -q -E 'WARNING|MISMATCH|MISSED' "$REPORT"; then
    note "see the warnings above"
fi
if grep -q "$(printf '\tFAILED\t')" "$RESULTS"; then
    die "some commands failed; their stderr is in $LOGS"
fi
