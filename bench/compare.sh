#!/usr/bin/env bash
# One command for issue 14's table: builds the data, times every measure in
# bench/compare.d/ paired against the tool a user would pick instead, and
# writes the ratios and how each cost grows over three sizes 10x apart to
# docs/BENCHMARKS.md (between the "compare" markers), with the machine.
#
#   bench/compare.sh [--quick] [--runs N] [--only PATTERN] [--no-write] [AGENTCTL]
#
#   --quick      only the smallest size of each measure, 3 runs; the report
#                goes to stdout, docs/ is left alone (CI runs this form)
#   --runs N     paired runs per size (default 5; medians, and the least and
#                greatest of the paired ratios, are reported)
#   --only PAT   only the scripts in bench/compare.d/ whose name has PAT
#   --no-write   print the report instead of writing docs/BENCHMARKS.md
#   AGENTCTL     the binary to measure; default: a Release build made here
#                in build-rel/ (timing a sanitizer build would be meaningless)
#
# Peers missing from the machine (rg, jq, node, git, lnav, hyperfine) are
# installed from Debian's archive first when apt can; a peer that is still
# missing is skipped with a note, never faked.
set -euo pipefail

usage() {
    sed -n '7,16p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

quick=0 runs=5 only= write=1 agentctl=
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1 write=0 runs=3 ;;
    --runs) [ $# -ge 2 ] || usage; runs=$2; shift ;;
    --only) [ $# -ge 2 ] || usage; only=$2; shift ;;
    --no-write) write=0 ;;
    -h | --help) usage ;;
    -*) echo "compare: unknown option $1" >&2; usage ;;
    *) [ -z "$agentctl" ] || usage; agentctl=$1 ;;
    esac
    shift
done
case $runs in '' | *[!0-9]*) echo "compare: --runs needs a number" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

install_peers() {
    local -A package_of=([rg]=ripgrep [jq]=jq [node]=nodejs [git]=git
        [lnav]=lnav [hyperfine]=hyperfine [python3]=python3)
    local missing=() cmd
    for cmd in "${!package_of[@]}"; do
        command -v "$cmd" >/dev/null 2>&1 || missing+=("${package_of[$cmd]}")
    done
    # The first check's floor: validation alone, by simdjson (a peer built
    # from bench/peers/simdjson_check.cpp by 10-journal.sh).
    [ -f /usr/include/simdjson.h ] || missing+=(libsimdjson-dev)
    command -v g++ >/dev/null 2>&1 || missing+=(g++)
    [ ${#missing[@]} -gt 0 ] || return 0
    if [ "$quick" = 1 ] || ! command -v apt-get >/dev/null 2>&1; then
        echo "compare: not installing ${missing[*]}; those peers are skipped" >&2
        return 0
    fi
    local sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    echo "compare: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq \
        --no-install-recommends "${missing[@]}" >&2 ||
        echo "compare: could not install ${missing[*]}; those peers are skipped" >&2
}

build_release() {
    local build=$root/build-rel
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$build" -j"$(nproc)" --target agentctl pairtime bench_backend_pg pg_agent >&2
    agentctl=$build/agentctl
    PAIRTIME=$build/pairtime
}

install_peers
if [ -z "$agentctl" ]; then
    build_release
else
    agentctl=$(cd "$(dirname "$agentctl")" && pwd)/$(basename "$agentctl")
    PAIRTIME=${PAIRTIME:-$(dirname "$agentctl")/pairtime}
fi
[ -x "$agentctl" ] || { echo "compare: no agentctl binary at $agentctl" >&2; exit 2; }
[ -x "$PAIRTIME" ] || { echo "compare: no pairtime beside $agentctl (cmake --build ... --target pairtime)" >&2; exit 2; }

# A pairtime built before protocol 2 gives no spread and no CPU time; one
# is built from bench/pairtime.c instead when a C compiler is at hand.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compare.XXXXXX")
trap 'rm -rf "${tmp:?}"' EXIT
if [ "$("$PAIRTIME" --protocol 2>/dev/null)" != 2 ]; then
    if cc -std=c11 -O2 -D_GNU_SOURCE -o "$tmp/pairtime" "$here/pairtime.c" 2>/dev/null; then
        echo "compare: $PAIRTIME is older than bench/pairtime.c; using one built from it" >&2
        PAIRTIME=$tmp/pairtime
    else
        echo "compare: $PAIRTIME is older than bench/pairtime.c: no spread, no CPU time" >&2
    fi
fi

export AGENTCTL=$agentctl PAIRTIME BENCH_DIR=$here
export BENCH_DATA=${BENCH_DATA:-$here/data}
export CMP_QUICK=$quick CMP_RUNS=$runs CMP_WARMUP=1
mkdir -p "$BENCH_DATA"
CMP_RESULTS=$tmp/results.tsv
: >"$CMP_RESULTS"
export CMP_RESULTS
load_start=$(uptime)

status=0
for script in "$here"/compare.d/*.sh; do
    [ -e "$script" ] || continue
    name=$(basename "$script" .sh)
    case $name in *"$only"*) ;; *) continue ;; esac
    echo "compare: $name" >&2
    if ! bash "$script" >&2; then
        echo "compare: $name failed" >&2
        status=1
    fi
done

machine="$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), \
$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM, kernel $(uname -r), \
$(. /etc/os-release && echo "$PRETTY_NAME"), file system of the data: $(df -T "$BENCH_DATA" | awk 'NR==2 {print $2}')"
load="uptime at the start: ${load_start##*load average: }; at the end: $(uptime | sed 's/.*load average: //') (1, 5, 15 minutes)"
report=$(python3 "$here/compare_report.py" "$CMP_RESULTS" "$machine" "$runs" \
    "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" "$quick" "$load")
if [ "$write" = 1 ]; then
    python3 "$here/compare_report.py" --splice "$root/docs/BENCHMARKS.md" <<<"$report"
    echo "compare: wrote docs/BENCHMARKS.md" >&2
else
    echo "$report"
fi
exit $status
