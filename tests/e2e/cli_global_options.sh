#!/bin/bash
# The global options (-w/--workspace, --storage, --theme, --read-only,
# --poll) are taken after the command too, as kubectl and docker take
# them: the same command gives the same output and exit status whichever
# side they are on. Given twice with different values: one line, exit 2,
# nothing written. (Before cli_args_take_globals, `storage check --storage
# URL` said "storage check: unexpected '--storage'", exit 2.)
. "$(dirname "$0")/lib/cli.sh" "$@"
WS=$TMP/ws
OTHER=$TMP/other
mkdir -p "$WS/.agent/sessions" "$OTHER/.agent/sessions"
cd "$TMP" || exit 1

# same NAME "ARGS BEFORE" "ARGS AFTER": both runs exit alike, print alike
# (after a first run, which may build an index the output reports).
same() {
	local name=$1
	eval "\"\$AC\" $2" >/dev/null 2>&1 </dev/null
	eval "\"\$AC\" $2" >"$TMP/o1" 2>"$TMP/e1" </dev/null
	local rc1=$?
	eval "\"\$AC\" $3" >"$TMP/o2" 2>"$TMP/e2" </dev/null
	local rc2=$?
	check "$name: exit $rc1 both ways (after: $rc2)" [ "$rc1" = "$rc2" ]
	check "$name: the same output" cmp -s "$TMP/o1" "$TMP/o2"
	check "$name: the same errors" cmp -s "$TMP/e1" "$TMP/e2"
}

"$AC" -w "$WS" session create "task one" --id s1 >/dev/null 2>&1
"$AC" -w "$WS" journal log '{"agent":"a","action":{"type":"x"},"status":"SUCCESS"}' >/dev/null 2>&1

same "session list" '-w "$WS" session list --json' 'session list --json -w "$WS"'
same "session show" '--workspace "$WS" session show s1' 'session show s1 --workspace="$WS"'
same "journal read" '-w "$WS" --poll journal read --json' 'journal read --json --poll -w "$WS"'
same "storage check, the files" '-w "$WS" --storage "" storage check' \
	'storage check -w "$WS" --storage ""'
# A database that cannot be reached: the same one line, exit 1.
same "storage check, a database" \
	'-w "$WS" --storage "postgresql:///nodb?host=$TMP/nosocket" storage check' \
	'-w "$WS" storage check --storage "postgresql:///nodb?host=$TMP/nosocket"'
"$AC" -w "$WS" storage check --storage "postgresql:///nodb?host=$TMP/nosocket" >/dev/null 2>"$TMP/err"
check "storage check --storage URL is not refused as unexpected" eval '! grep -q unexpected "$TMP/err"'
same "config show" '-w "$WS" --theme light config show --json' \
	'config show --json --theme light -w "$WS"'
same "usage" '-w "$WS" usage daily --json' 'usage -w "$WS" daily --json'
# Between the command and its subcommand too.
same "between command and verb" '-w "$WS" session list' 'session -w "$WS" list'

# --read-only after the command forbids the write as before it.
same "read-only create" '-w "$WS" --read-only session create t --id s2' \
	'-w "$WS" session create t --id s2 --read-only'
check "read-only: nothing written" test ! -e "$WS/.agent/sessions/s2.json"

# Twice with different values: one line naming the option, exit 2.
before=$(cd "$WS" && find . -type f | sort | xargs sha256sum)
for form in '-w "$WS" session list -w "$OTHER"' \
	'-w "$WS" --storage a storage check --storage b' \
	'-w "$WS" session create t --id s3 --theme dark --theme light'; do
	eval "\"\$AC\" $form" >"$TMP/out" 2>"$TMP/err" </dev/null
	RC=$?
	check "twice: $form: exit 2" [ "$RC" = 2 ]
	check "twice: $form: one line" [ "$(wc -l <"$TMP/err")" = 1 ]
	check "twice: $form: names the option" grep -q -e "--workspace\|--storage\|--theme" "$TMP/err"
done
check "twice: nothing written" \
	eval '[ "$(cd "$WS" && find . -type f | sort | xargs sha256sum)" = "$before" ]'
# The same value twice is one value.
run session list --json -w "$WS"
check "the same -w twice: exit 0" rc_is 0

# A missing value after the command: one line naming it, exit 2.
"$AC" -w "$WS" session list --storage >"$TMP/out" 2>"$TMP/err" </dev/null
RC=$?
check "--storage without its URL: exit 2" [ "$RC" = 2 ]
check "... one line naming it" \
	eval '[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q -- "--storage" "$TMP/err"'

# A command's own option value is not a global option: --details takes
# "--poll" as its JSON (refused as JSON, not taken as --poll).
run ops record --session s1 --type command_run --details --poll
check "a value that looks like a global option stays the value" \
	eval '[ "$RC" = 2 ] && grep -q -- "--details" "$TMP/err"'
# After "--", nothing is an option: the session's task is "-w".
run session create --id s4 -- --poll
check "after --, --poll is the task" \
	eval '[ "$RC" = 0 ] && jq -e ".task == \"--poll\"" "$WS/.agent/sessions/s4.json" >/dev/null'
# --json before the command goes to the command that prints JSON, after
# its subcommand word; to one that prints none: one line, exit 2.
same "--json before" '-w "$WS" --json session list' '-w "$WS" session list --json'
same "--json before usage" '-w "$WS" --json usage daily' '-w "$WS" usage daily --json'
run --json gc --keep 1
check "--json gc: exit 2" rc_is 2
check "... one line naming it" eval '[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q -- "--json" "$TMP/err"'
finish
