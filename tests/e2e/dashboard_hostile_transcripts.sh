#!/usr/bin/env bash
# Drives the real dashboard in tmux over a hostile Claude Code project
# folder: a transcript whose file name (the id `claude --resume` takes)
# reads as an option, whose prompt holds an OSC title, CSI colours, C1,
# a bidi override and a NUL, beside a line of invalid UTF-8, a 10 MB line
# and a deeply nested one; links to /dev/zero and outside, a FIFO, named
# like transcripts, and a copy whose name is not UTF-8 (said as not read;
# before, it hid every transcript). The dashboard lists the one transcript, shows its text
# with the escapes visible (the terminal's title is untouched), stays
# responsive, and `a` refuses to hand the id to the resume command. A
# second transcript's cwd climbs out of the workspace ("<ws>/x/../../out"
# passes a prefix test): `a` resumes it in the workspace, not there.
. "$(dirname "$0")/lib/tmux.sh" "$@"
home=$ws.home
cfg=$ws.cfg
at_exit() { rm -rf "$home" "$cfg" "$ws.resumed" "$ws.outside" "$ws.out" "$ws.pwn" "$ws.cache"; }
id=--dangerously-skip-permissions
slug=$(printf %s "$ws" | sed 's/[^a-zA-Z0-9]/-/g')
proj=$home/.claude/projects/$slug
mkdir -p "$proj" "$cfg/agent" "$ws/.agent/sessions"
cat >"$cfg/agent/config.json" <<JSON
{"sources": {"claude": {"resumeCommand": ["sh", "-c", "echo \"\$1 \$(pwd)\" > '$ws.resumed'", "sh", "{id}"]}}}
JSON
{
  printf '{"cwd":"%s","sessionId":"x","type":"user","message":{"role":"user","content":"Hostile \\u001b]0;PWNED\\u0007 \\u001b[31mred\\u001b[0m \\u009b31m \\u202eevil\\u202c nul\\u0000 end"},"uuid":"u1","timestamp":"2025-10-01T10:00:00.000Z"}\n' "$ws"
  # Invalid UTF-8: jansson refuses the line; it is skipped and counted.
  printf '{"type":"user","message":{"role":"user","content":"bad\xff\xfe"},"timestamp":"2025-10-01T10:00:00.500Z"}\n'
  # A tool call whose name writes the clipboard (OSC 52) and whose input
  # asks the terminal to answer (DSR): both must show as text.
  printf '{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash\\u001b]52;c;aGk=\\u0007","input":{"command":"ask\\u001b[6n"}}]},"timestamp":"2025-10-01T10:00:00.700Z"}\n'
  printf '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"done"}]},"timestamp":"2025-10-01T10:00:00.800Z"}\n'
  printf '{"type":"assistant","message":{"role":"assistant","content":"'; head -c 10485760 /dev/zero | tr '\0' x; printf '"},"timestamp":"2025-10-01T10:00:01.000Z"}\n'
  printf '%0.s[' $(seq 100000); printf '\n'
} >"$proj/$id.jsonl"
good=c1a0de00-1111-4222-8333-444455556666
mkdir -p "$ws/x" "$ws.out"
printf '{"cwd":"%s","sessionId":"%s","type":"user","message":{"role":"user","content":"Climbs out"},"uuid":"u9","timestamp":"2025-10-02T10:00:00.000Z"}\n' \
  "$ws/x/../../$(basename "$ws").out" "$good" >"$proj/$good.jsonl"
echo secret >"$ws.outside"
# A name that is not UTF-8: left out and said, the others still listed.
cp "$proj/$good.jsonl" "$proj/$(printf '\xff\xfe').jsonl"
ln -s /dev/zero "$proj/zero.jsonl"
ln -s "$ws.outside" "$proj/outside.jsonl"
mkfifo "$proj/fifo.jsonl"
prefix="env HOME=$home XDG_CONFIG_HOME=$cfg XDG_CACHE_HOME=$ws.cache"
dashboard 160 30

check "the dashboard lists the hostile transcript" wait_for "claude-code"
check "its prompt with the escapes made visible" wait_for "Hostile ^[]0;PWNED^G ^[[31mred"
check "no raw escape reached the terminal (title untouched)" \
  eval '! tmux -L "$sock" display -p -t e2e "#{pane_title}" | grep -q PWNED'
check "no colour escape drew the word red in red" \
  eval '! tmux -L "$sock" capture-pane -e -p -t e2e | grep -q $'"'"'\e\[31mred'"'"
check "the links and the FIFO are not listed (two transcripts)" \
  eval '[ "$(screen | grep -c claude-code)" = 2 ]'
check "the newer one, climbing out, first" wait_for "Climbs out"
check "the file named in bytes that are not UTF-8 is said, escaped, not listed" \
	eval "wait_for '1 coding-agent transcript not read: ' >/dev/null && wait_for '\\xFF\\xFE.jsonl'"
keys a
for _ in $(seq 50); do [ -s "$ws.resumed" ] && break; sleep 0.1; done
check "a resumes it in the workspace, not outside" grep -qx "$good $ws" "$ws.resumed"
rm -f "$ws.resumed"
keys j
keys a
check "a refuses an id that reads as an option" wait_for "not resumed"
check "the resume command never ran" [ ! -e "$ws.resumed" ]
keys Escape # the refusal's popup
keys Enter
check "Enter opens the conversation, escapes visible" wait_for "^[]0;PWNED^G"
check "a tool name's OSC 52 and an input's DSR shown as text" \
  eval 'wait_for "^[]52;c;aGk=^G" >/dev/null && wait_for "ask\\u001B[6n"'
keys Escape
# A filter is text to match, never a command or a pattern a shell sees.
keys /
send -l "\$(touch $ws.pwn);\`touch $ws.pwn\`*[(.+)+]Hostile"
keys Enter
check "a filter of shell and regex metacharacters matches nothing, runs nothing" \
  eval 'wait_for "nothing matches the filter" >/dev/null && [ ! -e "$ws.pwn" ]'
keys Escape
check "Esc clears it: both rows again" wait_for "Climbs out"
keys q
check "q quits with status 0" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
finish
