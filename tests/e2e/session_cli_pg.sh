#!/usr/bin/env bash
# session_cli.sh on the PostgreSQL store (STORE=pg: lib/store.sh makes the
# script a database of its own). Needs a server from the PG* variables:
# ctest runs it through tests/pg/with-postgres.sh.
# Usage: session_cli_pg.sh path/to/agentctl
STORE=pg exec bash "$(dirname "$0")/session_cli.sh" "$@"
