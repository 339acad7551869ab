#!/usr/bin/env bash
# What every command says, and its exit status, for a missing or an extra
# positional argument (and for arguments that start with a dash): the
# words are a contract, checked line for line against cli_positionals.txt.
# Each case there is a line "$ ARGS" (shell words), then the standard error
# expected of `agentctl -w WS ARGS` in a fresh workspace (WS for its path),
# then "exit N". The parser counts the arguments by the command specs
# (cli/cli_specs.c); a command's own words are spec->missing and ->extra.
# Usage: cli_positionals.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
EXPECTED=$(dirname "$0")/cli_positionals.txt

while IFS= read -r line; do
	case $line in
	'$ '*) ;;
	*) continue ;;
	esac
	eval "set -- ${line#'$ '}"
	WS=$(mktemp -d "$TMP/ws.XXXXXX")
	mkdir -p "$WS/.agent/sessions"
	run "$@"
	printf '%s\n' "$line"
	sed "s#$WS#WS#g" "$TMP/err"
	printf 'exit %d\n' "$RC"
done <"$EXPECTED" >"$TMP/said"

if diff -u "$EXPECTED" "$TMP/said" >"$TMP/diff"; then
	pass
else
	cat "$TMP/diff" >&2
	fail "what is said for a missing or an extra argument"
fi
check "every case ran" [ "$(grep -c '^\$ ' "$TMP/said")" -ge 100 ]
finish
