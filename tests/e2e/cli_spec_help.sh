#!/bin/bash
# Each subcommand's --help comes from its spec (cli/cli_specs.c), the same
# table the parser reads: `agentctl CMD SUB --help` (and `help CMD SUB`)
# shows that subcommand's usage line, its options with their help and the
# global options, and every option it shows is one the subcommand takes
# (never refused as unknown). On main before the specs, `session pause
# --help` printed every session form and no option's help.
. "$(dirname "$0")/lib/cli.sh" "$@"
WS=$TMP/ws
mkdir -p "$WS/.agent/sessions"

. "$(dirname "$0")/lib/subcommands.sh"
subs=0
while read -r cmd sub; do
	[ -n "$sub" ] || continue # usage: daily|session|block are arguments
	subs=$((subs + 1))
	"$AC" -w "$WS" "$cmd" "$sub" --help >"$TMP/h1" 2>"$TMP/err"
	check "$cmd $sub --help: exit 0" [ $? = 0 ]
	check "$cmd $sub --help: its own usage line" \
		grep -q "^usage: agentctl \[-w DIR\] $cmd $sub\b" "$TMP/h1"
	check "$cmd $sub --help: the global options" grep -q -- "--storage URL" "$TMP/h1"
	"$AC" help "$cmd" "$sub" >"$TMP/h2" 2>&1
	check "help $cmd $sub = $cmd $sub --help" cmp -s "$TMP/h1" "$TMP/h2"
	# Each option shown, given (with a value when it takes one, read-only
	# so nothing changes): never unknown.
	sed -n '/^  and the global options/q; s/^    \(-[a-z], \)\{0,1\}\(--[a-z0-9-]*\)\( [^ ]*\)\{0,1\}  .*/\2\3/p' \
		"$TMP/h1" >"$TMP/opts"
	while read -r opt value; do
		"$AC" -w "$WS" --read-only "$cmd" "$sub" "$opt" ${value:+x} \
			>/dev/null 2>"$TMP/err" </dev/null
		check "$cmd $sub $opt is known" eval '! grep -q "unknown option" "$TMP/err"'
	done <"$TMP/opts"
done < <(subcommands)
check "subcommands were found ($subs)" [ "$subs" -ge 30 ]

# A command without subcommands shows its options after its forms.
"$AC" gc --help >"$TMP/out"
check "gc --help: --older-than's help" grep -q -- "--older-than AGE .*older than" "$TMP/out"
# An unknown subcommand in help: one line, exit 2.
"$AC" help session nope >"$TMP/out" 2>"$TMP/err"
check "help session nope: exit 2" [ $? = 2 ]
check "... one line naming it" eval '[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "nope" "$TMP/err"'
check "nothing was written" [ -z "$(ls -A "$WS/.agent/sessions")" ]
finish
