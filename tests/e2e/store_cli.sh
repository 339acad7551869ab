#!/usr/bin/env bash
# End-to-end checks of `agentctl memo ...`, `agentctl artifact ...` and
# `agentctl trace show` on the file-system backend's layout under .agent/
# (memo/<tenant>/<owner>/<scope>/<name>, artifacts/<tenant>/<session>/<id>,
# traces/<tenant>/<session>.jsonl), written by the commands or by hand:
# round trips, concurrent appends, sanitised output, tenant lookup from the
# session's metadata, torn trace lines, exit statuses and one-line errors.
# The memo part runs on either store (lib/store.sh: STORE=files|pg); the
# artifacts and traces after it are files written by hand: the files' own.
# Usage: [STORE=pg] store_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
ESC=$'\x1b'

WS=$TMP/ws
S=$WS/.agent/sessions
D=$WS/.agent
mkdir -p "$S"

# run_in INPUT ARGS...: the same with INPUT on stdin.
run_in() {
	local input=$1
	shift
	printf '%s' "$input" | "$AC" -w "$WS" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
}
out_is() { [ "$(cat "$TMP/out")" = "$1" ]; }
out_has() { grep -qF -- "$1" "$TMP/out"; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
no_raw_esc() { ! grep -q "$ESC" "$1"; }
out_is_json() { jq -e . <"$TMP/out" >/dev/null 2>&1; }
jq_out() { jq -r "$1" <"$TMP/out" 2>/dev/null; }

# session ID TENANT: a session file as the reference writer leaves it.
session() {
	local meta=""
	[ -n "$2" ] && meta="\"tenantId\": \"$2\", "
	cat >"$S/$1.json" <<EOF
{
  "id": "$1",
  "createdAt": "2025-09-03T10:00:00.000Z",
  "updatedAt": "2025-09-03T10:05:00.000Z",
  "task": "t",
  "status": "running",
  "conversationHistory": [],
  "metadata": {${meta}"userId": "u1"}
}
EOF
}

# ---- memo ----

run memo write acme u1 user USER.md $'# User\nlikes tea\n'
check "memo write exits 0" rc_is 0
check "memo write says what it wrote" out_has "memo acme/u1/user/USER.md: 17 bytes written"
on_pg || check "memo write lands in the documented place" test -f "$D/memo/acme/u1/user/USER.md"
run memo read acme u1 user USER.md
check "memo read exits 0" rc_is 0
check "memo read gives the document back" out_is $'# User\nlikes tea'

run_in $'- first\n' memo append acme s1 session NOTES.md -
check "memo append from stdin exits 0" rc_is 0
run memo append acme s1 session NOTES.md $'- second\n'
run memo read acme s1 session NOTES.md
check "appends land in order" out_is $'- first\n- second'

run memo write acme s1 session TODO.md "$ESC]0;pwned$ESC\\ tab	here"
run memo read acme s1 session TODO.md
check "memo read shows escape bytes made visible" no_raw_esc "$TMP/out"
check "memo read keeps tabs" out_has $'\there'
check "memo read shows ESC as ^[" out_has '^[]0;pwned'

run memo list acme s1 session --json
check "memo list --json is JSON" out_is_json
check "memo list names the documents, sorted" [ "$(jq_out 'join(",")')" = "NOTES.md,TODO.md" ]

# Two processes appending at once: every line once.
for p in 1 2; do
	(for i in $(seq 1 20); do
		"$AC" -w "$WS" memo append acme s1 session LOG.md "p$p-$i
" >/dev/null 2>&1
	done) &
done
wait
run memo read acme s1 session LOG.md
check "concurrent appends all land" [ "$(sort -u "$TMP/out" | wc -l)" -eq 40 ]
check "concurrent appends land once each" [ "$(wc -l <"$TMP/out")" -eq 40 ]

# A document longer than a read block (128 KiB), a character across the
# boundary: shown whole, as it is (on files written by another program).
{
	head -c 131071 /dev/zero | tr '\0' a
	printf '\xe6\x97\xa5\xe6\x9c\xac\nend\n'
} >"$TMP/BIG.md"
if on_pg; then
	"$AC" -w "$WS" memo write acme u1 user BIG.md - <"$TMP/BIG.md" >/dev/null
else
	cp "$TMP/BIG.md" "$D/memo/acme/u1/user/BIG.md"
fi
run memo read acme u1 user BIG.md
check "a document past one block comes out byte for byte" cmp -s "$TMP/out" "$TMP/BIG.md"
rm "$TMP/BIG.md"
run memo read acme u1 user MISSING.md
check "a missing document exits 1" rc_is 1
check_store "its error names it, on one line" err_has "acme/u1/user/MISSING.md"
check "one line" err_is_one_line

for bad in ../etc . .. /etc/passwd "a/b" $'x\x1by' .hidden x.lock; do
	run memo write "$bad" u1 user N.md text
	rc_is 2 || fail "tenant '$bad' is refused with 2"
	run memo read acme "$bad" user N.md
	rc_is 2 || fail "owner '$bad' is refused with 2"
	run memo append acme u1 user "$bad" text
	rc_is 2 || fail "name '$bad' is refused with 2"
done
pass
on_pg || check "crafted ids wrote nothing outside the memo tree" [ "$(ls "$D")" = "$(printf 'memo\nsessions')" ]
check "and nothing beside the workspace" [ "$(ls "$TMP" | grep -v -e '^ws$' -e '^out$' -e '^err$' | wc -l)" -eq 0 ]
run memo write acme u1 $'x\x1b[2J' N.md text
check "a bad scope exits 2" rc_is 2
check "its error has no raw escape" no_raw_esc "$TMP/err"
run memo write acme u1 global N.md text
check "scope must be session, user or agent" rc_is 2

"$AC" -w "$WS" --read-only memo write acme u1 user USER.md gone >"$TMP/out" 2>"$TMP/err"
RC=$?
check "--read-only refuses memo write (2)" rc_is 2
run memo read acme u1 user USER.md
check "--read-only left the document alone" out_is $'# User\nlikes tea'

run memo
check "memo alone is a usage error" rc_is 2

# The arguments, by the memo commands' specs (cli/cli_specs.c): a wrong
# count is one line naming the command and what is missing or extra.
run memo read acme u1
check "memo read short of arguments: exit 2, one line naming what is missing" \
	eval 'rc_is 2 && err_is_one_line && err_has "memo read: missing SCOPE NAME"'
run memo read acme u1 user USER.md extra
check "memo read with one too many: exit 2, one line naming it" \
	eval "rc_is 2 && err_is_one_line && err_has \"memo read: unexpected 'extra'\""
run memo write acme u1 user N.md
check "memo write without its text: exit 2, names TEXT|-" \
	eval 'rc_is 2 && err_is_one_line && err_has "memo write: missing TEXT|-"'
run memo list acme u1 user extra
check "memo list with one too many: exit 2" \
	eval "rc_is 2 && err_is_one_line && err_has \"memo list: unexpected 'extra'\""
run memo write acme u1 user DASH.md "-- a list item"
run memo read acme u1 user DASH.md
check "a memo's text may start with a dash" out_is "-- a list item"
run memo append --help
check "memo append --help: exit 0, its synopsis" \
	eval 'rc_is 0 && out_has "usage: agentctl [-w DIR] memo append TENANT OWNER SCOPE NAME TEXT|-"'
check "memo append --help: each argument with its help" \
	eval 'out_has "    SCOPE   session, user or agent" && out_has "    TEXT|-  the text, or - to read it"'
# The global options after the arguments: -w from elsewhere, --storage.
(cd / && "$AC" memo read acme u1 user USER.md -w "$WS") >"$TMP/out" 2>"$TMP/err"
RC=$?
check "-w after memo read's arguments" eval 'rc_is 0 && out_is $'"'"'# User\nlikes tea'"'"
"$AC" -w "$WS" memo read acme u1 user USER.md --storage postgresql://nowhere.invalid:1/x \
	>"$TMP/out" 2>"$TMP/err"
RC=$?
check "--storage after memo read's arguments is the store used" \
	eval 'rc_is 1 && err_is_one_line && err_has "nowhere.invalid"'
run memo frob a b c d
check "an unknown memo command is a usage error" rc_is 2
run memo write acme u1 user N.md
check "memo write without text is a usage error" rc_is 2

# What follows is written by hand in the files' layout.
if on_pg; then
	finish
	exit
fi

# ---- artifacts ----

session sess1 acme
session notenant ""
mkdir -p "$D/artifacts/acme/sess1" "$D/artifacts/other/sess1"
printf 'full output\n%s[31mred\n' "$ESC" >"$D/artifacts/acme/sess1/toolu_2"
printf 'one' >"$D/artifacts/acme/sess1/call_1"
printf 'not yours' >"$D/artifacts/other/sess1/call_x"

run artifact list sess1
check "artifact list exits 0" rc_is 0
check "artifact list shows the session's ids, sorted" out_is $'call_1\ntoolu_2'
run artifact list sess1 --json
check "artifact list --json" [ "$(jq_out 'join(",")')" = "call_1,toolu_2" ]
run artifact show sess1 toolu_2
check "artifact show exits 0" rc_is 0
check "artifact show prints the output" out_has "full output"
check "artifact show sanitises" no_raw_esc "$TMP/out"
run artifact show sess1 call_x
check "another tenant's artifact is not found (1)" rc_is 1
run artifact show sess1 nope
check "a missing artifact exits 1" rc_is 1
check "its error names it" err_has "nope"
run artifact show sess1 ../../other/sess1/call_x
check "a crafted artifact id exits 2" rc_is 2
run artifact list ../sessions
check "a crafted session id exits 2" rc_is 2
run artifact list nosuch
check "an unknown session exits 1" rc_is 1
run artifact list notenant
check "a session without a tenant exits 1" rc_is 1
check "and says why" err_has "tenantId"
run artifact show sess1
check "artifact show without an id is a usage error" rc_is 2
run artifact
check "artifact alone is a usage error" rc_is 2

# ---- traces ----

mkdir -p "$D/traces/acme"
{
	# \u001b: an escape byte once decoded; \u202e: a bidi override.
	printf '{"seq":2,"at":"2025-09-03T10:00:02.000Z","data":{"type":"tool","summary":"ran \\u001b[2J \\u202e ls"}}\n'
	printf '{"seq":1,"at":"2025-09-03T10:00:01.000Z","data":{"type":"start"}}\n'
	printf '{"seq":3,"at":"2025-09-03T10:00:03.000Z","data":{"kind":"end"}}\n'
	printf '{"seq":4,"at":"2025-09-03T10:0'
} >"$D/traces/acme/sess1.jsonl"
run trace show sess1
check "trace show exits 0" rc_is 0
check "trace show sorts by seq" [ "$(tail -n +2 "$TMP/out" | awk '{print $1}' | tr '\n' ' ')" = "1 2 3 " ]
check "trace show names each kind" [ "$(tail -n +2 "$TMP/out" | awk '{print $3}' | tr '\n' ' ')" = "start tool end " ]
check "trace show sanitises" no_raw_esc "$TMP/out"
check "trace show notes the torn line" err_has "1 torn or corrupt line skipped"
run trace show sess1 --json
check "trace show --json is JSON" out_is_json
check "trace show --json is in seq order" [ "$(jq_out 'map(.seq)|join(",")')" = "1,2,3" ]
check "trace show --json escapes nothing raw" no_raw_esc "$TMP/out"
# A long trace in order is walked as it lies (parsed in batches on a
# second thread): every record once, in order, a crash's torn line skipped.
{
	for i in $(seq 1 1500); do
		printf '{"seq":%d,"at":"2025-09-03T10:00:00.000Z","data":{"type":"step","i":%d}}\n' "$i" "$i"
	done
	printf '{"seq":1501,"at":"2025-09-03T1\n'
	for i in $(seq 1501 3000); do
		printf '{"seq":%d,"at":"2025-09-03T10:00:00.000Z","data":{"type":"step","i":%d}}\n' "$i" "$i"
	done
} >"$D/traces/acme/long.jsonl"
session long acme
run trace show long
check "a long trace shows every record once, in order" \
	[ "$(tail -n +2 "$TMP/out" | awk '{print $1}' | tr '\n' ' ')" = "$(seq 1 3000 | tr '\n' ' ')" ]
check "and notes its torn line" err_has "1 torn or corrupt line skipped"
run trace show long --json
check "its --json is the same records" [ "$(jq_out 'map(.data.i)|add')" = "$(( 3000 * 3001 / 2 ))" ]
run trace show notenant
check "a session without a tenant has no trace (1)" rc_is 1
run trace show sess1 extra
check "trace show takes one session" rc_is 2
run trace list sess1
check "an unknown trace command is a usage error" rc_is 2
session fresh acme
run trace show fresh --json
check "a session with no trace shows an empty one" [ "$(cat "$TMP/out")" = "[]" ]

# storage.url is trusted as a command is: from an untrusted project file
# (agents write it) it would send the store to a database an agent chose.
printf '{"storage":{"url":"postgresql://agent@127.0.0.1:1/theirs"}}\n' >"$WS/.agentrc.json"
run memo list acme sess1 session
check "an untrusted project storage.url: exit 1" rc_is 1
check "... one line naming the key, the file and config trust" \
	eval '[ "$(wc -l <"$TMP/err")" = 1 ] && err_has "storage.url comes from $WS/.agentrc.json, which is not trusted" && err_has "config trust"'
run storage check
check "storage check refuses it too (exit 1)" rc_is 1
rm "$WS/.agentrc.json"

finish
