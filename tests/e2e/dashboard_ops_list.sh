#!/usr/bin/env bash
# The Operations pane as a way to find the operation to roll back, at
# 80x24, 120x40 and 200x60: newest first, following new ones while the
# cursor is on the top row (g), each row with its agent (details.agent, not
# a session id), the size of its commit from git (files, +/- lines), its
# note, and RB on the operations a recorded rollback already undid; the
# operator's rollback (`ops rollback`) is listed as Human's, of type
# rollback. The git command-line tool only sets up the repository.
. "$(dirname "$0")/lib/tmux.sh" "$@"
export GIT_CONFIG_NOSYSTEM=1 HOME=${ws:?no workspace}.state/home
mkdir -p "$HOME" "$ws/.agent"
g() { git -C "${ws:?no workspace}" "$@"; }
g init -q && g config user.email t@t && g config user.name t
log=$ws/.agent/operations.jsonl

# commit_op ID SESSION DETAILS (JSON): commits the workspace as the seed does.
commit_op() {
  g add -A -- . ':!.agent' ':!JOURNAL*' >/dev/null 2>&1
  g commit -q --allow-empty -m "[agent] file_write: $3"
  printf '{"id":"%s","timestamp":"2025-01-01T00:00:0%s.000Z","sessionId":"%s","type":"file_write","details":%s,"gitCommitHash":"%s"}\n' \
    "$1" "${1#op-}" "$2" "$3" "$(g rev-parse HEAD)" >>"$log"
}
echo base >"$ws/base.txt"
commit_op op-0 5e551000-aaaa-bbbb-cccc-000000000000 '{"path":"base.txt"}'
printf 'a\nb\nc\n' >"$ws/a.txt"
commit_op op-1 5e551111-aaaa-bbbb-cccc-000000000000 '{"path":"a.txt","agent":"Codex"}'
printf 'x\n' >"$ws/b.txt"; printf 'y\nz\n' >"$ws/c.txt"; echo base2 >"$ws/base.txt"
commit_op op-2 5e552222-aaaa-bbbb-cccc-000000000000 '{"path":"b.txt","note":"fix the login bug"}'
"$agentctl" -w "$ws" ops rollback op-2 --yes >/dev/null 2>&1
check "ops rollback recorded the operator's rollback" \
  sh -c "tail -n 1 '$log' | jq -e '.type == \"rollback\" and .details.rollbackOf == \"op-2\" and .details.agent == \"Human\" and (.details.snapshot | length) > 0' >/dev/null"
check "ops list shows the rollback's type" \
  sh -c "'$agentctl' -w '$ws' ops list | grep -Eq ' rollback +[0-9a-f]{12} +rollback to before op-2'"

# The seed's OperationLog.loadAll() (seed 000) parses every line with
# JSON.parse and never looks at type; its rollbackTo() needs only the
# target's gitCommitHash: the operator's rollback loads and can be undone.
check "the seed's reader loads the rollback, with its commit" node -e '
  const raw = require("fs").readFileSync(process.argv[1], "utf-8");
  const entries = raw.trim().split("\n").map(line => JSON.parse(line));
  const rb = entries.find(e => e.type === "rollback");
  process.exit(rb && rb.gitCommitHash && entries.length === 4 ? 0 : 1);' "$log"

add_op() { # ID: a command (no commit), appended while the dashboard runs
  printf '{"id":"%s","timestamp":"2025-01-01T00:00:09.000Z","sessionId":"s","type":"command_run","details":{"command":"make %s","agent":"Gemini"}}\n' "$1" "$1" >>"$log"
}
n=4
for size in 80x24 120x40 200x60; do
  dashboard "${size%x*}" "${size#*x}"
  wait_for "1 Sessions" >/dev/null
  keys 2
  check "$size: the header names files and lines" wait_for "FILES +/-"
  # Newest first: the rollback (Human) is the top row, op-0 the last.
  check "$size: newest first, the rollback on top" \
    sh -c "tmux -L $sock capture-pane -p -t e2e | grep -n -e 'Human' -e '5e551000' | head -n 1 | grep -q Human"
  check "$size: the rollback is Human's, typed rollback" \
    sh -c "tmux -L $sock capture-pane -p -t e2e | grep -q 'Human  *rollback '"
  check "$size: op-1 by its agent, with its commit's size" \
    sh -c "tmux -L $sock capture-pane -p -t e2e | grep -q 'Codex .*1 +3 -0 *a.txt'"
  check "$size: op-2 marked rolled back, with files and note" \
    sh -c "tmux -L $sock capture-pane -p -t e2e | grep -q 'RB *3 +4 -1 *b.txt .* fix the login bug'"
  check "$size: without a known agent, the session's start" wait_for "5e551000"
  check "$size: no session id shown for op-1" absent "5e551111"
  check "$size: the cursor on the newest" wait_for "1/$n"
  # Following: a new operation arrives on top with the cursor on it.
  n=$((n + 1)); add_op "op-f$n"
  check "$size: a new operation is followed" wait_for "1/$n"
  check "$size: ... and shown" wait_for "make op-f$n"
  send Enter
  check "$size: ... and selected" wait_for "Operation op-f$n "
  keys Escape
  # Off the top row the cursor stays on its operation.
  keys j
  n=$((n + 1)); add_op "op-f$n"
  check "$size: off the top the cursor keeps its operation" wait_for "3/$n"
  keys g
  n=$((n + 1)); add_op "op-f$n"
  check "$size: g follows again" wait_for "1/$n"
  send Enter
  check "$size: ... onto the new operation" wait_for "Operation op-f$n "
  keys Escape
  keys q
  wait_gone
done
finish
