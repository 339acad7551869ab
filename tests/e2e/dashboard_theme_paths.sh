#!/usr/bin/env bash
# A theme from the untrusted project file is a name, never a path (issue
# 23, item 5): its `theme` set to a FIFO froze the dashboard before its
# first frame (q ignored), and any file root can read (the shadow password
# file) was opened. Now a path there is refused with one warning naming it
# and the project file, the default theme is used, and q quits. A path from
# the operator's own layers (user config, --theme) is still opened, but only
# a regular file, without blocking: a FIFO there warns and falls back too.
. "$(dirname "$0")/lib/tmux.sh" "$@"
export XDG_CONFIG_HOME=$ws.cfg
mkdir -p "$ws/.agent" "$ws.cfg/agent" "$ws.themes"
mkfifo "$ws.fifo"
base="env XDG_CONFIG_HOME=$ws.cfg NO_COLOR="
log_has() { keys L; wait_for "$1"; local rc=$?; keys Escape; return $rc; }
quits() { keys q; wait_exit && [ "$(cat "$ws.exit")" = 0 ]; }

# The project file names a FIFO: the dashboard starts, says so, q quits.
printf '{"theme": "%s"}\n' "$ws.fifo" >"$ws/.agent/config.json"
prefix="$base" dashboard 160 30
check "a FIFO from the project file does not freeze the dashboard" wait_for "1 Sessions"
check "one warning: a path, not a theme name" log_has "a path, not a theme name"
check "naming the path" log_has "$ws.fifo"
check "and the project file" log_has "$ws/.agent/config.json"
check "q quits (exit 0)" quits

# The shadow password file from the project file: not opened, the same
# warning. (A readable theme file at a path is not used either.)
printf '{"theme": "/etc/shadow"}\n' >"$ws/.agent/config.json"
prefix="$base" dashboard 160 30
wait_for "1 Sessions"
check "/etc/shadow from the project file is refused as a path" log_has "'/etc/shadow': a path"
check "q quits" quits
cp "$(dirname "$agentctl")/themes/light.theme" "$ws.themes/mine.theme"
printf '{"theme": "%s"}\n' "$ws.themes/mine.theme" >"$ws/.agent/config.json"
prefix="$base" dashboard 160 30
wait_for "1 Sessions"
check "a theme file at a path from the project file is not used" log_has "a path, not a theme name"
check "q quits" quits

# A name from the project file still picks an installed theme.
echo '{"theme": "light"}' >"$ws/.agent/config.json"
prefix="$base" dashboard 160 30
wait_for "1 Sessions"
check "a theme name from the project file applies" log_has "theme: light (configured in"
keys q
wait_exit

# The user's own config may give a path: a regular file is used...
rm "$ws/.agent/config.json"
printf '{"theme": "%s"}\n' "$ws.themes/mine.theme" >"$ws.cfg/agent/config.json"
prefix="$base" dashboard 160 30
wait_for "1 Sessions"
check "a theme path from the user config applies" log_has "theme: $ws.themes/mine.theme (configured in"
keys q
wait_exit
# ... a FIFO there is not waited for.
printf '{"theme": "%s"}\n' "$ws.fifo" >"$ws.cfg/agent/config.json"
prefix="$base" dashboard 160 30
check "a FIFO from the user config does not freeze the dashboard" wait_for "1 Sessions"
check "it is named, not a regular file" log_has "$ws.fifo: not a regular file"
check "q quits" quits
# --theme the same.
rm "$ws.cfg/agent/config.json"
prefix="$base" dashboard 160 30 --theme "$ws.fifo"
check "--theme FIFO does not freeze the dashboard" wait_for "1 Sessions"
check "q quits" quits

# A project file changed to a FIFO path while the dashboard runs.
echo '{"theme": "light"}' >"$ws/.agent/config.json"
prefix="$base" dashboard 160 30
wait_for "1 Sessions"
printf '{"theme": "%s"}\n' "$ws.fifo" >"$ws/.agent/config.json"
wait_for "configuration reloaded"
check "a reloaded project file's FIFO is refused" log_has "a path, not a theme name"
check "q quits" quits
at_exit() { rm -rf "$ws.cfg" "$ws.themes" "$ws.fifo"; }
finish
