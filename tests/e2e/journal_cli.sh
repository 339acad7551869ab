#!/usr/bin/env bash
# End-to-end checks of `agentctl journal ...` as a user or a script runs it:
# exit statuses, what reaches stdout and stderr, and what reaches the file.
# Its first part (log, read, refused events, log -, query, --last) runs on
# either store (lib/store.sh: STORE=files|pg); the rest is the file's own
# (garbage lines, torn tails, rotation, ...).
# Usage: [STORE=pg] journal_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
ID_RE='^evt_[0-9]{14}_[0-9a-f]{8}$'

# A fresh workspace: sets WS and J (its journal).
new_ws() {
	WS=$(mktemp -d "$TMP/ws.XXXXXX")
	J=$WS/JOURNAL.jsonl
}

# run_in INPUT ARGS...: the same, with INPUT on standard input.
run_in() {
	local input=$1
	shift
	printf '%s' "$input" | "$AC" -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
}

# event [AGENT] [MESSAGE] [STATUS]: an event as a person would type it.
event() {
	printf '{"agent":"%s","status":"%s","action":{"type":"CMD_RUN","params":{"command":"make"}},"result":{"message":"%s"}}' \
		"${1:-Claude}" "${3:-SUCCESS}" "${2:-done}"
}

# A complete event line with a fixed id ending in N (for hand-made files).
event_line() {
	printf '{"id":"evt_20250101000000_0000000%s","timestamp":"2025-01-01T00:00:00.00%sZ","agent":"Claude","status":"SUCCESS","action":{"type":"CMD_RUN","params":{}},"result":{"message":"m%s"}}\n' "$1" "$1" "$1"
}

# log_events N [AGENT]: logs N events; appends their ids to IDS.
log_events() {
	local i
	for ((i = 0; i < $1; i++)); do
		run journal log "$(event "${2:-Claude}" "event $i")"
		[ "$RC" -eq 0 ] || fail "logging event $i"
		IDS+=("$OUT")
	done
}

out_has() { grep -qE -- "$1" "$TMP/out"; }
err_has() { grep -qE -- "$1" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
out_lines_are() { [ "$(wc -l <"$TMP/out")" -eq "$1" ]; }
json_length_is() { [ "$(jq length <"$TMP/out" 2>/dev/null)" = "$1" ]; }
ids_in_out() { grep -oE 'evt_[0-9]{14}_[0-9a-f]{8}' "$TMP/out" | tr '\n' ' '; }
ids_are() { [ "$(ids_in_out)" = "$* " ]; }
sum_of() { sha256sum <"$1"; }
size_of() { stat -c %s "$1"; }

# --- log and read ----------------------------------------------------------
new_ws
run journal log "$(event Claude 'first event')"
check "log exits 0" rc_is 0
check "log prints an id" eval '[[ "$OUT" =~ $ID_RE ]]'
FIRST_ID=$OUT
# journal_text: the journal as the store holds it (on the database: as read).
journal_text() { if on_pg; then "$AC" -w "$WS" journal read --json; else cat "$J"; fi; }
check "the journal holds the event" eval 'journal_text | grep -q "\"id\":\"$FIRST_ID\""'
IDS=("$FIRST_ID")
log_events 2 Codex
run journal read
check "read exits 0" rc_is 0
check "read: one line per event" out_lines_are 3
check "read shows the logged event" out_has "$FIRST_ID .*first event"
check "read lists events in order" ids_are "${IDS[@]}"
run journal read --json
check "read --json: a JSON array of 3" json_length_is 3
check "read --json keeps the ids" eval '[ "$(jq -r ".[].id" <"$TMP/out" | tr "\n" " ")" = "${IDS[*]} " ]'

# --- invalid events are refused and change nothing --------------------------
before=$(store_sum)
for bad in "agent:$(event Bob)" \
	"result.message:{\"agent\":\"Claude\",\"status\":\"SUCCESS\",\"action\":{\"type\":\"CMD_RUN\",\"params\":{}},\"result\":{}}" \
	"line 1:this is not JSON"; do
	field=${bad%%:*}
	run journal log "${bad#*:}"
	check "invalid event ($field): exit 2" rc_is 2
	check "invalid event ($field): one line on stderr" err_is_one_line
	check "invalid event ($field): stderr names $field" err_has "$field"
	check "invalid event ($field): journal unchanged" eval '[ "$(store_sum)" = "$before" ]'
done

# --- log's argument, by its spec: counted, one line naming what is wrong ----
run journal log
check "log without its event: exit 2, names it" \
	eval '[ $RC = 2 ] && [ "$ERR" = "agentctl: journal log: missing JSON|-" ]'
run journal log "$(event Claude one)" "$(event Claude two)"
check "log with two events: exit 2, one line" eval '[ $RC = 2 ] && err_is_one_line && err_has "journal log: unexpected"'
check "log with two events: journal unchanged" eval '[ "$(store_sum)" = "$before" ]'
run journal log --help
check "log --help: the argument and its help" \
	eval '[ $RC = 0 ] && grep -q "^    JSON|-  the event, a JSON object" "$TMP/out"'

# --- log - reads standard input -------------------------------------------
run_in "$(event Gemini 'from standard input')" journal log -
check "log - exits 0" rc_is 0
check "log - prints an id" eval '[[ "$OUT" =~ $ID_RE ]]'
IDS+=("$OUT")
run journal read --last 1
check "log - stored the event" out_has "Gemini .*from standard input"

# --- query ---------------------------------------------------------------------
run journal query bogus
check "query bad term: exit 2" rc_is 2
check "query bad term: the term is named" err_has "'bogus'"
run journal query agent=Claude since=yesterday
check "query bad time: exit 2" rc_is 2
check "query bad time: the term is named" err_has "'since=yesterday'"
run journal query agent=Codex
check "query agent=Codex: exit 0" rc_is 0
check "query agent=Codex: 2 events" out_lines_are 2
run journal query agent=Codex --json
check "query --json: 2 events" json_length_is 2
run journal query agent=Nobody --json
check "query with no match: empty array" json_length_is 0

# --- --last ----------------------------------------------------------------
run journal read --last 2
check "--last 2: the last two events" ids_are "${IDS[@]: -2}"
run journal read --last abc
check "--last abc: exit 2" rc_is 2
check "--last abc: says why" err_has "abc"
run journal read --last
check "--last without a number: exit 2" rc_is 2

# What follows is the journal file's own.
if on_pg; then
	finish
	exit
fi

# --- a garbage line: check reports it, read shows it marked, --strict skips it -----
garbage_at=$(size_of "$J")
garbage_line=$(($(wc -l <"$J") + 1))
echo 'garbage, not an event' >>"$J"
run journal check
check "check with a garbage line: exit 1" rc_is 1
check "check names line and byte" out_has ":$garbage_line: byte $garbage_at:"
run journal read
check "read with a garbage line: exit 0" rc_is 0
check "read shows the garbage line marked, with its byte" out_has "^! $J: byte $garbage_at: not JSON: column 1: "
check "read shows the garbage record itself, indented" out_has "^  garbage, not an event$"
check "read: the events and the marked record" out_lines_are 6
run journal read --strict
check "read --strict with a garbage line: exit 0" rc_is 0
check "read --strict skips the garbage line" out_lines_are 4
check "read --strict says it skipped one line" err_has "skipped 1 invalid line"

# --- a torn tail is never merged with the next event ------------------------------
new_ws
IDS=()
log_events 2
torn_at=$(size_of "$J")
printf '{"id":"evt_20250101000000_' >>"$J"
run journal read
check "read reports the torn line" err_has "byte $torn_at"
run journal log "$(event Human 'after the torn line')"
check "log after a torn tail: exit 0" rc_is 0
new_id=$OUT
check "the new event is a line of its own" eval '[ "$(tail -n 1 "$J" | jq -r .id)" = "$new_id" ]'
check "the torn line stays on its own line" eval '[ "$(sed -n 3p "$J")" = "{\"id\":\"evt_20250101000000_" ]'
run journal check
check "check after repair: exit 1" rc_is 1
check "check reports the torn line" out_has ":3: byte $torn_at:"
check "check counts 3 valid, 1 invalid" out_has ": 3 valid, 1 invalid line$"

# --- rotation ---------------------------------------------------------------
run journal rotate now
check "rotate with an argument: exit 2, one line naming it" \
	eval "[ \$RC = 2 ] && [ \"\$ERR\" = \"agentctl: journal rotate: unexpected 'now'\" ]"
run journal rotate --help
check "rotate --help: exit 0, its synopsis" eval '[ $RC = 0 ] && grep -q "^usage: agentctl \[-w DIR\] journal rotate$" "$TMP/out"'
run journal rotate
check "rotate: exit 0" rc_is 0
check "rotate prints the rotated file" eval '[ -f "$OUT" ] && [[ "$OUT" == "$WS"/JOURNAL-*.jsonl ]]'
check "rotate leaves an empty journal" eval '[ -f "$J" ] && [ ! -s "$J" ]'
run journal read
check "read after rotate: nothing" out_lines_are 0
run journal read --all
check "read --all: every event" ids_are "${IDS[@]}" "$new_id"
run journal log "$(event)"
newer_id=$OUT
run journal read --all --last 2
check "read --all --last 2 crosses files" ids_are "$new_id" "$newer_id"

new_ws
IDS=()
for ((i = 0; i < 30; i++)); do
	AGENT_JOURNAL_ROTATE_BYTES=2000 "$AC" -w "$WS" journal log "$(event Claude "auto $i")" \
		>"$TMP/out" 2>"$TMP/err"
	IDS+=("$(cat "$TMP/out")")
done
rotated=$(find "$WS" -name 'JOURNAL-*.jsonl' | wc -l)
check "auto-rotation made several files" eval '[ "$rotated" -ge 2 ]'
check "no file passes rotateBytes" eval '! find "$WS" -name "JOURNAL*.jsonl" -size +2000c | grep -q .'
run journal read --all
check "auto-rotation lost no event, kept order" ids_are "${IDS[@]}"
run journal read --all --json --last 5
check "read --all --last 5 --json" eval 'json_length_is 5 && ids_are "${IDS[@]: -5}"'

# journal.rotate monthly: a journal started last year is rotated by the
# first append, which says why; the next append stays.
new_ws
printf '{"id":"evt_20250115000000_0000abcd","timestamp":"2025-01-15T00:00:00.000Z","agent":"Claude","status":"SUCCESS","action":{"type":"CMD_RUN","params":{}},"result":{"message":"january"}}\n' >"$J"
AGENT_JOURNAL_ROTATE=monthly "$AC" -w "$WS" journal log "$(event Claude 'this month')" >"$TMP/out" 2>"$TMP/err"
check "monthly: exit 0" test $? = 0
check "monthly: rotated, and says why" grep -q "rotated to .*JOURNAL-.*(journal.rotate monthly)" "$TMP/err"
check "monthly: the old month in the rotated file" eval 'grep -q january "$(find "$WS" -name "JOURNAL-*.jsonl")"'
check "monthly: the journal holds this month only" eval '[ "$(wc -l <"$J")" = 1 ] && grep -q "this month" "$J"'
AGENT_JOURNAL_ROTATE=monthly "$AC" -w "$WS" journal log "$(event Claude 'again')" >"$TMP/out" 2>"$TMP/err"
check "monthly: no second rotation within the month" \
	eval '[ "$(find "$WS" -name "JOURNAL-*.jsonl" | wc -l)" = 1 ] && [ "$(wc -l <"$J")" = 2 ]'
run journal read --all
check "monthly: read --all sees both months" eval '[ "$(wc -l <"$TMP/out")" = 3 ]'
AGENT_JOURNAL_ROTATE=weekly "$AC" -w "$WS" journal log "$(event Claude 'weekly?')" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "journal.rotate weekly: exit 1" rc_is 1
check "... one line naming the setting, nothing appended" \
	eval '[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "AGENT_JOURNAL_ROTATE.*must be one of monthly" "$TMP/err" && [ "$(wc -l <"$J")" = 2 ]'

# --- text from the file cannot drive the terminal -----------------------------
new_ws
run journal log "$(event Claude 'red \u001b[31mALERT\u001b[0m \u202eesrever \u0085 日本')"
check "log a message with ESC and bidi: exit 0" rc_is 0
run journal read
check "read output holds no raw ESC" eval '! grep -q $'"'"'\x1b'"'"' "$TMP/out"'
check "read output holds no raw U+202E" eval '! grep -q $'"'"'\xe2\x80\xae'"'"' "$TMP/out"'
check "read output holds no raw U+0085" eval '! grep -q $'"'"'\xc2\x85'"'"' "$TMP/out"'
check "read shows them visibly" out_has '\^\[\[31mALERT.*<U\+202E>esrever'
check "read keeps CJK" out_has '日本'
run journal read --json
check "--json with ESC and bidi is valid JSON" json_length_is 1
check "--json holds no raw U+202E" eval '! grep -q $'"'"'\xe2\x80\xae'"'"' "$TMP/out"'
check "--json keeps the message intact" \
	eval '[ "$(jq -r ".[0].result.message" <"$TMP/out")" = "$(printf "red \033[31mALERT\033[0m \342\200\256esrever \302\205 日本")" ]'
# A DEL on a line that is otherwise ASCII, written raw by another writer
# (valid JSON): only the look for a DEL keeps it from being printed as it is.
printf '{"id":"evt_20250101000000_00000009","timestamp":"2025-01-01T00:00:00.009Z","agent":"Codex","status":"SUCCESS","action":{"type":"CMD_RUN","params":{}},"result":{"message":"rub\177out"}}\n' >>"$J"
for how in "read" "query agent=Codex"; do
	run journal $how
	check "$how: no raw DEL" eval '! grep -q $'"'"'\x7f'"'"' "$TMP/out"'
	check "$how: the DEL shown visibly" out_has 'rub\^\?out'
	run journal $how --json
	check "$how --json: no raw DEL" eval '! grep -q $'"'"'\x7f'"'"' "$TMP/out"'
	check "$how --json: the DEL kept as an escape" \
		eval '[ "$(jq -r ".[-1].result.message" <"$TMP/out")" = "$(printf "rub\177out")" ]'
done

# --- usage errors ----------------------------------------------------------
"$AC" -w /nonexistent journal read >"$TMP/out" 2>"$TMP/err"
RC=$?
check "-w /nonexistent: exit 2" rc_is 2
check "-w /nonexistent: named" err_has "/nonexistent"
run journal frobnicate
check "unknown journal subcommand: exit 2" rc_is 2
run frobnicate
check "unknown command: exit 2" rc_is 2
run journal
check "journal without a subcommand: exit 2" rc_is 2

# --- regressions for bugs found while writing these tests ---------------------
# Rotations in quick succession (often within one millisecond) must get
# distinct names that still sort oldest first for --all.
new_ws
event_line 1 >"$J"
"$AC" -w "$WS" journal rotate >/dev/null
event_line 2 >"$J"
"$AC" -w "$WS" journal rotate >/dev/null
event_line 3 >"$J"
check "rapid rotations: two distinct rotated files" eval '[ "$(ls "$WS"/JOURNAL-*.jsonl | wc -l)" -eq 2 ]'
run journal read --all
check "read --all: rapid rotations in order" \
	ids_are evt_20250101000000_00000001 evt_20250101000000_00000002 evt_20250101000000_00000003
run journal read --all --last 2
check "read --all --last 2: rapid rotations" \
	ids_are evt_20250101000000_00000002 evt_20250101000000_00000003

# Skipped lines are reported against the file that holds them.
new_ws
{ event_line 1; echo 'garbage'; } >"$WS/JOURNAL-20250101T000000.000Z.jsonl"
event_line 2 >"$J"
run journal read --all --strict
check "read --all --strict: skipped lines named with their file" err_has "JOURNAL-20250101T000000.000Z.jsonl"
run journal read --all
check "read --all: shown invalid lines named with their file" out_has "^! $WS/JOURNAL-20250101T000000.000Z.jsonl: byte "

# --last N costs memory for the matches, not for N.
run journal read --last 1000000000000
check "--last 10^12 on a small journal: exit 0" rc_is 0
check "--last 10^12 on a small journal: every event" ids_are evt_20250101000000_00000002

# --json stays one JSON document even when the command fails.
new_ws
mkdir "$J"
run journal read --json
check "failed read --json: exit 1" rc_is 1
check "failed read --json: stdout empty or valid JSON" eval '[ ! -s "$TMP/out" ] || jq -e . <"$TMP/out" >/dev/null 2>&1'

# --- issue 16 item 6: records outside the schema are shown, marked ---------------
# The seed's tasks.py logs `agent` as typed: "claude". It must not vanish.
new_ws
event_line 1 >"$J"
claude_at=$(size_of "$J")
printf '{"id":"evt_20250101000000_00000009","timestamp":"2025-01-01T00:00:00.009Z","agent":"claude","status":"SUCCESS","action":{"type":"CMD_RUN","params":{"command":"\\u001b[2Jrm"}},"result":{"message":"typed by tasks.py"}}\n' >>"$J"
event_line 2 >>"$J"
printf '{"no":"id"}\n' >>"$J"
run journal read
check "invalid shown: exit 0" rc_is 0
check "invalid shown: marked with file, byte and reason" \
	out_has "^! $J: byte $claude_at: agent: 'claude' is not one of Claude, Codex, Gemini, Human, System$"
check "invalid shown: the record follows, indented" out_has '^  \{"id":"evt_20250101000000_00000009".*"agent":"claude"'
check "invalid shown: in file order" eval '[ "$(grep -oE "^(!|[0-9]{4}-)" "$TMP/out" | tr "\n" " ")" = "2025- ! 2025- ! " ]'
check "invalid shown: nothing on stderr" eval '[ ! -s "$TMP/err" ]'
run journal read --json
check "invalid --json: one document of 4" json_length_is 4
check "invalid --json: the object says so" \
	eval '[ "$(jq -c ".[1] | [.invalid, .offset, .reason, (.raw | fromjson | .agent)]" <"$TMP/out")" = "[true,$claude_at,\"agent: '"'"'claude'"'"' is not one of Claude, Codex, Gemini, Human, System\",\"claude\"]" ]'
check "invalid --json: file named" eval '[ "$(jq -r ".[1].file" <"$TMP/out")" = "$J" ]'
check "invalid --json: valid events unchanged" eval '[ "$(jq -r ".[0].id" <"$TMP/out")" = evt_20250101000000_00000001 ]'
run journal read --strict --json
check "--strict --json: only the valid events" json_length_is 2
check "--strict: says what it skipped" err_has "skipped 2 invalid lines"
# Terms on a record outside the schema: it matches only through fields it has.
run journal query agent=claude
check "query agent=claude finds the invalid record" eval '[ "$(grep -c "^!" "$TMP/out")" = 1 ] && out_has "typed by tasks.py"'
run journal query 'agent!=Claude'
check "query agent!=Claude: the record with an agent, not the one without" \
	eval '[ "$(grep -c "^!" "$TMP/out")" = 1 ] && out_has "agent.:.claude"'
run journal query text~tasks.py
check "query text~ reads the raw record" out_has "typed by tasks.py"
run journal query since=2025-01-01
check "query since=: both valid events and the record with a timestamp" \
	eval '[ "$(grep -c "^!" "$TMP/out")" = 1 ] && [ "$(grep -c "^2025-" "$TMP/out")" = 2 ]'
run journal query --last 1 no=id
check "query --last 1 no=id: the record without an id" out_has '^  \{"no":"id"\}$'
run journal query --strict agent=claude
check "query --strict agent=claude: nothing" eval '[ ! -s "$TMP/out" ]'
check "invalid shown: text is made safe" eval '! grep -q $'"'"'\e'"'"' "$TMP/out"'

# --- issue 16 item 7: the seed's one-string form -------------------------------------
new_ws
IDS=()
log_events 1 Codex
run journal log "$(event Codex 'it failed' FAILED)"
log_events 1 Claude
run journal query "agent=Codex status=SUCCESS"
check "one string, two terms: exit 0" rc_is 0
check "one string, two terms: the one event" ids_are "${IDS[0]}"
run journal query "agent=Codex" "status=SUCCESS"
check "two arguments: the same" ids_are "${IDS[0]}"
run journal query 'result.message~"it failed"'
check "quoted value with a space" eval '[ "$(wc -l <"$TMP/out")" = 1 ] && out_has "it failed"'
run journal query '"result.message~it failed" agent=Codex'
check "quoted term with a space, and another" out_has "it failed"
run journal query 'result.message~it failed'
check "one FIELD~TEXT argument with spaces, unquoted: free text, one term" \
	eval '[ "$RC" = 0 ] && [ "$(wc -l <"$TMP/out")" = 1 ] && out_has "it failed"'
run journal query 'text~it failed' agent=Codex
check "... beside other arguments" eval '[ "$(wc -l <"$TMP/out")" = 1 ]'
run journal query "agent=Codex statusSUCCESS"
check "unparseable term: exit 2" rc_is 2
check "unparseable term: one line naming it" eval 'err_is_one_line && err_has "statusSUCCESS"'
check "unparseable term: no output" eval '[ ! -s "$TMP/out" ]'
run journal query 'result.message~"it failed'
check "unclosed quote: exit 2" rc_is 2
run journal query 'agent==Codex'
check "agent==Codex: exit 2 naming it" eval '[ "$RC" = 2 ] && err_has "agent==Codex"'
run journal query ''
check "an empty query string: exit 2" rc_is 2

# --- issue 16 item 8: action types added in config --------------------------------
new_ws
mkdir -p "$WS/.agent"
echo '{"journal": {"actionTypes": ["DEPLOY"]}}' >"$WS/.agent/config.json"
run journal log '{"agent":"Codex","status":"SUCCESS","action":{"type":"DEPLOY","params":{}},"result":{"message":"shipped"}}'
check "configured action type: log exits 0" rc_is 0
run journal log '{"agent":"Codex","status":"SUCCESS","action":{"type":"SHIP","params":{}},"result":{"message":"no"}}'
check "unknown action type: exit 2 naming it and listing DEPLOY" eval '[ "$RC" = 2 ] && err_has "SHIP" && err_has "DEPLOY"'
run journal read
check "configured action type: read shows it" out_has "Codex +SUCCESS +DEPLOY +shipped"
run journal query action.type=DEPLOY
check "configured action type: query finds it" out_has "shipped"
run journal check
check "configured action type: check calls it valid" eval '[ "$RC" = 0 ] && out_has ": 1 valid, 0 invalid lines$"'
rm "$WS/.agent/config.json"
run journal read
check "without the config the event is shown marked invalid" out_has "^! .*action.type: 'DEPLOY' is not one of"

# The global options after log's event: -w, from another folder.
(cd / && "$AC" journal log "$(event Claude 'w after')" -w "$WS") >"$TMP/out" 2>"$TMP/err"
RC=$?
check "-w after log's event: exit 0" eval '[ $RC = 0 ]'
run journal read --last 1
check "-w after log's event: logged there" eval 'grep -q "w after" "$TMP/out"'

finish
