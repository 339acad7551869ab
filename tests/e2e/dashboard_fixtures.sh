#!/usr/bin/env bash
# The dashboard on copies of the committed fixture workspaces
# (tests/fixtures/README.md): basic's sessions and journal as the seed
# programs wrote them, and hostile's escapes, OSC title/clipboard/hyperlink
# sequences and bidi controls shown as text, never acted on by the terminal.
. "$(dirname "$0")/lib/tmux.sh" "$@"
fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)
cp -R "$fixtures/basic" "$ws/basic"
cp -R "$fixtures/hostile" "$ws/hostile"
# start DIR: the dashboard on DIR in a fresh tmux session. tmux lets an
# application's OSC 52 set its clipboard (set-clipboard on) before the
# dashboard starts, so a leaked one would show in list-buffers.
start() {
  new_session -d -s e2e -x 160 -y 30 "sleep 60"
  tmux -L "$sock" set -g set-clipboard on
  tmux -L "$sock" respawn-pane -k -t e2e "$agentctl -w $1"
}
quit() {
  send q
  for _ in $(seq 50); do tmux -L "$sock" has-session -t e2e 2>/dev/null || break; sleep 0.1; done
  ! tmux -L "$sock" has-session -t e2e 2>/dev/null
}

# --- basic ---
start "$ws/basic"
check "basic: four sessions, one in each state" wait_for "▶ 1  ‖ 1  ✓ 1  ✗ 1"
check "basic: the CJK task" wait_for "Translate the README to Japanese — 日本語"
check "basic: the journal's Aider event" wait_for "Scanning src/ for dead code… 🔍 (½ done)"
send Enter
check "basic: Enter opens the newest session's conversation" wait_for "Conversation 5e551000-0000-4000-8000-000000000004"
check "basic: its tool call" wait_for "call delete_file (toolu_03A)"
check "basic: q quits" quit

# --- hostile ---
start "$ws/hostile"
check "hostile: the task's escapes shown" \
  wait_for "fix ^[[2J^[[31mRED^[[0m ^[]0;title^G <U+009B>31m c1 <U+202E>txt.exe<U+200B> del^?"
check "hostile: the user's escape shown" wait_for "mallory^[[8m"
check "hostile: the journal's OSC 8 link shown" wait_for "screen ^[]8;;http://evil.example/^[\\link"
check "hostile: bidi and C1 in the journal shown" wait_for "bidi <U+202E>gnp.exe<U+202C> and C1 <U+009B>2J"
check "hostile: the project theme's OSC shown" wait_for "theme 'dark^[]0;owned^G'"
send Enter
check "hostile: OSC 52 in a message shown" wait_for "done ^[]52;c;cHduZWQ=^G (clipboard)"
check "hostile: DCS in a tool result shown" wait_for "result toolu_x: ^[P1\$qm^[\\ dcs"
check "hostile: no OSC set the title" \
  bash -c "! tmux -L $sock display -p -t e2e '#{pane_title}' | grep -qE 'title|owned'"
check "hostile: no OSC 52 reached the clipboard" \
  bash -c "[ -z \"\$(tmux -L $sock list-buffers 2>/dev/null)\" ]"
check "hostile: q quits" quit
finish
