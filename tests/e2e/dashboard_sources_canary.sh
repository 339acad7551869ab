#!/usr/bin/env bash
# The format-drift canary in the dashboard's message log: a Claude Code
# transcript with a record of a type the reader does not know and, in its
# project folder, a transcript-like file no reader takes. The log (L) says
# both once; when a second unknown record is appended the new counts are
# said once more, not again on each refresh.
. "$(dirname "$0")/lib/tmux.sh" "$@"
home=$ws.home
at_exit() { rm -rf "$home"; }
id=c1a0de00-1111-4222-8333-444455556677
slug=$(printf %s "$ws" | sed 's/[^a-zA-Z0-9]/-/g')
proj=$home/.claude/projects/$slug
mkdir -p "$proj" "$ws/.agent/sessions"
line() { # type uuid timestamp
  printf '{"parentUuid":null,"isSidechain":false,"cwd":"%s","sessionId":"%s","type":"%s","message":{"role":"user","content":"Refactor the tokenizer"},"uuid":"%s","timestamp":"%s"}\n' \
    "$ws" "$id" "$1" "$2" "$3"
}
line user u1 2025-10-01T10:00:00.000Z >"$proj/$id.jsonl"
line world_state u2 2025-10-01T10:00:01.000Z >>"$proj/$id.jsonl"
printf '{}\n' >"$proj/session-2026-06-01.ndjson"
prefix="env HOME=$home"
dashboard 160 30

check "the session lists" wait_for "Refactor the tokenizer"
keys L
check "L: the log names the record type skipped" wait_for "claude: 1 record of type world_state skipped"
check "and the file not read, by pattern" wait_for "claude: 1 session-*.ndjson not read"
keys L
line world_state u3 2025-10-01T10:00:02.000Z >>"$proj/$id.jsonl"
sleep 1.5
keys L
check "an append: the new count is said" wait_for "claude: 2 records of type world_state skipped"
check "each change once, not on every refresh" \
  eval '[ "$(screen | grep -c "formats not read")" = 2 ]'
keys L
keys q
check "q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
finish
