#!/usr/bin/env bash
# Every printable key, typed in every pane and every conversation tab (and
# in the help screen, the message log, an operation's patch, a checkpoint's
# preview, an event in full and the journal search line), without
# confirming anything, changes no file: a key
# means what the pane's hints say or nothing, and while a filter line is
# open no key is a command. The hint lines of two panes, and keys pressed
# where they do not apply changing nothing on screen. Also the reported case: "/policy" typed in the
# Messages tab filters the messages (it used to pause the session, open a
# compaction and confirm it).
. "$(dirname "$0")/lib/tmux.sh" "$@"
# What must not change: every file but git's object store (a rollback's
# dry run, behind `R`, may add blobs there; no ref, index or file moves).
sums() { (cd "$ws" && find . -path ./.git/objects -prune -o -type f -print0 | sort -z |
  xargs -0 sha256sum); }

S=$ws/.agent/sessions
mkdir -p "$S"
for id in s-one s-two; do
  cat >"$S/$id.json" <<JSON
{"id":"$id","createdAt":"2024-05-01T10:00:00.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"task $id","status":"running","conversationHistory":[{"role":"user","content":"about the policy"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a.c"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"int main;"}]},{"role":"assistant","content":"unrelated words"}],"metadata":{"userId":"alice","agentId":"Claude","tenantId":"t"}}
JSON
done
"$agentctl" -w "$ws" checkpoint create s-one >/dev/null
"$agentctl" -w "$ws" journal log '{"agent":"Claude","status":"SUCCESS","action":{"type":"FILE_EDIT","params":{}},"result":{"message":"an event"}}' >/dev/null
git -C "$ws" init -q && git -C "$ws" config user.email t@t && git -C "$ws" config user.name t
echo before >"$ws/file.txt"
git -C "$ws" add file.txt && git -C "$ws" commit -qm base
echo after >"$ws/file.txt"
git -C "$ws" add file.txt && git -C "$ws" commit -qm change
printf '{"id":"11111111-2222-4333-8444-555555555555","timestamp":"2024-05-01T10:00:00.000Z","sessionId":"s-one","type":"file_write","details":{"path":"file.txt"},"gitCommitHash":"%s"}\n' \
  "$(git -C "$ws" rev-parse HEAD)" >"$ws/.agent/operations.jsonl"
touch -d '-1 min' "$S"/*.json
before=$(sums)

dashboard 120 32
wait_for "s-one" >/dev/null

# The reported case first.
send 1 g Enter
check "Enter opens the conversation" wait_for "Conversation s-"
send -l "/policy"
check "/ opens a filter in the Messages tab" wait_for "filter: policy_"
send Enter
check "the filter keeps the matching message" wait_for "about the policy"
check "and hides the others" bash -c "! tmux -L $sock capture-pane -p -t e2e | grep -q 'unrelated words'"
# The filter kept is named in the title, as the lists' titles name theirs
# (it was shown nowhere once the line closed: messages just went missing).
check "the title names the filter kept" bash -c "tmux -L $sock capture-pane -p -t e2e | sed -n 2p | grep -qF '/policy  Esc: back'"
send Escape Escape Escape

# The hint line is the key table's for the pane in use, and a key where it
# does not apply does nothing: s (Sessions only) in Operations, R
# (Operations, Checkpoints) and ] (a conversation) in Sessions.
hint_has() { hints | grep -qF -- "$1"; }
unchanged_by() { # keys...: the screen is the same after them
  local before
  before=$(screen)
  keys "$@"
  [ "$(screen)" = "$before" ] || { echo "before:"; echo "$before"; echo "after:"; screen; return 1; }
}
keys 2
check "2 shows Operations" wait_for "2 Operations"
check "Operations hints R rollback" hint_has "R rollback"
check "Operations does not hint s status" eval '! hint_has "s status"'
check "s in Operations changes nothing" unchanged_by s
keys 1
check "1 shows Sessions" wait_for "1 Sessions"
check "Sessions hints s status and p pause" eval 'hint_has "s status" && hint_has "p pause"'
check "Sessions does not hint R rollback" eval '! hint_has "R rollback"'
check "R and ] in Sessions change nothing" unchanged_by R "]"

# The panes the contexts below reach beside the lists: each shows itself.
reaches() { # keys... then the text that shows the pane
  local text=${*: -1}
  # shellcheck disable=SC2068
  send ${@:1:$#-1}
  wait_for "$text" >/dev/null
  local ok=$?
  send Escape Escape Escape
  sleep 0.2
  return $ok
}
check "L opens the message log" reaches L "Messages log"
check "Enter on an operation opens its patch" reaches 2 g Enter "Patch"
check "Enter on a checkpoint opens its preview" reaches 1 g 3 g Enter "R (roll back to it) would keep"
check "Enter on an event opens it in full" reaches 4 g Enter "\"agent\": \"Claude\""
check "S opens the journal search line" reaches 4 S "search"

# Every printable key but q, then Escape three times (closes a dialog, a
# filter line, help, a document, the conversation).
printable=()
for code in $(seq 33 126); do
  c=$(printf "\\$(printf '%03o' "$code")")
  [ "$c" = q ] || printable+=("$c")
done
contexts=("1" "2" "3" "4" "1 g Enter" "1 g Enter ]" "1 g Enter ] ]" "1 g Enter ] ] ]" "?" "L"
  "2 g Enter" "1 g 3 g Enter" "4 g Enter" "4 S")
for context in "${contexts[@]}"; do
  for c in "${printable[@]}" Space; do
    # shellcheck disable=SC2086
    send $context
    if [ "$c" = Space ]; then send Space; else send -l -- "$c"; fi
    send Escape Escape Escape
  done
done
sleep 1
check "the dashboard is still running after $(( ${#printable[@]} * ${#contexts[@]} )) keys" \
  tmux -L "$sock" has-session -t e2e
check "no file changed (sessions, journal, operations, checkpoints, worktree, git refs)" \
  bash -c "[ \"\$(cd $ws && find . -path ./.git/objects -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)\" = \"\$0\" ]" "$before"
check "no session was paused" bash -c "! grep -l paused $S/*.json"
send q
wait_exit
check "q still quits with status 0" grep -qx 0 "$ws.exit"
finish
