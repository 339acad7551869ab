# The journal's full passes and queries against what a user would run
# instead, on journals of two generators at 10, 100 and 1024 MiB (--quick:
# 10 only):
#   gen_journal.py          ours (seed 42): one compact spelling, key order
#                           id, timestamp, agent, ...; the 1024 MiB one is
#                           bench/journal.sh's, reused when its meta matches;
#   gen_journal_seed004.js  not ours (seed 42): seed 004's writers, each with
#                           its own key order and spelling (journal.js and a
#                           hook writer: JSON.stringify; tasks.py: json.dumps,
#                           '"agent": "Codex"', non-ASCII as \uXXXX).
# The measures:
#   journal check                 cat FILE >/dev/null (reads every byte,
#                                 writes none); the index is there, made by
#                                 the warm-up run
#   journal check, first          the same with no index (removed before
#                                 each run: every line validated, the index
#                                 built), against cat and against
#                                 bench/peers/simdjson_check.cpp on every
#                                 core (simdjson validating the lines and
#                                 nothing else: the floor under it)
#   journal query agent=Codex     rg -F and grep -F printing the lines of the
#     --all                       same events (the fastest literal that gives
#                                 them: '"agent":"Codex"' or '"Codex"'); --json
#                                 (each event's JSON) against rg -F too
#   journal query                 rg -F and grep -F on the id
#     trace.correlation_id=RARE
#   journal query since= until=   rg with the regex for the same five minutes
#     (five minutes)              (2025-09-10T00:1[0-4])
# Before each pair both sides' lines are counted: the row's note says
# "same N lines", or what differs. agentctl prints one summary line per
# event (--json: the event's JSON); rg and grep print the line as written.
set -euo pipefail
. "$BENCH_DIR/lib/compare.sh"

seed=42

# journal_for GENERATOR SIZE_MB: prints the workspace holding that journal,
# made once and reused while the generator, its source, the size and the
# seed are the same.
journal_for() {
    local gen=$1 size=$2 ws meta want sum
    sum=$(sha256sum "$BENCH_DIR/$gen" | cut -c1-16)
    if [ "$gen" = gen_journal.py ] && [ "$size" = 1024 ]; then
        ws=$BENCH_DATA/ws meta=$BENCH_DATA/journal.meta # bench/journal.sh's
        want="size_mb=$size seed=$seed gen=$sum"
    else
        ws=$BENCH_DATA/journal/${gen%%.*}-$size/ws meta=$BENCH_DATA/journal/${gen%%.*}-$size.meta
        want="size_mb=$size seed=$seed gen=$gen:$sum"
    fi
    if [ ! -f "$ws/JOURNAL.jsonl" ] || [ "$(head -n1 "$meta" 2>/dev/null)" != "$want" ] ||
        [ "$(sed -n 2p "$meta" 2>/dev/null)" != "$(stat -c %s "$ws/JOURNAL.jsonl")" ]; then
        echo "compare: generating $ws/JOURNAL.jsonl ($gen, $size MiB, seed $seed)" >&2
        mkdir -p "$ws"
        rm -f "$meta"
        case $gen in
        *.py) python3 "$BENCH_DIR/$gen" "$ws/JOURNAL.jsonl.tmp" "$size" --seed "$seed" >&2 ;;
        *.js) node "$BENCH_DIR/$gen" "$ws/JOURNAL.jsonl.tmp" "$size" --seed "$seed" >&2 ;;
        esac
        mv -f "$ws/JOURNAL.jsonl.tmp" "$ws/JOURNAL.jsonl"
        printf '%s\n%s\n' "$want" "$(stat -c %s "$ws/JOURNAL.jsonl")" >"$meta"
    fi
    echo "$ws"
}

# five_minutes FILE: "SINCE UNTIL REGEX" for the five minutes holding the
# event in the middle of the file. The regex is the time alone: with the key
# in front ('"timestamp":"...'), rg 13 took 6x as long, and only timestamps
# are written in this form (ids hold the compact one), as the counts check.
five_minutes() {
    local file=$1 ts day hour minute start from since until
    ts=$(tail -c +$(($(stat -c %s "$file") / 2)) "$file" | sed -n 2p |
        grep -o '"timestamp": \{0,1\}"[^"]*"' | head -n1 | sed 's/.*"\([^"]*\)"$/\1/')
    day=${ts%%T*} hour=${ts:11:2} minute=${ts:14:2}
    start=$((10#$minute / 5 * 5))
    from=$(date -u -d "$(printf '%sT%s:%02d:00Z' "$day" "$hour" "$start")" +%s)
    since=$(date -u -d "@$from" +%Y-%m-%dT%H:%M:%SZ)
    until=$(date -u -d "@$((from + 300))" +%Y-%m-%dT%H:%M:%SZ)
    echo "$since $until ${day}T$hour:${minute:0:1}[$((start % 10))-$((start % 10 + 4))]"
}

# lines COMMAND...: how many lines it prints (its status is not judged:
# grep says 1 for none).
lines() {
    "$@" 2>/dev/null | wc -l || true
}

# same_lines A B: the note of a pair whose sides printed A and B lines.
same_lines() {
    if [ "$1" = "$2" ]; then
        printf 'same %s line%s' "$1" "$([ "$1" = 1 ] || echo s)"
    else
        printf 'NOT the same lines: agentctl %s, peer %s' "$1" "$2"
    fi
}

gens=(gen_journal.py)
if cmp_have node; then gens+=(gen_journal_seed004.js); fi
have_rg=0 have_grep=0
if cmp_have rg; then have_rg=1; fi
if cmp_have grep; then have_grep=1; fi

# The simdjson peer, built here when its library is installed.
simdjson_check=
if [ -f /usr/include/simdjson.h ] && cmp_have g++; then
    simdjson_check=$BENCH_DATA/simdjson_check
    if [ ! -x "$simdjson_check" ] || [ "$BENCH_DIR/peers/simdjson_check.cpp" -nt "$simdjson_check" ]; then
        g++ -O2 -std=c++17 -o "$simdjson_check" "$BENCH_DIR/peers/simdjson_check.cpp" \
            -lsimdjson -pthread || simdjson_check=
    fi
else
    echo "compare: libsimdjson-dev not installed; the first check's floor is skipped" >&2
fi

for gen in "${gens[@]}"; do
    # What a user types for this journal: one spelling, or both.
    case $gen in
    gen_journal.py)
        label="gen_journal.py" rare=needle_corr needle='"agent":"Codex"'
        ;;
    gen_journal_seed004.js)
        # Two spellings ('"agent":"Codex"', '"agent": "Codex"'): the regex
        # for both, rg '"agent": ?"Codex"', took 13x the time of this literal,
        # which prints the same lines here (counted below).
        label="seed-004 writers" rare=task_nightly_7f3a91 needle='"Codex"'
        ;;
    esac
    for size in $(cmp_sizes 10 100 1024); do
        ws=$(journal_for "$gen" "$size")
        file=$ws/JOURNAL.jsonl
        cat "$file" >/dev/null # the page cache, warm for every run
        a="$AGENTCTL -w $ws journal"

        cmp_pair "journal check [$label]" "$size" MiB "ratio<=2" "cat >/dev/null" \
            "$a check" "cat $file >/dev/null"
        # pairtime runs no shell of its own: this one costs ~1 ms a run.
        first="sh -c 'rm -f $ws/.agent/index/JOURNAL.jsonl.idx && exec $a check'"
        cmp_pair "journal check, first [$label]" "$size" MiB "ratio<=2" "cat >/dev/null" \
            "$first" "cat $file >/dev/null"
        if [ -n "$simdjson_check" ]; then
            cmp_pair "journal check, first [$label]" "$size" MiB - \
                "simdjson, $(nproc) threads" "$first" "$simdjson_check $file $(nproc)"
        fi

        n=$(lines $a query agent=Codex --all)
        if [ $have_rg = 1 ]; then
            m=$(lines rg -F "$needle" "$file")
            CMP_NOTE=$(same_lines "$n" "$m") \
                cmp_pair "query agent=Codex [$label]" "$size" MiB "ratio<=1.2" \
                "rg -F '$needle'" "$a query agent=Codex --all" "rg -F '$needle' $file"
            CMP_NOTE="$(same_lines "$(($(lines $a query agent=Codex --all --json) - 2))" "$m"), agentctl --json" \
                cmp_pair "query agent=Codex --json [$label]" "$size" MiB "ratio<=1.2" \
                "rg -F '$needle'" "$a query agent=Codex --all --json" "rg -F '$needle' $file"
        fi
        if [ $have_grep = 1 ]; then
            CMP_NOTE=$(same_lines "$n" "$(lines grep -F "$needle" "$file")") \
                cmp_pair "query agent=Codex [$label]" "$size" MiB - "grep -F '$needle'" \
                "$a query agent=Codex --all" "grep -F '$needle' $file"
        fi

        n=$(lines $a query trace.correlation_id=$rare --all)
        if [ $have_rg = 1 ]; then
            CMP_NOTE=$(same_lines "$n" "$(lines rg -F "$rare" "$file")") \
                cmp_pair "rare correlation id [$label]" "$size" MiB "ratio<=1,time<=0.01" "rg -F" \
                "$a query trace.correlation_id=$rare --all" "rg -F $rare $file"
        fi
        if [ $have_grep = 1 ]; then
            CMP_NOTE=$(same_lines "$n" "$(lines grep -F "$rare" "$file")") \
                cmp_pair "rare correlation id [$label]" "$size" MiB - "grep -F" \
                "$a query trace.correlation_id=$rare --all" "grep -F $rare $file"
        fi

        read -r since until regex <<<"$(five_minutes "$file")"
        if [ $have_rg = 1 ]; then
            n=$(lines $a query since=$since until=$until --all)
            CMP_NOTE=$(same_lines "$n" "$(lines rg "$regex" "$file")") \
                cmp_pair "5-minute window [$label]" "$size" MiB "time<=0.01" "rg (same 5 min)" \
                "$a query since=$since until=$until --all" "rg '$regex' $file"
        fi
    done
done
