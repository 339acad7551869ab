#!/usr/bin/env bash
# End-to-end checks of agentctl over the committed fixture workspaces
# (tests/fixtures/, written by make-fixtures.js the way the seed programs
# write; see tests/fixtures/README.md for what each holds). Every command
# runs on a fresh copy; the committed tree is never written.
# Usage: fixtures_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
FIXTURES=$(cd "$(dirname "$0")/../fixtures" && pwd)
ESC=$'\x1b'
# Commands from an untrusted project file would touch files here.
export HOME=$TMP/home
mkdir -p "$HOME"

# use_fixture NAME: WS is a fresh copy of tests/fixtures/NAME.
use_fixture() {
	WS=$(mktemp -d "$TMP/$1.XXXXXX")
	cp -R "$FIXTURES/$1/." "$WS/"
}
# jq_out FILTER: FILTER applied to stdout, as raw text.
jq_out() { jq -r "$1" <"$TMP/out" 2>/dev/null; }
# out_is VALUE FILTER: FILTER applied to stdout gives VALUE.
out_is() { [ "$(jq_out "$2")" = "$1" ]; }
out_has() { grep -qE -- "$1" "$TMP/out"; }
out_has_text() { grep -qF -- "$1" "$TMP/out"; }
err_has() { grep -qE -- "$1" "$TMP/err"; }
err_is_empty() { [ ! -s "$TMP/err" ]; }
no_raw_esc() { ! grep -q "$ESC" "$TMP/out"; }
# Nor a raw C1 CSI or bidi override (U+009B, U+202E): shown, or escaped in JSON.
no_raw_c1_bidi() { ! LC_ALL=C grep -qE $'\xc2\x9b|\xe2\x80\xae' "$TMP/out"; }
# unchanged NAME: the copy still equals the committed fixture.
unchanged() { diff -r "$FIXTURES/$1" "$WS" >/dev/null; }

S1=5e551000-0000-4000-8000-000000000001
S2=5e551000-0000-4000-8000-000000000002
S3=5e551000-0000-4000-8000-000000000003
S4=5e551000-0000-4000-8000-000000000004

# --- basic: one session in each status, journal, operations, checkpoints ---
use_fixture basic
run session list --json
check "basic list --json: exit 0, nothing on stderr" eval 'rc_is 0 && err_is_empty'
check "basic list --json: newest first" out_is "$S4 $S3 $S2 $S1" '[.[].id] | join(" ")'
check "basic list --json: one session in each status" \
	out_is "paused failed completed running" '[.[].status] | join(" ")'
check "basic list --json: message counts" out_is "3 4 7 8" '[.[].messages] | join(" ")'
check "basic list --json: users and agents from metadata" \
	out_is "carol/claude alice/gemini bob/codex alice/claude" '[.[] | .userId + "/" + .agentId] | join(" ")'
run session list
check "basic list: CJK task kept" out_has "^$S2 +completed .*Translate the README to Japanese — 日本語"
run session list --status failed --json
check "basic list --status failed: the deploy" out_is "$S3 Deploy the staging server" '.[] | .id + " " + .task'

run session show "$S1"
check "basic show: exit 0" rc_is 0
check "basic show: the tool_use block" out_has_text '[tool_use read_file {"path":"src/json.c"}]'
check "basic show: the tool_result block" out_has_text '[tool_result toolu_01A: int json_parse'
check "basic show: CJK and emoji text" out_has_text '次は parser の番です 🚀'
run session show "$S2" --json
check "basic show --json: the whole history" out_is 7 '.conversationHistory | length'
check "basic show --json: an OpenAI tool_calls message" out_is call_7Xq '.conversationHistory[2].tool_calls[0].id'
check "basic show --json: a role tool result" out_is "tool call_7Xq" '.conversationHistory[3] | .role + " " + .tool_call_id'

run journal read --json
check "basic journal read --json: 9 events" out_is 9 'length'
check "basic journal read --json: agents, config's Aider included" \
	out_is "Claude Claude Codex Codex Gemini Claude Human Aider System" '[.[].agent] | join(" ")'
check "basic journal read --json: statuses" out_is "FAILED IN_PROGRESS" \
	'[.[].status | select(. != "SUCCESS")] | join(" ")'
check "basic journal read --json: trace kept" out_is "task_parser_001 0b5e0000-0000-4000-8000-000000000001" \
	'.[1].trace | .correlation_id + " " + .parent_id'
check "basic journal read --json: emoji kept" out_is "README.ja.md を作成しました 📝" '.[3].result.message'
run journal read --last 2
check "basic journal read --last 2: two lines" eval '[ "$(wc -l <"$TMP/out")" -eq 2 ]'
check "basic journal read --last 2: the Aider event" out_has 'Aider +IN_PROGRESS +ANALYSIS +Scanning src/ for dead code… 🔍'
run journal check
check "basic journal check: exit 0" rc_is 0
check "basic journal check: 9 valid" out_has "9 valid, 0 invalid lines"
run journal query agent=Codex --json
check "basic journal query agent=Codex: 2 events" out_is 2 'length'

run ops list --json
check "basic ops list --json: exit 0" rc_is 0
check "basic ops list --json: types in order" \
	out_is "file_write command_run file_write command_run file_delete" '[.[].type] | join(" ")'
check "basic ops list --json: no commits (gitEnabled false)" out_is 0 '[.[] | select(has("gitCommitHash"))] | length'
run ops list --session "$S1" --json
check "basic ops list --session: two operations" out_is "src/json_scan.c make test" \
	'[.[].details | .path // .command] | join(" ")'
run ops list
check "basic ops list: not reversible without a commit" out_has '0b5e0000-0000-4000-8000-000000000005 .*file_delete +not reversible +legacy/old_main.c'

run checkpoint list "$S1" --json
check "basic checkpoint list: versions, nodes, messages" out_is "1 plan 5, 2 test 8" \
	'[.[] | "\(.version) \(.nodeId) \(.messages)"] | join(", ")'
run checkpoint list "$S2" --json
check "basic checkpoint list: the tombstone is marked" out_is "false true" '[.[].tombstone] | join(" ")'
run checkpoint list "$S3"
check "basic checkpoint list: none for a session without" eval 'rc_is 0 && [ "$(wc -l <"$TMP/out")" -eq 1 ]'

run config show --json
check "basic config show --json: project values" out_is "claude-sonnet-4-5 4096 0.2 Aider false" \
	'"\(.model) \(.maxTokens) \(.temperature) \(.["journal.agents"][0]) \(.gitEnabled)"'
check "basic config show --json: the project file is not trusted" out_is false '.projectFile.trusted'
check "basic config show --json: 0.2 as the file wrote it" grep -q '"temperature": 0.2,' "$TMP/out"
run config show
check "basic config show: 0.2 as the file wrote it" grep -qx 'temperature = 0.2' "$TMP/out"
check "basic: reading changed no file" unchanged basic

# --- compaction: one session over the trigger its config sets ---
use_fixture compaction
run session list --json
check "compaction list: the long session is over 2000 tokens" out_is "40 true" \
	".[] | select(.id == \"$S1\") | \"\(.messages) \(.tokens > 2000)\""
run session compact "$S2"
check "compaction: the small session is below the trigger" eval 'rc_is 0 && out_has "below the compaction trigger"'
check "compaction: the small session is unchanged" \
	cmp -s "$FIXTURES/compaction/.agent/sessions/$S2.json" "$WS/.agent/sessions/$S2.json"
run session compact "$S1"
check "compaction: 21 of 40 summarised (the tool pair kept whole)" \
	eval 'rc_is 0 && out_has "21 of 40 messages summarised"'
ARCHIVE=$(ls "$WS/.agent/sessions/.compactions/$S1/"*.json 2>/dev/null | head -1)
check "compaction: the archive holds the 21 originals" \
	eval '[ -n "$ARCHIVE" ] && [ "$(jq ".messages | length" <"$ARCHIVE")" = 21 ]'
check "compaction: the archive's first message is the original first" \
	eval '[ "$(jq -c ".messages[0]" <"$ARCHIVE")" = "$(jq -c ".conversationHistory[0]" <"$FIXTURES/compaction/.agent/sessions/$S1.json")" ]'
run session show "$S1" --json
check "compaction: the summary and the 19 kept messages" out_is "20 true" \
	'"\(.conversationHistory | length) \(.conversationHistory[0].content | startswith("[Conversation summary]: "))"'
run journal read --json
check "compaction: journalled as SESSION_COMPACT" out_is "SESSION_COMPACT $S1" \
	'.[-1] | .action.type + " " + .action.params.sessionId'

# --- hostile: escapes, bidi, an id with ';', a torn line and file ---
use_fixture hostile
run session list
check "hostile list: exit 0" rc_is 0
check "hostile list: no raw ESC, C1 or bidi control on stdout" eval 'no_raw_esc && no_raw_c1_bidi'
check "hostile list: the id with ';' is listed" out_has '^evil;id +running'
check "hostile list: escapes shown visibly" out_has_text 'fix ^[[2J^[[31mRED^[[0m ^[]0;title^G <U+009B>31m c1 <U+202E>txt.exe<U+200B> del^?'
check "hostile list: the torn session file is named, located, skipped" \
	err_has "$S1\.json: line [0-9]+ column [0-9]+: .*\(skipped\)"
run session list --json
check "hostile list --json: a JSON array without a raw ESC" eval 'out_is array type && no_raw_esc'
check "hostile list --json: no raw C1 or bidi control" no_raw_c1_bidi
check "hostile list --json: the task round-trips" out_is true '.[0].task | startswith("fix \u001b[2J\u001b[31mRED")'
run session show 'evil;id'
check "hostile show: exit 0, no raw ESC, C1 or bidi control" eval 'rc_is 0 && no_raw_esc && no_raw_c1_bidi'
check "hostile show: OSC 52 shown visibly" out_has_text 'done ^[]52;c;cHduZWQ=^G (clipboard)'
check "hostile show: DCS in a tool result shown visibly" out_has_text '[tool_result toolu_x: ^[P1$qm^[\ dcs]'
check "hostile show: user with escape shown visibly" out_has_text 'user     mallory^[[8m'
run session show "$S1"
check "hostile show of the torn file: exit 1, one line naming it" \
	eval 'rc_is 1 && [ "$(wc -l <"$TMP/err")" -eq 1 ] && err_has "$S1\.json"'

run journal read
check "hostile journal read: exit 0, no raw ESC, C1 or bidi control" eval 'rc_is 0 && no_raw_esc && no_raw_c1_bidi'
check "hostile journal read: the 2 valid events and the bad agent's record, marked" \
	eval '[ "$(wc -l <"$TMP/out")" -eq 4 ] && [ "$(grep -c "^!" "$TMP/out")" -eq 1 ]'
check "hostile journal read: the bad agent's reason and record made visible" \
	eval 'out_has_text "byte 566: agent: '"'"'Claude\\u001b[31m'"'"' is not one of" && out_has_text "  {"'
check "hostile journal read: bidi and C1 shown visibly" out_has_text 'bidi <U+202E>gnp.exe<U+202C> and C1 <U+009B>2J'
check "hostile journal read: the torn last line is reported" err_has 'JOURNAL\.jsonl: .*unterminated line at byte 777'
run journal read --json
check "hostile journal read --json: 2 events and 1 marked invalid, no raw ESC" \
	eval 'out_is 3 length && out_is 1 "[.[] | select(.invalid)] | length" && no_raw_esc'
run journal read --strict
check "hostile journal read --strict: the 2 valid events" eval '[ "$(wc -l <"$TMP/out")" -eq 2 ]'
check "hostile journal read --json: no raw C1 or bidi control" no_raw_c1_bidi
run journal check
check "hostile journal check: exit 1" rc_is 1
check "hostile journal check: the bad agent on line 3" \
	out_has_text "JOURNAL.jsonl:3: byte 566: agent: 'Claude\\u001b[31m' is not one of"
check "hostile journal check: the torn line 4" out_has 'JOURNAL\.jsonl:4: byte 777: no newline at the end'
check "hostile journal check: counts" out_has '2 valid, 2 invalid lines'

run ops list
check "hostile ops list: exit 0, no raw ESC" eval 'rc_is 0 && no_raw_esc'
check "hostile ops list: path shown visibly" out_has_text 'evil;id                               file_write   not reversible  src/^[[31mred.c'
run checkpoint list 'evil;id'
check "hostile checkpoint list: exit 0, no raw ESC" eval 'rc_is 0 && no_raw_esc'
check "hostile checkpoint list: node shown visibly" out_has_text 'node^[[31m'
run config show
check "hostile config show: no raw ESC" no_raw_esc
check "hostile config show: not trusted" out_has 'not trusted'

run session pause 'evil;id'
check "hostile pause: exit 0" rc_is 0
check "hostile pause: the torn journal line stays a line of its own" \
	eval '[ "$(sed -n 4p "$WS/JOURNAL.jsonl")" = "$(sed -n 4p "$FIXTURES/hostile/JOURNAL.jsonl")" ]'
check "hostile pause: its event is the next line" \
	eval '[ "$(sed -n 5p "$WS/JOURNAL.jsonl" | jq -r ".action.type + \" \" + .action.params.sessionId")" = "SESSION_PAUSE evil;id" ]'
run session resume 'evil;id'
check "hostile resume: the untrusted resumeCommand is refused" \
	eval 'rc_is 1 && err_has "resumeCommand comes from .*config\.json, which is not trusted"'
run session compact 'evil;id' --force
check "hostile compact: the untrusted summarizer is refused" \
	eval 'rc_is 1 && err_has "summarizer\.command comes from .*config\.json, which is not trusted"'
check "hostile: no command of the project file ran" \
	eval '[ ! -e "$HOME/pwned-resume" ] && [ ! -e "$HOME/pwned-summarizer" ]'

# --- seed-edge: what the seeds tolerate ---
use_fixture seed-edge
run config show --origin
check "seed-edge config: .agentrc.json is the project file" \
	eval 'out_has "^model = \"claude-opus-4\" +\(.*/\.agentrc\.json\)" && out_has "^maxTokens = 16384 "'
run session list --json
check "seed-edge list: exit 0, the .tmp leftover not reported" eval 'rc_is 0 && err_is_empty'
check "seed-edge list: four sessions, newest first" out_is "$S4 $S3 $S2 $S1" '[.[].id] | join(" ")'
check "seed-edge list: the saved copy, not the leftover" out_is 1 ".[] | select(.id == \"$S3\") | .messages"
check "seed-edge list: a just-created session" out_is "Just created 0 running" \
	".[] | select(.id == \"$S2\") | \"\(.task) \(.messages) \(.status)\""
run session show "$S1"
check "seed-edge show: unknown blocks named" out_has_text '[2] assistant: hi [thinking] [image]'
run session show "$S1" --json
check "seed-edge show --json: unknown keys shown" out_is "3 42" '"\(.schemaVersion) \(.["x-client"].build)"'
run session pause "$S1"
check "seed-edge pause: exit 0" rc_is 0
check "seed-edge pause: unknown keys kept on rewrite" \
	eval '[ "$(jq -c "[.status, .schemaVersion, .[\"x-client\"], .metadata[\"x-team\"], .conversationHistory[0].usage, .conversationHistory[1].content[1].type]" <"$WS/.agent/sessions/$S1.json")" = "[\"paused\",3,{\"name\":\"node-agent\",\"build\":42},{\"name\":\"infra\"},{\"input_tokens\":3},\"thinking\"]" ]'
check "seed-edge pause: the leftover is left alone" \
	cmp -s "$FIXTURES/seed-edge/.agent/sessions/$S3.json.tmp" "$WS/.agent/sessions/$S3.json.tmp"
run journal check
check "seed-edge journal check: extra keys are valid" eval 'rc_is 0 && out_has "3 valid, 0 invalid lines"'
run ops list --json
check "seed-edge ops list: unknown keys kept" out_is "ci-7 12" '.[0] | "\(.["x-host"]) \(.durationMs)"'

finish
