#!/usr/bin/env bash
# The plan confirmed is the plan executed, and a dialog can be read whole:
# at 80 columns a long line wraps (nothing is cut off) and a plan of 120
# paths scrolls to its end; a rollback whose plan changed between the
# dialog and `y` (a commit made meanwhile) shows the new plan and asks
# again, changing nothing until that is confirmed; the same for a
# checkpoint rollback whose session gained a message meanwhile. On either
# store (lib/store.sh: STORE=files|pg).
# Usage: [STORE=pg] dashboard_dialogs.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
AC=$agentctl WS=$ws TMP=$ws.state
mkdir -p "$TMP"
. "$(dirname "$0")/lib/store.sh"
op=11111111-2222-4333-8444-555555555555
git -C "$ws" init -q && git -C "$ws" config user.email t@t && git -C "$ws" config user.name t
echo before >"$ws/file.txt"
git -C "$ws" add file.txt && git -C "$ws" commit -qm base
echo after >"$ws/file.txt"
mkdir "$ws/many"
for i in $(seq -w 1 120); do echo "$i" >"$ws/many/path-$i.txt"; done
git -C "$ws" add -A && git -C "$ws" commit -qm change
mkdir -p "$ws/.agent"
printf '{"id":"%s","timestamp":"2024-05-01T10:00:00.000Z","sessionId":"s-one","type":"file_write","details":{"path":"file.txt"},"gitCommitHash":"%s"}\n' \
  "$op" "$(git -C "$ws" rev-parse HEAD)" >"$ws/.agent/operations.jsonl"
commits() { git -C "$ws" rev-list --count HEAD; }

dashboard 80 24
wait_for "Sessions" >/dev/null
keys 2 g R
check "R opens the rollback dialog" wait_for "120 to remove, 0 to restore, 1 to change"
check "its long line wraps at 80 columns: (nothing is lost) is shown" wait_for "(nothing is lost)"
check "the long title wraps: the whole operation id is shown" wait_for "$op?"
check "a plan longer than the screen says how to scroll" wait_for "j/k"
keys G
check "G scrolls the dialog to its last path" wait_for "many/path-120.txt"
check "and to its keys" wait_for "y: do it"
keys g
check "g scrolls back to its first lines" wait_for "target state:"
check "the last path is out of view again" absent "many/path-120.txt"
keys j j j
check "j scrolls it down" absent "target state:"

# The plan changes between the dialog and y.
echo other >"$ws/other.txt"
git -C "$ws" add other.txt && git -C "$ws" commit -qm other
n_before=$(commits)
keys y
check "y on a changed plan shows the new plan" wait_for "121 to remove, 0 to restore, 1 to change"
check "and says the plan changed" wait_for "the plan changed"
check "nothing was rolled back yet (no commit)" eval '[ "$(commits)" = "$n_before" ]'
check "nothing was rolled back yet (file.txt)" grep -qx after "$ws/file.txt"
keys y
check "y on the new plan rolls back as it said" wait_for ": 121 remov"
keys L
check "the message log holds the whole result" wait_for "removed, 0 restored, 1 changed; snapshot"
keys L
check "file.txt is back" grep -qx before "$ws/file.txt"
check "other.txt is removed" test ! -e "$ws/other.txt"
send q
check "q quits" wait_exit

# A checkpoint rollback: the session gains a message between the dialog
# and y.
S=$ws/.agent/sessions
mkdir -p "$S"
cat >"$S/s-one.json" <<'JSON'
{"id":"s-one","createdAt":"2024-05-01T10:00:00.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"t","status":"running","conversationHistory":[{"role":"user","content":"first"}],"metadata":{}}
JSON
store_seed acme
# messages: how many the session holds, as the store says.
messages() { doc_of s-one | jq '.conversationHistory | length'; }
# aged: on files, the session's file a minute old (as an agent's write
# long before the dashboard looks; the database has no file).
aged() { on_pg || touch -d '-1 min' "$S/s-one.json"; }
"$agentctl" -w "$ws" checkpoint create s-one >/dev/null
"$agentctl" -w "$ws" session append s-one '[{"role":"assistant","content":"second"},{"role":"user","content":"third"}]' >/dev/null
aged
dashboard 80 24
wait_for "s-one" >/dev/null
keys 1 g 3 g R
check "R in Checkpoints opens its dialog" wait_for "messages: keep 1, remove 2"
# (under the folder of archives on files, in the database's table of them)
where="archived under"
on_pg && where="archived in the database"
check "and says where the removed messages go" wait_for "the removed messages are $where"
"$agentctl" -w "$ws" session append s-one '[{"role":"assistant","content":"fourth"}]' >/dev/null
aged
keys y
check "y on a changed checkpoint plan shows the new plan" wait_for "messages: keep 1, remove 3"
check "and says it changed" wait_for "the plan changed"
check "the session was not cut yet" eval '[ "$(messages)" = 4 ]'
keys y
check "y on the new plan rolls back" wait_for "rolled back session s-one to checkpoint"
check "the session keeps the checkpoint's message" eval '[ "$(messages)" = 1 ]'
send q
check "q quits again" wait_exit
finish
