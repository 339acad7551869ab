#!/usr/bin/env bash
# The parity test of the two stores (issue 25, item 2): one sequence of
# agentctl commands a team runs (sessions created, appended to and turned,
# listed every way, shown, paused, resumed, compacted, checkpointed and
# rolled back, forked, exported, searched; the journal written, read,
# queried and checked; memos; usage) is run once on files, in a fresh
# workspace, and once with AGENT_STORAGE_URL naming a throwaway database,
# in a fresh workspace at the same path. Each command's exit status,
# stdout and stderr are normalised (times, event ids and uuids; the
# workspace, the journal's and the compaction archive's names; what only
# the database reports: the host that wrote a session) and compared.
# Then the cases of the issue: a workspace migrated with `storage migrate
# --to` lists and shows the same as before; --state and --all-projects
# filter the same; a transcript of a coding agent is listed on both; the
# order of the listing; `session create` with no --tenant; `storage
# migrate --from URL --tenant T` copies what `--to URL --tenant T` does.
#
# A mismatch is printed as a unified diff (- files, + database) and fails, unless
# its case is in parity_known.txt (KNOWN_FILE): a mismatch on main that a
# fix under way removes. Then it is printed as KNOWN and passes; a known
# case that agrees fails, so the list is emptied as fixes merge.
# Needs a server from the PG* variables: ctest runs it through
# tests/pg/with-postgres.sh.
# Usage: parity_stores.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
. "$(dirname "$0")/lib/store.sh" # new_db, agree, known (STORE files: databases below)

pg_ready
unset AGENT_STORAGE_URL
new_db agentctl_parity_$$
DB_MAIN=$URL
new_db agentctl_parity_to_$$
DB_MIGRATED=$URL
new_db agentctl_parity_tenant_$$
DB_TENANT=$URL

# Transcripts of Claude Code, Codex and Gemini for the workspace's path
# (WS, under $TMP/home): both stores' runs use that path in turn.
. "$(dirname "$0")/lib/sources_home.sh"
FIXTURE_HOME=$HOME
EMPTY_HOME=$TMP/empty-home
mkdir -p "$EMPTY_HOME"
HOST=$(uname -n)
OUTS=$TMP/outs

# ---- recording ---------------------------------------------------------------
# step NAME [--in TEXT] ARGS...: agentctl ARGS in $WS (TEXT on stdin), its
# exit status, stdout and stderr kept in $OUTS/$LEG/NAME.
step() {
	local name=$1 input=""
	shift
	if [ "$1" = --in ]; then
		input=$2
		shift 2
	fi
	local f=$OUTS/$LEG/$name
	mkdir -p "$OUTS/$LEG"
	printf '%s' "$input" | "$AC" -w "$WS" "$@" >"$f.out" 2>"$f.err"
	echo "$?" >"$f.rc"
	printf 'agentctl %s\n' "$*" | cut -c1-200 >"$f.cmd"
}

# normalise FILE: what may differ between the stores without being a
# difference a user sees: times, generated ids, the names of places, and
# what only the database knows (which host wrote a session).
normalise() {
	local f=$1
	if jq -e . <"$f" >/dev/null 2>&1 && [ -s "$f" ]; then
		jq -S 'walk(if type == "object" then del(.host)
			    | (if .source == "file" or .source == "postgresql" then .source = "<store>" else . end)
			    | (if has("archive") then .archive = "<archive>" else . end)
			    else . end)' <"$f"
	else
		cat "$f"
	fi | sed -E \
		-e "s#postgresql://[^ :]*(:[^@ ]*)?@[^ /]*/[A-Za-z0-9_]+#<store>#g" \
		-e "s#$WS/JOURNAL.jsonl#<store>#g" \
		-e "s#$WS#<ws>#g" -e "s#$TMP#<tmp>#g" \
		-e 's#(originals archived in ).*#\1<archive>#' \
		-e 's#evt_[0-9]{14}_[0-9a-f]{8}#<evt>#g' \
		-e 's#[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z#<time>#g' \
		-e 's#[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}#<uuid>#g' \
		-e 's#[0-9]{4}-[0-9]{2}-[0-9]{2}#<date>#g' \
		-e 's#  +# #g' -e 's# +$##' \
		-e 's#^(ID .* UPDATED) HOST #\1 #' \
		-e "s#^(.* <time>) $HOST #\1 #" \
		-e "/^host $HOST written by /d"
}

# The text compared for a step: its command, exit status, stdout, stderr.
view() {
	local f=$OUTS/$1
	cat "$f.cmd"
	echo "exit $(cat "$f.rc")"
	normalise "$f.out"
	echo "--- stderr"
	normalise "$f.err"
}


# same CASE LEFT RIGHT: the steps LEFT and RIGHT ("LEG/NAME") agree.
SEEN=" "
same() {
	SEEN="$SEEN$1 "
	view "$2" >"$TMP/left"
	view "$3" >"$TMP/right"
	check "$1: the same on both stores" agree "$1" "$TMP/left" "$TMP/right" "$2" "$3"
}

# ---- the sequence ------------------------------------------------------------
# Every session is made after the last one was changed, so that the order
# of the listing (createdAt on files, last change on the database: the
# case "list-order" below) does not show in every listing.
sequence() {
	step list-empty session list
	step list-empty-json session list --json
	step create-s3 session create "write the docs" --id s3 --tenant acme --user u2 --agent codex
	step create-s1 session create "fix the build" --id s1 --tenant acme --user u1 --agent claude --json
	step append --in '{"role":"user","content":"the build fails in src/a.c"}' session append s1 -
	step turn session record-turn s1 --input 10 --output 5 \
		--messages '[{"role":"assistant","content":"reading src/a.c; the tests need a fix"}]'
	step turn-json --in '[{"role":"user","content":"now run the tests"},{"role":"assistant","content":"the tests pass"}]' \
		session record-turn s1 --input 20 --output 7 --messages - --json
	step list session list
	step list-json session list --json
	step list-status session list --status running
	step list-user session list --user u2
	step list-state-paused session list --state paused
	step list-state-paused-json session list --state paused --json
	step list-all-projects session list --all-projects
	step show session show s1
	step show-json session show s1 --json
	step show-missing session show nosuch
	step pause session pause s1
	step pause-again session pause s1
	step list-state-paused-after session list --state paused
	step list-status-paused session list --status paused
	step resume session resume s1
	step compact session compact s1
	step compact-force session compact s1 --force
	step show-compacted session show s1
	step checkpoint-1 checkpoint create s1 --node plan --input '{"step":1}' --id c1
	step checkpoint-2 checkpoint create s1 --node act --input '{"step":2}' --id c2 --json
	step checkpoint-list checkpoint list s1
	step checkpoint-list-json checkpoint list s1 --json
	step checkpoint-rollback checkpoint rollback s1 c1 --yes
	step checkpoint-list-after checkpoint list s1
	step checkpoint-missing checkpoint rollback s1 nosuch --yes
	step checkpoint-tombstone checkpoint create s1 --node done --tombstone --id c3
	step checkpoint-rollback-latest checkpoint rollback s1 --latest --yes
	step checkpoint-auto checkpoint auto s1 on
	step checkpoint-list-final checkpoint list s1 --json
	step journal-log journal log '{"agent":"Claude","status":"SUCCESS","action":{"type":"FILE_EDIT","params":{"path":"src/a.c"}},"result":{"message":"edited a.c"}}'
	step journal-log-stdin --in '{"agent":"Codex","status":"FAILED","action":{"type":"CMD_RUN","params":{"command":"make test"}},"result":{"message":"2 tests failed"}}' \
		journal log -
	step journal-log-bad journal log '{"agent":"Nobody"}'
	step journal-read journal read
	step journal-read-json journal read --json
	step journal-query journal query agent=Claude
	step journal-query-json journal query action.type=CMD_RUN --json
	step journal-query-human journal query agent=Human --json
	step journal-check journal check
	step memo-write memo write acme u1 user notes "remember the build flags"
	step memo-append memo append acme u1 user notes " and the tests"
	step memo-read memo read acme u1 user notes
	step memo-list memo list acme u1 user
	step memo-list-json memo list acme u1 user --json
	step memo-read-missing memo read acme u1 user MISSING.md
	step usage-daily usage daily
	step usage-session usage session
	step usage-session-json usage session --json
	step usage-block usage block --json
	step complete session complete s1
	step fail-completed session fail s1
	step fork session fork s1 --at 1 --id f1
	step fork-show session show f1
	step export-md session export s1 --format md
	step export-html session export s1 --format html
	step search session search tests
	step search-json session search tests --json
	step artifacts artifact list s1
	step trace trace show s1
	step list-final session list
	step list-children session list --children
	step list-final-json session list --json
	step show-final session show s1 --json
	step journal-read-final journal read --json
}

# ---- the runs ----------------------------------------------------------------
export HOME=$EMPTY_HOME
# Files: a fresh workspace. Then migrated to a database (the case
# migrate-to-*), and moved aside so that the database's run has the path.
mkdir -p "$WS/.agent"
LEG=files
sequence
step migrate-to storage migrate --to "$DB_MIGRATED"
check "migrate --to: exit 0" [ "$(cat "$OUTS/files/migrate-to.rc")" = 0 ]
mv "$WS" "$TMP/ws-files"

mkdir -p "$WS/.agent"
LEG=database
export AGENT_STORAGE_URL=$DB_MAIN
sequence
unset AGENT_STORAGE_URL

# The migrated workspace, read on the database from an empty folder.
mv "$WS" "$TMP/ws-database"
mkdir -p "$WS"
LEG=migrated
export AGENT_STORAGE_URL=$DB_MIGRATED
MIGRATED="list-final list-final-json show-final fork-show journal-read-final"
step list-final session list
step list-final-json session list --json
step show-final session show s1 --json
step fork-show session show f1
step journal-read-final journal read --json
unset AGENT_STORAGE_URL

for name in $(cd "$OUTS/files" && ls -- *.cmd | sed 's/\.cmd$//' | grep -vx migrate-to); do
	same "$name" "files/$name" "database/$name"
done
for name in $MIGRATED; do
	same "migrate-to-$name" "files/$name" "migrated/$name"
done

# ---- the cases ---------------------------------------------------------------
# case_on LEG COMMAND...: COMMAND in a fresh workspace at $WS, on files
# (LEG files) or on a fresh database (LEG database), HOME the transcripts'.
case_on() {
	LEG=$1
	shift
	rm -rf "${WS:?}"
	mkdir -p "$WS/.agent"
	if [ "$LEG" = database ]; then
		psql -Atqc "DROP DATABASE IF EXISTS agentctl_parity_case_$$" >/dev/null 2>&1
		new_db agentctl_parity_case_$$
		export AGENT_STORAGE_URL=$URL
		"$@"
		unset AGENT_STORAGE_URL
	else
		"$@"
	fi
}
# case_both NAME...: runs case_NAME on both stores and compares every step.
case_both() {
	local c name
	for c in "$@"; do
		case_on files "case_$c"
		case_on database "case_$c"
		for name in $(cd "$OUTS/files" && ls -- "$c"*.cmd | sed 's/\.cmd$//'); do
			same "$name" "files/$name" "database/$name"
		done
	done
}

# Sessions listed by when they were made (files) or last changed.
case_list-order() {
	step list-order-create-1 session create "first" --id o1 --tenant acme
	step list-order-create-2 session create "second" --id o2 --tenant acme
	step list-order-append --in '{"role":"user","content":"more"}' session append o1 -
	step list-order session list
}
# The states of sessions and transcripts, and other projects' transcripts.
case_transcripts() {
	export HOME=$FIXTURE_HOME
	step transcripts-create session create "a task" --id t1 --tenant acme --user u1
	step transcripts-pause session pause t1
	step transcripts-list session list
	step transcripts-list-json session list --json
	step transcripts-state-paused session list --state paused
	step transcripts-state-waiting session list --state waiting
	step transcripts-all-projects session list --all-projects
	step transcripts-children session list --children
	step transcripts-show session show "$S1"
	step transcripts-search session search "$(printf 'Fix the failing test')"
	export HOME=$EMPTY_HOME
}
# A session made with no --tenant: the store's default tenant, or none.
case_create-no-tenant() {
	step create-no-tenant session create "no tenant given" --id n1
	step create-no-tenant-list session list
	step create-no-tenant-append --in '{"role":"user","content":"hi"}' session append n1 -
}
# A turn's usage over the bound is refused whole.
case_turn-too-large() {
	step turn-too-large-create session create "big" --id u1 --tenant acme
	step turn-too-large session record-turn u1 --usage "{\"note\":\"$(head -c 70000 /dev/zero | tr '\0' x)\"}" \
		--messages '{"role":"user","content":"lost?"}'
	step turn-too-large-show session show u1
}
case_both list-order transcripts create-no-tenant turn-too-large

# `storage migrate --to URL --tenant acme` from a workspace holding two
# tenants' sessions copies acme's; `--from URL --tenant acme` from a
# database holding the same two copies the same into a workspace.
two_tenants() {
	step tenant-create-a session create "acme's" --id a1 --tenant acme --user u1
	step tenant-create-b session create "other's" --id b1 --tenant other --user u9
}
case_on files two_tenants
step migrate-tenant-to storage migrate --to "$DB_TENANT" --tenant acme
rm -rf "${WS:?}"
mkdir -p "$WS"
LEG=files
export AGENT_STORAGE_URL=$DB_TENANT
step migrate-tenant-list session list
unset AGENT_STORAGE_URL
case_on database two_tenants
from=$URL
rm -rf "${WS:?}"
mkdir -p "$WS/.agent"
LEG=database
step migrate-tenant-from storage migrate --from "$from" --tenant acme
# The two commands' exit statuses and stderr (their reports differ in words).
for f in files/migrate-tenant-to database/migrate-tenant-from; do
	echo "agentctl storage migrate --to|--from <store> --tenant acme" >"$OUTS/$f-exit.cmd"
	cp "$OUTS/$f.rc" "$OUTS/$f-exit.rc"
	cp "$OUTS/$f.err" "$OUTS/$f-exit.err"
	: >"$OUTS/$f-exit.out"
done
step migrate-tenant-list session list
check "migrate --to --tenant: exit 0" [ "$(cat "$OUTS/files/migrate-tenant-to.rc")" = 0 ]
same migrate-from-tenant-exit files/migrate-tenant-to-exit database/migrate-tenant-from-exit
# Not the same by design: --to --tenant T names the tenant of the sessions
# that have none and copies every session (b1 keeps "other"); --from
# --tenant T brings only T's into the workspace.
check "migrate --from --tenant acme: acme's a1 in the workspace" \
	grep -q '^a1 ' "$OUTS/database/migrate-tenant-list.out"
check "migrate --from --tenant acme: no other tenant's session" \
	bash -c '! grep -q "^b1 " "$0"' "$OUTS/database/migrate-tenant-list.out"

# A known case no longer run would hide nothing: the list names run cases.
while IFS=$'\t' read -r name _; do
	# SCRIPT: CASE and dashboard-* are other scripts' (lib/store.sh, parity_dashboard.sh).
	case $name in *": "* | dashboard-*) continue ;; esac
	case $SEEN in
	*" $name "*) ;;
	*) fail "$(basename "$KNOWN_FILE"): '$name' is no case of this script" ;;
	esac
done < <(grep -v '^#' "$KNOWN_FILE")

finish
