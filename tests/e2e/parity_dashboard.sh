#!/usr/bin/env bash
# The dashboard's half of the parity test of the two stores (issue 25,
# item 2; parity_stores.sh is the command line's): the same session and
# journal (three events before the dashboard starts, two while it runs)
# shown on files and on a throwaway database, in a workspace at the same
# path; the screens, footer counts among them, normalised (clock times,
# ages, the workspace, the database's HOST column) and compared, and the
# files' screen with that of the workspace moved by `storage migrate --to`
# (the tasks were blank there: issue 25). Then what
# only the database can get wrong: its empty sessions pane names no
# .agent/sessions/ folder, and a dashboard started with only the store's
# URL, in a folder that is no workspace, opens the database's sessions.
# A known mismatch (parity_known.txt) passes as KNOWN, see parity_stores.sh.
# Needs a server from the PG* variables: ctest runs it through
# tests/pg/with-postgres.sh.
# Usage: parity_dashboard.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/pg_fleet.sh" parity
. "$(dirname "$0")/lib/store.sh" # known, agree, check_known
export HOME=$ws.home XDG_CONFIG_HOME=$ws.config
mkdir -p "$HOME"
at_exit() {
	psql -Atqc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	psql -Atqc "DROP DATABASE IF EXISTS ${DB}_migrated WITH (FORCE)" >/dev/null 2>&1
	rm -rf "$ws.home" "$ws.config" "$ws.shots" "$ws.nows"
}
mkdir -p "$ws.shots"
HOST=$(uname -n)

ac() { "$agentctl" -w "$ws" "$@" >/dev/null; }
event() {
	ac journal log "{\"agent\":\"Claude\",\"status\":\"SUCCESS\",\"action\":{\"type\":\"CMD_RUN\",\"params\":{\"command\":\"make\"}},\"result\":{\"message\":\"event $1\"}}"
}
# footer_says TEXT: up to 5 s for the footer to say TEXT (no failure: the
# screens are compared after).
footer_says() {
	for _ in $(seq 50); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
	return 0
}
quit() {
	keys q
	wait_gone || tmux -L "$sock" kill-session -t e2e 2>/dev/null
}
fresh_ws() {
	rm -rf "${ws:?}"
	mkdir -p "$ws/.agent"
}
# seed: the session and three events.
seed() {
	ac session create "fix the build" --id s1 --tenant acme --user u1 --agent claude
	ac session record-turn s1 --input 10 --output 5 --messages '[{"role":"user","content":"go"}]'
	for i in 1 2 3; do event "$i"; done
}
# shoot LEG: the dashboard over what seed left, two events more; the screen,
# normalised, in $ws.shots/LEG.
shoot() {
	dashboard 150 30
	wait_for "event 3" >/dev/null
	for i in 4 5; do event "$i"; done
	wait_for "event 5" >/dev/null
	footer_says "5 events seen"
	screen | sed -E -e "s#$ws#<ws>#g" -e 's#[0-9]{2}:[0-9]{2}:[0-9]{2}#<time>#g' \
		-e 's#  +# #g' -e 's# +$##' -e 's# [0-9]+[smhd]$# <age>#' \
		-e 's#^( STATUS ID TASK) HOST #\1 #' -e "s#^(.*) $HOST ([^ ]+/[^ ]+ )#\\1 \\2#" >"$ws.shots/$1"
	quit
}

# ---- the same data on both stores -------------------------------------------
unset AGENT_STORAGE_URL
prefix=
fresh_ws
seed
shoot files
export AGENT_STORAGE_URL=$URL
prefix="env AGENT_STORAGE_URL=$URL"
# The database empty first: what its sessions pane says.
fresh_ws
dashboard 150 30
wait_for "no sessions" >/dev/null
screen | grep -F "no sessions" >"$ws.shots/empty"
quit
seed
shoot database
check "dashboard-screen: the same on both stores" \
	agree dashboard-screen "$ws.shots/files" "$ws.shots/database"
echo "  the footers: $(grep -h "events seen" "$ws.shots/files" "$ws.shots/database" | tr '\n' '|')"

# ---- a workspace moved to a database by storage migrate --to ----------------
MIGRATED=${DB}_migrated
psql -Atqc "CREATE DATABASE $MIGRATED" >/dev/null
URL_MIGRATED=${URL%/*}/$MIGRATED
unset AGENT_STORAGE_URL
fresh_ws
seed
ac storage migrate --to "$URL_MIGRATED"
fresh_ws
export AGENT_STORAGE_URL=$URL_MIGRATED
prefix="env AGENT_STORAGE_URL=$URL_MIGRATED"
shoot migrated
check "dashboard-migrated: the same as the workspace's files" \
	agree dashboard-migrated "$ws.shots/files" "$ws.shots/migrated" files migrated
check_known dashboard-empty-store eval '! grep -qF ".agent/sessions/" "$ws.shots/empty"'
echo "  the empty database's sessions pane says: $(sed 's/^ *//' "$ws.shots/empty")"

# ---- only the store's URL, from a folder that is no workspace --------------
export AGENT_STORAGE_URL=$URL
mkdir -p "$ws.nows"
rm -f "$ws.exit"
new_session -d -s e2e -x 150 -y 30 \
	"cd $ws.nows && env AGENT_STORAGE_URL=$URL AGENT_CEILING_DIRECTORIES=$(dirname "$ws") $agentctl 2>$ws.err; echo \$? > $ws.exit; sleep 60"
for _ in $(seq 50); do
	{ [ -s "$ws.exit" ] || screen | grep -qF "fix the build"; } && break
	sleep 0.1
done
check_known dashboard-no-workspace eval 'screen | grep -qF "fix the build"'
[ -s "$ws.exit" ] && echo "  the dashboard exited $(cat "$ws.exit"): $(cat "$ws.err")"
tmux -L "$sock" kill-session -t e2e 2>/dev/null
rm -f "$ws.err"
finish
