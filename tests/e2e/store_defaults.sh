#!/usr/bin/env bash
# Issue 25, on the files: the defaults a workspace on PostgreSQL now shares
# with them, from one body (lib/store_defaults.sh): session list --state
# and --all-projects, session create without --tenant, and the empty
# Sessions pane naming where the sessions are. store_defaults_pg.sh runs
# the same on a database.
. "$(dirname "$0")/lib/tmux.sh" "$@"
STORE=files
ac() { "$agentctl" -w "$ws" "$@"; }
empty_text="no sessions yet (.agent/sessions/ is empty or absent)"
prefix=""
at_exit() { rm -rf "$ws.home" "$ws.xdg" "$ws.err"; }
. "$(dirname "$0")/lib/store_defaults.sh"
