# Sourced by the scripts in bench/compare.d/: records one measure of
# agentctl, alone or paired with the tool a user would pick instead.
#
#   cmp_pair  MEASURE SIZE UNIT TARGET PEER_LABEL 'AGENTCTL COMMAND' 'PEER COMMAND'
#   cmp_alone MEASURE SIZE UNIT TARGET 'AGENTCTL COMMAND'
#   cmp_record MEASURE SIZE UNIT TARGET PEER_LABEL A_MEDIAN A_MIN A_RSS B_MEDIAN B_MIN B_RSS RATIO
#              [RATIO_MIN RATIO_MAX A_CPU B_CPU]
#
# CMP_NOTE, when set for a call (CMP_NOTE="same 5,352 lines" cmp_pair ...),
# goes into the row's note: what the two sides print, counted. Every row
# also carries the 1-minute load average before and after its measure.
#
# TARGET applies to the largest size: a comma list of ratio<=X (agentctl's
# median over the peer's, the median of paired runs), time<=SECONDS,
# rss<=KIB (agentctl's maximum resident set), or "-".
# cmp_record is for measures a whole command cannot time (a latency inside
# the dashboard, a run that needs a reset between runs): the script times
# them itself and records the figures in the same form ("-" where none).
#
# cmp_tmux_server SOCKET and cmp_tmux_close SOCKET SESSION PID: for the
# scripts that run the dashboard in tmux, one dashboard after another.
#
# Settings from bench/compare.sh: AGENTCTL, BENCH_DIR, BENCH_DATA,
# CMP_RESULTS (the TSV the rows are appended to), CMP_RUNS, CMP_WARMUP,
# CMP_QUICK, PAIRTIME.

: "${CMP_RUNS:=5}" "${CMP_WARMUP:=1}" "${CMP_QUICK:=0}"

cmp_require() {
    local name
    for name in AGENTCTL BENCH_DIR BENCH_DATA CMP_RESULTS PAIRTIME; do
        if [ -z "${!name:-}" ]; then
            echo "compare: $name is not set (run bench/compare.sh)" >&2
            return 1
        fi
    done
}
cmp_require || exit 2

# The sizes a row measures: all three, or only the smallest when quick.
cmp_sizes() {
    if [ "$CMP_QUICK" = 1 ]; then echo "$1"; else echo "$@"; fi
}

# A peer tool that is not installed is skipped with a note, not failed.
cmp_have() {
    command -v "$1" >/dev/null 2>&1 && return 0
    echo "compare: $1 not installed; its comparison is skipped" >&2
    return 1
}

# A tmux server exits with its last session, asynchronously: a new session
# asked for right after can reach the server while it shuts down and fail
# with "server exited unexpectedly". A session that lives as long as the
# script keeps one server up; cmp_tmux_close ends a dashboard's session
# and waits for its process (PID), so what it held is released.
cmp_tmux_server() {
    tmux -L "$1" new-session -d -s keep-server -x 20 -y 5 "sleep 86400"
}
cmp_tmux_close() {
    tmux -L "$1" kill-session -t "$2" 2>/dev/null || true
    while kill -0 "$3" 2>/dev/null; do sleep 0.05; done
}

# The 1-minute load average, as uptime shows it.
cmp_load() {
    cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -
}

cmp_record() {
    if [ $# -ne 12 ] && [ $# -ne 16 ]; then
        echo "compare: cmp_record needs 12 or 16 fields, got $#: $*" >&2
        return 2
    fi
    local -a row=("$@")
    [ $# -eq 16 ] || row+=(- - - -)
    row+=("${CMP_LOAD_BEFORE:--}" "$(cmp_load)" "${CMP_NOTE:--}")
    local IFS=$'\t'
    echo "${row[*]//$'\t'/ }" >>"$CMP_RESULTS"
    printf '  %-38s %8s %-5s %-10s agentctl %ss %sKiB  peer %ss  ratio %s (%s-%s)  load %s-%s  %s\n' \
        "$1" "$2" "$3" "$5" "$6" "$8" "$9" "${12}" "${row[12]}" "${row[13]}" \
        "${row[16]}" "${row[17]}" "${row[18]}" >&2
}

# pairtime's fields: 11 from protocol 2, 7 from an older pairtime (no
# spread, no CPU time: "-" there).
cmp_timed() {
    local fields
    fields=$("$PAIRTIME" "$CMP_RUNS" "$CMP_WARMUP" "$@") || return 1
    local -a f
    IFS=$'\t' read -r -a f <<<"$fields"
    [ ${#f[@]} -eq 11 ] || f+=(- - - -)
    echo "${f[*]}"
}

cmp_pair() {
    if [ $# -ne 7 ]; then
        echo "compare: cmp_pair MEASURE SIZE UNIT TARGET PEER 'A' 'B'" >&2
        return 2
    fi
    local fields CMP_LOAD_BEFORE
    CMP_LOAD_BEFORE=$(cmp_load)
    fields=$(cmp_timed "$6" "$7") || {
        echo "compare: $1 ($2 $3) failed" >&2
        return 1
    }
    local -a f
    read -r -a f <<<"$fields"
    cmp_record "$1" "$2" "$3" "$4" "$5" "${f[@]}"
}

cmp_alone() {
    if [ $# -ne 5 ]; then
        echo "compare: cmp_alone MEASURE SIZE UNIT TARGET 'A'" >&2
        return 2
    fi
    local fields CMP_LOAD_BEFORE
    CMP_LOAD_BEFORE=$(cmp_load)
    fields=$(cmp_timed "$5") || {
        echo "compare: $1 ($2 $3) failed" >&2
        return 1
    }
    local -a f
    read -r -a f <<<"$fields"
    cmp_record "$1" "$2" "$3" "$4" - "${f[@]}"
}
