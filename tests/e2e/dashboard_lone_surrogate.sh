#!/usr/bin/env bash
# Issue 26 item 1 on the dashboard: a session, operation and journal event
# that the seeds' Node code wrote with a lone surrogate ("\ud83d", text cut
# with .slice() inside an emoji) are shown, the half emoji as its escape,
# and the conversation opens.
. "$(dirname "$0")/lib/tmux.sh" "$@"
command -v node >/dev/null || { echo "node missing: skipped"; exit 0; }
. "$(dirname "$0")/lib/lone_surrogate.sh"
at_exit() { rm -f "$ws.seeded"; }
seed_lone_surrogate "$ws" "$ws.seeded" || { echo "seed writers failed"; exit 1; }

dashboard 160 40
check "the session is listed, its task's half emoji escaped" wait_for 'deploy ship\ud83d'
check "the journal event is shown, not marked invalid" wait_for 'wrote ship\ud83d'
check "the operation is counted" wait_for "1 operations"
send 1
send Enter
check "the conversation opens with both halves" wait_for '\ude80ok done'
send Escape
check "back on the first screen" wait_for '1 operations'
send 4
send Enter
check "the journal event opens as JSON, not as a line that is not" wait_for '"message": "wrote ship\ud83d"'
send Escape
send q
check "q quits" wait_gone
finish
