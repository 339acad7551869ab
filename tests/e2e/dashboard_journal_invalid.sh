#!/usr/bin/env bash
# Records outside the journal's schema are shown, never hidden (issue 16
# item 6): the journal pane draws them marked '!', in the theme's own
# "invalid" style, with the reason and the record (made safe) in place of
# the message, at start and as they are appended; the whole-journal search
# finds them by the fields they have. An action type added in the
# configuration (item 8) is an ordinary event.
. "$(dirname "$0")/lib/tmux.sh" "$@"
J=$ws/JOURNAL.jsonl
mkdir -p "$ws/.agent"
echo '{"journal": {"actionTypes": ["DEPLOY"]}}' >"$ws/.agent/config.json"
ev() { # ID-SUFFIX AGENT TYPE MESSAGE
	printf '{"id":"evt_20250101000000_0000000%s","timestamp":"2025-01-01T00:00:0%s.000Z","agent":"%s","status":"SUCCESS","action":{"type":"%s","params":{}},"result":{"message":"%s"}}\n' \
		"$1" "$1" "$2" "$3" "$4"
}
{
	ev 1 Claude CMD_RUN "valid one"
	ev 2 claude CMD_RUN "typed by tasks.py"
	ev 3 Codex DEPLOY "shipped by config"
	printf 'garbage \033]0;owned\007 title\n'
} >"$J"

dashboard 160 30
keys 4
check "journal: the valid event" wait_for "valid one"
check "journal: the record outside the schema, with its reason" \
	wait_for "invalid: agent: 'claude' is not one of Claude, Codex"
check "journal: the record itself follows the reason" wait_for '| {"id":"evt_20250101000000_00000002"' 
check "journal: marked '!'" bash -c "tmux -L $sock capture-pane -p -t e2e | grep -q '! claude .*invalid: agent'"
check "journal: a configured action type is an ordinary event" \
	bash -c "tmux -L $sock capture-pane -p -t e2e | grep -q 'Codex .*DEPLOY .*shipped by config' &&
		 ! tmux -L $sock capture-pane -p -t e2e | grep -q 'invalid: action.type'"
check "journal: garbage shown, marked, escapes made visible" wait_for "invalid: not JSON: column 1"
check "journal: the terminal title was not set" bash -c "! tmux -L $sock display -p -t e2e '#{pane_title}' | grep -q owned"
# The style: the invalid row's attributes differ from a valid row's.
sgr_of() { tmux -L "$sock" capture-pane -e -p -t e2e | grep -F "$1" | head -n 1 | grep -oE $'\e\\[[0-9;]*m' | tr -d '\n'; }
check "journal: invalid rows in a style of their own" \
	bash -c '[ -n "$1" ] && [ "$1" != "$2" ]' _ "$(sgr_of "invalid: agent: 'claude'")" "$(sgr_of 'shipped by config')"
# Appended while the dashboard runs: shown as it arrives.
ev 4 gemini ANALYSIS "appended later" >>"$J"
check "journal: an appended record outside the schema, shown live, with its reason" \
	wait_for "invalid: agent: 'gemini'"
# / filters on what an invalid record holds.
keys /
send -l "tasks.py"
keys Enter
check "filter: finds the invalid record" wait_for "! claude"
check "filter: hides the others" absent "valid one"
keys Escape
# The whole-journal search takes the seed's one-string form and finds the
# record by the field it has.
keys S
send -l "agent=claude status=SUCCESS"
keys Enter
check "search: the record outside the schema, found by its agent" wait_for "1 match in 1 file"
check "search: shown marked" wait_for "invalid: agent: 'claude'"
keys Escape
keys q
wait_exit
finish
