#!/usr/bin/env bash
# Themes over time (issue 13, item 16): t's choice is remembered in the
# user's state folder (not the project file) and used at the next start;
# with no theme configured or remembered, COLORFGBG's light background
# picks the light theme; a configured theme wins over both; a changed
# configuration file is read again while the dashboard runs, and a broken
# one keeps the last good configuration and says so in the message log.
. "$(dirname "$0")/lib/tmux.sh" "$@"
export XDG_CONFIG_HOME=$ws.cfg
mkdir -p "$ws/.agent" "$ws.cfg/agent"
state=$ws.state/agentctl/theme
base="env XDG_CONFIG_HOME=$ws.cfg NO_COLOR="
log_has() { keys L; wait_for "$1"; local rc=$?; keys Escape; return $rc; }

# COLORFGBG says light, nothing configured or remembered: light.
prefix="$base COLORFGBG='0;15'" dashboard 140 30
wait_for "1 Sessions"
check "a light background picks the light theme" log_has "theme: light (COLORFGBG=0;15"
# t: the next theme, remembered in the state folder.
keys t
check "t says the theme" wait_for "theme: monochrome"
check "t's choice is remembered in \$XDG_STATE_HOME/agentctl/theme" \
	bash -c '[ "$(cat "$0")" = monochrome ]' "$state"
check "not in the project file" test ! -e "$ws/.agent/config.json"
keys q
wait_exit

# The next start uses it, even with COLORFGBG light.
prefix="$base COLORFGBG='0;15'" dashboard 140 30
wait_for "1 Sessions"
check "the remembered theme is used at the next start" log_has "theme: monochrome (chosen last time"
keys q
wait_exit

# A configured theme wins over the remembered one.
echo '{"theme": "high-contrast"}' >"$ws.cfg/agent/config.json"
prefix="$base COLORFGBG='0;15'" dashboard 140 30
wait_for "1 Sessions"
check "a configured theme wins" log_has "theme: high-contrast (configured in"

# The configuration is read again when its file changes.
echo '{"theme": "light"}' >"$ws/.agent/config.json"
check "a changed project file is reloaded" wait_for "configuration reloaded"
check "its theme applies" wait_for "theme light"
# A broken file keeps the last good configuration.
echo '{"theme": ' >"$ws.cfg/agent/config.json"
check "a broken user file is said" wait_for "configuration not reloaded"
check "the log names the file and keeps the last good configuration" \
	log_has "keeping the last good configuration"
check "naming the file" log_has "$ws.cfg/agent/config.json"
echo '{"theme": "dark"}' >"$ws.cfg/agent/config.json"
check "a fixed file is reloaded" wait_for "configuration reloaded"
keys q
wait_exit
check "quits with 0" test "$(cat "$ws.exit")" = 0
at_exit() { rm -rf "$ws.cfg"; }
finish
