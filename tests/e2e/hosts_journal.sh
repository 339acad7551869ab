#!/usr/bin/env bash
# Several hosts appending to one journal, as on a shared file system: each
# "host" is agentctl in a UTS namespace of its own (another host name), all
# writing at once. Nothing lost, nothing torn; the locks they take name
# their host; a long-dead lock of another host is broken by age, a fresh
# one of a pid that is not running here is not taken for dead.
# Skipped (77) where unshare(1) cannot make a UTS namespace.
. "$(dirname "$0")/lib/cli.sh" "$@"
unshare -u true 2>/dev/null || { echo "skipped: unshare -u is not permitted here"; exit 77; }

WS=$TMP/ws
mkdir -p "$WS"
J=$WS/JOURNAL.jsonl
per_host=150
append_as() { # host count
  unshare -u sh -c 'hostname "$1"; i=0
    while [ $i -lt "$2" ]; do
      "$3" -w "$4" journal log "{\"agent\":\"Codex\",\"status\":\"SUCCESS\",\"action\":{\"type\":\"CMD_RUN\",\"params\":{}},\"result\":{\"message\":\"from $1 #$i\"}}" >/dev/null || exit 1
      i=$((i + 1))
    done' sh "$1" "$2" "$AC" "$WS"
}
append_as host-a $per_host & a=$!
append_as host-b $per_host & b=$!
append_as host-c $per_host & c=$!
wait $a; ra=$?; wait $b; rb=$?; wait $c; rc=$?
check "every host's appends succeed" test "$ra$rb$rc" = 000
check "all $((3 * per_host)) events are there" test "$(wc -l <"$J")" -eq $((3 * per_host))
for h in host-a host-b host-c; do
  check "$h: $per_host events, none twice" \
    test "$(grep -o "\"from $h #[0-9]*\"" "$J" | sort -u | wc -l)" -eq $per_host
done
run journal check
check "every line is a valid event" rc_is 0
check "no lock is left behind" test ! -e "$J.lock"

# A lock as another host's agentctl leaves it: its pid is not running here.
foreign_lock() { # age in seconds
  printf '999999\nhost=host-b\nboot=00000000-0000-4000-8000-000000000000\npidns=1\n' >"$J.lock"
  touch -d "@$(($(date +%s) - $1))" "$J.lock"
}
foreign_lock 300
run journal log '{"agent":"Codex","status":"SUCCESS","action":{"type":"CMD_RUN","params":{}},"result":{"message":"after a dead host"}}'
check "a foreign lock older than lock.foreignStaleMs is broken" rc_is 0
check "... and the append is there" grep -q "after a dead host" "$J"

foreign_lock 5
lines=$(wc -l <"$J")
export AGENT_LOCK_FOREIGN_STALE_MS=60000
timeout 20 "$AC" -w "$WS" journal log '{"agent":"Codex","status":"SUCCESS","action":{"type":"CMD_RUN","params":{}},"result":{"message":"must wait"}}' >"$TMP/out" 2>"$TMP/err"
RC=$?
check "a fresh foreign lock of a pid absent here is not broken (exit 1)" rc_is 1
check "... the error names the other host and the setting" \
  grep -q "held by pid 999999 on host host-b .*lock.foreignStaleMs" "$TMP/err"
check "... nothing was appended" test "$(wc -l <"$J")" -eq "$lines"
check "... the lock is still there" test -e "$J.lock"
finish
