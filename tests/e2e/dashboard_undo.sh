#!/usr/bin/env bash
# z undoes the operator's last action of this dashboard (issue 13, item
# 11), after a dialog that says what it will change: a compaction and a
# checkpoint rollback get their archived messages back (refused once an
# agent wrote since), a pause is resumed, an operations rollback is rolled
# back to the snapshot it committed first. On either store (lib/store.sh:
# STORE=files|pg), but on the database z undoes only the pause and the
# operations rollback and revert: a compaction's or a checkpoint rollback's
# archive is a row there, which the undo (it reads an archive file,
# tui/actions_compact.c) does not read back, so z says "nothing to undo"
# after those; their cases run on files only (files_z).
# Usage: [STORE=pg] dashboard_undo.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
AC=$agentctl WS=$ws TMP=$ws.state
mkdir -p "$TMP"
. "$(dirname "$0")/lib/store.sh"
command -v jq >/dev/null || { echo "jq is missing"; echo "0 passed, 1 failed"; exit 1; }
S=$ws/.agent/sessions
mkdir -p "$S" "$ws.cfg/agent"
echo '{"session": {"quietMs": 0, "waitMs": 2000}}' >"$ws.cfg/agent/config.json"
export XDG_CONFIG_HOME=$ws.cfg
jq -n '{id: "s1", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z",
	task: "undo me", status: "running", metadata: {},
	conversationHistory: [range(12) | {role: (if . % 2 == 0 then "user" else "assistant" end),
					   content: "message \(.) \("x" * 400)"}]}' >"$S/s1.json"
store_seed acme
history() { doc_of s1 | jq -c .conversationHistory; }
count() { doc_of s1 | jq '.conversationHistory | length'; }
status() { doc_of s1 | jq -r .status; }
original=$(history)
files_z() { ! on_pg; }
# A git repository with one recorded operation, for the ops rollback.
git -C "$ws" init -q && git -C "$ws" config user.email t@t && git -C "$ws" config user.name t
echo v1 >"$ws/a.txt" && git -C "$ws" add a.txt && git -C "$ws" commit -qm v1
echo v2 >"$ws/a.txt"
"$agentctl" -w "$ws" ops record --session s1 --type file_write --details '{"path":"a.txt"}' >/dev/null 2>&1

prefix="env XDG_CONFIG_HOME=$ws.cfg" dashboard 150 40
wait_for "undo me"
check "z is hinted" bash -c 'tmux -L "$0" capture-pane -p -t e2e | tail -n 1 | grep -q "z undo"' "$sock"
keys z
check "nothing to undo yet" wait_for "nothing to undo"

# Compaction, then its undo.
keys c
wait_for "Compact session s1?"
keys y
check "compacted" wait_for "compacted s1"
check "the store holds fewer messages" test "$(count)" -lt 12
if files_z; then
	keys z
	check "z asks first, saying what comes back" wait_for "archived messages back in place of the summary"
	check "nothing changed before y" test "$(count)" -lt 12
	keys y
	check "undone" wait_for "undone: the compaction of s1"
	check "every message is back, in order, byte for byte" test "$(history)" = "$original"
	check "the restore is recorded" test "$(doc_of s1 | jq '.metadata.restores | length')" = 1
	keys z
	check "the undo is not undone again" wait_for "nothing to undo"
	# It said "this dashboard has paused, compacted or rolled back nothing
	# yet", right after a compaction and its undo.
	check "and does not say that nothing was done yet" wait_for "is left to undo"

	# An agent writes after the compaction: the undo is refused.
	keys c
	wait_for "Compact session s1?"
	keys y
	wait_for "compacted s1"
	after=$(count)
	echo '{"role": "user", "content": "written by the agent"}' |
		"$agentctl" -w "$ws" session append s1 - >/dev/null 2>&1
	keys z
	wait_for "Undo the compaction"
	keys y
	check "refused: an agent wrote since" wait_for "an agent wrote since"
	check "nothing was changed" test "$(count)" = $((after + 1))
fi

# Pause, then its undo (a resume).
keys p
wait_for "Pause session s1?"
keys y
for _ in $(seq 50); do [ "$(status)" = paused ] && break; sleep 0.1; done
check "paused" test "$(status)" = paused
keys z
check "z offers the resume" wait_for "undoes your pause of s1"
keys y
for _ in $(seq 50); do [ "$(status)" = running ] && break; sleep 0.1; done
check "running again" test "$(status)" = running

# An operations rollback, then its undo.
keys 2
wait_for "file_write"
keys R
wait_for "Roll the workspace back"
keys y
check "rolled back" wait_for "rolled back to before"
check "a.txt is v1" test "$(cat "$ws/a.txt")" = v1
keys z
check "z offers rolling back the rollback" wait_for "undoes your rollback"
keys y
check "rolled back again" wait_for "rolled back to before"
check "a.txt is v2 again" test "$(cat "$ws/a.txt")" = v2
# A revert of the first operation alone, then its undo.
keys g v
check "v asks to revert the operation alone" wait_for "Revert operation"
keys y
check "reverted" wait_for "reverted "
check "a.txt is v1 after the revert" test "$(cat "$ws/a.txt")" = v1
keys z
check "z offers rolling back the revert" wait_for "undoes your rollback or revert"
keys y
check "the revert is undone" wait_for "rolled back to before"
check "a.txt is v2 after undoing the revert" test "$(cat "$ws/a.txt")" = v2
# A checkpoint rollback, then its undo: the removed messages come back.
"$agentctl" -w "$ws" checkpoint create s1 >/dev/null 2>&1
echo '[{"role": "user", "content": "after the checkpoint"}, {"role": "assistant", "content": "ok"}]' |
	"$agentctl" -w "$ws" session append s1 - >/dev/null 2>&1
before_ckpt=$(history)
keys 1
keys 3
wait_for "manual"
keys R
wait_for "Roll session s1 back to checkpoint"
keys y
check "rolled back to the checkpoint" wait_for "rolled back session s1 to checkpoint"
check "two messages removed" test "$(count)" = $(($(jq length <<<"$before_ckpt") - 2))
if files_z; then
	keys z
	check "z offers the messages back" wait_for "archived messages back after the"
	keys y
	check "the checkpoint rollback is undone" wait_for "undone: the checkpoint rollback of s1"
	check "the removed messages are back, in order" test "$(history)" = "$before_ckpt"
fi
keys q
wait_exit
at_exit() { rm -rf "$ws.cfg"; }
finish
