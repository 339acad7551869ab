#!/usr/bin/env bash
# The PostgreSQL store against the file store (bench_backend_pg):
#   appends per second with 8 writer processes, files and PostgreSQL doing
#   the same work (each writer its own session; then one shared trace);
#   listing 100,000 sessions from PostgreSQL (inspector and user lister).
# The server: the one PG* variables name, else a throwaway cluster from
# pg_virtualenv with fsync on and synchronous commit (the defaults of a real
# server).
#   bench/backend_pg.sh [BUILD_DIR] [WRITERS] [COUNT] [SESSIONS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-$here/../build-rel}")
writers=${2:-8}
count=${3:-500}
sessions=${4:-100000}
data=$here/data/backend_pg
mkdir -p "$data"

if [ -z "${PGHOST:-}${PGPORT:-}" ]; then
  # The server's defaults, fsync on: pg_virtualenv turns it off unless told.
  exec pg_virtualenv -t -o fsync=on "$0" "$build" "$writers" "$count" "$sessions"
fi
bench=$build/bench_backend_pg
url="application_name=bench_backend_pg"
# What the file store promises by default (journal.fsync never: an OS crash
# may lose the last appends, never tear one) is synchronous_commit=off.
url_async="$url options='-c synchronous_commit=off'"
runs=${RUNS:-5}
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg); PostgreSQL $(psql -Atc 'show server_version'), fsync=$(psql -Atc 'show fsync')"
out=$data/appends.txt
: >"$out"
for run in $(seq "$runs"); do
  rm -rf "$data/fs"
  "$bench" appends fs "$data/fs" "$writers" "$count" | sed 's/^/files /' >>"$out"
  psql -Atqc 'DROP SCHEMA IF EXISTS bench_appends CASCADE' 2>/dev/null
  "$bench" appends pg "$url" "$writers" "$count" | sed 's/^/pg-sync /' >>"$out"
  psql -Atqc 'DROP SCHEMA IF EXISTS bench_appends CASCADE' 2>/dev/null
  "$bench" appends pg "$url_async" "$writers" "$count" | sed 's/^/pg-async /' >>"$out"
done
rm -rf "$data/fs"
# Medians of the runs, per store.
for store in files pg-sync pg-async; do
  for field in messages_per_second traces_per_second; do
    printf '%s %s median of %s: ' "$store" "$field" "$runs"
    grep "^$store " "$out" | sed -n "s/.*$field=\([0-9]*\).*/\1/p" | sort -n |
      awk '{v[NR]=$1} END {print v[int((NR+1)/2)] " (runs: " v[1] ".." v[NR] ")"}'
  done
done
"$bench" list pg "$url" "$sessions" 21
