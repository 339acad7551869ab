#!/usr/bin/env bash
# Session torture: writers replace one session file in a loop
# (ac_session_update: a counter per writer plus a padding of random length,
# and status flips as pause/resume make them) while readers read it
# (open+read+parse, and ac_session_load) and an index reader lists it
# (ac_session_index_refresh); a random writer is SIGKILLed every 5-40 ms, at
# whatever point of its save it is, and restarted.
# Pass: no reader ever sees a missing, empty, partial or invalid file; no
# counter ever goes back (no update undone); the file always loads and
# holds every acknowledged update; the temp files of killed writers are
# ignored by readers and cleaned up by the next listing.
CASE=sessions
. "$(dirname "$0")/lib.sh"

if [ "$MODE" = short ]; then
	WRITERS=2 READERS=2 DURATION=3000
else
	WRITERS=3 READERS=3 DURATION=20000
fi
# Control: writers that rewrite the file in place must be caught.
mkdir -p "$WORK/control"
control=$("$TW" session-run --dir "$WORK/control" --writers 2 --readers 2 --duration-ms 1000 \
	--unsafe 2>/dev/null)
check "control: readers catch a writer that rewrites in place (bad_reads=$(kv bad_reads "$control"))" \
	test "$(kv bad_reads "$control")" -gt 0

ws=$WORK/ws
dir=$ws/.agent/sessions
mkdir -p "$dir"
echo " $WRITERS writers, $READERS readers + 1 index reader on one session file, ${DURATION} ms," \
	"SIGKILL every 5-40 ms"
run=$("$TW" session-run --dir "$dir" --writers "$WRITERS" --readers "$READERS" \
	--duration-ms "$DURATION" --kill-min 5 --kill-max 40 2>"$WORK/run.err")
rc=$?
echo "   $run"
indent "$WORK/run.err"
check "the run completed (exit $rc)" eq "$rc" 0
check "readers never saw a missing, empty, partial or invalid file (bad_reads=$(kv bad_reads "$run"))" \
	eq "$(kv bad_reads "$run")" 0
check "no counter ever went back (regressions=$(kv regressions "$run"))" \
	eq "$(kv regressions "$run")" 0
check "every acknowledged update is in the file (lost_updates=$(kv lost_updates "$run"))" \
	eq "$(kv lost_updates "$run")" 0
check "no update failed (update_failures=$(kv update_failures "$run"))" \
	eq "$(kv update_failures "$run")" 0
check "there were kills ($(kv kills "$run")) and reads ($(kv reads "$run"))" \
	test "$(kv kills "$run")" -gt 0 -a "$(kv reads "$run")" -gt 0

"$AC" -w "$ws" session show s1 --json >"$WORK/show.json" 2>"$WORK/show.err"
check "agentctl session show s1 --json loads it" eq "$?" 0
check "and prints one JSON document with id s1" eq "$(jq -r .id "$WORK/show.json" 2>/dev/null)" s1
temps_before=$(kv temps_left "$run")
# A dead writer's temp file is removed once it is over a second old (by
# mtime, in whole seconds): wait that out, then list.
sleep 2.1
"$AC" -w "$ws" session list >"$WORK/list.out" 2>"$WORK/list.err"
check "agentctl session list lists s1 and only s1, with no complaint" \
	eq "$(awk 'NR > 1 { print $1 }' "$WORK/list.out" | tr '\n' ' ')/$(wc -l <"$WORK/list.err")" "s1 /0"
indent "$WORK/list.err"
temps_after=$(find "$dir" -name '*.tmp' | wc -l)
check "temp files of killed writers ($temps_before) are cleaned by the listing (left: $temps_after)" \
	eq "$temps_after" 0
"$AC" -w "$ws" session pause s1 >/dev/null 2>"$WORK/pause.err" ||
	"$AC" -w "$ws" session resume s1 >/dev/null 2>>"$WORK/pause.err"
check "a status change by the CLI still works" eq "$?" 0

finish "updates_acked=$(kv updates_acked "$run") reads=$(kv reads "$run") loads=$(kv loads "$run")" \
	"index_refreshes=$(kv index_refreshes "$run") kills=$(kv kills "$run")" \
	"bad_reads=$(kv bad_reads "$run") lost_updates=$(kv lost_updates "$run")" \
	"temps_left_by_kills=$temps_before"
