#!/usr/bin/env bash
# The README's three operator recipes, run exactly as written: each
# ```sh block after a `<!-- recipe: NAME -->` line, in a copy of the
# workspace `agentctl demo --no-ui` leaves (whose ids the recipes name),
# with this build's agentctl first on PATH. Then what each promises is
# checked: the rollback puts the file back and its undo brings it again,
# the pause is seen as "paused" and the resume as "running", and
# `agentctl` alone opens the dashboard there.
. "$(dirname "$0")/lib/tmux.sh" "$@"
readme=$(realpath "$(dirname "$0")/../../README.md")
home=$(mktemp -d)
demo=
at_exit() { rm -rf "${home:?}" "$ws.out"; [ -n "$demo" ] && rm -rf "${demo:?}"; }
export HOME=$home XDG_CONFIG_HOME=$home/.config PATH=$(dirname "$agentctl"):$PATH

recipe() { # NAME: the block's text
	awk -v want="<!-- recipe: $1 -->" '
		$0 == want { armed = 1; next }
		armed && /^```sh$/ { inside = 1; next }
		inside && /^```$/ { exit }
		inside { print }' "$readme"
}
run_recipe() { # NAME: runs it in $ws, output in $ws.out
	(cd "$ws" && bash -eo pipefail -c "$(recipe "$1")") >"$ws.out" 2>&1 ||
		{ echo "recipe $1 failed:"; cat "$ws.out"; return 1; }
}
has() { grep -qF -- "$1" "$ws.out" || { echo "'$1' not in:"; cat "$ws.out"; return 1; }; }

demo=$("$agentctl" demo --no-ui --seconds 2 2>"$home/demo.err" | tail -n 1)
: "${demo:?}"
cp -a "$demo/." "$ws/"

for name in watch rollback pause; do
	check "the README has the $name recipe" test -n "$(recipe $name)"
done

check "watch: runs as written" run_recipe watch
check "watch: lists by state" has "STATUS"

# The file claude-01's newest committed operation wrote (or deleted), as
# it is now: the recipe picks the same one.
op_path=$(cd "$ws" && agentctl ops list --session claude-01 --json |
	jq -r 'map(select(.gitCommitHash))[-1].details.path')
state_of() { if [ -f "$ws/$op_path" ]; then cat "$ws/$op_path"; else echo "<absent>"; fi; }
check "rollback: the demo's claude-01 changed a file" test -n "$op_path" -a "$op_path" != null
before=$(git -C "$ws" log --format=%H -n 1)
after_op=$(state_of)
check "rollback: runs as written (and undoes itself)" run_recipe rollback
check "rollback: the dry run named the plan" has "$op_path"
check "rollback: the undo brought the file back" test "$(state_of)" = "$after_op"
check "rollback: git moved on, never back" test "$(git -C "$ws" rev-list --count "$before"..HEAD)" -ge 1

check "pause: runs as written" run_recipe pause
check "pause: show saw it paused" has "paused"
check "pause: resumed at the end" \
	test "$(cd "$ws" && agentctl session show claude-01 --json | jq -r .status)" = running

# `agentctl` alone, inside the workspace: the dashboard.
new_session -d -s e2e -x 100 -y 30 "cd $ws && HOME=$home XDG_CONFIG_HOME=$home/.config agentctl; echo \$? > $ws.exit"
check "watch: agentctl alone opens the dashboard" wait_for "claude-01"
keys w
check "watch: w filters by state" wait_for "waiting"
keys q
check "watch: q quits" wait_exit
finish
