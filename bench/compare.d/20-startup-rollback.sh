# Process start and rollback (issue 14, rows "journal read --last 10" and
# "ops rollback"):
#
# - `journal read --last 10` against `tail -n 10` on journals of 10, 100 and
#   1024 MiB (bench/gen_journal.py; 1024 is the shared bench/data/ws one).
#   Both read only the end of the file, so this is mostly process start.
# - `ops rollback` of the newest operations of a repository of 20,000 files
#   and 2,000 operations (bench/gen_ops_repo.py), restoring 10, 100 and
#   1,000 files, against `git checkout H^ -- .` (what a user would type; it
#   syncs nothing) and against the same followed by `sync -f` (one syncfs of
#   the worktree's file system: as durable as the rollback, which syncs once
#   after its snapshot and once after its writes; docs/RELIABILITY.md). A
#   rollback changes the repository, so every run starts from a reset made
#   outside the timing (git reset --hard, the operation log copied back, the
#   journal removed, sync), and each side is timed alone by pairtime with
#   one run; the medians and the median of the per-pair ratios are recorded
#   with cmp_record.
set -euo pipefail
. "$BENCH_DIR/lib/compare.sh"

# ---- journal read --last 10 ------------------------------------------------
for mib in $(cmp_sizes 10 100 1024); do
    if [ "$mib" = 1024 ]; then ws=$BENCH_DATA/ws; else ws=$BENCH_DATA/journal-$mib; fi
    journal=$ws/JOURNAL.jsonl
    if [ ! -f "$ws/.complete-$mib" ] && ! { [ "$mib" = 1024 ] && [ -f "$journal" ]; }; then
        echo "compare: generating a $mib MiB journal in $ws" >&2
        mkdir -p "$ws"
        python3 "$BENCH_DIR/gen_journal.py" "$journal" "$mib" >&2
        touch "$ws/.complete-$mib"
    fi
    tail -c 1048576 "$journal" >/dev/null
    cmp_pair "journal read --last 10" "$mib" MiB "ratio<=2" "tail -n 10" \
        "$AGENTCTL -w $ws journal read --last 10" "tail -n 10 $journal"
done

# ---- ops rollback ------------------------------------------------------------
repo=$BENCH_DATA/ops-20000
if [ ! -f "$repo/.agent/rollback-targets" ]; then
    echo "compare: generating a repository of 20,000 files and 2,000 operations in $repo" >&2
    rm -rf "$repo"
    python3 "$BENCH_DIR/gen_ops_repo.py" "$repo" >&2
    cp "$repo/.agent/operations.jsonl" "$repo/.agent/operations.jsonl.orig"
    git -C "$repo" rev-parse HEAD >"$repo/.agent/base"
fi
base=$(cat "$repo/.agent/base")

# The files a reset rewrites are "racily clean" to git and libgit2 (written
# in the index's own clock tick), so both would hash them again; a refresh
# a tick later records them clean, as in a worktree edited a while ago.
reset_repo() {
    git -C "$repo" reset -q --hard "$base"
    sleep 0.05
    git -C "$repo" update-index -q --refresh
    cp "$repo/.agent/operations.jsonl.orig" "$repo/.agent/operations.jsonl"
    rm -f "$repo/JOURNAL.jsonl" "$repo/JOURNAL.jsonl.lock"
    sync
}

# One run of a command from a fresh reset: "seconds<TAB>maxrss_kib".
time_once() {
    local f
    reset_repo
    f=$("$PAIRTIME" 1 0 "$1") || return 1
    cut -f1,3 <<<"$f"
}

# median and min of the numbers on stdin
stats() { sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.6f\t%.6f\n", m, v[1]}'; }

for files in $(cmp_sizes 10 100 1000); do
    read -r _ op hash < <(grep "^$files " "$repo/.agent/rollback-targets")
    a_times=() a_rss=0
    declare -A b_times=() b_rss=() ratios=()
    peers=("git checkout H^ -- ." "git checkout + sync -f")
    for ((run = 0; run < CMP_RUNS; run++)); do
        IFS=$'\t' read -r a rss < <(time_once "$AGENTCTL -w $repo ops rollback $op --yes")
        a_times+=("$a")
        [ "$rss" -gt "$a_rss" ] && a_rss=$rss
        for peer in "${peers[@]}"; do
            if [ "$peer" = "${peers[0]}" ]; then
                cmd="git -C $repo checkout $hash^ -- ."
            else
                cmd="sh -c 'git -C $repo checkout $hash^ -- . && sync -f $repo'"
            fi
            IFS=$'\t' read -r b brss < <(time_once "$cmd")
            b_times[$peer]+="$b "
            [ "$brss" -gt "${b_rss[$peer]:-0}" ] && b_rss[$peer]=$brss
            ratios[$peer]+="$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.4f", a / b}') "
        done
    done
    a_stats=$(printf '%s\n' "${a_times[@]}" | stats)
    for peer in "${peers[@]}"; do
        b_stats=$(tr ' ' '\n' <<<"${b_times[$peer]}" | grep . | stats)
        ratio=$(tr ' ' '\n' <<<"${ratios[$peer]}" | grep . | stats | cut -f1)
        target=-
        [ "$peer" = "${peers[0]}" ] && target="ratio<=2"
        cmp_record "ops rollback" "$files" files "$target" "$peer" \
            $(cut -f1 <<<"$a_stats") $(cut -f2 <<<"$a_stats") "$a_rss" \
            $(cut -f1 <<<"$b_stats") $(cut -f2 <<<"$b_stats") "${b_rss[$peer]}" \
            "$ratio"
    done
    unset b_times b_rss ratios
done
reset_repo
