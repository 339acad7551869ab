#!/usr/bin/env bash
# Readers never hang and never hide (issue 11, items 9-16): hostile files in
# a workspace (FIFOs, huge or sparse tails, odd JSON, long names, invisible
# characters, resource limits) give one line naming the file and a true
# exit status, never a hang. Every command runs under `timeout` so a hang
# fails its case instead of the whole run.
# Usage: readers_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

new_ws() {
	WS=$(mktemp -d "$TMP/ws.XXXXXX")
	mkdir -p "$WS/.agent/sessions"
}
# trun SECONDS ARGS...: run with a time limit; RC 124 when it hung.
trun() {
	local limit=$1
	shift
	timeout "$limit" "$AC" -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}
# refuses NAME ARGS...: the command ends in time with exit 1 and one line
# saying NAME is not a regular file.
refuses() {
	local name=$1
	shift
	trun 5 "$@"
	[ "$RC" -eq 1 ] && grep -q "$name: not a regular file" "$TMP/err"
}
event() {
	printf '{"agent":"Claude","status":"SUCCESS","action":{"type":"CMD_RUN","params":{}},"result":{"message":"%s"}}' "$1"
}

# --- item 9: a FIFO in a file's place ---
new_ws
mkfifo "$WS/JOURNAL.jsonl"
check "fifo journal: journal read" refuses JOURNAL.jsonl journal read
check "fifo journal: journal check" refuses JOURNAL.jsonl journal check
check "fifo journal: journal query --all" refuses JOURNAL.jsonl journal query agent=Claude --all
check "fifo journal: journal log" refuses JOURNAL.jsonl journal log "$(event x)"

new_ws
trun 5 journal log "$(event one)"
mkfifo "$WS/JOURNAL-20250101T000000.000Z.jsonl"
check "fifo rotated journal: journal read --all" refuses JOURNAL-20250101T000000.000Z.jsonl journal read --all
check "fifo rotated journal: journal check --all" refuses JOURNAL-20250101T000000.000Z.jsonl journal check --all
check "fifo rotated journal: journal query --all" refuses JOURNAL-20250101T000000.000Z.jsonl journal query agent=Claude --all

new_ws
mkfifo "$WS/.agent/operations.jsonl"
check "fifo operation log: ops list" refuses operations.jsonl ops list
check "fifo operation log: ops show" refuses operations.jsonl ops show op_x

new_ws
mkfifo "$WS/.agent/config.json"
check "fifo project config: journal read" refuses config.json journal read

new_ws
mkfifo "$WS/JOURNAL.jsonl.lock"
trun 10 journal log "$(event after-fifo-lock)"
check "fifo lock file: journal log breaks it instead of hanging" [ "$RC" -eq 0 ]

new_ws
printf '{"id":"s1","status":"paused","task":"t","createdAt":"2025-01-01T00:00:00.000Z","conversationHistory":[]}' \
	>"$WS/.agent/sessions/s1.json"
mkdir -p "$WS/.agent/logs"
mkfifo "$WS/.agent/logs/s1.log"
AGENT_RESUME_COMMAND='["true"]' timeout 10 "$AC" -w "$WS" session resume s1 >"$TMP/out" 2>"$TMP/err" </dev/null
RC=$?
check "fifo command log: session resume does not hang" [ "$RC" -ne 124 ]
check "fifo command log: named as not a regular file" grep -q "s1.log: not a regular file" "$TMP/err"

# --- item 10: what is acknowledged is readable ---
new_ws
{
	printf '{"agent":"Claude","status":"SUCCESS","action":{"type":"CMD_RUN","params":{}},"result":{"message":"'
	head -c $((70 << 20)) /dev/zero | tr '\0' x
	printf '"}}'
} >"$TMP/big.json"
timeout 60 "$AC" -w "$WS" journal log - <"$TMP/big.json" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "a 70 MiB event is refused at the writer" [ "$RC" -eq 1 ]
# Standard input is refused as soon as it passes the limit, never held
# whole: the limit is named, not the size.
check "the refusal names the limit" \
	grep -q "standard input is over the line limit of 67108864 bytes" "$TMP/err"
check "the refused event left no journal" [ ! -e "$WS/JOURNAL.jsonl" ]
rm -f "$TMP/big.json"

# --- item 11: what JSON.parse reads loads, and is written back as it was ---
new_ws
cat >"$WS/.agent/sessions/odd.json" <<'JSON'
{
  "id": "odd",
  "createdAt": "2025-01-01T00:00:00.000Z",
  "updatedAt": "2025-01-01T00:00:00.000Z",
  "task": "t",
  "status": "running",
  "conversationHistory": [
    {
      "role": "user",
      "content": "nul \u0000 here",
      "big": 1e999,
      "huge": 123456789012345678901234567890
    }
  ],
  "metadata": {}
}
JSON
trun 5 session show odd
check "a session with \\u0000 and 1e999 shows" [ "$RC" -eq 0 ]
trun 5 session show odd --json
check "session show --json keeps 1e999" grep -q '"big": 1e999,' "$TMP/out"
trun 5 session pause odd
check "a session with \\u0000 and 1e999 pauses" [ "$RC" -eq 0 ]
for kept in '"content": "nul \u0000 here",' '"big": 1e999,' '"huge": 123456789012345678901234567890' '"status": "paused",'; do
	check "the rewrite keeps $kept" grep -qF "$kept" "$WS/.agent/sessions/odd.json"
done

# --- item 12: ids are accepted exactly when their file can be written ---
new_ws
ok_id=$(head -c 228 /dev/zero | tr '\0' a)
long_id=$(head -c 240 /dev/zero | tr '\0' b)
for id in "$ok_id" "$long_id"; do
	printf '{"id":"%s","status":"running","task":"t","createdAt":"2025-01-01T00:00:00.000Z","conversationHistory":[]}' \
		"$id" >"$WS/.agent/sessions/$id.json"
done
trun 5 session list
check "a 228-byte id is listed" grep -q "^$ok_id" "$TMP/out"
check "a 240-byte id is not listed" bash -c "! grep -q '^b' '$TMP/out'"
check "a 240-byte id is named as skipped with the limit" \
	grep -q "$long_id.json: its id is longer than 228 bytes" "$TMP/err"
trun 5 session pause "$ok_id"
check "a 228-byte id can be paused" [ "$RC" -eq 0 ]
trun 5 session pause "$long_id"
check "a 240-byte id is refused naming the limit" grep -q "longer than 228 bytes" "$TMP/err"

# --- item 13: invisible and line-breaking characters are made visible ---
new_ws
printf '{"id":"evt_20250101000000_00000001","timestamp":"2025-01-01T00:00:00.000Z","agent":"Claude","status":"SUCCESS","action":{"type":"CMD_RUN","params":{}},"result":{"message":"t\xf3\xa0\x81\x81 l\xe2\x80\xa8 s\xc2\xad c\xcd\x8f d\x7f end"}}\n' >"$WS/JOURNAL.jsonl"
trun 5 journal read
check "journal read shows tag, separator, soft hyphen and CGJ" \
	grep -qF 't<U+E0041> l<U+2028> s<U+00AD> c<U+034F> d^? end' "$TMP/out"
trun 5 journal read --json
check "journal read --json escapes DEL and the rest" \
	grep -qF 't\udb40\udc41 l\u2028 s\u00ad c\u034f d\u007f end' "$TMP/out"
check "journal read --json holds no DEL byte" bash -c "! LC_ALL=C grep -q $'\x7f' '$TMP/out'"

# --- item 14: a huge corrupt tail costs one line's worth of work ---
# A 20 GB sparse tail (no disk used): old code took up to a minute.
new_ws
for m in m1 m2 m3; do trun 5 journal log "$(event "$m")"; done
truncate -s +20G "$WS/JOURNAL.jsonl"
trun 20 journal read --last 1
check "read --last 1 over a 20 GB sparse tail finishes" [ "$RC" -eq 0 ]
check "read --last 1 still finds the last event" grep -q ' m3$' "$TMP/out"
check "the tail is reported as unterminated" grep -q "unterminated line at byte" "$TMP/err"
trun 20 journal log "$(event after)"
check "an append after a 20 GB sparse tail finishes" [ "$RC" -eq 0 ]
check "the append says it ended the torn line" grep -q "was torn" "$TMP/err"
trun 20 journal read --last 2
check "read --last 2 finds both events around the tail" \
	bash -c "grep -q ' m3$' '$TMP/out' && grep -q ' after$' '$TMP/out'"
trun 20 journal check
check "check over the 20 GB line finishes naming it too long" grep -q "line longer than 64 MiB" "$TMP/out"
rm -f "$WS/JOURNAL.jsonl"
# A real (not sparse) unterminated tail longer than the line limit.
new_ws
for m in m1 m2; do trun 5 journal log "$(event "$m")"; done
before=$(stat -c %s "$WS/JOURNAL.jsonl")
head -c $((70 << 20)) /dev/zero | tr '\0' x >>"$WS/JOURNAL.jsonl"
trun 20 journal read --last 1
check "read --last 1 over a 70 MiB garbage tail finishes" [ "$RC" -eq 0 ]
check "read --last 1 finds the event before the garbage" grep -q ' m2$' "$TMP/out"
check "the garbage is reported as one line from its start" \
	grep -q "unterminated line at byte $before " "$TMP/err"
head -c $((70 << 20)) /dev/zero | tr '\0' y >>"$WS/JOURNAL.jsonl"
trun 20 journal read --last 1
check "past 64 MiB back, the garbage is one invalid line" grep -q "skipped 1 invalid line" "$TMP/err"
trun 20 journal log "$(event after)"
check "the append names the over-long torn line" grep -q "is longer than 64 MiB" "$TMP/err"
trun 20 journal read --last 1
check "the next event reads after the garbage" grep -q ' after$' "$TMP/out"
rm -f "$WS/JOURNAL.jsonl"

# --- item 16: running out of descriptors or memory is a failure, not a bad file ---
new_ws
for i in 1 2 3; do
	printf '{"id":"s%d","status":"running","task":"t","createdAt":"2025-01-01T00:00:00.000Z","conversationHistory":[]}' \
		"$i" >"$WS/.agent/sessions/s$i.json"
done
# An AddressSanitizer build needs more descriptors to start and terabytes of
# address space: the ulimit cases cannot run under it.
if LC_ALL=C grep -qa __asan_init "$AC"; then
	echo "skipping the ulimit cases: built with AddressSanitizer"
else
	# Descriptors a test runner leaves open would count against the 4.
	(
		for fd in $(ls /proc/$BASHPID/fd); do
			[ "$fd" -gt 2 ] && eval "exec $fd>&-"
		done 2>/dev/null
		ulimit -n 4
		exec "$AC" -w "$WS" session list
	) >"$TMP/out" 2>"$TMP/err" </dev/null
	RC=$?
	check "session list under ulimit -n 4 exits 1" [ "$RC" -eq 1 ]
	check "session list under ulimit -n 4 names the cause" grep -q "Too many open files" "$TMP/err"
	check "session list under ulimit -n 4 calls no file skipped" bash -c "! grep -q skipped '$TMP/err'"

	# A 13 MB session: under some of these limits jansson runs out of memory
	# mid-parse, which it used to word as "invalid token" or leave empty.
	awk 'BEGIN {
		printf "{\"id\":\"big\",\"status\":\"running\",\"task\":\"t\",\"conversationHistory\":["
		for (i = 0; i < 100000; i++) {
			printf "%s{\"role\":\"user\",\"content\":\"", (i ? "," : "")
			for (j = 0; j < 10; j++) printf "xxxxxxxxxx"
			printf "\"}"
		}
		printf "]}"
	}' >"$WS/.agent/sessions/big.json"
	oom=0 wrong=0
	for v in 30000 40000 50000 60000 70000 80000; do
		(ulimit -v $v; exec "$AC" -w "$WS" session show big) >/dev/null 2>"$TMP/err" </dev/null
		RC=$?
		if [ "$RC" -ne 0 ]; then
			if [ "$RC" -eq 1 ] && grep -q "big.json: out of memory" "$TMP/err"; then
				oom=$((oom + 1))
			else
				wrong=$((wrong + 1))
				echo "  ulimit -v $v: exit $RC: $(head -c 200 "$TMP/err")" >&2
			fi
		fi
	done
	check "under ulimit -v the failure says out of memory, never a parse error" [ "$wrong" -eq 0 ]
	check "some ulimit -v case ran out of memory" [ "$oom" -gt 0 ]
fi

finish
