#!/usr/bin/env bash
# Checkpoint and operation ids are their bytes too (issue 23 item 6, as
# dashboard_raw_ids.sh for sessions): a checkpoint "c<ESC>" and one whose
# id is its display text "c^[" look the same, yet R and Enter on the
# first row act on the first one; the same for an operation "o<ESC>" in
# .agent/operations.jsonl beside an "o^[". Before, the rows kept only the
# display form, so R on "c<ESC>" rolled the session back to "c^[".
. "$(dirname "$0")/lib/tmux.sh" "$@"
export XDG_CONFIG_HOME=$ws.state/xdg
a=$agentctl
S=$ws/.agent/sessions
msgs() { jq '.conversationHistory | length' "$S/s1.json"; }
add() { for i in "$@"; do "$a" -w "$ws" session append s1 "{\"role\":\"user\",\"content\":\"m$i\"}" >/dev/null; done; }
"$a" -w "$ws" session create t --id s1 >/dev/null
add 1
"$a" -w "$ws" checkpoint create s1 --id 'c^[' >/dev/null      # version 1: 1 message
add 2 3 4
# version 2: 4 messages. agentctl makes no new id with a control byte
# (checkpoint create --id refuses it); another program's file may hold one.
"$a" -w "$ws" checkpoint create s1 --id c-esc >/dev/null
esc=$(printf 'c\033')
jq --arg id "$esc" '.checkpointId = $id' "$ws/.agent/checkpoints/s1/c-esc.json" >"$ws/.agent/checkpoints/s1/$esc.json"
rm "$ws/.agent/checkpoints/s1/c-esc.json"
add 5 6
check "two checkpoints that look the same" \
  [ "$("$a" -w "$ws" checkpoint list s1 | grep -c ' c^\[ ')" -eq 2 ]

dashboard 120 30
wait_for "s1" >/dev/null
keys 1 g 3 g j
check "the second row (c<ESC>, version 2) is selected" wait_for "of s1  2/2"
keys Enter
check "Enter previews the selected checkpoint (version 2, 4 messages)" wait_for "m4"
keys Escape
keys R
check "R plans the selected checkpoint, not its look-alike" wait_for "(version 2)?"
check "keeping its 4 messages" wait_for "messages: keep 4, remove 2"
keys y
check "y rolls back to it" wait_for "rolled back session s1 to checkpoint"
check "the session has the checkpoint's 4 messages" [ "$(msgs)" = 4 ]
send q
check "q quits" wait_gone

# Operations: o^[ (the first row) names the older commit, o<ESC> the newer.
git -C "$ws" init -q && git -C "$ws" config user.email t@t && git -C "$ws" config user.name t
echo one >"$ws/file.txt"; git -C "$ws" add file.txt && git -C "$ws" commit -qm one
old=$(git -C "$ws" rev-parse HEAD)
echo two >"$ws/file.txt"; git -C "$ws" commit -qam two
new=$(git -C "$ws" rev-parse HEAD)
echo three >"$ws/file.txt"; git -C "$ws" commit -qam three
jq -nc --arg id 'o^[' --arg c "$old" '{id: $id, timestamp: "2024-05-01T10:00:00.000Z", sessionId: "s1",
  type: "file_write", details: {path: "file.txt"}, gitCommitHash: $c}' >"$ws/.agent/operations.jsonl"
jq -nc --arg id "$(printf 'o\033')" --arg c "$new" '{id: $id, timestamp: "2024-05-01T11:00:00.000Z",
  sessionId: "s1", type: "file_write", details: {path: "file.txt"}, gitCommitHash: $c}' >>"$ws/.agent/operations.jsonl"
dashboard 120 30
wait_for "s1" >/dev/null
keys 2 g
check "the first row (o<ESC>, the newer: newest first) is selected" wait_for "Operations — session s1  1/2"
keys Enter
check "Enter on o<ESC> opens its own patch (the newer commit)" wait_for "commit ${new:0:12}"
keys Escape
keys R
check "R on o<ESC> plans that operation: back to before it, file.txt changes" \
  wait_for "0 to remove, 0 to restore, 1 to change"
keys y
for _ in $(seq 50); do [ "$(cat "$ws/file.txt" 2>/dev/null)" != three ] && break; sleep 0.1; done
check "the file is as it was before o<ESC> (one), not removed" [ "$(cat "$ws/file.txt" 2>/dev/null)" = one ]
send q
check "q quits" wait_gone
finish
