#!/usr/bin/env bash
# One PostgreSQL cluster for a whole ctest run (its pg_cluster fixture):
#   tests/pg/cluster.sh start ENVFILE   starts it (pg_virtualenv, through
#       with-postgres.sh --own) and writes its PG* variables to ENVFILE;
#       it stays up until `stop`, or until the process that ran `start`
#       (ctest) is gone, so an interrupted run leaves no server behind
#   tests/pg/cluster.sh stop ENVFILE    stops it and removes ENVFILE
# with-postgres.sh, given AC_PG_ENV=ENVFILE, gives each test a database of
# its own on it, so PostgreSQL tests run in parallel. With PGHOST or PGPORT
# set (the developer's server) nothing is started: the tests use that one.
# Without pg_virtualenv, start writes no ENVFILE and succeeds: each test
# then says what is missing, as with-postgres.sh alone does.
set -uo pipefail
cmd=${1:?usage: cluster.sh start|stop ENVFILE}
envfile=${2:?usage: cluster.sh start|stop ENVFILE}
here=$(cd "$(dirname "$0")" && pwd)

stop() {
	local pid
	touch "$envfile.stop"
	if pid=$(cat "$envfile.pid" 2>/dev/null) && [ -n "$pid" ]; then
		# pg_virtualenv drops the cluster once its command returns.
		for _ in $(seq 1 600); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			echo "cluster.sh: the cluster's pg_virtualenv ($pid) did not end: stopping it" >&2
			kill -TERM "$pid" 2>/dev/null
		fi
	fi
	rm -f "$envfile" "$envfile.pid" "$envfile.stop"
}

case $cmd in
start)
	[ -e "$envfile.pid" ] && stop
	rm -f "$envfile" "$envfile.stop"
	if [ -n "${PGHOST:-}" ] || [ -n "${PGPORT:-}" ]; then
		exit 0
	fi
	command -v pg_virtualenv >/dev/null 2>&1 || exit 0
	owner=$PPID
	# The cluster's command: publish its variables, then wait for stop (or
	# for the owner to go). All its output goes to a log, so ctest does not
	# wait on it.
	setsid bash "$here/with-postgres.sh" --own bash -c '
		export -p | grep -E "^declare -x PG[A-Z_]*=" >"$1.tmp" && mv "$1.tmp" "$1"
		while [ ! -e "$1.stop" ] && kill -0 "$2" 2>/dev/null; do sleep 0.5; done
		rm -f "$1"' \
		_ "$envfile" "$owner" >"$envfile.log" 2>&1 </dev/null &
	echo $! >"$envfile.pid"
	for _ in $(seq 1 1200); do
		[ -s "$envfile" ] && exit 0
		kill -0 "$(cat "$envfile.pid")" 2>/dev/null || break
		sleep 0.1
	done
	echo "cluster.sh: no cluster came up:" >&2
	cat "$envfile.log" >&2
	stop
	exit 1
	;;
stop) stop ;;
*)
	echo "cluster.sh: start or stop, not '$cmd'" >&2
	exit 2
	;;
esac
