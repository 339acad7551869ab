#!/usr/bin/env bash
# `agentctl session search | fork | export` on session files written as
# other programs write them (raw UTF-8, and \u escapes): output, --json,
# exit statuses (no match is exit 0, as `journal query`), one-line errors
# that name what is wrong, and no change on disk when a command fails.
# On either store (lib/store.sh: STORE=files|pg; there the files go into
# the database first).
# Usage: [STORE=pg] session_search_cli.sh path/to/agentctl
set -u
. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
ESC=$'\x1b'
WS=$TMP/ws
S=$WS/.agent/sessions
mkdir -p "$S"
out_has() { grep -qF -- "$1" "$TMP/out"; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
jq_out() { jq -r "$1" <"$TMP/out" 2>/dev/null; }

session() { # id updatedAt history-json
	printf '{"id":"%s","createdAt":"%s","updatedAt":"%s","task":"task %s","status":"running","conversationHistory":%s,"metadata":{"tenantId":"t1"}}' \
		"$1" "$2" "$2" "$1" "$3" > "$S/$1.json"
}
session old 2026-01-01T00:00:00.000Z '[{"role":"user","content":"the Config loader fails"}]'
session new 2026-02-01T00:00:00.000Z '[{"role":"user","content":"hello"},{"role":"assistant","content":[{"type":"text","text":"look: \u001b[31mred\u001b[0m and the CONFIG loader"},{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"config.c"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"caf\u00e9 </pre><script>x</script> ```` fence"}]}]'
store_seed t1

# ---- search
run session search "config loader"
check "search: exit 0" rc_is 0
check "search: newest session first" [ "$(head -c 3 "$TMP/out")" = "new" ]
check "search: the old session too" out_has "the Config loader fails"
check "search: the message number as show gives it" out_has "[2]"
check "search: escapes made visible" out_has "^[[31mred"
check "search: no raw ESC reaches the terminal" bash -c "! grep -q \"$ESC\" \"$TMP/out\""
run session search "café" --json
check "search --json: one document" jq_is "$TMP/out" '.results | length' 1
check "search --json: found through \\u00e9" jq_is "$TMP/out" '.results[0].sessionId' new
check "search --json: message 3, role user" jq_is "$TMP/out" '[.results[0].message, .results[0].role] | join(" ")' "3 user"
check "search --json: the match in the snippet" \
	[ "$(jq -r '.results[0] | .snippet[.matchStart:.matchStart + 4]' "$TMP/out")" = "café" ]
run session search config --limit 1 --json
check "search --limit: one result, limited" jq_is "$TMP/out" '[(.results | length), .limited] | join(" ")' "1 true"
run session search "nowhere at all"
check "search: no match is exit 0 and no output" bash -c "[ $RC -eq 0 ] && [ ! -s '$TMP/out' ]"
run session search "nowhere at all" --json
check "search --json: no match is an empty list" jq_is "$TMP/out" '.results | length' 0
run session search
check "search: no text is bad usage" rc_is 2
check "search: one error line" err_is_one_line
run session search x --limit many
check "search: a bad --limit is bad usage naming it" bash -c "[ $RC -eq 2 ] && grep -qF -- '--limit' '$TMP/err'"
# A torn file is the files' own case.
if ! on_pg; then
	printf '{"id":"torn","updatedAt":"2026-03-01T00:00:00.000Z","conversationHistory":[{"role":"user","content":"config' > "$S/torn.json"
	run session search config
	check "search: a torn file is named and skipped" bash -c "[ $RC -eq 0 ] && grep -qF torn.json '$TMP/err' && grep -q '^new' '$TMP/out'"
	rm "$S/torn.json"
fi

# ---- fork
before=$(store_sum)
run session fork new --at 9
check "fork --at past the end: exit 1" rc_is 1
check "fork --at past the end: names --at and the count" err_has "--at 9: session 'new' has 3 messages"
check "fork --at past the end: nothing written" [ "$(store_sum)" = "$before" ]
run session fork new --at 1 --checkpoint c1
check "fork: --at with --checkpoint is bad usage" rc_is 2
run session fork missing
check "fork: a missing session is exit 1 naming it" bash -c "[ $RC -eq 1 ] && grep -qF \"'missing'\" '$TMP/err'"
check "fork: failures changed nothing" [ "$(store_sum)" = "$before" ]
run session fork new --at 2 --id child
check "fork: prints the new id" [ "$OUT" = child ]
doc_of child >"$TMP/child.json"
"$AC" -w "$WS" journal query action.type=SESSION_START --json | jq -c '.[]' >"$TMP/journal"
check "fork: the conversation up to message 2" jq_is "$TMP/child.json" '.conversationHistory | length' 2
check "fork: metadata.parent" jq_is "$TMP/child.json" '.metadata.parent | "\(.sessionId) \(.atMessage)"' "new 2"
check "fork: paused, task and tenancy kept" jq_is "$TMP/child.json" '"\(.status) \(.task) \(.metadata.tenantId)"' "paused task new t1"
check "fork: journaled as SESSION_START" jq_is "$TMP/journal" '.action | "\(.type) \(.params.parentSessionId) \(.params.sessionId)"' "SESSION_START new child"
run session fork new --id child
check "fork: an existing id is refused" bash -c "[ $RC -eq 1 ] && grep -qF 'exists already' '$TMP/err'"
run checkpoint create new --id c1
run session fork new --checkpoint c1 --json
check "fork --checkpoint: parent names the checkpoint" jq_is "$TMP/out" '.metadata.parent.checkpointId' c1
check "fork --checkpoint: the checkpoint's history" jq_is "$TMP/out" '.conversationHistory | length' 3

# ---- export
run session export new --format md
check "export md: exit 0" rc_is 0
check "export md: a fence longer than the content's backticks" out_has '`````text'
check "export md: the tool call's input as JSON" out_has '"path": "config.c"'
check "export md: no raw ESC" bash -c "! grep -q \"$ESC\" \"$TMP/out\""
run session export new --format html
check "export html: no script element" bash -c "! grep -qi '<script' '$TMP/out'"
check "export html: the text escaped" out_has '&lt;/pre&gt;&lt;script&gt;x&lt;/script&gt;'
check "export html: a CSP" out_has "Content-Security-Policy"
run session export new --format html -o "$TMP/new.html"
check "export -o: the file holds the page" bash -c "[ $RC -eq 0 ] && grep -qF '</html>' '$TMP/new.html' && [ ! -s '$TMP/out' ]"
run session export new --format pdf
check "export: a bad format is bad usage naming it" bash -c "[ $RC -eq 2 ] && grep -qF \"'pdf'\" '$TMP/err'"
run session export missing --format md -o "$TMP/missing.md"
check "export: a missing session writes nothing" bash -c "[ $RC -eq 1 ] && [ ! -e '$TMP/missing.md' ]"
run session export new
check "export: --format is required" rc_is 2
# An empty -o was tried as a file name: exit 1, "session export: : cannot
# replace: No such file or directory", a message that names nothing.
run session export new --format md -o ""
check "export: an empty -o is bad usage naming -o" bash -c "[ $RC -eq 2 ] && grep -qF -- '-o: an empty file name' '$TMP/err' && [ \$(wc -l <'$TMP/err') -eq 1 ]"
# -o replaced the file by a rename, whatever it was: as root, -o /dev/null
# replaced the machine's /dev/null by a regular file. A FIFO (and a device,
# or a link to one) is refused, left as it is.
mkfifo "$TMP/fifo"
ln -s "$TMP/fifo" "$TMP/fifo-link"
run session export new --format md -o "$TMP/fifo"
check "export: -o FIFO is refused, naming it" bash -c "[ $RC -eq 2 ] && grep -qF -- 'not a regular file' '$TMP/err'"
check "export: the FIFO is still a FIFO" test -p "$TMP/fifo"
run session export new --format md -o "$TMP/fifo-link"
check "export: -o through a link to a FIFO is refused" rc_is 2
check "export: the link is still a link to the FIFO" bash -c "[ -L '$TMP/fifo-link' ] && [ -p '$TMP/fifo' ]"
run session export new --format md -o "$TMP/export.md"
check "export: -o a new file still works" bash -c '[ "$0" -eq 0 ] && [ -f "$1" ] && [ -s "$1" ]' "$RC" "$TMP/export.md"
finish
