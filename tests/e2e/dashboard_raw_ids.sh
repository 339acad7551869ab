#!/usr/bin/env bash
# A session id is its bytes, shown escaped (issue 23 item 6): another
# program's session "evil<ESC>[0mX" and a session whose id is that id's
# display text "evil^[[0mX" look the same on screen, yet p on the first
# pauses the first only, and hooks.onStatusChange gets the raw bytes in
# {id} and AGENT_SESSION_ID. The command line acts on such an id too.
# dashboard_raw_ids_pg.sh is the same on a PostgreSQL store.
. "$(dirname "$0")/lib/tmux.sh" "$@"
export XDG_CONFIG_HOME=$ws.state/xdg
out=$ws.state/hook.out
evil=$(printf 'evil\033[0mX')
shown='evil^[[0mX'
mkdir -p "$ws/.agent/sessions" "$XDG_CONFIG_HOME/agent"
# The user's config is trusted: its hook writes its argument and
# environment, byte for byte, to a file.
cat > "$XDG_CONFIG_HOME/agent/config.json" <<JSON
{"hooks": {"onStatusChange": ["sh", "-c", "printf '%s|%s|%s\\\\n' \"\$1\" \"\$AGENT_SESSION_ID\" \"\$2\" >> $out", "hook", "{id}", "{new}"]}}
JSON
# Written as another program's writer would: the file name is the id. The
# escape-byte one is the newer, so it is the first row.
put() { # id updatedAt
  jq -n --arg id "$1" --arg at "$2" '{id: $id, createdAt: $at, updatedAt: $at, task: "look-alike",
    status: "running", conversationHistory: [], metadata: {}}' > "$ws/.agent/sessions/$1.json"
}
put "$evil" 2025-01-02T00:00:00.000Z
put "$shown" 2025-01-01T00:00:00.000Z
status_of() { jq -r .status "$ws/.agent/sessions/$1.json"; }
wait_status() { # id status: up to 10 s for the file to say so
  for _ in $(seq 100); do [ "$(status_of "$1")" = "$2" ] && return 0; sleep 0.1; done
  return 1
}

dashboard 120 30
check "the sessions are listed" wait_for "look-alike"
check "both rows are listed, escaped" eval '[ "$(screen | grep -cF "evil^[[0…")" -ge 2 ]'
check "no escape byte reaches the screen" eval '! screen | grep -q "$(printf "\033")"'
keys g
keys p
check "p asks about the selected row" wait_for "Pause session $shown?"
keys y
check "p paused the escape-byte session (its file)" wait_status "$evil" paused
sleep 1
check "the look-alike session stayed running (its file)" [ "$(status_of "$shown")" = running ]
check "no stray session file was written" [ "$(ls "$ws/.agent/sessions" | grep -c '\.json$')" -eq 2 ]
wait_hook() { for _ in $(seq 50); do [ -s "$out" ] && return 0; sleep 0.1; done; return 1; }
check "the hook ran" wait_hook
check "the hook got the raw id in {id} and AGENT_SESSION_ID" \
  [ "$(head -n 1 "$out" 2>/dev/null)" = "$evil|$evil|paused" ]
check "the hook ran for that session only" [ "$(wc -l < "$out")" -eq 1 ]
send q
check "q quits" wait_gone

# The command line: the id as typed, its bytes; the output escaped.
resume_out=$("$agentctl" -w "$ws" session resume "$evil" 2>&1)
check "session resume ID takes the raw id" [ "$(status_of "$evil")" = running ]
check "and says so escaped" [ "$resume_out" = "session $shown resumed" ]
check "the look-alike is untouched" [ "$(status_of "$shown")" = running ]
"$agentctl" -w "$ws" session pause "$shown" >/dev/null
check "session pause of the display text pauses that session only" \
  eval '[ "$(status_of "$shown")" = paused ] && [ "$(status_of "$evil")" = running ]'
show_out=$("$agentctl" -w "$ws" session show "$evil" 2>&1)
check "session show ID finds the raw id, shown escaped" \
  eval 'printf "%s\n" "$show_out" | grep -q "^status *running" && ! printf "%s" "$show_out" | grep -q "$(printf "\033")"'

# The longest id a session file can have (AC_SESSION_ID_MAX, 228 bytes):
# the selection kept its first 191 bytes and the row was "not listed".
long=$(printf 'L%.0s' $(seq 228))
put "$long" 2099-01-01T00:00:00.000Z # the newest: the first row
dashboard 120 30
check "the longest id is listed" wait_for "LLLLLLLL"
keys g
keys p
check "p asks about it" eval 'wait_for "Pause session" >/dev/null && screen | grep -q "^ *│ *LLLLLLLLLLLLLLLLLLLL"'
keys y
check "p paused the session with the longest id" wait_status "$long" paused
send q
check "q quits" wait_gone
finish
