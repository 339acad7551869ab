#!/usr/bin/env bash
# dashboard_attention.sh on the PostgreSQL store (STORE=pg: lib/store.sh makes the
# script a database of its own). Needs a server from the PG* variables:
# ctest runs it through tests/pg/with-postgres.sh.
# Usage: dashboard_attention_pg.sh path/to/agentctl
STORE=pg exec bash "$(dirname "$0")/dashboard_attention.sh" "$@"
