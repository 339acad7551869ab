#!/usr/bin/env bash
# End-to-end checks of `agentctl session ...` and `agentctl config show` on
# session files written by hand in the reference (Node) format: listing,
# showing, status changes and what they journal, the resume command,
# compaction, and configuration errors. Exit statuses, stdout, stderr and
# the files on disk are all checked. On either store (lib/store.sh:
# STORE=files|pg; there the hand-written files go into the database by
# `storage migrate --to`); the cases about the files themselves (a corrupt
# or temp file, temp files left, archives, journal paths) are the files'.
# Usage: [STORE=pg] session_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
ESC=$'\x1b'

# A fresh workspace: sets WS, S (its session folder) and J (its journal).
new_ws() {
	store_fresh
	WS=$(mktemp -d "$TMP/ws.XXXXXX")
	S=$WS/.agent/sessions
	J=$WS/JOURNAL.jsonl
	mkdir -p "$S"
}

# run ARGS...: agentctl in WS with no input; sets RC; stdout and stderr
# are in $TMP/out and $TMP/err.

out_has() { grep -qE -- "$1" "$TMP/out"; }
err_has() { grep -qE -- "$1" "$TMP/err"; }
err_has_text() { grep -qF -- "$1" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
out_is_json() { jq -e . <"$TMP/out" >/dev/null 2>&1; }
# jq_out FILTER: FILTER applied to stdout, as raw text.
jq_out() { jq -r "$1" <"$TMP/out" 2>/dev/null; }
no_raw_esc() { ! grep -q "$ESC" "$1"; }
sum_of() { sha256sum <"$1"; }
# listed_ids: the ids of `session list`'s plain output, in order.
listed_ids() { tail -n +2 "$TMP/out" | awk '{print $1}' | tr '\n' ' '; }
# doc ID: the session's document as the store holds it, in $TMP/doc.json;
# doc_sum ID: a digest of it (a refused command leaves it as it was).
doc() { doc_of "$1" >"$TMP/doc.json"; }
doc_sum() { doc_of "$1" | sha256sum; }
# human_events: the journal's Human events as a JSON array (in $TMP/human).
human_events() {
	"$AC" -w "$WS" journal query agent=Human --json >"$TMP/human" 2>/dev/null
}
# wait_for COMMAND...: up to 5 s for COMMAND to succeed (a detached child
# writes the file; there is nothing of it to wait on).
wait_for() {
	local i
	for ((i = 0; i < 100; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

# session ID CREATED STATUS USER TASK MESSAGES [EXTRA]: a session file as
# the reference writer leaves it (JSON.stringify(session, null, 2)).
# MESSAGES is the JSON text of conversationHistory; EXTRA, more top-level
# members (with a leading comma).
session() {
	cat >"$S/$1.json" <<EOF
{
  "id": "$1",
  "createdAt": "$2",
  "updatedAt": "$2",
  "task": "$5",
  "status": "$3",
  "conversationHistory": $6,
  "metadata": {
    "tenantId": "acme",
    "userId": "$4",
    "agentId": "claude"
  }${7:-}
}
EOF
}

TOOL_MESSAGES='[
    {
      "role": "user",
      "content": "Read src/a.c"
    },
    {
      "role": "assistant",
      "content": [
        { "type": "text", "text": "Reading it." },
        { "type": "tool_use", "id": "toolu_01", "name": "read_file", "input": { "path": "src/a.c" } }
      ]
    },
    {
      "role": "user",
      "content": [
        { "type": "tool_result", "tool_use_id": "toolu_01", "content": "int main(void) { return 0; }" }
      ]
    },
    {
      "role": "assistant",
      "content": "It returns 0."
    }
  ]'

# Eight messages, one tool call among them, for compaction.
LONG_MESSAGES='[
    { "role": "user", "content": "Plan the migration of the billing tables." },
    { "role": "assistant", "content": "First I will list the tables in the schema." },
    { "role": "assistant", "content": [ { "type": "tool_use", "id": "toolu_09", "name": "run_command", "input": { "command": "ls db/" } } ] },
    { "role": "user", "content": [ { "type": "tool_result", "tool_use_id": "toolu_09", "content": "billing.sql users.sql" } ] },
    { "role": "assistant", "content": "There are two tables; billing is the one to change." },
    { "role": "user", "content": "Go ahead and write the migration." },
    { "role": "assistant", "content": "Written to db/migrate/001_billing.sql." },
    { "role": "user", "content": "Thanks, now run the tests." }
  ]'

# The listing workspace: four good sessions (created in a different order
# from their names), a corrupt file, a temp file and the archive folder.
new_ws
session s-long 2025-01-05T08:00:00.000Z running U3 "migrate billing" "$LONG_MESSAGES" \
	',
  "x-extra": [1, 2]'
session s-tools 2025-01-10T09:30:00.123Z running U1 \
	'red \u001b[31mALERT\u001b[0m 日本語のタスク' "$TOOL_MESSAGES" \
	',
  "schemaVersion": 7,
  "x-client": { "name": "node-agent", "build": 42 }'
session s-paused 2025-02-10T10:00:00.000Z paused U2 "waiting for review" '[]'
session s-done 2025-03-10T11:00:00.000Z completed U1 "shipped" \
	'[{ "role": "user", "content": "done?" }, { "role": "assistant", "content": "yes" }]'
if on_pg; then
	store_seed acme
else
	# Skipped on the database: it holds documents that parsed, no temp
	# files and no archive folder (storage migrate's own cases are
	# storage_migrate_pg.sh's).
	printf '{\n  "id": "corrupt",\n  "task": "half written' >"$S/corrupt.json"
	cp "$S/s-done.json" "$S/x.json.tmp"
	sed -i 's/"s-done"/"s-tmp"/' "$S/x.json.tmp"
	mkdir -p "$S/.compactions/s-old"
	echo '{"sessionId":"s-old","messages":[]}' >"$S/.compactions/s-old/2025-01-01T000000.000Z.json"
fi

# --- session list ------------------------------------------------------------
run session list
check "list: exit 0" rc_is 0
check "list: newest createdAt first" eval '[ "$(listed_ids)" = "s-done s-paused s-tools s-long " ]'
if ! on_pg; then
	check "list: the corrupt file is named on stderr" err_has_text "corrupt.json"
	# Session files are multi-line: the fault is on line 3 (as `session show`
	# reports it), not at "column 45", which is the byte offset in the file.
	check "list: the corrupt file's fault is located by line" err_has "corrupt\.json: line 3 "
	check "list: the temp file is not listed" eval '! grep -q "s-tmp" "$TMP/out"'
	check "list: the temp file is not reported" eval '! grep -q "json.tmp" "$TMP/err"'
	check "list: the archive folder is not reported" eval '! grep -q "compactions" "$TMP/err"'
else
	check "list: nothing on stderr" test ! -s "$TMP/err"
fi
check "list: no raw ESC on stdout" no_raw_esc "$TMP/out"
check "list: the ESC in a task is shown visibly" out_has 's-tools .*red \^\[\[31mALERT'
check "list: CJK in a task is kept" out_has '日本語のタスク'
check "list: shows status and user" out_has '^s-paused +paused .*U2/claude'

run session list --json
check "list --json: exit 0" rc_is 0
check "list --json: valid JSON" out_is_json
check "list --json: 4 sessions" eval '[ "$(jq_out length)" = 4 ]'
check "list --json: newest first" eval '[ "$(jq_out "[.[].id] | join(\" \")")" = "s-done s-paused s-tools s-long" ]'
check "list --json: fields of a session" eval '[ "$(jq_out ".[2] | [.status, .createdAt, .userId, .agentId, .tenantId, .messages] | map(tostring) | join(\" \")")" = "running 2025-01-10T09:30:00.123Z U1 claude acme 4" ]'
check "list --json: the task round-trips" \
	eval '[ "$(jq_out ".[2].task")" = "$(printf "red \033[31mALERT\033[0m 日本語のタスク")" ]'
check "list --json: no raw ESC" no_raw_esc "$TMP/out"

run session list --status paused --json
check "list --status paused: exit 0" rc_is 0
check "list --status paused: only s-paused" eval '[ "$(jq_out "[.[].id] | join(\" \")")" = "s-paused" ]'
run session list --status paused
check "list --status paused (plain): only s-paused" eval '[ "$(listed_ids)" = "s-paused " ]'
run session list --user U1 --json
check "list --user U1: s-done and s-tools" eval '[ "$(jq_out "[.[].id] | join(\" \")")" = "s-done s-tools" ]'
run session list --user U1 --status running --json
check "list --user U1 --status running: s-tools" eval '[ "$(jq_out "[.[].id] | join(\" \")")" = "s-tools" ]'
run session list --status bogus
check "list --status bogus: exit 2" rc_is 2
check "list --status bogus: names the value" err_has "'bogus'"
check "list --status bogus: one line on stderr" err_is_one_line
run session list --status
check "list --status without a value: exit 2" rc_is 2

# --- session show ------------------------------------------------------------
run session show s-tools
check "show: exit 0" rc_is 0
check "show: the user message" out_has '^\[1\] user: Read src/a\.c$'
check "show: the assistant's tool call" out_has '^\[2\] assistant: Reading it\. \[tool_use read_file \{"path":"src/a\.c"\}\]$'
check "show: the tool result" out_has '^\[3\] user: \[tool_result toolu_01: int main\(void\) \{ return 0; \}\]$'
check "show: the last message" out_has '^\[4\] assistant: It returns 0\.$'
check "show: no raw ESC" no_raw_esc "$TMP/out"
check "show: the task shown visibly" out_has '^task +red \^\[\[31mALERT.*日本語のタスク'

run session show s-tools --json
check "show --json: exit 0" rc_is 0
check "show --json: valid JSON" out_is_json
check "show --json: keeps an unknown key" eval '[ "$(jq_out ".schemaVersion")" = 7 ] && [ "$(jq_out ".\"x-client\".build")" = 42 ]'
check "show --json: keeps the tool blocks" eval '[ "$(jq_out ".conversationHistory[1].content[1].input.path")" = src/a.c ]'
check "show --json: no raw ESC" no_raw_esc "$TMP/out"

run session show nope
check "show unknown id: exit 1" rc_is 1
check "show unknown id: names it" err_has "'nope'"
check "show unknown id: one line on stderr" err_is_one_line
run session show ../x
check "show ../x: exit 2" rc_is 2
check "show ../x: one line on stderr" err_is_one_line
if ! on_pg; then # no corrupt document on the database (above)
	run session show corrupt
	check "show a corrupt file: exit 1" rc_is 1
	check "show a corrupt file: names it" err_has_text "corrupt.json"
fi

# --- pause and resume --------------------------------------------------------
history_before=$(doc_of s-tools | jq -c .conversationHistory)
run session pause s-tools
check "pause: exit 0" rc_is 0
doc s-tools
check "pause: the document says paused" jq_is "$TMP/doc.json" .status paused
check "pause: the unknown keys are still there" \
	eval 'jq_is "$TMP/doc.json" .schemaVersion 7 && jq_is "$TMP/doc.json" ".\"x-client\".name" node-agent'
check "pause: the conversation is unchanged" \
	eval '[ "$(jq -c .conversationHistory "$TMP/doc.json")" = "$history_before" ]'
check "pause: metadata is unchanged" jq_is "$TMP/doc.json" '.metadata.userId' U1
check "pause: updatedAt is a new ISO time with milliseconds" \
	eval '[[ "$(jq -r .updatedAt "$TMP/doc.json")" =~ ^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$ ]] && ! jq_is "$TMP/doc.json" .updatedAt 2025-01-10T09:30:00.123Z'
on_pg || # the files' own: a write is a temp file and a rename
	check "pause: no temp file left" eval '[ -z "$(find "$S" -maxdepth 1 -name "s-tools*" ! -name s-tools.json)" ]'
human_events
check "pause: one Human event in the journal" jq_is "$TMP/human" length 1
check "pause: the event is a SESSION_PAUSE" jq_is "$TMP/human" '.[0].action.type' SESSION_PAUSE
check "pause: the event names the session" jq_is "$TMP/human" '.[0].trace.correlation_id' s-tools
check "pause: the event says from running to paused" \
	jq_is "$TMP/human" '.[0].action.params | "\(.sessionId) \(.from) \(.to)"' "s-tools running paused"
run journal check
check "pause: the journal is valid" rc_is 0

before=$(doc_sum s-tools)
run session pause s-tools
check "pause again: exit 1" rc_is 1
check "pause again: says why" err_has "s-tools.*paused already"
check "pause again: one line on stderr" err_is_one_line
check "pause again: document unchanged" eval '[ "$(doc_sum s-tools)" = "$before" ]'
human_events
check "pause again: nothing journaled" jq_is "$TMP/human" length 1

# resumeCommand: a test may use a shell; {id} arrives as "$0". The agent it
# starts takes the session over the way the seed's resumeOrCreate + save do
# (status running, temp file, rename).
# takeover.sh ID: that agent's save (the seed's on files; on the database,
# what an agent there runs: create --resume).
if on_pg; then
	printf 'exec "%s" -w . session create t --tenant acme --id "$1" --resume >/dev/null\n' "$AC" >"$WS/takeover.sh"
else
	cat >"$WS/takeover.sh" <<'EOF'
f=.agent/sessions/$1.json; jq '.status="running"' "$f" > "$f.tmp" && mv "$f.tmp" "$f"
EOF
fi
cat >"$WS/.agent/config.json" <<'EOF'
{"resumeCommand": ["/bin/sh", "-c", "echo resumed \"$0\" > resumed.txt; sh ./takeover.sh \"$0\"", "{id}"]}
EOF
# From the project file it runs only once that content is trusted.
before=$(doc_sum s-tools)
run session resume s-tools
check_store "untrusted resumeCommand: exit 1" rc_is 1
check_store "untrusted resumeCommand: one line on stderr" err_is_one_line
check_store "untrusted resumeCommand: names the key and the file" \
	err_has_text "resumeCommand comes from $WS/.agent/config.json, which is not trusted"
check_store "untrusted resumeCommand: says how to trust it" err_has_text "agentctl config trust"
check_store "untrusted resumeCommand: session unchanged" eval '[ "$(doc_sum s-tools)" = "$before" ]'
check "untrusted resumeCommand: the command did not run" eval '[ ! -e "$WS/resumed.txt" ]'
# The database resumed it all the same (parity_known.txt): paused again, so
# the cases below start where they do on files.
if on_pg && doc s-tools && jq_is "$TMP/doc.json" .status running; then
	"$AC" -w "$WS" session pause s-tools >/dev/null 2>&1
fi
run config show
check "config show: says the project file is not trusted" \
	out_has '^# project file .*config.json \(sha256 [0-9a-f]{64}\): not trusted'
run config show --json
check "config show --json: trusted is false" eval '[ "$(jq_out .projectFile.trusted)" = false ]'
run config trust
check "config trust: exit 0" rc_is 0
check "config trust: names the file and its hash" \
	out_has "^trusted $WS/.agent/config.json \(sha256 [0-9a-f]{64}\)"
check "config trust: lists the commands it allows" out_has '^  resumeCommand = \["/bin/sh"'
check "config trust: recorded in the user's config folder" \
	jq_is "$XDG_CONFIG_HOME/agent/trusted.json" ".workspaces[\"$(realpath "$WS")\"].sha256 | length" 64
run config show --json
check "config show --json: trusted is true" eval '[ "$(jq_out .projectFile.trusted)" = true ]'
run session resume s-tools
check_store "resume: exit 0" rc_is 0
doc s-tools
check_store "resume: the document says running" jq_is "$TMP/doc.json" .status running
check_store "resume: unknown keys still there" jq_is "$TMP/doc.json" .schemaVersion 7
check_store "resume: says the started agent took over" out_has 'resumeCommand \(pid [0-9]+\) took it over'
on_pg || # the files' own request file (session_request_pg.sh: the database's)
	check "resume: the request is gone once taken over" test ! -e "$S/.requests/s-tools.json"
human_events
jq '[.[] | select(.action.type == "SESSION_RESUME")]' "$TMP/human" >"$TMP/resumes"
check_store "resume: journaled as started, then taken over" \
	jq_is "$TMP/resumes" '[.[].status] | join(" ")' "IN_PROGRESS SUCCESS"
check_store "resume: the events name the session" jq_is "$TMP/resumes" '.[1].trace.correlation_id' s-tools
check_store "resume: the event says from paused to running" \
	jq_is "$TMP/resumes" '.[1].action.params | "\(.from) \(.to)"' "paused running"
check_store "resume: the command ran in the workspace with the id" \
	wait_for eval '[ "$(cat "$WS/resumed.txt" 2>/dev/null)" = "resumed s-tools" ]'
check_store "resume: the command has a log" test -f "$WS/.agent/logs/s-tools.log"

run session complete s-tools
check "complete: exit 0" rc_is 0
check "complete: the document says completed" eval 'doc s-tools && jq_is "$TMP/doc.json" .status completed'
before=$(doc_sum s-tools)
rm -f "$WS/resumed.txt"
human_events
humans_before=$(jq length "$TMP/human")
run session resume s-tools
check "resume a completed session: exit 1" rc_is 1
check "resume a completed session: says it has ended" err_has "ended"
check "resume a completed session: document unchanged" eval '[ "$(doc_sum s-tools)" = "$before" ]'
check "resume a completed session: the command is not run" eval '[ ! -e "$WS/resumed.txt" ]'
human_events
check "resume a completed session: nothing journaled" jq_is "$TMP/human" length "$humans_before"

run session pause nope
check "pause unknown id: exit 1" rc_is 1
check "pause unknown id: names it" err_has "'nope'"
run session pause ../x
check "pause ../x: exit 2" rc_is 2
run session pause
check "pause without an id: exit 2" rc_is 2

before=$(doc_sum s-long)
run --read-only session pause s-long
check "--read-only pause: exit 2" rc_is 2
check "--read-only pause: says why" err_has "read-only"
check "--read-only pause: document unchanged" eval '[ "$(doc_sum s-long)" = "$before" ]'
human_events
check "--read-only pause: nothing journaled" jq_is "$TMP/human" length "$humans_before"

# --- compaction --------------------------------------------------------------
# archives_of ID: the messages each archive of session ID holds, one
# compact JSON array (keys sorted) a line.
archives_of() {
	if on_pg; then
		psql -d "$STORE_DB" -Atc "select messages from agentctl.compactions where session_id = '$1' order by at" |
			jq -cS .
	else
		find "$S/.compactions/$1" -type f -name '*.json' 2>/dev/null | sort | while read -r f; do
			jq -cS .messages "$f"
		done
	fi
}
before=$(doc_sum s-long)
run session compact s-long
check "compact below the trigger: exit 0" rc_is 0
check "compact below the trigger: says so" out_has 'trigger'
check "compact below the trigger: document unchanged" eval '[ "$(doc_sum s-long)" = "$before" ]'
check "compact below the trigger: no archive" eval '[ -z "$(archives_of s-long)" ]'

original=$(doc_of s-long | jq -cS .conversationHistory)
run session compact s-long --force
check "compact --force: exit 0" rc_is 0
doc s-long
check "compact --force: first message is the summary" \
	eval '[[ "$(jq -r ".conversationHistory[0].content" "$TMP/doc.json")" == "[Conversation summary]: "* ]]'
check "compact --force: the summary is a user message" jq_is "$TMP/doc.json" '.conversationHistory[0].role' user
check "compact --force: fewer messages" \
	eval '[ "$(jq ".conversationHistory | length" "$TMP/doc.json")" -lt 8 ]'
check "compact --force: the last message is kept" \
	jq_is "$TMP/doc.json" '.conversationHistory[-1].content' "Thanks, now run the tests."
check "compact --force: one archive" eval '[ "$(archives_of s-long | wc -l)" -eq 1 ]'
check "compact --force: the archive + kept messages are the original" \
	eval '[ "$(archives_of s-long | jq -cS --slurpfile s "$TMP/doc.json" ". + \$s[0].conversationHistory[1:]")" = "$original" ]'
check "compact --force: metadata.compactions has one entry" \
	jq_is "$TMP/doc.json" '.metadata.compactions | length' 1
if ! on_pg; then # an archive file's path; the database's archive is a row
	archive=$(find "$S/.compactions/s-long" -type f -name '*.json' 2>/dev/null | head -n 1)
	check "compact --force: the entry names the archive" \
		eval '[ -n "$archive" ] && [ "$S/$(jq -r ".metadata.compactions[0].archive" "$S/s-long.json")" = "$archive" ]'
fi
check "compact --force: metadata otherwise kept" jq_is "$TMP/doc.json" '.metadata.userId' U3
check "compact --force: unknown keys kept" jq_is "$TMP/doc.json" '."x-extra" | add' 3
check "compact --force: the session is still listed" eval '"$AC" -w "$WS" session list --json 2>/dev/null | jq -e "any(.[]; .id == \"s-long\")" >/dev/null'
"$AC" -w "$WS" journal query action.type=SESSION_COMPACT --json >"$TMP/compact" 2>/dev/null
check "compact --force: one SESSION_COMPACT event" jq_is "$TMP/compact" length 1
check "compact --force: the event is by Human about s-long" \
	jq_is "$TMP/compact" '.[0] | "\(.agent) \(.trace.correlation_id)"' "Human s-long"
run journal check
check "compact --force: the journal is valid" rc_is 0
run session compact nope --force
check "compact unknown id: exit 1" rc_is 1
check "compact unknown id: names it" err_has "'nope'"
run session compact ../x
check "compact ../x: exit 2" rc_is 2
run --read-only session compact s-long --force
check "--read-only compact: exit 2" rc_is 2

# A summarizer that fails leaves everything as it was.
new_ws
session s-long 2025-01-05T08:00:00.000Z running U3 "migrate billing" "$LONG_MESSAGES"
store_seed acme
cat >"$WS/.agent/config.json" <<'EOF'
{"summarizer": {"command": ["/bin/sh", "-c", "exit 3"]}}
EOF
before=$(doc_sum s-long)
# Untrusted: refused, not replaced by the built-in summary.
run session compact s-long --force
check "untrusted summarizer: exit 1" rc_is 1
check "untrusted summarizer: one line naming the key and how to trust" \
	eval 'err_is_one_line && err_has_text "summarizer.command comes from" && err_has_text "config trust"'
check "untrusted summarizer: document unchanged" eval '[ "$(doc_sum s-long)" = "$before" ]'
"$AC" -w "$WS" config trust >/dev/null
run session compact s-long --force
check "failing summarizer: exit 1" rc_is 1
check "failing summarizer: says status 3" err_has "status 3"
check "failing summarizer: one line on stderr" err_is_one_line
check "failing summarizer: document unchanged" eval '[ "$(doc_sum s-long)" = "$before" ]'
check "failing summarizer: no archive left" eval '[ -z "$(archives_of s-long)" ]'
on_pg || check "failing summarizer: no archive file left" \
	eval '[ -z "$(find "$S/.compactions" -type f 2>/dev/null)" ]'
check "failing summarizer: nothing journaled" \
	eval '[ ! -s "$J" ] && [ "$("$AC" -w "$WS" journal read --json 2>/dev/null | jq length)" = 0 ]'

# --- config show -------------------------------------------------------------
new_ws
rmdir "$S"
run session list --json
check "list without a session folder: exit 0, empty" eval 'rc_is 0 && [ "$(jq_out length)" = 0 ]'
run config show
check "config show: exit 0" rc_is 0
check "config show: the default model" out_has '^model = "claude-sonnet-4-5"$'
check "config show: the default maxTokens" out_has '^maxTokens = 8192$'
run config show --origin
check "config show --origin: exit 0" rc_is 0
check "config show --origin: default named" out_has '^model = "claude-sonnet-4-5" +\(default\)$'
AGENT_MODEL=x run config show --origin
check "config show --origin, AGENT_MODEL=x: the value" out_has '^model = "x" '
check "config show --origin, AGENT_MODEL=x: the variable named" out_has '^model = .*\(environment AGENT_MODEL\)$'
run config show --json
check "config show --json: exit 0" rc_is 0
check "config show --json: valid JSON" out_is_json
check "config show --json: the model" eval '[ "$(jq_out .model)" = claude-sonnet-4-5 ]'
check "config show --json: requireApproval" eval '[ "$(jq_out ".requireApproval | join(\",\")")" = write_file,delete_file,run_command ]'
echo '{"compaction": {"triggerTokens": 5}}' >"$WS/.agent/config.json"
run config show --origin --json
check "config show --origin --json: valid JSON" out_is_json
check "config show --origin --json: value and file" \
	eval '[ "$(jq_out ".\"compaction.triggerTokens\" | \"\(.value) \(.origin)\"")" = "5 $WS/.agent/config.json" ]'
run config show --bogus
check "config show --bogus: exit 2" rc_is 2

# A project file that is not JSON is skipped as seed 000's ConfigResolver
# skips it (issue 26), said in one line naming the file.
printf '{\n  "model": "x",\n  "maxTokens": \n' >"$WS/.agent/config.json"
for cmd in "config show" "session list" "journal read"; do
	# shellcheck disable=SC2086
	run $cmd
	check "broken config, $cmd: exit 0" rc_is 0
	check "broken config, $cmd: names the file" err_has_text "$WS/.agent/config.json"
	check "broken config, $cmd: one line on stderr" err_is_one_line
done
check "broken config: the line is named" err_has "line [0-9]+"
rm "$WS/.agent/config.json"

# AGENT_MAX_TOKENS is the seed's own variable, read as its parseInt reads
# it (NaN: ignored): no command stops on it; one line says so.
AGENT_MAX_TOKENS=abc run config show
check "AGENT_MAX_TOKENS=abc: exit 0" rc_is 0
check "AGENT_MAX_TOKENS=abc: names the variable" err_has "AGENT_MAX_TOKENS"
check "AGENT_MAX_TOKENS=abc: one line on stderr" err_is_one_line
AGENT_MAX_TOKENS=abc run session list
check "AGENT_MAX_TOKENS=abc, session list: exit 0" rc_is 0

# --- trust: what a project file (written by agents) may do -------------------
# issue 11 item 3: a session id is never spliced into a shell's text.
new_ws
PWN='x;touch PWNED;#'
session "$PWN" 2025-01-05T08:00:00.000Z paused U1 "pwn" '[]'
store_seed acme
cat >"$WS/.agent/config.json" <<'EOF'
{"resumeCommand": ["sh", "-c", "agent --resume {id}"]}
EOF
# run_in_ws ARGS...: like run, from inside the workspace (where sh -c would
# have created PWNED).
run_in_ws() {
	(cd "$WS" && "$AC" -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null)
	RC=$?
}
for cmd in "session resume" "config trust" "session list"; do
	if [ "$cmd" = "session resume" ]; then
		run_in_ws session resume "$PWN"
	else
		# shellcheck disable=SC2086
		run_in_ws $cmd
	fi
	check "embedded {id} ($cmd): exit 1" rc_is 1
	check "embedded {id} ($cmd): refused at config load, naming file, key and argument" \
		eval 'err_is_one_line && err_has_text "$WS/.agent/config.json: resumeCommand[2]"'
done
check "embedded {id}: no PWNED file anywhere" eval '[ -z "$(find "$TMP" -name PWNED)" ]'
check "embedded {id}: the session still paused" eval 'doc "$PWN" && jq_is "$TMP/doc.json" .status paused'
# The same template from the operator's own file is refused too.
mkdir -p "$XDG_CONFIG_HOME/agent"
rm "$WS/.agent/config.json"
echo '{"resumeCommand": ["sh", "-c", "agent --resume {id}"]}' >"$XDG_CONFIG_HOME/agent/config.json"
run session resume "$PWN"
check "embedded {id} in the user file: exit 1" rc_is 1
check "embedded {id} in the user file: names it" \
	err_has_text "$XDG_CONFIG_HOME/agent/config.json: resumeCommand[2]"
# A whole-argument {id} and $AGENT_SESSION_ID carry the id as data; the
# started agent then takes the session over (status running, temp file,
# rename), as resume waits for.
cat >"$XDG_CONFIG_HOME/agent/config.json" <<'EOF'
{"resumeCommand": ["/bin/sh", "-c", "printf '%s|%s' \"$0\" \"$AGENT_SESSION_ID\" > arg.txt; f=\".agent/sessions/$0.json\"; jq '.status=\"running\"' \"$f\" > \"$f.tmp\" && mv \"$f.tmp\" \"$f\"", "{id}"]}
EOF
# On the database the agent takes it over there, as takeover.sh does above.
on_pg && jq -n --arg ac "$AC" '{resumeCommand: ["/bin/sh", "-c",
	"printf \"%s|%s\" \"$0\" \"$AGENT_SESSION_ID\" > arg.txt; exec \"$1\" -w . session create t --tenant acme --id \"$0\" --resume >/dev/null",
	"{id}", $ac]}' >"$XDG_CONFIG_HOME/agent/config.json"
run session resume "$PWN"
check "whole {id} from the user file: exit 0 (trusted, no trust step)" rc_is 0
check_store "whole {id}: the id arrives whole, twice" \
	wait_for eval '[ "$(cat "$WS/arg.txt" 2>/dev/null)" = "$PWN|$PWN" ]'
check "whole {id}: no PWNED file anywhere" eval '[ -z "$(find "$TMP" -name PWNED)" ]'
rm "$XDG_CONFIG_HOME/agent/config.json"

# issue 11 item 2: project paths stay inside the workspace and out of .git.
new_ws
session s1 2025-01-05T08:00:00.000Z running U1 "t" '[]'
store_seed acme
echo keep >"$TMP/victim.txt"
for kv in 'journalPath ../victim.txt' "checkpointDir $TMP/ck" 'operationLogPath .git/x' \
	'sessionDir ./a/../../b'; do
	key=${kv%% *} value=${kv#* }
	printf '{"%s": "%s"}\n' "$key" "$value" >"$WS/.agent/config.json"
	run session pause s1
	check "project $key=$value: exit 1" rc_is 1
	check "project $key=$value: one line naming the file and the key" \
		eval 'err_is_one_line && err_has_text "$WS/.agent/config.json: $key"'
	check "project $key=$value: session unchanged" eval 'doc s1 && jq_is "$TMP/doc.json" .status running'
done
check "project journalPath ../victim.txt: the file outside is untouched" \
	eval '[ "$(cat "$TMP/victim.txt")" = keep ]'
ln -s "$TMP" "$WS/out"
echo '{"journalPath": "out/victim.txt"}' >"$WS/.agent/config.json"
run session pause s1
check "project journalPath through a symlink out: exit 1" rc_is 1
check "project journalPath through a symlink out: says outside" err_has "outside the workspace"
# Trusting does not widen paths; the user file may point anywhere.
run config trust
check "config trust with an outside path: refused (exit 1)" rc_is 1
rm "$WS/.agent/config.json"
mkdir -p "$XDG_CONFIG_HOME/agent"
echo "{\"journalPath\": \"$TMP/victim.txt\"}" >"$XDG_CONFIG_HOME/agent/config.json"
run session pause s1
check "user journalPath outside: exit 0" rc_is 0
on_pg || # journalPath is the journal file's; the database keeps its journal
	check "user journalPath outside: journaled there" eval '[ "$(wc -l <"$TMP/victim.txt")" -eq 2 ]'
rm "$XDG_CONFIG_HOME/agent/config.json"

# A changed project file needs trusting again.
new_ws
session s1 2025-01-05T08:00:00.000Z paused U1 "t" '[]'
store_seed acme
echo '{"resumeCommand": ["/bin/sh", "-c", "echo ran > ran.txt"]}' >"$WS/.agent/config.json"
run config trust
check "trust: exit 0" rc_is 0
echo '{"resumeCommand": ["/bin/sh", "-c", "echo changed > ran.txt"]}' >"$WS/.agent/config.json"
run session resume s1
check_store "changed after trust: refused" eval 'rc_is 1 && err_has_text "not trusted"'
check_store "changed after trust: not run" eval '[ ! -e "$WS/ran.txt" ]'
run config show
check "changed after trust: config show says not trusted" out_has '^# project file .*: not trusted'

finish
