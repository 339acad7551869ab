#!/bin/bash
# The bash completion (completions/agentctl.bash), whose command and option
# lists are generated from the command specs: it offers every option each
# subcommand's --help shows, the global options after the command too, and
# finds the subcommand past global options. (Before, `storage check --st`
# offered nothing and `session --storage X li` no subcommand.)
. "$(dirname "$0")/lib/cli.sh" "$@"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
COMP=$SRC/completions/agentctl.bash
WS=$TMP/ws
mkdir -p "$WS/.agent/sessions"

complete_bash() { # WORDS...: prints the completions of the last word
	PATH="$(dirname "$AC"):$PATH" bash -c 'source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		_agentctl; printf "%s\n" "${COMPREPLY[@]}"' "$COMP" "$@"
}
offers() { # WORD WORDS...: the completions of WORDS include WORD
	local want=$1
	shift
	complete_bash "$@" | grep -qx -- "$want"
}

check "commands" offers session agentctl ses
check "help is a command" offers help agentctl he
check "subcommands" offers record-turn agentctl session ''
check "a subcommand's options" offers --children agentctl session list --
check "global options after the command" offers --storage agentctl storage check --st
check "... and after the subcommand's own" offers --read-only agentctl session list --json --re
check "the subcommand past global options" offers list agentctl session --storage x li
check "the subcommand's options past them" offers --all-projects agentctl -w "$WS" session --poll list --all
check "help COMMAND SUBCOMMAND" offers record-turn agentctl help session rec
check "an option's value is no subcommand" offers list agentctl session --theme light l
check "no option after a valued option" eval '[ -z "$(complete_bash agentctl session list --user "")" ]'
check "usage's kinds" offers daily agentctl usage d
# The positional arguments of a spec that names them, from it.
check "memo read: the scope's words third" offers user agentctl memo read acme u1 us
check "memo read: none second" eval '[ -z "$(complete_bash agentctl memo read acme us)" ]'
check "memo write: - for the text" offers - agentctl memo write acme u1 user N.md ''
check "sandbox mirror: a folder third" offers "$WS" agentctl sandbox mirror T s1 "$WS"
check "journal log: - for standard input" offers - agentctl journal log ''

# Every option each subcommand's --help shows is offered after it.
. "$(dirname "$0")/lib/subcommands.sh"
n=0
while read -r cmd sub; do
	"$AC" help "$cmd" $sub >"$TMP/h" 2>/dev/null || continue
	complete_bash agentctl "$cmd" $sub -- >"$TMP/c"
	for opt in $(sed -n '/^  and the global options/q; s/^    \(-[a-z], \)\{0,1\}\(--[a-z0-9-]*\).*/\2/p' "$TMP/h"); do
		n=$((n + 1))
		check "$cmd $sub: $opt offered" grep -qx -- "$opt" "$TMP/c"
	done
done < <(subcommands)
check "options were checked ($n)" [ "$n" -ge 60 ]
finish
