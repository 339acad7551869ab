#!/bin/bash
# The zsh completion (completions/_agentctl), whose command, subcommand and
# option lists are generated from the command specs: it parses (zsh -n),
# offers every command --help shows, every subcommand, and after each
# subcommand every option its --help shows. (Before, it was written by
# hand: `session list` offered no --state, `storage check` nothing.)
# zsh's completion system is stood in for by functions that print what
# _agentctl hands it (_arguments' specs, _describe's and compadd's words),
# so the file's own dispatch is what runs. Skipped without zsh.
. "$(dirname "$0")/lib/cli.sh" "$@"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
COMP=$SRC/completions/_agentctl
if ! command -v zsh >/dev/null; then
	echo "zsh not installed: skipped"
	exit 0
fi

check "zsh -n parses it" zsh -n "$COMP"

# STATE WORDS...: what _agentctl offers in state STATE ("command" or
# "argument") for WORDS (the words after "agentctl", the last the one being
# completed), one word or _arguments spec a line.
complete_zsh() {
	zsh -fc '
		_arguments() { if [[ $1 == -C ]]; then state=$ZSTATE; return 1; fi; print -rl -- "$@"; }
		_describe() { print -rl -- ${(P)${@[-1]}}; }
		_wanted() { shift 3; "$@"; }
		compadd() { shift; print -rl -- "$@"; }
		source "$0" >/dev/null
		ZSTATE=$1; shift
		words=("$@"); CURRENT=$#
		_agentctl' "$COMP" "$@"
}
# OPT: an _arguments spec of OPT is among them (in $TMP/c).
has_opt() {
	grep -qE -- "^(\([^)]*\))?$1[=+]?\[" "$TMP/c"
}

complete_zsh command "" >"$TMP/c"
while read -r cmd _; do
	check "command $cmd offered" grep -q "^$cmd:" "$TMP/c"
done < <("$AC" --help | sed -n 's/^ *\(usage: \)\{0,1\}agentctl \[-w DIR\] \([a-z][a-z]*\).*/\2/p' | sort -u)
check "help offered" grep -q "^help:" "$TMP/c"

complete_zsh argument session "" >"$TMP/c"
check "session's subcommands" grep -q "^record-turn:" "$TMP/c"
complete_zsh argument help session "" >"$TMP/c"
check "help COMMAND SUBCOMMAND" grep -qx "record-turn" "$TMP/c"
complete_zsh argument usage "" >"$TMP/c"
check "usage's kinds" grep -q "daily session block" "$TMP/c"
complete_zsh argument session list --st >"$TMP/c"
check "global options after the command" has_opt --storage
complete_zsh argument session show "" >"$TMP/c"
check "session show: a session id" grep -q "_agentctl_sessions" "$TMP/c"

# Options that exclude each other (cli_opt.excludes): neither offered once
# the other is given, as the hand-written file had it.
complete_zsh argument checkpoint rollback -- >"$TMP/c"
check "checkpoint rollback: --skip-uncertain excludes --rerun-uncertain" \
	grep -qF -- "(--rerun-uncertain)--skip-uncertain[" "$TMP/c"
check "checkpoint rollback: and back" grep -qF -- "(--skip-uncertain)--rerun-uncertain[" "$TMP/c"
complete_zsh argument storage migrate -- >"$TMP/c"
check "storage migrate: --to and --from exclude each other" \
	eval 'grep -qF -- "(--from)--to=[" "$TMP/c" && grep -qF -- "(--to)--from=[" "$TMP/c"'
# The positional arguments of a spec that names them, from it.
complete_zsh argument memo read "" >"$TMP/c"
check "memo read: the scope's words" grep -qxF -- "3:session, user or agent:(session user agent)" "$TMP/c"
check "memo read: four arguments, no fifth" eval 'grep -q "^4:" "$TMP/c" && ! grep -q "^5:" "$TMP/c"'
complete_zsh argument sandbox mirror "" >"$TMP/c"
check "sandbox mirror: a session id second" grep -q "^2:.*:_agentctl_sessions$" "$TMP/c"
check "sandbox mirror: a folder third" grep -q "^3:.*:_directories$" "$TMP/c"
complete_zsh argument journal log "" >"$TMP/c"
check "journal log: - for standard input" grep -q "^1:.*:(-)$" "$TMP/c"

# Every option each subcommand's --help shows is offered after it.
. "$(dirname "$0")/lib/subcommands.sh"
n=0
while read -r cmd sub; do
	"$AC" help "$cmd" $sub >"$TMP/h" 2>/dev/null || continue
	if [ -n "$sub" ]; then
		complete_zsh argument "$cmd" $sub -- >"$TMP/c"
		check "$cmd $sub is a subcommand" eval "complete_zsh argument $cmd '' | grep -q '^$sub:'"
	else
		complete_zsh argument "$cmd" -- >"$TMP/c"
	fi
	for opt in $(sed -n '/^  and the global options/q; s/^    \(-[a-z], \)\{0,1\}\(--[a-z0-9-]*\).*/\2/p' "$TMP/h"); do
		n=$((n + 1))
		check "$cmd $sub: $opt offered" has_opt "$opt"
	done
done < <(subcommands)
check "options were checked ($n)" [ "$n" -ge 60 ]
finish
