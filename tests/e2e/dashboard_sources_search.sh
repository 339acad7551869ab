#!/usr/bin/env bash
# The Sessions pane's / filter over a coding agent's transcript: a Claude
# Code session (HOME pointed at a private tree, as dashboard_sources.sh
# does) whose 30th message holds the text shows in the row with "#30" and
# the snippet (an escape made visible), a transcript without it is
# filtered out, and Enter opens the transcript's conversation at that
# message. The transcript is never written.
. "$(dirname "$0")/lib/tmux.sh" "$@"
home=$ws.home
cfg=$ws.cfg
at_exit() { rm -rf "$home" "$cfg"; }
id=c1a0de00-1111-4222-8333-444455556677
other=c1a0de00-1111-4222-8333-444455556688
slug=$(printf %s "$ws" | sed 's/[^a-zA-Z0-9]/-/g')
proj=$home/.claude/projects/$slug
mkdir -p "$proj" "$cfg/agent" "$ws/.agent/sessions"
line() { # session type n text: one message entry
  printf '{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"%s","sessionId":"%s","version":"1.0.98","type":"%s","message":{"role":"%s","content":"%s"},"uuid":"u%s","timestamp":"2025-10-01T10:00:%02d.000Z"}\n' \
    "$ws" "$1" "$2" "$2" "$4" "$3" "$3"
}
{
  line "$id" user 1 "Plan the parser rewrite"
  for i in $(seq 2 40); do
    # Lines the search only counts (no message) between the messages.
    printf '{"type":"file-history-snapshot","messageId":"m%s","snapshot":{}}\n' "$i"
    if [ "$i" -eq 30 ]; then line "$id" assistant "$i" 'the ZANZIBAR treasure \u001b[31mmap'
    else line "$id" assistant "$i" "message number $i filler"; fi
  done
} >"$proj/$id.jsonl"
line "$other" user 1 "Another transcript entirely" >"$proj/$other.jsonl"
sum=$(cat "$proj"/*.jsonl | sha256sum)
prefix="env HOME=$home XDG_CONFIG_HOME=$cfg XDG_CACHE_HOME=$cfg/cache"
dashboard 140 30

check "both transcripts listed" eval 'wait_for "Plan the parser rewrite" >/dev/null && wait_for "Another transcript entirely"'
keys /
send z a n z i b a r
check "a transcript's conversation match shows #N and the snippet" wait_for "#30 the ZANZIBAR treasure"
check "its escape sequence is made visible" wait_for "^[[31mmap"
check "a transcript without it is filtered out" absent "Another transcript entirely"
keys Enter
keys Enter
check "Enter opens the transcript's conversation" wait_for "Conversation $id  claude-code"
check "at the matching message" wait_for "assistant  #30"
check "the first messages are scrolled past" absent "message number 2 filler"
check "the transcript was never written" [ "$(cat "$proj"/*.jsonl | sha256sum)" = "$sum" ]
keys Escape
keys Escape
keys Escape
send q
check "q quits" wait_gone
finish
