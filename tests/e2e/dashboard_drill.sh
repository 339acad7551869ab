#!/usr/bin/env bash
# Panes that follow the selection (k9s drill-down) and the checkpoint
# preview, on a copy of the basic fixture (tests/fixtures/README.md):
#   f   narrows Operations and the Journal to the selected session (the
#       pane's title names it; Esc or f again clears it; Operations stay
#       the selected session's until A);
#   o   sorts Sessions by last update, status, tokens, state (named in the title);
#   at 160 columns and more, the selected session's detail beside the list;
#   Enter on a checkpoint previews it: its messages and the tool calls a
#       rollback would compensate, nothing changed.
. "$(dirname "$0")/lib/tmux.sh" "$@"
fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)
cp -R "$fixtures/basic/." "$ws/"
sums() { (cd "$ws" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
before=$(sums)
S01=5e551000-0000-4000-8000-000000000001

# --- narrowing (120 columns: no side-by-side detail) ---
dashboard 120 40
wait_for "Refactor the JSON parser" >/dev/null
check "narrow: no detail beside the list under 170 columns" absent "Last messages"
keys G          # newest first: session 01 is the last row
keys f
check "narrow: the hint line offers f" bash -c "tmux -L $sock capture-pane -p -t e2e | tail -n 1 | grep -qF 'f follow'"
keys 2
check "narrow: the Operations title names the session" wait_for "Operations — session 5e551000…001"
check "narrow: its file_write is listed" wait_for "src/json_scan.c"
check "narrow: another session's operation is not" absent "README.ja.md"
check "narrow: another session's delete is not" absent "legacy/old_main.c"
keys 4
check "narrow: the Journal title names the session" wait_for "Journal — session 5e551000…001"
check "narrow: its start event is listed" wait_for "File src/json_scan.c created"
check "narrow: another session's event is not" absent "README.ja.md を作成しました"
keys Escape
check "narrow: Esc clears it (the journal shows every session again)" wait_for "README.ja.md を作成しました"
check "narrow: the title no longer names a session" absent "Journal — session"
keys 1
keys g
keys f
keys 2
check "narrow: following the newest session instead" wait_for "legacy/old_main.c"
check "narrow: session 01's operation is gone" absent "src/json_scan.c"
keys 1 f 2
# Operations stay the selected session's (the tiled layout, issue 27): f
# again frees the Journal, A lists every session's operations.
check "narrow: f again stops following" absent "Journal — session"
keys A
check "narrow: A lists every session's operations" wait_for "README.ja.md"
keys A

# --- sorting ---
keys 1 g
check "sort: by last update first (the newest, paused, on top)" \
  bash -c "tmux -L $sock capture-pane -p -t e2e | grep -m1 -E '(▶|‖|✓|✗) (running|paused|completed|failed)' | grep -q paused"
keys o
check "sort: o names status in the title" wait_for "sorted by status"
check "sort: by status the running session is on top" \
  bash -c "tmux -L $sock capture-pane -p -t e2e | grep -m1 -E '(▶|‖|✓|✗) (running|paused|completed|failed)' | grep -q running"
keys o
check "sort: then tokens" wait_for "sorted by tokens"
keys o
check "sort: then state" wait_for "sorted by state"
keys o
check "sort: then last update again" wait_for "sorted by last update"
send q
wait_gone

# --- side by side (170 columns; 160 and fewer: the list alone) ---
dashboard 170 40
wait_for "Refactor the JSON parser" >/dev/null
keys G
check "wide: the selected session's detail beside the list" wait_for "Last messages"
check "wide: its last message" wait_for "The scanner is split out"
check "wide: its id" wait_for "$S01"
keys k
check "wide: the detail follows the cursor" wait_for "5e551000-0000-4000-8000-000000000002"
send q
wait_gone

# --- checkpoint preview ---
dashboard 140 45
wait_for "Refactor the JSON parser" >/dev/null
keys G 3 g
check "preview: the checkpoints of session 01" wait_for "c4ec0000-0000-4000-8000-000000000001"
keys Enter
check "preview: Enter opens it" wait_for "Preview of checkpoint c4ec0000-0000-4000-8000-000000000001"
check "preview: what a rollback keeps and removes" wait_for "keep 5 messages, remove 3"
check "preview: its messages" wait_for "Splitting the scanner out."
check "preview: the tool call a rollback would compensate" wait_for "run_command call toolu_01C"
check "preview: unconfigured compensation said so" wait_for "no rollbackTools entry"
check "preview: it says nothing changed" wait_for "nothing is changed"
keys Escape
check "preview: Esc goes back to the checkpoints" wait_for "3 Checkpoints"
check "preview: closed" absent "Preview of checkpoint"
send q
wait_gone
# With a compensation configured (the user's file is trusted), the command.
mkdir -p "$ws.cfg/agent"
echo '{"rollbackTools":{"run_command":["/bin/echo","undo"]}}' >"$ws.cfg/agent/config.json"
at_exit() { rm -rf "$ws.cfg"; }
prefix="env XDG_CONFIG_HOME=$ws.cfg" dashboard 140 45
wait_for "Refactor the JSON parser" >/dev/null
keys G 3 g Enter
check "preview: the command a rollback would run" wait_for "would run: /bin/echo undo"
send q
wait_gone
check "nothing was written" test "$before" = "$(sums)"
finish
