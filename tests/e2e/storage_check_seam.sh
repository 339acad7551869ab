#!/usr/bin/env bash
# `storage check` reports the store the workspace's seam opens
# (ac_workspace_store_check(), issue 25 item 1), not a guess of its own
# from storage.url: a blank --storage is the files, as every other
# command takes it (on 73d01a4 it said "store: postgresql <session
# folder>", "schema: version 0 (up to date)"), and so is no storage.url.
# Usage: storage_check_seam.sh path/to/agentctl
. "$(dirname "$0")/lib/cli.sh" "$@"
WS=$TMP/ws
mkdir -p "$WS/.agent/sessions"

run storage check
check "no storage.url: the files" grep -qx "store: files in $WS/.agent/sessions" "$TMP/out"
check "exit 0" rc_is 0
run --storage "" storage check
check "a blank --storage: the files, as the commands take it" \
  grep -qx "store: files in $WS/.agent/sessions" "$TMP/out"
check "not versioned" grep -qx "schema: not versioned (the file formats)" "$TMP/out"
check "never called postgresql" eval '! grep -q postgresql "$TMP/out"'
check "exit 0 too" rc_is 0
run --storage "" session create "a task" --id s1
check "and the commands wrote the files" test -f "$WS/.agent/sessions/s1.json"
finish
