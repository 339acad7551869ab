#!/usr/bin/env bash
# The journal pane follows its end, and a / filter keeps it following: on
# Enter the newest match is selected, and a matching event appended later
# comes into view (before, the filter went to the oldest match and the
# tail stopped, so a new event stayed below the screen). On either store
# (lib/store.sh: STORE=files|pg; dashboard_journal_filter_follow_pg.sh is
# the database's run): there the hand-written journal goes in by `storage
# migrate`, and a later event by `journal log` (the store's own id and time).
# Usage: [STORE=pg] dashboard_journal_filter_follow.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
J=$ws/JOURNAL.jsonl
ev() { # N AGENT MESSAGE
	printf '{"id":"evt_20250101000000_%08d","timestamp":"2025-01-01T00:%02d:%02d.000Z","agent":"%s","status":"SUCCESS","action":{"type":"ANALYSIS","params":{}},"result":{"message":"%s"}}\n' \
		"$1" $(($1 / 60)) $(($1 % 60)) "$2" "$3"
}
for i in $(seq 1 200); do
	if [ $((i % 2)) = 0 ]; then ev "$i" Codex "codex event $i"; else ev "$i" Claude "claude event $i"; fi
done >"$J"
if on_pg; then
	store_seed acme || exit 1
	rm -f "$J"
fi
append() { # N AGENT MESSAGE: a later event, at the journal's end
	if on_pg; then
		ev "$@" | "$agentctl" -w "$ws" journal log - >/dev/null
	else
		ev "$@" >>"$J"
	fi
}

dashboard 120 24
keys 4
check "the journal follows its end" wait_for "codex event 200"
keys /
send -l "Codex"
keys Enter
check "filtered: the newest match in view" wait_for "codex event 200"
check "filtered: the oldest match scrolled past" absent "codex event 2 "
check "filtered: the others hidden" absent "claude event 199"
append 201 Codex "codex tail after the filter"
check "a matching event appended later comes into view" wait_for "codex tail after the filter"
append 202 Claude "claude tail after the filter"
append 203 Codex "codex second tail"
check "and the next one" wait_for "codex second tail"
check "a non-matching one stays hidden" absent "claude tail after the filter"
keys q
wait_exit
finish
