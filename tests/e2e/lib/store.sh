# The store an end-to-end script runs on (sourced after lib/cli.sh, not a
# test): STORE=files (the default: the workspace's files) or STORE=pg (ctest's
# NAME_pg entry of the script, through tests/pg/with-postgres.sh): then a
# database of the script's own, dropped on exit, is named by
# AGENT_STORAGE_URL for every command. One script, both stores (issue 25).
#   on_pg                   true on the database
#   store_sum               a digest of everything the store holds (a
#                           refused command leaves it as it was)
#   store_seed TENANT       session files written by hand in
#                           $WS/.agent/sessions go into the store (on pg:
#                           `storage migrate --to`, TENANT theirs when they
#                           name none, then the files removed)
#   doc_of ID               the session's document as the store holds it
#   known NAME              the reason the case NAME may still fail on the
#                           database: its line in parity_known.txt (NAME, a
#                           tab, the issue item it waits on); false if none
#   agree NAME LEFT RIGHT [LABEL_LEFT LABEL_RIGHT]   the texts in the files
#                           LEFT (files) and RIGHT (database) are the same,
#                           or differ and NAME is known (printed as KNOWN
#                           with the diff); a difference not known is
#                           printed as MISMATCH with the diff, and a known
#                           case that agrees is said (remove it from the
#                           list): both false
#   check_known NAME COMMAND...   check, but a known case that fails is
#                           shown as KNOWN and passes, and one that passes
#                           fails (remove it from the list)
#   check_store NAME COMMAND...   check_known on the database (the case
#                           named "SCRIPT: NAME"), check on files
#   pg_ready                a server to talk to, or exit 1 saying so
#   new_db NAME             a fresh database NAME, dropped on exit; its URL
#                           in $URL
#   store_fresh             on pg, a new empty database for the commands
#                           that follow (a script's next workspace starts
#                           empty there too); nothing on files
#   store_sql SQL           on pg, SQL run in the script's database
#                           (search_path agentctl)
# Sourced after lib/tmux.sh instead (a dashboard script): AC and WS are its
# agentctl and ws, TMP a folder of its own, and the harness's clean-up on
# exit still runs (before the databases are dropped).
STORE=${STORE:-files}
if [ -z "${AC:-}" ] && [ -n "${agentctl:-}" ]; then
	AC=$agentctl WS=$ws
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/agentctl-e2e.XXXXXX")
	STORE_TRAP=$(trap -p EXIT)
	STORE_TRAP=${STORE_TRAP#"trap -- '"}
	STORE_TRAP=${STORE_TRAP%"' EXIT"}
	STORE_TRAP=${STORE_TRAP//"'\\''"/"'"}
	trap "$STORE_TRAP"'
		rm -rf "$TMP"' EXIT
fi
on_pg() { [ "$STORE" = pg ]; }
pg_ready() {
	psql -Atqc 'select 1' >/dev/null 2>&1 && return
	echo "$(basename "$0"): no PostgreSQL server (run through tests/pg/with-postgres.sh)" >&2
	exit 1
}
STORE_DBS=""
new_db() {
	psql -Atqc "CREATE DATABASE $1" >/dev/null || exit 1
	# On exit, what the script's harness (lib/cli.sh, lib/tmux.sh: its
	# dashboards end) had set to run then (trap -p quotes it), and the
	# databases go.
	[ -n "$STORE_DBS" ] || {
		STORE_PREV_EXIT=$(trap -p EXIT)
		trap 'eval "set -- ${STORE_PREV_EXIT#trap -- }"; eval "${1:-}"
		      for d in $STORE_DBS; do psql -Atqc "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null 2>&1; done' EXIT
	}
	STORE_DBS="$STORE_DBS $1"
	URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$1"
}
case $STORE in
files) unset AGENT_STORAGE_URL ;;
pg)
	pg_ready
	STORE_DB=agentctl_e2e_store_$$
	new_db "$STORE_DB"
	export AGENT_STORAGE_URL=$URL
	;;
*)
	echo "$(basename "$0"): STORE is files or pg, not '$STORE'" >&2
	exit 2
	;;
esac

STORE_N=0
store_fresh() {
	on_pg || return 0
	STORE_N=$((STORE_N + 1))
	STORE_DB=agentctl_e2e_store_$$_$STORE_N
	new_db "$STORE_DB"
	export AGENT_STORAGE_URL=$URL
}

store_sql() {
	PGOPTIONS="-c search_path=agentctl" psql -d "$STORE_DB" -Atq -v ON_ERROR_STOP=1 -c "$1"
}
store_sum() {
	if on_pg; then
		# Less pg_dump's comments and its \restrict key (new each run).
		pg_dump --data-only --schema=agentctl "$STORE_DB" | grep -Ev '^(--|\\(un)?restrict )' | sha256sum
	else
		(cd "$WS" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum | sha256sum)
	fi
}
store_seed() {
	on_pg || return 0
	env -u AGENT_STORAGE_URL "$AC" -w "$WS" storage migrate --to "$AGENT_STORAGE_URL" --tenant "$1" \
		>"$TMP/seed.out" 2>&1 || { cat "$TMP/seed.out" >&2; return 1; }
	[ ! -d "$WS/.agent/sessions" ] || find "$WS/.agent/sessions" -maxdepth 1 -name '*.json' -delete
}
doc_of() {
	if on_pg; then
		# From an empty folder and user config: whatever the workspace's
		# configuration says (a case may break it), the store's document.
		mkdir -p "$TMP/doc_of/ws" "$TMP/doc_of/xdg"
		XDG_CONFIG_HOME=$TMP/doc_of/xdg "$AC" -w "$TMP/doc_of/ws" session show "$1" --json | jq 'del(.usage)'
	else
		cat "$WS/.agent/sessions/$1.json"
	fi
}

KNOWN_FILE=${KNOWN_FILE:-$(dirname "$0")/parity_known.txt}
known() {
	awk -F'\t' -v n="$1" '$1 == n { print $2; found = 1 } END { exit !found }' "$KNOWN_FILE" 2>/dev/null
}
agree() {
	local name=$1 reason d
	d=$(mktemp)
	if diff -u --label "${4:-files}" --label "${5:-database}" "$2" "$3" >"$d"; then
		rm -f "$d"
		known "$name" >/dev/null || return 0
		echo "FIXED: $name: now the same on both stores: remove it from $(basename "$KNOWN_FILE")"
		return 1
	fi
	if reason=$(known "$name"); then
		echo "KNOWN: $name ($reason)"
	else
		echo "MISMATCH: $name"
	fi
	sed 's/^/  /' "$d"
	rm -f "$d"
	[ -n "$reason" ]
}
check_known() {
	local name=$1 reason ok=false
	shift
	"$@" && ok=true
	if reason=$(known "$name"); then
		if $ok; then
			echo "FIXED: $name: passes now: remove it from $(basename "$KNOWN_FILE")"
			ok=false
		else
			echo "KNOWN: $name ($reason)"
			ok=true
		fi
	fi
	check "$name" $ok
}
check_store() {
	if on_pg; then
		check_known "$(basename "$0" .sh): $1" "${@:2}"
	else
		check "$@"
	fi
}
