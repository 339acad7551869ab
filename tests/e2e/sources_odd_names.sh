#!/usr/bin/env bash
# Transcripts whose file or folder name is not valid UTF-8 (no coding agent
# writes one: a file planted by whoever can write ~/.claude, ~/.codex or
# ~/.gemini) beside the fixture's transcripts. Each is left out, counted and
# named on stderr with its bytes escaped; every other transcript still lists
# and is searched, and the commands exit 0. Before, one such name failed the
# whole read as "out of memory", listed no transcript at all and exited 0,
# and `session search` passed qsort() a NULL array. `sources check` lists
# each one left out and exits 1 until none is.
# Usage: sources_odd_names.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/sources_home.sh"

. "$(dirname "$0")/lib/sources_odd_names.sh"

run session list --json
check "list --json: exit 0" rc_is 0
check "list --json: every readable transcript of the workspace still lists" \
	[ "$(jq_out '[.[] | .id] | sort | join(" ")')" = "$(printf '%s\n' "$C1" "$G1" "$S1" "$S2" | sort | tr '\n' ' ' | sed 's/ $//')" ]
check "nothing says out of memory" eval '! err_has "out of memory"'
check "stderr names the first one left out, escaped, and counts the others" \
	eval 'err_has "\\\\x[0-9A-F]{2}.*: the file name is not valid UTF-8 \\(skipped, and 3 more coding-agent transcripts not read\\)"'
check "no raw byte of the names reached the terminal" \
	eval "! LC_ALL=C grep -q \$'[\\xc0\\xed\\xfe\\xff]' \"\$TMP/err\""

run session list
check "list: exit 0, the Claude Code session in its row" eval "rc_is 0 && out_has '^$S1 +waiting'"

run session list --all-projects --json
check "list --all-projects: exit 0, another project's session too" \
	eval "rc_is 0 && [ \"\$(jq_out '[.[] | select(.id == \"$OTHER\")] | length')\" = 1 ]"

run session search "parser.c"
check "search: exit 0, finds the Claude Code transcript" eval "rc_is 0 && out_has '^$S1'"
check "search: nothing says out of memory" eval '! err_has "out of memory"'

run session show "$S1"
check "show: the transcript beside them opens" eval 'rc_is 0 && out_has "^source +claude-code"'

run sources check
# An encoded surrogate shows as the code unit it holds (\ud800), as in
# every text agentctl shows; other bad bytes as \xNN.
check "sources check: exit 1, the four names left out, escaped, one line each" \
	eval 'rc_is 1 && [ "$(grep -cE "^! .*(\\\\x[0-9A-F]{2}|\\\\ud[89ab][0-9a-f]{2}).*: the file name is not valid UTF-8$" "$TMP/out")" = 4 ]'
check "sources check: each source's figures (the malformed line of S1 counted; S1's sub-agent listed)" \
	eval "out_has '^claude-code +3 listed, 1 malformed lines, 2 unreadable' && out_has '^codex +1 listed, 0 malformed lines, 1 unreadable' && out_has '^gemini +1 listed, 0 malformed lines, 1 unreadable'"
check "sources check: no raw byte of the names" \
	eval "! LC_ALL=C grep -q \$'[\\xc0\\xed\\xfe\\xff]' \"\$TMP/out\""
run sources check --json
check "sources check --json: one document, the unreadable named per source" \
	eval 'rc_is 1 && [ "$(jq_out "[.unreadable[].source] | sort | join(\" \")")" = "claude-code claude-code codex gemini" ]'
rm "$claude/$(printf '\xff\xfe').jsonl" "$day/rollout-2025-10-01T11-00-00-$(printf '\xc0\xaf').jsonl" \
	"$chats/session-2025-10-01T13-00-$(printf '\xed\xa0\x80').json"
rm -r "$claude-$(printf '\xff')"
run sources check
# (the fixture's older rollout keeps its one record of a type to come:
# named, and no error)
check "sources check: exit 0 once every transcript reads" \
	eval 'rc_is 0 && ! out_has "^!.*(not valid|unreadable|not read)"'

finish
