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
# -t: the cluster in a temporary folder even as root; fsync off, for speed
# (the data is thrown away); enough connections for the many-writer tests.
exec pg_virtualenv -t -o fsync=off -o max_connections=100 "$@"
