#!/usr/bin/env bash
# Drives the real dashboard in tmux: sessions and the journal at startup,
# a journal append showing up live, pause and resume by key (the session
# file changes), a hostile task shown escaped, wide characters, the
# compact dialog cancelled, an operation rolled back by key through its
# dialog, --read-only refusing actions, a resize, and q quitting with exit
# status 0. On either store (lib/store.sh: STORE=files|pg;
# dashboard_live_pg.sh is the database's run): there the hand-written
# sessions go in by `storage migrate`, and pause and resume are read back
# from the store's document.
# Usage: [STORE=pg] dashboard_live.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
wait_file() { # file text: waits up to 5 s for text in file
  for _ in $(seq 50); do grep -qF -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  cat "$1"; return 1
}
doc_has() { # id text: waits up to 5 s for text in the session's document
  for _ in $(seq 50); do doc_of "$1" 2>/dev/null | grep -qF -- "$2" && return 0; sleep 0.1; done
  doc_of "$1"; return 1
}
start() { dashboard 100 30 "$@"; } # args...: the dashboard, exit status to $ws.exit
quit() {
  keys q
  wait_exit
}
session() { # id status task
  cat > "$ws/.agent/sessions/$1.json" <<JSON
{"id":"$1","createdAt":"2024-05-0${4:-1}T10:00:00.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"$3","status":"$2","conversationHistory":[{"role":"user","content":"Fix the bug"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a.c"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"int main;"}]}],"metadata":{"userId":"alice","agentId":"Claude"}}
JSON
}
event() { # agent message
  printf '{"agent":"%s","status":"SUCCESS","action":{"type":"FILE_EDIT","params":{}},"result":{"message":"%s"}}' "$1" "$2"
}

mkdir -p "$ws/.agent/sessions"
session s-alpha running "修复登录 🚀 alpha task" 1
session s-evil paused 'evil \u001b]0;pwned\u0007 task' 2
store_seed acme || exit 1
# The database's updated_at is the document's (2024), not a file's write
# time (now, which keeps s-alpha running rather than idle on files): now.
on_pg && store_sql "UPDATE sessions SET updated_at = now()" >/dev/null
"$agentctl" -w "$ws" journal log "$(event Claude 'first event from Claude')" >/dev/null

# A git workspace with one recorded operation, to roll back by key.
git -C "$ws" init -q && git -C "$ws" config user.email t@t && git -C "$ws" config user.name t
echo before > "$ws/file.txt"
git -C "$ws" add file.txt && git -C "$ws" commit -qm base
echo after > "$ws/file.txt"
git -C "$ws" add file.txt && git -C "$ws" commit -qm change
hash=$(git -C "$ws" rev-parse HEAD)
printf '{"id":"11111111-2222-4333-8444-555555555555","timestamp":"2024-05-01T10:00:00.000Z","sessionId":"s-alpha","type":"file_write","details":{"path":"file.txt"},"gitCommitHash":"%s"}\n' "$hash" > "$ws/.agent/operations.jsonl"

start
check "sessions listed with status symbols" wait_for "▶ running    s-alpha"
check "a paused session shows ‖" wait_for "‖ paused     s-evil"
check "the journal strip shows events" wait_for "first event from Claude"
check "a hostile task is shown escaped" wait_for "evil ^[]0;pwned^G task"
check "CJK and emoji are shown" wait_for "修复登录 🚀 alpha task"
"$agentctl" -w "$ws" journal log "$(event Gemini 'a live event arrives')" >/dev/null
check "a journal append shows up live" wait_for "a live event arrives"

# s-evil is newest (created later): it is the first row. Move to s-alpha.
keys j
keys p
check "p asks first" wait_for "Pause session s-alpha?"
# The agent reads a pause request file, or the store's status (any host).
told="a pause request is left for the agent"
on_pg && told="its agent, on whichever host, reads the status from the store"
check "and says what the agent gets" wait_for "$told"
keys y
check "p pauses the selected session (file)" doc_has s-alpha '"status": "paused"'
check "the pause shows on screen" wait_for "‖ paused     s-alpha"
# The row can show the file's new status before the pause's job has
# ended; a write key pressed meanwhile is refused ("still running: wait
# for it"), as one action runs at a time. Its outcome ends it.
check "... and the pause has ended" wait_for " paused s-alpha"
keys r
check "r asks first" wait_for "Resume session s-alpha?"
keys y
check "r resumes it (file)" doc_has s-alpha '"status": "running"'
check "the resume is journaled and shown" wait_for "SESSION_RESUME"
check "... and the resume has ended" wait_for " resumed s-alpha"

keys Enter
check "Enter opens the conversation" wait_for "Conversation s-alpha"
check "tool calls are shown as such" wait_for "→ call read_file (t1)"
check "tool results are shown as such" wait_for "← result t1: int main;"
keys Escape
check "Esc goes back" wait_for "1 Sessions"

keys c
check "c opens the compact dialog" wait_for "messages to summarise"
keys n
check "n cancels it" wait_for "cancelled; nothing was changed"

keys 2
check "operations are listed" wait_for "file_write"
keys R
check "R opens the rollback dialog with the files" wait_for "change  file.txt"
keys y
check "y rolls back (file restored)" wait_file "$ws/file.txt" before
check "the result is on the status line" wait_for "rolled back to before"

keys /
keys -l zzz
check "the filter hides everything" wait_for "nothing matches the filter"
keys Escape
keys '?'
# A line high in the help: the table grows (the tree keys pushed R below 30 rows).
check "? shows the help" wait_for "sort by last update, status, tokens, state"
keys Escape

tmux -L "$sock" resize-window -t e2e -x 80 -y 24
keys 1
check "a resize redraws at 80x24" wait_for "1 Sessions"
tmux -L "$sock" resize-window -t e2e -x 140 -y 40
check "a resize to 140x40 redraws" wait_for "USER/AGENT"
quit
check "q quits with status 0" grep -qx 0 "$ws.exit"

start --read-only
check "read-only is announced" wait_for "READ-ONLY"
keys p
check "read-only refuses actions" wait_for "read-only: actions are disabled"
check "nothing changed" eval 'doc_of s-alpha | grep -qE "\"status\": ?\"running\""'
quit
check "q quits the read-only dashboard" grep -qx 0 "$ws.exit"

prefix="env NO_COLOR=1" start --theme monochrome
check "NO_COLOR and a theme start" wait_for "1 Sessions"
keys t
check "t cycles the theme" wait_for "theme: "
quit

start --theme no-such-theme
check "a missing theme is an error, the default is used" wait_for "theme 'no-such-theme'"
quit

finish
