#!/usr/bin/env bash
# Runs a command with a PostgreSQL server to talk to:
# - the one the standard PG* variables name (PGHOST, PGPORT, PGDATABASE,
#   PGUSER, PGPASSWORD) when PGHOST or PGPORT is set;
# - else, when AC_PG_ENV names the file of a cluster that ctest's fixture
#   started (tests/pg/cluster.sh), that cluster, with a database of the
#   command's own (PGDATABASE; dropped after it), so tests run in parallel;
# - else (or with --own: a test that stops or restarts servers, terminates
#   other sessions, or creates roles) a throwaway cluster that pg_virtualenv
#   (Debian's postgresql-common) starts for the command and removes after
#   it; that works as root too.
#   tests/pg/with-postgres.sh [--own] COMMAND [ARG...]
set -euo pipefail

own=false
if [ "${1:-}" = --own ]; then
  own=true
  shift
fi
if [ -n "${PGHOST:-}" ] || [ -n "${PGPORT:-}" ]; then
  exec "$@"
fi
if ! $own && [ -n "${AC_PG_ENV:-}" ] && [ -s "$AC_PG_ENV" ]; then
  # shellcheck disable=SC1090
  . "$AC_PG_ENV"
  db=ac_test_$$_${RANDOM}
  PGDATABASE=postgres psql -Atq -v ON_ERROR_STOP=1 -c "CREATE DATABASE $db" >/dev/null
  export PGDATABASE=$db
  trap 'PGDATABASE=postgres psql -Atqc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1' EXIT
  rc=0
  "$@" || rc=$?
  exit "$rc"
fi
if ! command -v pg_virtualenv >/dev/null 2>&1; then
  echo "with-postgres: pg_virtualenv not found: run scripts/install-deps.sh (postgresql, postgresql-common)" >&2
  exit 1
fi
# A port no server listens on: pg_createcluster's default (5432 and up)
# collides with a server the developer runs, or another test's cluster
# started in the same moment ("Port conflict"). The kernel hands out an
# unused one; the gap before the cluster binds it is a few milliseconds.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# -t: the cluster in a temporary folder even as root; fsync off, for speed
# (the data is thrown away); enough connections for the many-writer tests
# (and, for ctest's shared cluster, for two of them at once).
exec pg_virtualenv -t -c "-p $port" -o fsync=off -o max_connections=200 "$@"
