#!/usr/bin/env bash
# The team's dashboard on PostgreSQL (issue 25), the real binary in tmux at
# 120x40 and 80x24. A workspace on files (three journal events, two
# sessions) is migrated to the database; its JOURNAL.jsonl stays behind.
#  - From a folder that is no workspace, with only AGENT_STORAGE_URL (or
#    --storage URL): the dashboard opens the fleet (the title names the
#    database), the sessions, the journal, the footer counting 3 events;
#    the operations pane says "no workspace here"; the folder is left as
#    it was (no hook runs: its log would make a workspace there). Without
#    the URL it still refuses, in one line, exit 2.
#  - The Claude Code, Codex and Gemini transcripts of that folder are
#    listed beside the database's sessions; one opens read-only, p refused.
#  - A session quiet for two hours shows idle, not running, and w shows
#    it among the idle ones.
#  - In the migrated workspace (-w) the footer counts 3 events, not the
#    file's and the database's together; idle and the transcripts there too.
# Run by ctest through tests/pg/with-postgres.sh.
# Usage: dashboard_team_pg.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/pg_fleet.sh" team
# The operator's folder, no workspace marker in it, with Claude Code,
# Codex and Gemini transcripts begun there (WS, under a private HOME).
TMP=$ws.src
. "$(dirname "$0")/lib/sources_home.sh"
away=$WS
home=$HOME
cfg=$ws.cfg            # the operator's own config: a hook
at_exit() {
  psql -Atqc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
  rm -rf "$TMP" "$cfg" "$ws.hooked" "$ws.before"
}
mkdir -p "$cfg/agent"
cat >"$cfg/agent/config.json" <<JSON
{"hooks": {"onStatusChange": ["sh", "-c", "echo \"\$AGENT_SESSION_ID \$AGENT_NEW_STATE\" >> '$ws.hooked'"]}}
JSON
export AGENT_CEILING_DIRECTORIES=$(dirname "$ws")
ac() { "$agentctl" -w "$ws" "$@"; }

# ---- the workspace on files, migrated ----
for i in 1 2 3; do
  ac journal log "{\"agent\":\"Codex\",\"status\":\"SUCCESS\",\"action\":{\"type\":\"ANALYSIS\",\"params\":{}},\"result\":{\"message\":\"team event $i\"}}" >/dev/null
done
ac session create "fix the login page" --id s-quiet --tenant acme --user alice --agent claude >/dev/null
ac session create "write the release notes" --id s-busy --tenant acme --user bob --agent codex >/dev/null
ac storage migrate --to "$URL" >/dev/null 2>"$ws.err" || { cat "$ws.err"; exit 1; }
rm -f "$ws.err"
# s-quiet's agent has said nothing for two hours: idle, not running.
sql "UPDATE sessions SET updated_at = now() - interval '2 hours' WHERE id = 's-quiet'" >/dev/null

# ---- a coding agent's transcript of the operator's folder ----
transcript() { # folder id prompt: a Claude Code session begun there
  local cwd proj
  cwd=$(realpath "$1")
  proj=$home/.claude/projects/$(printf %s "$cwd" | sed 's/[^a-zA-Z0-9]/-/g')
  mkdir -p "$proj"
  printf '{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"%s","sessionId":"%s","version":"1.0.98","type":"user","message":{"role":"user","content":"%s"},"uuid":"u1","timestamp":"2025-10-01T10:00:00.000Z"}\n' \
    "$cwd" "$2" "$3" >"$proj/$2.jsonl"
}
transcript "$ws" 7e1a0de0-2222-4333-8444-555566668888 "Review the workspace"
find "$away" | sort >"$ws.before"

from_away() { # W H ENV ARGS: the dashboard started in $away, no -w
  rm -f "$ws.exit"
  new_session -d -s e2e -x "$1" -y "$2" \
    "cd $away && env HOME=$home XDG_CONFIG_HOME=$cfg $3 $agentctl ${4:-}; echo \$? > $ws.exit"
}
footer() { screen | tail -n 2 | head -n 1; }
footer_has() { # text: up to 5 s for it in the status line
  for _ in $(seq 50); do footer | grep -qF -- "$1" && return 0; sleep 0.1; done
  footer; return 1
}

# ---- 120x40: the fleet from a folder that is no workspace ----
from_away 120 40 AGENT_STORAGE_URL=$URL
check "120x40: opens with only AGENT_STORAGE_URL" wait_for "s-quiet"
check "120x40: the title names the database" eval "screen | head -n 1 | grep -qF 'postgresql://'"
check "120x40: every session of the database" wait_for "s-busy"
check "120x40: the footer counts the journal's 3 events" footer_has "3 events seen"
check "120x40: the quiet session is idle" row_has s-quiet idle
check "120x40: the other is running" row_has s-busy running
check "120x40: a Claude Code transcript is listed beside them" row_has "Fix the failing test" claude-code
check "120x40: a Codex one" row_has "${C1:0:8}" codex
check "120x40: a Gemini one" row_has "${G1:0:8}" gemini
keys w
keys w
keys w
check "120x40: w w w: idle only, the quiet session shown" \
  eval 'wait_for "[idle only]" >/dev/null && wait_for s-quiet >/dev/null && absent s-busy'
keys Escape
keys 2
check "120x40: the operations pane says there is no workspace" wait_for "no workspace here"
keys 4
check "120x40: the journal from the database" wait_for "team event 3"
as_host host-b status acme s-busy running paused
keys 1
check "120x40: another host's change shows live" row_has s-busy paused
keys /
send "Fix the failing"
keys Enter
keys p
check "120x40: p on a transcript: refused, read-only source" wait_for "read-only source"
# A reason wider than the status line opens the "Not done" popup, which
# the next key only closes.
if screen | grep -qF "Not done"; then keys Escape; fi
keys Enter
check "120x40: the transcript opens from the database's dashboard" wait_for "(read-only)"
keys Escape
keys Escape
keys q
check "120x40: q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
check "120x40: nothing was written in the folder" eval 'find "$away" | sort | cmp -s - "$ws.before"'
check "120x40: no hook ran (its log would make a workspace there)" [ ! -e "$ws.hooked" ]

# ---- 80x24: the same, one pane at a time ----
from_away 80 24 "" "--storage $URL"
check "80x24: opens with only --storage URL" wait_for "s-quiet"
check "80x24: the footer counts 3 events" footer_has "3 events seen"
check "80x24: the quiet session is idle" row_has s-quiet idle
check "80x24: the transcripts are listed" wait_for "Fix the failing"
keys 2
check "80x24: the operations pane says there is no workspace" wait_for "no workspace here"
keys q
check "80x24: q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'

# ---- no store URL: still refused ----
out=$(cd "$away" && env HOME="$home" "$agentctl" 2>&1 </dev/null)
rc=$?
check "without a store URL: refused, exit 2" [ "$rc" = 2 ]
check "in one line naming the store options" eval '[ "$(wc -l <<<"$out")" = 1 ] && grep -q "AGENT_STORAGE_URL" <<<"$out"'

# ---- the migrated workspace: its journal file is not counted too ----
prefix="env AGENT_STORAGE_URL=$URL HOME=$home"
dashboard 120 40
check "-w: the database's sessions" wait_for "s-quiet"
check "-w: the footer counts 3 events, not 6" footer_has "3 events seen"
check "-w: the quiet session is idle" row_has s-quiet idle
check "-w: the workspace's transcript is listed beside the database's sessions" \
  row_has "Review the workspace" claude-code
keys q
check "-w: q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
finish
