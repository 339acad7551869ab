#!/usr/bin/env bash
# The short version of the torture tests (tests/torture/run.sh --short):
# journal writers killed mid-append, sessions killed mid-save, a full
# disk, and the dashboard under rotation and inotify overflow.
# Usage: torture_short.sh path/to/agentctl (torture_writer is beside it).
set -u
exec bash "$(dirname "$0")/../torture/run.sh" --short "${1:?usage: torture_short.sh path/to/agentctl}"
