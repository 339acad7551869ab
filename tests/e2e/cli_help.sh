#!/bin/bash
# The command table is the one list of commands: every form --help shows is
# dispatched (its command and subcommand are known words), `help COMMAND`
# and `COMMAND --help` show that command's forms, and the version is the
# one CMake sets.
. "$(dirname "$0")/lib/cli.sh" "$@"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WS=$TMP/ws
mkdir -p "$WS"

"$AC" --help >"$TMP/help" 2>"$TMP/err"
check "--help exits 0" [ $? -eq 0 ]
for cmd in journal session ops checkpoint memo artifact trace config demo; do
	check "--help lists $cmd" grep -q "agentctl \[-w DIR\] $cmd " "$TMP/help"
done

# Each form: "agentctl [-w DIR] CMD SUB... | SUB ...". Every SUB is a word
# the command knows: with a bogus option it fails, but not as unknown.
forms=0
while read -r cmd rest; do
	[ "$cmd" = demo ] && continue
	# The first word of each "|"-separated form, then its "a|b|c" choices.
	for form in $(printf '%s\n' "$rest" | sed 's/ | /\n/g' | awk '{print $1}'); do
		for sub in ${form//|/ }; do
			case $sub in [a-z]*) ;; *) continue ;; esac
			forms=$((forms + 1))
			run "$cmd" "$sub" --no-such-option-x
			check "$cmd $sub is dispatched (exit $RC: $ERR)" \
				eval '[ "$RC" -ne 0 ] && ! grep -q "unknown command" "$TMP/err"'
		done
	done
done < <(sed -n 's/^ *\(usage: \)\{0,1\}agentctl \[-w DIR\] //p' "$TMP/help")
check "forms were found ($forms)" [ "$forms" -ge 25 ]

# An unknown option before the command, or a word demo does not take: one
# line naming it, exit 2 (not the whole usage).
"$AC" --no-such-option-x >"$TMP/out" 2>"$TMP/err"
RC=$?
check "unknown option: exit 2, one line naming it" bash -c "[ $RC = 2 ] && [ \"\$(wc -l <'$TMP/err')\" = 1 ] && grep -q -- '--no-such-option-x' '$TMP/err'"
"$AC" demo extra >"$TMP/out" 2>"$TMP/err"
RC=$?
check "demo extra: exit 2, one line naming it" bash -c "[ $RC = 2 ] && [ \"\$(wc -l <'$TMP/err')\" = 1 ] && grep -q \"'extra'\" '$TMP/err'"

# A word the table does not have is refused as unknown (the check above can fail).
run session frobnicate
check "unknown subcommand: exit 2" rc_is 2
check "unknown subcommand named" grep -q "unknown command 'frobnicate'" "$TMP/err"
run frobnicate
check "unknown command: exit 2" rc_is 2
check "unknown command named" grep -q "unknown command 'frobnicate'" "$TMP/err"

# help COMMAND and COMMAND --help print the same forms, and nothing else.
"$AC" help session >"$TMP/h1" 2>&1
check "help session exits 0" [ $? -eq 0 ]
"$AC" session --help >"$TMP/h2" 2>&1
check "session --help exits 0" [ $? -eq 0 ]
check "help session = session --help" cmp -s "$TMP/h1" "$TMP/h2"
check "help session shows create" grep -q 'session create TASK' "$TMP/h1"
check "help session shows only session" eval '! grep -v "agentctl \[-w DIR\] session " "$TMP/h1"'
"$AC" help nosuch >/dev/null 2>"$TMP/err"
check "help nosuch: exit 2" [ $? -eq 2 ]
check "help nosuch named" grep -q "unknown command 'nosuch'" "$TMP/err"
# --help needs no workspace: it works from a folder that is not one.
(cd / && "$AC" -w /nonexistent ops --help >/dev/null 2>&1)
check "ops --help without a workspace" [ $? -eq 0 ]

# A subcommand's --help or -h is a help request too, never an argument:
# "session complete --help" used to complete a session whose id is "--help"
# (ids may start with '-'), and said "session '--help' not found", exit 1,
# where there was none.
# Such a session comes from another program (agentctl no longer makes one:
# below), written as the seeds write a session file.
mkdir -p "$WS/.agent/sessions"
printf '{"id":"--help","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z","task":"a task","status":"running","conversationHistory":[],"metadata":{}}' \
	>"$WS/.agent/sessions/--help.json"
sum_before=$(sha256sum "$WS/.agent/sessions/--help.json")
for form in "session complete --help" "session pause -h" "ops rollback --help" "checkpoint list --help"; do
	run $form
	check "$form: exit 0" rc_is 0
	check "$form: the command's forms" grep -q "agentctl \[-w DIR\] ${form%% *} " "$TMP/out"
done
check "the session named --help is left alone" \
	eval '[ "$(sha256sum "$WS/.agent/sessions/--help.json")" = "$sum_before" ]'
# A new id the operator gives must not start with '-': one line, exit 2,
# nothing written.
run session create "a task" --id -x
check "session create --id -x: exit 2, one line naming it" \
	eval '[ "$RC" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "'"'"'-x'"'"'" "$TMP/err"'
check "session create --id -x: nothing written" test ! -e "$WS/.agent/sessions/-x.json"
run session fork a-task-that-is-not-there --id -y
check "session fork --id -y: exit 2" rc_is 2
# Nor hold a control byte (ids are read as their bytes and shown escaped:
# "f<ESC>" would look like another id "f^["), for a fork as for create.
run session create "a task" --id fork-parent
run session fork fork-parent --id "$(printf 'f\033')"
check "session fork --id f<ESC>: exit 2, one line" \
	eval '[ "$RC" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "control byte" "$TMP/err"'
check "... nothing written" [ "$(ls -b "$WS/.agent/sessions" | grep -c '^f\\033')" = 0 ]

version=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
"$AC" --version >"$TMP/out"
check "--version is CMake's $version" grep -q "^agentctl $version\b" "$TMP/out"
finish
