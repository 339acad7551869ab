#!/usr/bin/env bash
# The dashboard makes invisible and line-breaking characters from a file
# visible (issue 11 item 13): tag characters, U+2028/2029, soft hyphen,
# combining grapheme joiner and zero-width space show as <U+XXXX>.
. "$(dirname "$0")/lib/tmux.sh" "$@"

# Raw UTF-8 in the file, as an agent's writer would leave it.
printf '{"id":"evt_20250101000000_00000001","timestamp":"2025-01-01T00:00:00.000Z","agent":"Claude","status":"SUCCESS","action":{"type":"CMD_RUN","params":{}},"result":{"message":"t\xf3\xa0\x81\x81 l\xe2\x80\xa8 s\xc2\xad c\xcd\x8f z\xe2\x80\x8b end"}}\n' >"$ws/JOURNAL.jsonl"
mkdir -p "$ws/.agent/sessions"
printf '{"id":"s1","status":"running","task":"task\xf3\xa0\x81\x81 L\xe2\x80\xa8 S\xc2\xad","createdAt":"2025-01-01T00:00:00.000Z","conversationHistory":[{"role":"user","content":"hello\xf3\xa0\x81\x82 \xe2\x80\xa9 x\xcd\x8f"}]}' \
  >"$ws/.agent/sessions/s1.json"
dashboard 160 30
check "tag character shown" wait_for "t<U+E0041>"
check "line separator shown" wait_for "l<U+2028>"
check "soft hyphen shown" wait_for "s<U+00AD>"
check "combining grapheme joiner shown" wait_for "c<U+034F>"
check "zero-width space shown" wait_for "z<U+200B> end"
check "a session's task shows them too" wait_for "task<U+E0041> L<U+2028> S<U+00AD>"
send Enter
check "the conversation shows them too" wait_for "hello<U+E0042> <U+2029> x<U+034F>"
send q
check "q quits" wait_gone
finish
