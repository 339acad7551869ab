#!/usr/bin/env bash
# End-to-end checks of a workspace rollback killed midway (issue 23, item
# 13): an `ops rollback` / `ops revert` of 1,000 files is SIGKILLed after
# 500 of them (the test seam AGENTCTL_TEST_KILL_AFTER_FILES, read in one
# place: core/ac_git_rollback.c). Then the intent under .agent/ is there;
# `ops list` (text and --json) shows the interrupted rollback first; every
# other workspace-changing ops command is refused with one line naming it;
# running the same rollback again finishes it (the tree is exactly the
# target's, the log and journal record it); `ops rollback --undo` instead
# puts the snapshot back (the tree is exactly the state before); the stray
# temp files of the killed run go, and only those. With AGENT_STORAGE_URL
# set (ops_interrupted_pg.sh) the sessions live in PostgreSQL; the intent
# is a file under .agent/ either way. The git command-line tool only sets
# up and inspects the repository.
# Usage: ops_interrupted.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
export GIT_CONFIG_NOSYSTEM=1 HOME=$TMP/home
mkdir -p "$HOME"

g() { git -C "${WS:?no workspace}" "$@"; }
out_has() { grep -qF -- "$1" "$TMP/out"; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
intent() { printf '%s' "$WS/.agent/rollback-intent.json"; }
# The temp files of this repository's worktree, .git and .agent aside.
temps() { (cd "$WS" && find . -path ./.git -prune -o -path ./.agent -prune -o -name '*.tmp' -print | LC_ALL=C sort); }

# A workspace with op0 (1,000 files in 10 folders) and op1, which changes
# 960 of them, deletes 20 and adds 20: rolling back to before op1 touches
# 1,000 files. OP0, OP1 are their ids; C1 op1's commit.
new_ws() {
	WS=$(mktemp -d "$TMP/ws.XXXXXX")
	g init -q
	g config user.email e2e@example.com
	g config user.name e2e
	mkdir -p "$WS/.agent"
	run session create "the agent" --id s0 ${AGENT_STORAGE_URL:+--tenant acme}
	for d in 0 1 2 3 4 5 6 7 8 9; do
		mkdir -p "$WS/d$d"
		for f in $(seq -w 0 99); do printf 'old %s%s\n' "$d" "$f" >"$WS/d$d/f$f.txt"; done
	done
	run ops record --session s0 --type file_write --details '{"path":"d0"}'
	OP0=$OUT
	for d in 0 1 2 3 4 5 6 7 8 9; do
		for f in $(seq -w 0 95); do printf 'new %s%s\n' "$d" "$f" >"$WS/d$d/f$f.txt"; done
	done
	rm -f "$WS"/d[0-4]/f9[6-9].txt
	mkdir -p "$WS/added"
	for f in $(seq -w 0 19); do printf 'added %s\n' "$f" >"$WS/added/a$f.txt"; done
	run ops record --session s0 --type file_write --details '{"path":"d1"}'
	OP1=$OUT
	C1=$(g rev-parse HEAD)
}

# kill_midway VERB: runs `ops VERB OP1 --yes` with the seam set; it dies by
# SIGKILL after 500 files.
kill_midway() {
	(AGENTCTL_TEST_KILL_AFTER_FILES=500 exec "$AC" -w "$WS" ops "$1" "$OP1" --yes \
		>"$TMP/out" 2>"$TMP/err" </dev/null) 2>/dev/null
	RC=$?
}

# plant_temps: a temp file as the killed run's atomic write names them
# (".<name>.<pid>.<8 hex>.tmp", its pid) and its symbolic-link temp, and a
# user's own *.tmp file that must stay.
plant_temps() {
	local pid
	pid=$(jq -r .pid "$(intent)")
	printf 'half' >"$WS/d7/.f42.txt.$pid.0badf00d.tmp"
	ln -s nowhere "$WS/d8/f01.txt.agentctl-$pid.tmp"
	printf 'mine' >"$WS/d3/.keep.tmp"
}

changed_files() { g status --porcelain -- . ':!.agent' | grep -vc '^?? d3/.keep.tmp$'; }

# --- a rollback killed midway, then run again ----------------------------
new_ws
check "op0 and op1 recorded with their commits" [ -n "$OP0" -a -n "$OP1" ]
kill_midway rollback
check "the seam kills the rollback midway (SIGKILL: 137)" rc_is 137
N=$(changed_files)
check "the worktree is half rolled back ($N of 1000 files differ from HEAD)" [ "$N" -gt 100 -a "$N" -lt 900 ]
check "the intent file is there, durable, naming the operation" jq_is "$(intent)" .operationId "$OP1"
check "the intent names the kind and 1,000 planned files" \
	[ "$(jq -r '.kind + " " + (.files | length | tostring)' "$(intent)")" = "rollback 1000" ]
SNAP=$(jq -r .snapshot "$(intent)")
check "the intent's snapshot is HEAD" [ "$(g rev-parse HEAD)" = "$SNAP" ]
check "... which holds the state before (op1's tree)" \
	[ "$(g rev-parse "$SNAP^{tree}")" = "$(g rev-parse "$C1^{tree}")" ]
plant_temps
run ops list
check "ops list exits 0" rc_is 0
check "ops list shows the interrupted rollback on its first line" \
	head -n 1 "$TMP/out" | grep -q "^INTERRUPTED rollback to before operation $OP1: snapshot"
check "the line names the operation, the snapshot and both ways out" \
	head -n 1 "$TMP/out" | grep -qF -- "$OP1: snapshot ${SNAP:0:12}"
check "... finish and undo commands" \
	grep -qF -- "finish: agentctl ops rollback $OP1 --yes; undo: agentctl ops rollback --undo --yes" "$TMP/out"
run ops list --json
check "ops list --json: the interrupted record first" jq_is "$TMP/out" '.[0].type' interrupted_rollback
check "... naming the operation, snapshot and files" \
	jq_is "$TMP/out" '"\(.[0].operationId) \(.[0].snapshot) \(.[0].files) \(.[0].running)"' "$OP1 $SNAP 1000 false"
check "... then the operations" jq_is "$TMP/out" '.[1].id + " " + .[2].id' "$OP0 $OP1"
HEAD_BEFORE=$(g rev-parse HEAD)
run ops revert "$OP1" --yes
check "another ops revert is refused (exit 1)" rc_is 1
check "... with one line naming the intent" err_is_one_line
check "... the operation and the way out" err_has "interrupted rollback to before operation $OP1"
run ops rollback "$OP0" --yes
check "a rollback to another operation is refused (exit 1)" rc_is 1
check "... naming the intent" err_has "finish it (agentctl ops rollback $OP1 --yes)"
check "... naming the command once" eval '[ "${ERR#agentctl: ops rollback: refused: }" != "$ERR" ]'
run ops record --session s0 --type file_write --details '{"path":"x"}'
check "ops record (which commits the workspace) is refused (exit 1)" rc_is 1
check "... with one line naming the intent" err_is_one_line
check "... and commits nothing" [ "$(g rev-parse HEAD)" = "$HEAD_BEFORE" ]
run ops record --session s0 --type command_run --details '{"command":"ls"}'
check "ops record of a command (no commit) still works" rc_is 0
run ops rollback --finish --dry-run
check "--finish --dry-run shows the recorded plan" out_has "Finishing the interrupted rollback to before operation $OP1"
check "... and changes nothing" [ "$(g rev-parse HEAD)" = "$HEAD_BEFORE" -a -e "$(intent)" ]
# An agent writes a file of the plan while the rollback stands stopped:
# finishing would write over it, so the finish is refused until it is
# moved aside.
printf 'an agent wrote this\n' >"$WS/d5/f50.txt"
run ops rollback "$OP1" --yes
check "a planned file written meanwhile: the finish is refused (exit 1)" rc_is 1
check "... in one line" err_is_one_line
check "... naming the file" err_has "'d5/f50.txt' was written while the rollback stood stopped"
check "... which keeps what the agent wrote" [ "$(cat "$WS/d5/f50.txt")" = "an agent wrote this" ]
check "... HEAD and the intent as they were" [ "$(g rev-parse HEAD)" = "$HEAD_BEFORE" -a -e "$(intent)" ]
run ops rollback --undo --yes
check "--undo is refused the same way (exit 1)" rc_is 1
check "... naming the file" err_has "'d5/f50.txt'"
mv "$WS/d5/f50.txt" "$TMP/f50.mine"
run ops rollback "$OP1" --yes
check "running the same rollback again finishes it (exit 0)" rc_is 0
check "... and says so" out_has "Finished the interrupted rollback to before operation $OP1"
check "the intent is gone" [ ! -e "$(intent)" ]
check "HEAD's tree is exactly the target's (op1's parent)" \
	[ "$(g rev-parse "HEAD^{tree}")" = "$(g rev-parse "$C1^^{tree}")" ]
check "the rollback commit sits on the snapshot" [ "$(g rev-parse HEAD^)" = "$SNAP" ]
check "the worktree matches it exactly (nothing changed, nothing extra)" [ "$(changed_files)" -eq 0 ]
check "the killed run's temp files are gone, the user's stays" [ "$(temps)" = "./d3/.keep.tmp" ]
run ops list --json
check "the log records the rollback once, with its snapshot" \
	jq_is "$TMP/out" "[.[] | select(.details.rollbackOf == \"$OP1\" and .details.snapshot == \"$SNAP\")] | length" 1
check "no interrupted record any more" jq_is "$TMP/out" '[.[] | select(.type | startswith("interrupted"))] | length' 0
run journal read --all --json
check "the journal (the workspace's store) has the ROLLBACK event" \
	jq_is "$TMP/out" "[.[] | select(.action.type == \"ROLLBACK\" and .action.params.operationId == \"$OP1\" and .action.params.snapshot == \"$SNAP\")] | length" 1

# --- a rollback killed midway, then undone -------------------------------
new_ws
kill_midway rollback
check "second workspace: killed midway (137)" rc_is 137
SNAP=$(jq -r .snapshot "$(intent)")
plant_temps
run ops rollback --undo
check "--undo without --yes, not a terminal: exit 2" rc_is 2
run ops rollback --undo --dry-run
check "--undo --dry-run lists what it puts back" out_has "Undoing the interrupted rollback to before operation $OP1 puts back the snapshot ${SNAP:0:12}"
check "... restoring the 20 files the rollback removed" out_has "0 removed, 20 restored"
check "... and changes nothing" [ -e "$(intent)" ]
run ops rollback --undo --yes
check "ops rollback --undo --yes: exit 0" rc_is 0
check "... says what it did" out_has "Undid the interrupted rollback to before operation $OP1: 1000 files put back"
check "the intent is gone" [ ! -e "$(intent)" ]
check "HEAD is still the snapshot (history only grows)" [ "$(g rev-parse HEAD)" = "$SNAP" ]
check "the worktree is exactly the state before the rollback" [ "$(changed_files)" -eq 0 ]
check "... which is op1's" [ "$(g rev-parse "HEAD^{tree}")" = "$(g rev-parse "$C1^{tree}")" ]
check "no temp file of the killed run is left; the user's stays" [ "$(temps)" = "./d3/.keep.tmp" ]
run journal read --all --json
check "the journal records the undo" \
	jq_is "$TMP/out" "[.[] | select(.action.params.undone == true and .action.params.snapshot == \"$SNAP\")] | length" 1
run ops rollback --undo --yes
check "nothing left to undo: exit 1 naming the file" rc_is 1
check "... one line" err_has "rollback-intent.json: no interrupted rollback or revert to undo"
run ops list
check "ops list: no interrupted line" [ "$(head -c 4 "$TMP/out")" = "TIME" ]

# --- a revert killed midway, then run again ------------------------------
new_ws
kill_midway revert
check "a revert killed midway (137)" rc_is 137
check "the intent says revert" jq_is "$(intent)" .kind revert
run ops list --json
check "ops list --json: an interrupted revert" jq_is "$TMP/out" '.[0].type' interrupted_revert
run ops rollback "$OP1" --yes
check "a rollback of the same operation is not the revert: refused" rc_is 1
run ops revert "$OP1" --yes
check "running the same revert again finishes it (exit 0)" rc_is 0
check "HEAD's tree is op1's parent's (the last operation reverted)" \
	[ "$(g rev-parse "HEAD^{tree}")" = "$(g rev-parse "$C1^^{tree}")" ]
check "the worktree matches it exactly" [ "$(changed_files)" -eq 0 ]
check "the intent is gone" [ ! -e "$(intent)" ]

# --- an undo killed after its commit, before the intent went --------------
# The finish killed after its commit, then the undo killed after its own
# (the intent put back where each run removed it, as a kill at that moment
# leaves it): running the undo again finds its own commit and clears the
# intent. Before, the undo and the finish both refused that HEAD as
# "something was committed since" and every ops command stayed refused.
new_ws
kill_midway rollback
SNAP=$(jq -r .snapshot "$(intent)")
cp "$(intent)" "$TMP/intent.saved"
run ops rollback "$OP1" --yes
cp "$TMP/intent.saved" "$(intent)"
run ops rollback --undo --yes
check "undo after a finish killed after its commit: exit 0, a commit on it" \
	eval 'rc_is 0 && [ "$(g rev-parse HEAD^^)" = "$SNAP" ]'
UNDO=$(g rev-parse HEAD)
cp "$TMP/intent.saved" "$(intent)"
run ops rollback --undo --yes
check "the undo run again after its own commit: exit 0" rc_is 0
check "... no new commit, the intent gone" eval '[ "$(g rev-parse HEAD)" = "$UNDO" ] && [ ! -e "$(intent)" ]'
check "... the worktree exactly the state before" \
	eval '[ "$(changed_files)" -eq 0 ] && [ "$(g rev-parse "HEAD^{tree}")" = "$(g rev-parse "$C1^{tree}")" ]'
run ops record --session s0 --type file_write --details '{"path":"x"}'
check "... and ops commands run again" rc_is 0

# --- the temp files of a run that took the intent up go too ---------------
# Each run that finishes or undoes an intent adds its pid to it before it
# touches a file, so a later run removes that run's temp files too if it
# was killed. Before, only the first (killed) rollback's pid was known: an
# undo or finish killed midway left its temp files in the worktree for good
# (2 of 8 random SIGKILLs of an undo left one). Here the undo is stopped,
# its pid recorded, by a commit made meanwhile (HEAD moved: nothing
# touched), its temp files planted, and the undo run again once HEAD is
# back.
new_ws
kill_midway rollback
SNAP=$(jq -r .snapshot "$(intent)")
g commit -q --allow-empty -m "meanwhile"
run ops rollback --undo --yes
check "an undo while HEAD moved: refused, exit 1" rc_is 1
ATTEMPT=$(jq -r '.attempts[0] // empty' "$(intent)")
check "... its pid recorded in the intent first" [ -n "$ATTEMPT" ]
printf 'half' >"$WS/d5/.f42.txt.${ATTEMPT:-0}.0badf00d.tmp"
printf 'mine' >"$WS/d3/.keep.tmp"
g reset -q --soft "$SNAP"
run ops rollback --undo --yes
check "the undo again: exit 0, the worktree exactly the state before" \
	eval 'rc_is 0 && [ "$(changed_files)" -eq 0 ]'
check "... the earlier attempt's temp file is gone, the user's stays" [ "$(temps)" = "./d3/.keep.tmp" ]

# --- an uninterrupted rollback leaves no intent --------------------------
new_ws
run ops rollback "$OP1" --yes
check "a whole rollback: exit 0" rc_is 0
check "... no intent left" [ ! -e "$(intent)" ]
check "... the tree is the target's" [ "$(g rev-parse "HEAD^{tree}")" = "$(g rev-parse "$C1^^{tree}")" ]

finish
