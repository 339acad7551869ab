#!/usr/bin/env bash
# Runs a command with a PostgreSQL server to talk to: the one the standard
# PG* variables name (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD) when
# PGHOST or PGPORT is set, else a throwaway cluster that pg_virtualenv
# (Debian's postgresql-common) starts for the command and removes after
# it; that works as root too.
#   tests/pg/with-postgres.sh COMMAND [ARG...]
set -euo pipefail

if [ -n "${PGHOST:-}" ] || [ -n "${PGPORT:-}" ]; then
  exec "$@"
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
# (the data is thrown away); enough connections for the many-writer tests.
exec pg_virtualenv -t -c "-p $port" -o fsync=off -o max_connections=100 "$@"
