#!/usr/bin/env bash
# Journal torture: agentctl writers (ac_journal_append) and foreign writers
# (the JOURNAL.jsonl.lock O_EXCL spec: create, write pid, one write,
# unlink) append records of 50 bytes to 1 MiB (sizes around 4 KiB and
# 64 KiB on purpose) carrying writer id, sequence number, nonce and FNV-1a
# checksum. First all writers run undisturbed; then again while a random
# writer is SIGKILLed every 20-60 ms and restarted (continuing from its
# ack file). A foreign writer killed holding the lock leaves a stale lock
# that agentctl must break.
# Pass: every line parses or is a torn line that `agentctl journal check`
# reports; no line holds two event ids; every acknowledged append is present
# exactly once, in per-writer order, with a matching checksum.
CASE=journal
. "$(dirname "$0")/lib.sh"

if [ "$MODE" = short ]; then
	AGENTCTL_WRITERS=4 FOREIGN_WRITERS=4 COUNT=40 KILL_MS=3000
else
	AGENTCTL_WRITERS=8 FOREIGN_WRITERS=8 COUNT=300 KILL_MS=15000
fi
WRITERS=$((AGENTCTL_WRITERS + FOREIGN_WRITERS))
SUMMARY=()

# phase NAME COUNT KILL_FOR_MS: one run of the writers, then every check.
phase() {
	local name=$1 count=$2 kill_for=$3 dir=$WORK/$1 run ver rc torn kills
	mkdir -p "$dir"
	echo " $name: $AGENTCTL_WRITERS agentctl + $FOREIGN_WRITERS foreign writers," \
		"$([ "$count" -gt 0 ] && echo "$count records each" || echo "for ${kill_for} ms")" \
		"$([ "$kill_for" -gt 0 ] && echo ", SIGKILL every 20-60 ms")"
	run=$("$TW" journal-run --dir "$dir" --agentctl "$AGENTCTL_WRITERS" \
		--foreign "$FOREIGN_WRITERS" --count "$count" --kill-for-ms "$kill_for" \
		--kill-min 20 --kill-max 60 2>"$dir/run.err")
	rc=$?
	echo "   writers: $run"
	check "$name: every writer ran to the end without an error" eq "$rc" 0
	indent "$dir/run.err"
	ver=$("$TW" journal-verify --dir "$dir" --writers "$WRITERS" \
		--foreign-from "$AGENTCTL_WRITERS" --invalid-out "$dir/invalid.txt" 2>"$dir/verify.err")
	echo "   journal: $ver"
	indent "$dir/verify.err"
	torn=$(kv torn "$ver")
	kills=$(kv kills "$run")
	check "$name: no line holds two records (merged=$(kv merged "$ver"))" eq "$(kv merged "$ver")" 0
	check "$name: every acknowledged append is present ($(kv found "$ver") of $(kv acked "$ver");\
 missing of foreign writers: $(kv missing_of_foreign "$ver"))" \
		eq "$(kv missing "$ver")" 0
	check "$name: none twice (duplicated=$(kv duplicated "$ver"))" eq "$(kv duplicated "$ver")" 0
	check "$name: in each writer's order (order_errors=$(kv order_errors "$ver"))" \
		eq "$(kv order_errors "$ver")" 0
	check "$name: checksums match (checksum_errors=$(kv checksum_errors "$ver"))" \
		eq "$(kv checksum_errors "$ver")" 0
	check "$name: every valid line is a torture record (not_ours=$(kv not_ours "$ver"))" \
		eq "$(kv not_ours "$ver")" 0
	if [ "$kill_for" -eq 0 ]; then
		check "$name: all $((WRITERS * count)) records written and acknowledged" \
			eq "$(kv acked "$ver")" "$((WRITERS * count))"
		check "$name: no torn line without kills" eq "$torn" 0
	else
		check "$name: torn lines ($torn) at most one per kill ($kills)" le "$torn" "$kills"
	fi

	# agentctl journal check names exactly the lines the verifier found
	# invalid (torn, or merged), and exits 1 when there are any.
	"$AC" -w "$dir" journal check >"$dir/check.out" 2>"$dir/check.err"
	rc=$?
	sed -n 's|^.*JOURNAL\.jsonl:\([0-9][0-9]*\): byte .*|\1|p' "$dir/check.out" >"$dir/check.lines"
	check "$name: journal check reports the same $torn invalid line(s)" \
		cmp -s "$dir/check.lines" "$dir/invalid.txt"
	check "$name: journal check exits $([ "$torn" = 0 ] && echo 0 || echo 1)" \
		eq "$rc" "$([ "$torn" = 0 ] && echo 0 || echo 1)"
	"$AC" -w "$dir" journal read --last 10 >/dev/null 2>"$dir/read.err"
	check "$name: journal read --last 10 still works" eq "$?" 0
	check "$name: no lock file left behind" test ! -e "$dir/JOURNAL.jsonl.lock"
	check "$name: no stale lock moved aside left behind" \
		eq "$(find "$dir" -name 'JOURNAL.jsonl.lock.*' | wc -l)" 0
	SUMMARY+=("$name: lines=$(kv lines "$ver") acked=$(kv acked "$ver") found=$(kv found "$ver")\
 missing_of_foreign=$(kv missing_of_foreign "$ver") unacked_present=$(kv unacked_present "$ver") torn=$torn merged=$(kv merged "$ver") kills=$kills\
 stale_locks=$(kv stale_locks_left_by_kills "$run") MiB=$(($(stat -c %s "$dir/JOURNAL.jsonl") / 1048576))")
	[ "$KEEP" = 1 ] || rm -f "$dir/JOURNAL.jsonl"
}

# The verifier itself must catch what it looks for: a small journal,
# mutated five ways.
selftest() {
	local dir=$WORK/selftest ver w
	echo " self-test of the verifier"
	mkdir -p "$dir/ok"
	"$TW" journal-run --dir "$dir/ok" --agentctl 2 --foreign 2 --count 20 --max-size 2000 >/dev/null
	# mutate NAME KEY AWK: a copy of the journal changed by AWK must be
	# refused by the verifier with KEY counted.
	mutate() {
		mkdir -p "$dir/$1"
		cp "$dir"/ok/ack.* "$dir/$1/"
		awk "$3" "$dir/ok/JOURNAL.jsonl" >"$dir/$1/JOURNAL.jsonl"
		ver=$("$TW" journal-verify --dir "$dir/$1" --writers 4 2>/dev/null)
		local rc=$? n
		n=$(kv "$2" "$ver")
		check "the verifier refuses a journal with one record $1 ($2=$n)" \
			test "$rc" -eq 1 -a "${n:-0}" -ge 1
	}
	w=$(sed -n '1s/.*"tw":\([0-9]*\),.*/\1/p' "$dir/ok/JOURNAL.jsonl")
	mutate deleted missing 'NR != 5'
	mutate duplicated duplicated '{ print } NR == 5 { print }'
	mutate merged merged 'NR == 3 { printf "%s", $0; next } { print }'
	mutate reordered order_errors "/\"tw\":$w,/ && !held { held = \$0; next }
		{ print } /\"tw\":$w,/ && held != 1 { print held; held = 1 }"
	mutate altered checksum_errors 'NR == 2 { sub(/"message":"./, "\"message\":\"-") } { print }'
}

selftest
phase calm "$COUNT" 0
phase killed 0 "$KILL_MS"
finish "${SUMMARY[0]};" "${SUMMARY[1]}"
