#!/usr/bin/env bash
# The dashboard's operator actions keep agent state out of `git add -A`
# (issue 23 item 14): a workspace whose session a seed agent wrote, in a
# git repository; opening the dashboard writes nothing (not even git's
# exclude file); `p` then `y` pauses the session, and from then on the
# seed agent's `git add -A` stages no journal and nothing under .agent/,
# and the user's own exclude lines stay.
. "$(dirname "$0")/lib/tmux.sh" "$@"

S=$ws/.agent/sessions
mkdir -p "$S"
cat >"$S/s-one.json" <<JSON
{"id":"s-one","createdAt":"2024-05-01T10:00:00.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"a task","status":"running","conversationHistory":[],"metadata":{}}
JSON
touch -d '-1 min' "$S/s-one.json"
git -C "$ws" init -q
printf '# mine\n*.bak\n' >"$ws/.git/info/exclude"
cp "$ws/.git/info/exclude" "$ws.exclude"

dashboard 120 32
wait_for "s-one" >/dev/null
check "opening the dashboard leaves the exclude file alone" cmp -s "$ws/.git/info/exclude" "$ws.exclude"
keys 1 g p
check "p asks" wait_for "Pause"
keys y
check "y pauses" bash -c "grep -q '\"status\": *\"paused\"' '$S/s-one.json'"
keys q
wait_exit
staged=$(cd "$ws" && git add -A && git status --porcelain)
check "git add -A stages no journal ($staged)" bash -c "! grep -q JOURNAL <<<'$staged'"
check "git add -A stages nothing under .agent/" bash -c "! grep -q '\.agent' <<<'$staged'"
check "the user's lines stay" [ "$(head -2 "$ws/.git/info/exclude")" = "$(cat "$ws.exclude")" ]
at_exit() { rm -f "$ws.exclude"; }
finish
