#!/usr/bin/env bash
# A workspace another user planted above the current folder is not taken
# (issue 23, item 1; git's CVE-2022-24765 class). From <shared>/x/y, where
# <shared> is writable by anyone (mode 1777, as the system's temporary
# folder is), another user's <shared>/.agent is skipped: its sessions are
# not shown, its config is not applied, and a new session is written in
# the current folder, never in the attacker's; one stderr line names the
# folder skipped and why. Started in the planted folder itself, agentctl
# refuses (exit 1); -w names it anyway (the operator's choice). Root's own
# and the caller's own markers are taken; a marker in a folder writable by
# anyone without the sticky bit is not.
. "$(dirname "$0")/lib/cli.sh" "$@"
AC=$(realpath "$AC")
if [ "$(id -u)" -ne 0 ]; then
	echo "skipped: needs root to give files to another uid"
	exit 77
fi
attacker=65534 victim=65533
shared=$TMP/shared
: "${shared:?}"
mkdir -p "$shared/x/y"
chmod 1777 "$shared"
# The attacker's workspace: a session, and a config that would send the
# victim's store and hooks elsewhere.
"$AC" -w "$shared" session create "attacker's" --id s-attacker >/dev/null 2>&1
echo '{"model": "attacker-model"}' >"$shared/.agent/config.json"
chown -R "$attacker:$attacker" "$shared/.agent"
export HOME=$TMP/home AGENT_CEILING_DIRECTORIES=
mkdir -p "$HOME"

# As root, from <shared>/x/y.
in_y() { (cd "$shared/x/y" && "$AC" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null); RC=$?; }
in_y session list --json
check "session list: exit 0" rc_is 0
check "the attacker's session is not shown" bash -c '! grep -q s-attacker "$0"' "$TMP/out"
check "one stderr line names the folder skipped and why" \
	eval '[ "$(wc -l <"$TMP/err")" = 1 ] && grep -qF "skipped the workspace $shared" "$TMP/err" && grep -q "uid $attacker" "$TMP/err"'
in_y config show --origin
check "the attacker's config is not applied" bash -c '! grep -q attacker-model "$0"' "$TMP/out"
in_y session create "mine" --id s-mine
check "session create: exit 0" rc_is 0
check "not written into the attacker's folder" test ! -e "$shared/.agent/sessions/s-mine.json"
check "written in the current folder" test -f "$shared/x/y/.agent/sessions/s-mine.json"
in_y session list --json
check "the current folder is the workspace now, silently" \
	eval 'grep -q s-mine "$TMP/out" && ! grep -q s-attacker "$TMP/out" && [ ! -s "$TMP/err" ]'
rm -rf "${shared:?}/x/y/.agent"

# The dashboard with nothing else to take says why, in one line.
(cd "$shared/x/y" && "$AC" >"$TMP/out" 2>"$TMP/err" </dev/null)
RC=$?
check "the dashboard: exit 2, one line naming the folder skipped" \
	eval 'rc_is 2 && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -qF "skipped the workspace $shared" "$TMP/err"'

# Started in the planted folder itself: refused; -w takes it.
(cd "$shared" && "$AC" session list >"$TMP/out" 2>"$TMP/err" </dev/null)
RC=$?
check "in the planted folder: exit 1, one line that names -w" \
	eval 'rc_is 1 && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q -- "-w $shared" "$TMP/err"'
check "... and nothing listed" test ! -s "$TMP/out"
(cd "$shared/x/y" && "$AC" -w "$shared" session list >"$TMP/out" 2>"$TMP/err" </dev/null)
check "-w names it anyway: the operator's choice" grep -q s-attacker "$TMP/out"

# As another (unprivileged) user, the victim, from its own <shared>/x/y.
chmod 0711 "$TMP"
chown "$victim:$victim" "$shared/x" "$shared/x/y"
vhome=$shared/x/y/home
mkdir -p "$vhome" && chown "$victim:$victim" "$vhome"
as_victim() {
	(cd "$shared/x/y" && setpriv --reuid=$victim --regid=$victim --clear-groups \
		env HOME="$vhome" XDG_CONFIG_HOME="$vhome/.config" AGENT_CEILING_DIRECTORIES= \
		"$AC" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null)
	RC=$?
}
as_victim session list --json
check "another uid: the attacker's session is not shown" \
	eval 'rc_is 0 && ! grep -q s-attacker "$TMP/out" && grep -q "uid $attacker" "$TMP/err"'
as_victim session create "victim's" --id s-victim
check "another uid: session create not in the attacker's folder" \
	eval 'rc_is 0 && [ ! -e "$shared/.agent/sessions/s-victim.json" ] && [ -f "$shared/x/y/.agent/sessions/s-victim.json" ]'
rm -rf "${shared:?}/x/y/.agent"
# Root's .agent, in the sticky folder, is the system's: taken.
chown -R 0:0 "$shared/.agent"
as_victim session list --json
check "another uid: root's workspace above is taken" \
	eval 'rc_is 0 && grep -q s-attacker "$TMP/out" && [ ! -s "$TMP/err" ]'
# Writable by anyone without the sticky bit: anyone could have put it there.
chmod 0777 "$shared"
in_y session list --json
check "a folder writable by anyone, not sticky: skipped, said" \
	eval 'rc_is 0 && ! grep -q s-attacker "$TMP/out" && grep -q "not sticky" "$TMP/err"'
chmod 1777 "$shared"
finish
