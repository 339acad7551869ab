#!/usr/bin/env bash
# agentctl usage over a forged usage-index.bin: its project paths made not
# UTF-8 and its checksum computed again (FNV-1a, as the writer does: a
# checksum proves the file whole, not that agentctl wrote it). The index
# is refused whole and rebuilt from the transcripts: `usage session
# --all-projects` exits 0 with the true figures. Before, the report lost
# the project field and the table crashed on it (strlen(NULL)). Then a
# transcript file and a project folder whose names are not UTF-8: skipped
# and counted on stderr, the report unchanged.
# Usage: usage_forged_index.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/usage_home.sh"
index=$TMP/cache/agentctl/usage-index.bin

# The checksum ac_usage_index_save() appends: FNV-1a 64 from its seed over
# the first LEN bytes of FILE, as 8 little-endian \x escapes for printf.
checksum() {
	local h=1469598103934665603 b i out=
	for b in $(head -c "$2" "$1" | od -An -v -tu1); do
		h=$(( (h ^ b) * 0x100000001b3 ))
	done
	for i in 0 1 2 3 4 5 6 7; do out+=$(printf '\\x%02x' $(( (h >> (8 * i)) & 0xff ))); done
	printf '%s' "$out"
}

run usage session --all-projects --json
check "a first run writes the index" eval 'rc_is 0 && test -s "$index"'
truth=$(jq -c '[.rows[] | [.sessionId, .project, .totalTokens]]' "$TMP/out")
len=$(stat -c %s "$index")
check "the helper computes the index's own checksum" \
	[ "$(printf "$(checksum "$index" $((len - 8)))" | od -An -tx1)" = "$(tail -c 8 "$index" | od -An -tx1)" ]

# Every project path that is the workspace's ends in \xff instead.
head -c $((len - 8)) "$index" | LC_ALL=C sed "s|$WS|${WS%?}\\xff|g" >"$TMP/body"
check "the forged body holds a byte that is not UTF-8" eval 'LC_ALL=C grep -q $'"'"'\xff'"'"' "$TMP/body"'
{ cat "$TMP/body"; printf "$(checksum "$TMP/body" $((len - 8)))"; } >"$index"
cp "$index" "$TMP/forged"

run usage session --all-projects
check "session --all-projects on the forged index: exit 0" rc_is 0
check "no sanitizer report, nothing on stderr" eval '[ ! -s "$TMP/err" ]'
check "a row per session, the project the true one" \
	eval "grep -qE '^claude +c1111111-1111-4111-8111-111111111111 +33 +52 +100 +1050 +1235 .*  $WS\$' \"\$TMP/out\""
check "the total line" eval 'grep -qE "^total +2333 +1212 +100 +1350 +4995 " "$TMP/out"'
check "no byte of the forgery printed" eval '! LC_ALL=C grep -q $'"'"'\xff'"'"' "$TMP/out"'

cp "$TMP/forged" "$index"
run usage session --all-projects --json
check "--json: the forged index was rebuilt" jq_is "$TMP/out" '.files.indexRebuilt' true
check "--json: the same rows as before the forgery" \
	[ "$(jq -c '[.rows[] | [.sessionId, .project, .totalTokens]]' "$TMP/out")" = "$truth" ]
run usage session --all-projects --json
check "--json: the rebuilt index serves the next run warm" \
	jq_is "$TMP/out" '"\(.files.indexRebuilt) \(.files.read)"' "false 0"

# Names that are not UTF-8, of a file that never names its session (it
# would be named by its file) and of a project folder.
line='{"type":"assistant","cwd":"/w","requestId":"req_odd","timestamp":"2026-11-22T00:00:00.000Z","message":{"id":"msg_odd","model":"claude-sonnet-4-5","usage":{"input_tokens":7,"output_tokens":7}}}'
printf '%s\n' "$line" >"$HOME/.claude/projects/-ws/x$(printf '\xff').jsonl"
mkdir "$HOME/.claude/projects/-w$(printf '\xfe')"
printf '%s\n' "$line" >"$HOME/.claude/projects/-w$(printf '\xfe')/e4444444.jsonl"
run usage session --all-projects
check "names not UTF-8: exit 0, the same total" \
	eval 'rc_is 0 && grep -qE "^total +2333 +1212 +100 +1350 +4995 " "$TMP/out"'
check "names not UTF-8: counted on stderr" \
	grep -qF "usage: 2 transcript files or folders whose name is not valid UTF-8 were skipped" "$TMP/err"
run usage session --all-projects --json
check "--json: files.skipped" jq_is "$TMP/out" '.files.skipped' 2

finish
