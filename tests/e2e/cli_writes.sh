#!/usr/bin/env bash
# End-to-end checks of the commands an agent in any language writes
# through (issue 12): session create|append|record-turn, ops record,
# checkpoint create. Success paths (stdout is what a program needs, the
# files are in the seeds' formats, the readers see them, a file operation
# is a git commit), every validation error (exit 2, one line naming the
# field, the workspace byte-identical), missing sessions (exit 1), hostile
# ids, and a real agent loop in Node that uses nothing but agentctl.
# The git command-line tool only sets up and inspects repositories here.
# On either store (lib/store.sh: STORE=files|pg), but for what is the
# files' own (their layout, temp files, the operations log's lines).
# Usage: [STORE=pg] cli_writes.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
export GIT_CONFIG_NOSYSTEM=1 HOME=$TMP/home
mkdir -p "$HOME"
ESC=$'\x1b'
UUID_RE='^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
ISO_RE='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$'

g() { git -C "$WS" "$@"; }

# A fresh workspace in a git repository with one commit: sets WS and S.
new_ws() {
	store_fresh
	WS=$(mktemp -d "$TMP/ws.XXXXXX")
	S=$WS/.agent/sessions
	g init -q
	g config user.email e2e@example.com
	g config user.name e2e
	printf 'start\n' >"$WS/README"
	g add README
	g commit -qm start
}

# run_in INPUT ARGS...: run with INPUT on standard input.
run_in() {
	printf '%s' "$1" | "$AC" -w "$WS" "${@:2}" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

out_is() { [ "$OUT" = "$1" ]; }
out_matches() { [[ $OUT =~ $1 ]] && [ "$(wc -l <"$TMP/out")" -eq 1 ]; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
out_empty() { [ ! -s "$TMP/out" ]; }
# tree_sum: every path of the workspace (.git included) with its type,
# size and mtime, and every file's contents; on the database, what it
# holds too.
tree_sum() {
	(cd "$WS" && {
		find . -printf '%p %y %s %T@\n' | LC_ALL=C sort
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
	} | sha256sum)
	on_pg && store_sum
}
# raw_doc ID: session ID's document as the store gives it (the file; on
# the database, session show --json), for byte-for-byte checks.
raw_doc() {
	if on_pg; then
		mkdir -p "$TMP/raw/ws" "$TMP/raw/xdg"
		XDG_CONFIG_HOME=$TMP/raw/xdg "$AC" -w "$TMP/raw/ws" session show "$1" --json
	else
		cat "$S/$1.json"
	fi
}
# sjq ID FILTER VALUE: FILTER applied to session ID's document gives VALUE.
sjq() { doc_of "$1" >"$TMP/doc.json" 2>/dev/null && jq_is "$TMP/doc.json" "$2" "$3"; }
# stored ID: session ID is in the store.
stored() { doc_of "$1" >/dev/null 2>&1; }
# ckpt_raw SESSION ID: checkpoint ID of SESSION as the store holds it.
ckpt_raw() {
	if on_pg; then
		psql -d "$STORE_DB" -Atc "select document from agentctl.checkpoints where session_id = '$1' and checkpoint_id = '$2'"
	else
		cat "$WS/.agent/checkpoints/$1/$2.json"
	fi
}
# cjq SESSION ID FILTER VALUE: FILTER applied to that checkpoint gives VALUE.
cjq() { ckpt_raw "$1" "$2" >"$TMP/ck.json" 2>/dev/null && [ -s "$TMP/ck.json" ] && jq_is "$TMP/ck.json" "$3" "$4"; }
# seed_layout FILE: FILE is exactly what JSON.stringify(doc, null, 2)
# writes, the reference writers' layout.
seed_layout() {
	node -e 'const fs = require("fs"); const t = fs.readFileSync(process.argv[1], "utf-8");
		process.exit(JSON.stringify(JSON.parse(t), null, 2) === t ? 0 : 1)' "$1"
}

# refusal STATUS INPUT NAME WHAT ARGS...: agentctl ARGS with INPUT on
# standard input exits STATUS with one line on stderr naming WHAT, prints
# nothing on stdout, and leaves the workspace byte-identical.
refusal() {
	local status=$1 input=$2 name=$3 what=$4 before
	shift 4
	before=$(tree_sum)
	run_in "$input" "$@"
	check "$name: exit $status" rc_is "$status"
	check "$name: one line naming $what" eval 'err_is_one_line && err_has "$what"'
	check "$name: nothing on stdout" out_empty
	check "$name: workspace byte-identical" eval '[ "$(tree_sum)" = "$before" ]'
}
# refused NAME FIELD ARGS...: a validation error (exit 2) naming FIELD.
refused() { refusal 2 "" "$@"; }
# refused_in INPUT NAME FIELD ARGS...: the same with INPUT on stdin.
refused_in() { refusal 2 "$@"; }
# failed NAME WHAT ARGS...: the operation failed (exit 1), naming WHAT.
failed() { refusal 1 "" "$@"; }

# ==== session create =====================================================
new_ws
run session create "fix the parser"
check "create: exit 0" rc_is 0
check "create: prints a UUID v4, alone" out_matches "$UUID_RE"
ID=$OUT
F=$S/$ID.json
on_pg || check "create: the file is <id>.json" test -f "$F"
check "create: stored" stored "$ID"
check_store "create: keys in the seed's order" \
	sjq "$ID" '[keys_unsorted[]] | join(",")' "id,createdAt,updatedAt,task,status,conversationHistory,metadata"
check_store "create: id, task, status running, empty history and metadata" \
	sjq "$ID" '"\(.id)|\(.task)|\(.status)|\(.conversationHistory)|\(.metadata)"' "$ID|fix the parser|running|[]|{}"
check "create: createdAt is ISO-8601 UTC with milliseconds" eval '[[ $(doc_of "$ID" | jq -r .createdAt) =~ $ISO_RE ]]'
if ! on_pg; then # the file's own layout and its temp file
	check "create: the file is laid out as JSON.stringify(s, null, 2)" seed_layout "$F"
	# (.locks/ holds agentctl's record of its own last write: ac_session_writes.h)
	check "create: no temporary file left" eval '[ "$(ls -A "$S" | grep -vx .locks)" = "$ID.json" ]'
fi
run session show "$ID"
check "create: session show sees it" eval 'rc_is 0 && grep -qF "fix the parser" "$TMP/out"'

run session create "tenant work" --id s1 --tenant acme --user ana --agent claude
check "create --id: prints the id" out_is s1
check "create --tenant/--user/--agent: in metadata as the backend keeps them" \
	sjq s1 '.metadata | "\(.tenantId) \(.userId) \(.agentId)"' "acme ana claude"
run session list --json --user ana
check "create: session list sees tenant, user and agent" \
	jq_is "$TMP/out" '.[] | select(.id == "s1") | "\(.tenantId) \(.userId) \(.agentId)"' "acme ana claude"
run session create "json out" --id s2 --json
check "create --json: exit 0" rc_is 0
check "create --json: prints the document saved" \
	eval '[ "$(jq -S . <"$TMP/out")" = "$(doc_of s2 | jq -S .)" ]'
run session create --id s3 -- "--looks-like-an-option"
check "create: -- ends the options" sjq s3 .task "--looks-like-an-option"

failed "create an existing id" "'s1' exists already" session create "again" --id s1
check "create an existing id: the session is untouched" sjq s1 .task "tenant work"

refused "create without a task" "needs a task" session create
refused "create --id ../x" "--id '../x'" session create t --id ../x
refused "create --id a/b" "--id 'a/b'" session create t --id a/b
refused "create --id .hidden" "--id '.hidden'" session create t --id .hidden
refused "create --id x.tmp (seed readers skip it)" "--id 'x.tmp'" session create t --id x.tmp
refused "create --tenant empty" "--tenant: empty" session create t --tenant ""
refused "create --id with no value" "--id needs a value" session create t --id
refused "create with an unknown option" "'--bogus'" session create t --bogus
refused "create with two tasks" "unexpected 'two'" session create one two
refused "create a task that is not UTF-8" "task: not valid UTF-8" session create $'bad\xff'
refused "create --id with an escape" "--id" session create t --id "x${ESC}[31m"
check "create --id with an escape: the error shows no raw escape" eval '! grep -q "$ESC" "$TMP/err"'
refused "create --read-only" "--read-only" --read-only session create t

# --resume: the seed's resumeOrCreate.
run session create "resumable" --id r1 --tenant acme --resume
check "create --resume of a new id: creates it" eval 'out_is r1 && sjq r1 .task resumable'
run session append r1 '{"role":"user","content":"before the pause"}'
run session pause r1
run session create "ignored" --id r1 --tenant acme --resume
check "create --resume of a paused session: its id" out_is r1
check "create --resume of a paused session: running again, history and task kept" \
	sjq r1 '"\(.status) \(.conversationHistory | length) \(.task)"' "running 1 resumable"
run session create "fresh start" --id r1 --resume
check_store "create --resume of a running session: a new session, as the seed does" \
	eval 'rc_is 0 && out_matches "$UUID_RE" && sjq "$OUT" .task "fresh start"'
check "create --resume of a running session: the old one untouched" sjq r1 .task resumable
run session pause r1
failed "create --resume of another tenant's session" "not found for tenant 'other'" \
	session create t --id r1 --tenant other --resume
refused "create --resume without --id" "--resume needs --id" session create t --resume

# Hostile but legal ids are data: never a path out, never a shell.
run session create t --id 'a;touch pwned'
check "create --id 'a;touch pwned': exit 0, the id printed" eval 'rc_is 0 && out_is "a;touch pwned"'
check "create --id 'a;touch pwned': stored under that id" stored "a;touch pwned"
on_pg || check "create --id 'a;touch pwned': the file has that name" test -f "$S/a;touch pwned.json"
run session create t --id $'rtl\u202eexe'
check "create --id with a bidi override: created, printed made visible" \
	eval 'rc_is 0 && out_is "rtl<U+202E>exe" && stored $'"'"'rtl\u202eexe'"'"''
on_pg || check "create --id with a bidi override: the file has that name" \
	test -f "$S/"$'rtl\u202eexe'.json
run session create t --id '$(touch pwned)`touch pwned`'
check "create --id with \$() and backticks: exit 0" rc_is 0
check "hostile ids: nothing ran" eval '[ -z "$(find "$TMP" -name pwned)" ]'

# ==== session append =====================================================
new_ws
run session create "append" --id s1
run_in '{"role":"user","content":"hello"}' session append s1 -
check "append one message: exit 0" rc_is 0
check "append one message: prints the history's length" out_is 1
on_pg || check "append: the file keeps the seed's layout" seed_layout "$S/s1.json"
run_in '[{"role":"assistant","content":[{"type":"text","text":"Reading."},{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a.c","big":123456789012345678901234567890,"f":0.1}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"int x;"}]}]' \
	session append s1 -
check "append an array: prints the new length" out_is 3
run session append s1 '{"role":"tool","tool_call_id":"c1","content":"done","x-extra":{"kept":true}}'
check "append from an argument: prints the new length" out_is 4
run session append s1 '{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]}'
check "append an OpenAI tool call (content null): exit 0" out_is 5
check "append: messages stored as given" \
	sjq s1 '.conversationHistory | map(.role) | join(",")' "user,assistant,user,tool,assistant"
check "append: numbers kept byte for byte" \
	eval 'raw_doc s1 | grep -qF "\"big\": 123456789012345678901234567890"'
check "append: 0.1 stays 0.1" eval 'raw_doc s1 | grep -qF "\"f\": 0.1"'
check "append: unknown keys of a message kept" sjq s1 '.conversationHistory[3]."x-extra".kept' true
run session show s1 --json
check "append: session show sees the messages" jq_is "$TMP/out" '.conversationHistory | length' 5
run_in '{"role":"user","content":"more"}' session append s1 - --json
check "append --json: prints the session" jq_is "$TMP/out" '.conversationHistory[5].content' more

refused_in '{"role":"user",' "append text that is not JSON" "line 1 column" session append s1 -
refused_in '[{"role":"user","content":"ok"},{"content":"x"}]' "append a message without role" \
	"messages[1].role: missing" session append s1 -
refused_in '[{"role":"bot","content":"x"}]' "append an unknown role" "messages[0].role: 'bot'" \
	session append s1 -
refused_in '{"role":"user","content":42}' "append a number as content" "message.content" \
	session append s1 -
refused_in '{"role":"user"}' "append without content" "message.content: missing" session append s1 -
refused_in '[{"role":"user","content":[{"type":"text"}]}]' "append a text block without text" \
	"messages[0].content[0].text" session append s1 -
refused_in '[{"role":"assistant","content":[{"type":"tool_use","name":"f"}]}]' \
	"append a tool_use without id" "messages[0].content[0].id" session append s1 -
refused_in '{"role":"tool","content":"r"}' "append a tool message without its call id" \
	"tool_call_id" session append s1 -
refused_in '[]' "append an empty array" "empty array" session append s1 -
refused_in '42' "append a number" "message object" session append s1 -
refused_in '["x"]' "append a string element" "messages[0]: must be an object" session append s1 -
refused "append without messages" "needs a session id and the messages" session append s1
refused "append to ../x" "session id '../x'" session append ../x '{"role":"user","content":"x"}'
before=$(tree_sum)
head -c $((64 * 1024 * 1024 + 1)) /dev/zero | "$AC" -w "$WS" session append s1 - >"$TMP/out" 2>"$TMP/err"
RC=$?
check "append more than 64 MiB: exit 1 (the stores' line limit)" rc_is 1
check "append more than 64 MiB: names the limit" err_has "over the line limit of 67108864 bytes (64 MiB)"
check "append more than 64 MiB: workspace byte-identical" eval '[ "$(tree_sum)" = "$before" ]'
failed "append to a missing session" "session 'nope' not found" \
	session append nope '{"role":"user","content":"x"}'
refused "append --read-only" "--read-only" --read-only session append s1 '{"role":"user","content":"x"}'

# ==== session record-turn ==================================================
run session record-turn s1 --input 120 --output 30
check "record-turn: exit 0" rc_is 0
check "record-turn: prints the turn's number" out_is 1
check "record-turn: usage in metadata.usage" \
	sjq s1 '.metadata.usage | "\(.inputTokens) \(.outputTokens) \(.turns)"' "120 30 1"
run_in '[{"role":"assistant","content":"turn two"}]' session record-turn s1 --input=80 --output=20 --messages -
check "record-turn --messages: prints 2" out_is 2
check "record-turn --messages: usage summed" \
	sjq s1 '.metadata.usage | "\(.inputTokens) \(.outputTokens) \(.turns)"' "200 50 2"
check "record-turn --messages: the message appended" sjq s1 '.conversationHistory[-1].content' "turn two"
run session list --json
check "record-turn: session list sums the usage" \
	jq_is "$TMP/out" '.[] | select(.id == "s1") | "\(.inputTokens) \(.outputTokens)"' "200 50"
run session record-turn s1 --input 0 --output 0 --json
check "record-turn --json: prints the session" jq_is "$TMP/out" .metadata.usage.turns 3

refused "record-turn --input -1" "--input: '-1'" session record-turn s1 --input -1 --output 1
refused "record-turn --input 1.5" "--input: '1.5'" session record-turn s1 --input 1.5 --output 1
refused "record-turn --input +5" "--input: '+5'" session record-turn s1 --input +5 --output 1
refused "record-turn --input ' 5'" "--input: ' 5'" session record-turn s1 --input " 5" --output 1
refused "record-turn --output abc" "--output: 'abc'" session record-turn s1 --input 1 --output abc
refused "record-turn --output ''" "--output: ''" session record-turn s1 --input 1 --output ""
refused "record-turn --input past 2^53-1" "larger than 9007199254740991" \
	session record-turn s1 --input 9007199254740992 --output 1
refused "record-turn without --output" "--output N" session record-turn s1 --input 1
refused "record-turn --input without a value" "--input needs a value" session record-turn s1 --output 1 --input
refused_in '[{"role":"user","content":"a"},{"role":"user"}]' "record-turn --messages with a bad message" \
	"messages[1].content: missing" session record-turn s1 --input 1 --output 1 --messages -
failed "record-turn on a missing session" "session 'nope' not found" \
	session record-turn nope --input 1 --output 1
# A total past what JavaScript holds exactly: refused whole, messages too.
# The totals are the rows' sums (ac_turn_usage.h), so the rows get there.
run session record-turn s1 --input "$((9007199254740991 - $(doc_of s1 | jq .metadata.usage.inputTokens)))" --output 0
failed "record-turn past 2^53-1 in total" "inputTokens would pass" \
	session record-turn s1 --input 2 --output 1 --messages '{"role":"user","content":"lost?"}'

# ==== ops record ===========================================================
# Skipped on the database: this part reads the operations log's lines
# (.agent/operations.jsonl); the database's log is ops_interrupted_pg.sh's.
if ! on_pg; then
new_ws
run session create "ops" --id s1
HEAD0=$(g rev-parse HEAD)
printf 'alpha\n' >"$WS/a.txt"
run ops record --session s1 --type file_write --details '{"path":"a.txt","bytes":6}'
check "ops record file_write: exit 0" rc_is 0
check "ops record: prints a UUID v4, alone" out_matches "$UUID_RE"
OP=$OUT
L=$WS/.agent/operations.jsonl
check "ops record: the line in the seed's shape" \
	eval '[ "$(tail -n 1 "$L" | jq -c "[keys_unsorted[]]")" = "[\"id\",\"timestamp\",\"sessionId\",\"type\",\"details\",\"gitCommitHash\"]" ]'
check "ops record: id, session, type and details" \
	eval '[ "$(tail -n 1 "$L" | jq -c "[.id, .sessionId, .type, .details]")" = "[\"$OP\",\"s1\",\"file_write\",{\"path\":\"a.txt\",\"bytes\":6}]" ]'
check "ops record: gitCommitHash is the new HEAD" \
	eval '[ "$(tail -n 1 "$L" | jq -r .gitCommitHash)" = "$(g rev-parse HEAD)" ] && [ "$(g rev-parse HEAD)" != "$HEAD0" ]'
check "ops record: the commit adds a.txt" eval '[ "$(g show --name-status --format= HEAD)" = "$(printf "A\ta.txt")" ]'
check "ops record: the commit message is the seed's ([agent] type: JSON, 80 chars)" \
	eval '[ "$(g log -1 --format=%s)" = "[agent] file_write: {\"path\":\"a.txt\",\"bytes\":6}" ]'
check "ops record: agent state is not committed" eval '[ -z "$(g ls-files .agent)" ]'
run ops list --json
check "ops record: ops list sees it" jq_is "$TMP/out" ".[] | select(.id == \"$OP\") | .sessionId" s1
run ops show "$OP"
check "ops record: ops show finds it" rc_is 0
rm "$WS/a.txt"
run_in '{"path":"a.txt"}' ops record --session s1 --type file_delete --details - --json
check "ops record file_delete --details - --json: exit 0" rc_is 0
check "ops record --json: prints the operation" eval '[ "$(jq -r .type <"$TMP/out")" = file_delete ]'
check "ops record --json: as the log has it" eval '[ "$(jq -c . <"$TMP/out")" = "$(tail -n 1 "$L" | jq -c .)" ]'
check "ops record file_delete: the commit deletes a.txt" \
	eval '[ "$(g show --name-status --format= HEAD)" = "$(printf "D\ta.txt")" ]'
HEAD1=$(g rev-parse HEAD)
run ops record --session s1 --type command_run --details '{"command":"make test","big":1e999}'
check "ops record command_run: exit 0" rc_is 0
check "ops record command_run: no commit" eval '[ "$(g rev-parse HEAD)" = "$HEAD1" ]'
check "ops record command_run: no gitCommitHash" eval '[ "$(tail -n 1 "$L" | jq -r "has(\"gitCommitHash\")")" = false ]'
check "ops record: numbers in details kept byte for byte" eval 'tail -n 1 "$L" | grep -qF "\"big\":1e999"'
run session create t --id 'b;touch pwned'
printf 'b\n' >"$WS/b.txt"
run ops record --session 'b;touch pwned' --type file_write --details '{"path":"b.txt"}'
check "ops record for session 'b;touch pwned': exit 0" rc_is 0
check "ops record for a hostile session id: committed, nothing ran" \
	eval '[ "$(g show --name-only --format= HEAD)" = b.txt ] && [ -z "$(find "$TMP" -name pwned)" ]'

# The seed's message exactly: JSON.stringify(details).slice(0, 80), cut in
# UTF-16 units (an emoji is two), escapes in lower case.
if command -v node >/dev/null; then
	DETAILS='{"path":"d.txt","note":"héllo wörld \u001b control","emoji":"😀😀😀😀😀😀😀😀😀😀😀😀😀😀","n":12}'
	printf 'd\n' >"$WS/d.txt"
	run ops record --session s1 --type file_write --details "$DETAILS"
	WANT=$(node -e 'const d = JSON.parse(process.argv[1]); process.stdout.write(`[agent] file_write: ${JSON.stringify(d).slice(0, 80)}`)' "$DETAILS")
	check "ops record: the message is byte for byte the seed's (node's JSON.stringify)" \
		eval '[ "$(g log -1 --format=%B | head -c 2000)" = "$WANT" ]'
fi
# gitEnabled false: operations are logged without commits, as in the seed.
HEAD2=$(g rev-parse HEAD)
printf 'e\n' >"$WS/e.txt"
AGENT_GIT_ENABLED=false run ops record --session s1 --type file_write --details '{"path":"e.txt"}'
check "gitEnabled false: ops record exit 0" rc_is 0
NOGIT=$OUT
check "gitEnabled false: no commit" eval '[ "$(g rev-parse HEAD)" = "$HEAD2" ]'
check "gitEnabled false: no gitCommitHash" eval '[ "$(tail -n 1 "$L" | jq -r "has(\"gitCommitHash\")")" = false ]'
run ops rollback "$NOGIT" --yes
check "gitEnabled false: its operation cannot be rolled back (exit 1)" rc_is 1
AGENT_GIT_ENABLED=maybe run ops list
check "gitEnabled not a boolean: exit 1 naming the variable" \
	eval '[ "$RC" = 1 ] && grep -q "AGENT_GIT_ENABLED" "$TMP/err"'

printf 'c\n' >"$WS/c.txt"
refused "ops record --details [1]" "--details: must be a JSON object" \
	ops record --session s1 --type file_write --details '[1]'
refused "ops record --details not JSON" "--details: line 1" \
	ops record --session s1 --type file_write --details '{path:1}'
refused "ops record --type unknown" "--type: 'file_move'" \
	ops record --session s1 --type file_move --details '{}'
refused "ops record without --session" "--session ID" ops record --type command_run --details '{}'
refused "ops record --session ../x" "'../x'" ops record --session ../x --type file_write --details '{}'
refused "ops record with an unknown option" "'--force'" \
	ops record --session s1 --type file_write --details '{}' --force
refused "ops record --read-only" "--read-only" --read-only ops record --session s1 --type command_run --details '{}'
failed "ops record for a missing session (no commit either)" "session 'nope' not found" \
	ops record --session nope --type file_write --details '{"path":"c.txt"}'

# A workspace in no repository: recorded, without a commit, and said so.
WS=$(mktemp -d "$TMP/nogit.XXXXXX")
run session create t --id s1
run ops record --session s1 --type file_write --details '{"path":"x"}'
check "ops record outside git: exit 0" rc_is 0
check "ops record outside git: a note says there is no commit" err_has "no git repository"
check "ops record outside git: no gitCommitHash" \
	eval '[ "$(jq -r "has(\"gitCommitHash\")" <"$WS/.agent/operations.jsonl")" = false ]'
fi

# ==== checkpoint create ====================================================
new_ws
run session create "ckpt" --id s1 --agent claude
run session append s1 '[{"role":"user","content":"plan it"},{"role":"assistant","content":"planned"}]'
C=$WS/.agent/checkpoints/s1
run checkpoint create s1
check "checkpoint create: exit 0" rc_is 0
check "checkpoint create: prints a UUID v4, alone" out_matches "$UUID_RE"
FIRST=$OUT
check "checkpoint create: keys in the checkpoint's order" \
	cjq s1 "$FIRST" '[keys_unsorted[]] | join(",")' \
	"checkpointId,sessionId,agentId,createdAt,version,parentId,nodeId,lastInput,lastInputType,lastOutput,messageHistory,properties"
check "checkpoint create: defaults" \
	cjq s1 "$FIRST" '"\(.version) \(.nodeId) \(.lastInput) \(.lastInputType) \(.lastOutput) \(.agentId) \(.messageHistory | length)"' \
	"1 manual plan it text planned claude 2"
run checkpoint create s1 --node plan --input '{"q":[1,2],"n":1e999}' --input-type json --id c-2
check "checkpoint create --id: prints it" out_is c-2
check "checkpoint create --input/--input-type/--node: stored" \
	cjq s1 c-2 '"\(.version) \(.nodeId) \(.lastInputType) \(.lastInput.q) \(.parentId)"' "2 plan json [1,2] $FIRST"
check "checkpoint create --input: numbers kept byte for byte" eval 'ckpt_raw s1 c-2 | grep -qE "\"n\": ?1e999"'
run_in '"just text"' checkpoint create s1 --input - --json
check "checkpoint create --input - --json: exit 0" rc_is 0
check "checkpoint create --json: prints the document saved" \
	eval '[ "$(jq -S . <"$TMP/out")" = "$(ckpt_raw s1 "$(jq -r .checkpointId <"$TMP/out")" | jq -S .)" ]'
check "checkpoint create --input -: a JSON string" jq_is "$TMP/out" .lastInput "just text"
run checkpoint create s1 --tombstone
check "checkpoint create --tombstone: exit 0" rc_is 0
check "checkpoint create --tombstone: node tombstone, version 4" \
	cjq s1 "$OUT" '"\(.nodeId) \(.version)"' "tombstone 4"
run checkpoint list s1 --json
check "checkpoint create: checkpoint list sees all four" jq_is "$TMP/out" 'map(.version) | join(",")' "1,2,3,4"
check "checkpoint create --tombstone: listed as one" jq_is "$TMP/out" '.[3].tombstone' true

refused "checkpoint create --input not JSON" "--input: line 1 column 2" checkpoint create s1 --input '{x'
refused "checkpoint create --input-type empty" "--input-type needs a name" \
	checkpoint create s1 --input-type ""
refused "checkpoint create --id ../x" "--id" checkpoint create s1 --id ../x
refused "checkpoint create --id .x" "--id" checkpoint create s1 --id .x
refused "checkpoint create --tombstone --node plan" "--tombstone and --node plan disagree" \
	checkpoint create s1 --tombstone --node plan
refused "checkpoint create --node empty" "--node needs a name" checkpoint create s1 --node ""
refused "checkpoint create --input without a value" "--input needs a value" checkpoint create s1 --input
refused "checkpoint create ../s1" "'../s1'" checkpoint create ../s1
failed "checkpoint create an existing --id" "checkpoint 'c-2' of session 's1' exists already" \
	checkpoint create s1 --id c-2
failed "checkpoint create for a missing session" "session 'nope' not found" checkpoint create nope

# ==== concurrent writers ===================================================
# Agents in several processes write the same session, log and checkpoints
# at once: nothing is lost, no version is shared.
new_ws
run session create "busy" --id s1
for i in $(seq 1 12); do
	"$AC" -w "$WS" session append s1 "{\"role\":\"user\",\"content\":\"m$i\"}" >/dev/null 2>>"$TMP/par.err" &
	"$AC" -w "$WS" session record-turn s1 --input 1 --output 2 >/dev/null 2>>"$TMP/par.err" &
	"$AC" -w "$WS" checkpoint create s1 >/dev/null 2>>"$TMP/par.err" &
done
for i in $(seq 1 4); do
	printf '%s\n' "$i" >"$WS/f$i.txt"
	"$AC" -w "$WS" ops record --session s1 --type file_write --details "{\"path\":\"f$i.txt\"}" \
		>/dev/null 2>>"$TMP/par.err" &
done
wait
check "concurrent: no command failed" test ! -s "$TMP/par.err"
check "concurrent: all 12 appended messages kept" \
	sjq s1 '[.conversationHistory[].content] | sort | join(",")' \
	"$(printf 'm%s\n' $(seq 1 12) | sort | paste -sd,)"
check "concurrent: all 12 turns counted" sjq s1 '.metadata.usage | "\(.turns) \(.inputTokens) \(.outputTokens)"' "12 12 24"
run checkpoint list s1 --json
check "concurrent: 12 checkpoints, versions 1..12, none shared" \
	jq_is "$TMP/out" 'map(.version) | join(",")' "$(seq -s, 1 12)"
check "concurrent: 4 operations, each with its own commit git has" \
	eval '[ "$("$AC" -w "$WS" ops list --json | jq -r ".[].gitCommitHash" | sort -u | while read -r h; do g cat-file -e "$h^{commit}" && echo ok; done | wc -l)" = 4 ]'
check "concurrent: every file committed" eval '[ -z "$(g status --porcelain -- f1.txt f2.txt f3.txt f4.txt)" ]'

# ==== an agent written in Node, using only agentctl ========================
new_ws
if AGENT_ID=$(node "$(dirname "$0")/lib/agent_loop.js" "$AC" "$WS" 3 2>"$TMP/err"); then
	check "agent loop: ran" true
else
	check "agent loop: ran" false
fi
F=$S/$AGENT_ID.json
on_pg || check "agent loop: the session file" test -f "$F"
check "agent loop: stored" stored "$AGENT_ID"
doc_of "$AGENT_ID" >"$TMP/agent.json" 2>/dev/null
F=$TMP/agent.json
check "agent loop: 12 messages, tool calls paired with results" \
	jq_is "$F" '[(.conversationHistory | length), ([.conversationHistory[].content | arrays | .[] | select(.type == "tool_use") | .id] == [.conversationHistory[].content | arrays | .[] | select(.type == "tool_result") | .tool_use_id])] | join(" ")' "12 true"
check "agent loop: usage summed over 3 turns" \
	jq_is "$F" '.metadata.usage | "\(.inputTokens) \(.outputTokens) \(.turns)"' "600 60 3"
check "agent loop: tenancy in metadata" jq_is "$F" '.metadata | "\(.tenantId) \(.userId) \(.agentId)"' "acme ana claude"
on_pg || check "agent loop: the session keeps the seed's layout" seed_layout "$S/$AGENT_ID.json"
run ops list --session "$AGENT_ID" --json
check "agent loop: three file_write operations, each with a commit" \
	jq_is "$TMP/out" '[length, (map(select(.type == "file_write" and (.gitCommitHash | length) == 40)) | length)] | join(" ")' "3 3"
check "agent loop: three commits touching notes.txt" \
	eval '[ "$(g log --format=%s -- notes.txt | grep -c "^\[agent\] file_write: {\"path\":\"notes.txt\"")" = 3 ]'
check "agent loop: the last commit has the whole file" eval '[ "$(g show HEAD:notes.txt)" = "$(printf "line 1\nline 2\nline 3")" ]'
run checkpoint list "$AGENT_ID" --json
check "agent loop: three checkpoints and a tombstone, in order" \
	jq_is "$TMP/out" 'map(.nodeId) | join(",")' "turn-1,turn-2,turn-3,tombstone"
check "agent loop: the last checkpoint holds the whole history and the input" \
	eval 'c=$(jq -r ".[2].checkpointId" <"$TMP/out"); cjq "$AGENT_ID" "$c" "\"\(.messageHistory | length) \(.lastInput.turn) \(.lastInputType)\"" "12 3 json"'
run session show "$AGENT_ID"
check "agent loop: session show reads it" eval 'rc_is 0 && grep -qF "write the notes file" "$TMP/out"'

finish
