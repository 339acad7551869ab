# The journal's full passes against grep, rg and cat, on journals of 10,
# 100 and 1024 MiB (bench/gen_journal.py, seed 42; the 1024 MiB one is
# bench/journal.sh's, reused when its meta matches):
#   journal query agent=Codex   grep -F / rg -F on '"agent":"Codex"', all
#                               printing the matching events
#   time range, 5 min of a day  journal query since= until= on five minutes
#                               in the middle of the file, against the rg
#                               regex a user would type for the same five
#                               minutes, and rg -F on the ten-minute prefix
#                               (a superset: the fastest literal scan there is)
#   journal check               cat (reads and writes every byte); the target
#                               is absolute: 1 GiB at 1.5 GB/s, 0.716 s
# agentctl has no count-only query, so grep -c / rg -c have no pair here.
set -euo pipefail
. "$BENCH_DIR/lib/compare.sh"

seed=42
gen_sum=$(sha256sum "$BENCH_DIR/gen_journal.py" | cut -c1-16)

# journal_for SIZE_MB: prints the workspace holding a journal of that size,
# made once and reused while the size, seed and generator are the same.
journal_for() {
    local size=$1 ws meta want
    if [ "$size" = 1024 ]; then
        ws=$BENCH_DATA/ws meta=$BENCH_DATA/journal.meta # bench/journal.sh's
    else
        ws=$BENCH_DATA/journal/ws-$size meta=$BENCH_DATA/journal/ws-$size.meta
    fi
    want="size_mb=$size seed=$seed gen=$gen_sum"
    if [ ! -f "$ws/JOURNAL.jsonl" ] || [ "$(head -n1 "$meta" 2>/dev/null)" != "$want" ] ||
        [ "$(sed -n 2p "$meta" 2>/dev/null)" != "$(stat -c %s "$ws/JOURNAL.jsonl")" ]; then
        echo "compare: generating $ws/JOURNAL.jsonl ($size MiB, seed $seed)" >&2
        mkdir -p "$ws"
        rm -f "$meta"
        python3 "$BENCH_DIR/gen_journal.py" "$ws/JOURNAL.jsonl.tmp" "$size" --seed "$seed" >&2
        mv -f "$ws/JOURNAL.jsonl.tmp" "$ws/JOURNAL.jsonl"
        printf '%s\n%s\n' "$want" "$(stat -c %s "$ws/JOURNAL.jsonl")" >"$meta"
    fi
    echo "$ws"
}

# five_minutes FILE: "SINCE UNTIL PREFIX REGEX" for the five minutes that
# hold the event in the middle of the file (timestamps only grow).
five_minutes() {
    local file=$1 ts day hour minute start end
    ts=$(tail -c +$(($(stat -c %s "$file") / 2)) "$file" | sed -n 2p |
        grep -o '"timestamp":"[^"]*"' | head -n1 | cut -d'"' -f4)
    day=${ts%%T*} hour=${ts:11:2} minute=${ts:14:2}
    start=$((10#$minute / 5 * 5))
    end=$((start + 5))
    local since until
    since=$(printf '%sT%s:%02d:00Z' "$day" "$hour" "$start")
    if [ "$end" -eq 60 ]; then
        until=$(date -u -d "$day $hour:00 +1 hour" +%Y-%m-%dT%H:00:00Z)
    else
        until=$(printf '%sT%s:%02d:00Z' "$day" "$hour" "$end")
    fi
    # "...T02:0" covers 02:00-02:09; the regex the same five minutes only.
    echo "$since $until \"timestamp\":\"${day}T$hour:${minute:0:1}" \
        "\"timestamp\":\"${day}T$hour:${minute:0:1}[$((start % 10))-$((start % 10 + 4))]"
}

for size in $(cmp_sizes 10 100 1024); do
    ws=$(journal_for "$size")
    file=$ws/JOURNAL.jsonl
    cat "$file" >/dev/null # the page cache, warm for every run

    if cmp_have grep; then
        cmp_pair "journal query agent=Codex" "$size" MiB "ratio<=1.2" "grep -F" \
            "$AGENTCTL -w $ws journal query agent=Codex" \
            "grep -F '\"agent\":\"Codex\"' $file"
    fi
    if cmp_have rg; then
        cmp_pair "journal query agent=Codex" "$size" MiB "ratio<=2" "rg -F" \
            "$AGENTCTL -w $ws journal query agent=Codex" \
            "rg -F '\"agent\":\"Codex\"' $file"
    fi

    read -r since until prefix regex <<<"$(five_minutes "$file")"
    if cmp_have rg; then
        cmp_pair "time range, 5 min of a day" "$size" MiB "ratio<=1" "rg (same 5 min)" \
            "$AGENTCTL -w $ws journal query since=$since until=$until" \
            "rg '$regex' $file"
        cmp_pair "time range, 5 min of a day" "$size" MiB "ratio<=1" "rg -F (10-min prefix)" \
            "$AGENTCTL -w $ws journal query since=$since until=$until" \
            "rg -F '$prefix' $file"
    fi

    # 1 GiB at 1.5 GB/s: 1073741824 / 1.5e9 s.
    cmp_pair "journal check" "$size" MiB "time<=0.716" "cat" \
        "$AGENTCTL -w $ws journal check" "cat $file"
done
