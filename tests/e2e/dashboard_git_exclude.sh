#!/usr/bin/env bash
# The dashboard's operator actions keep agent state out of `git add -A`
# (issue 23 item 14): a workspace whose session a seed agent wrote, in a
# git repository; opening the dashboard writes nothing (not even git's
# exclude file); `p` then `y` pauses the session, and from then on the
# seed agent's `git add -A` stages no journal and nothing under .agent/,
# and the user's own exclude lines stay. With hooks.onStatusChange set, a
# status change the dashboard sees runs it, which writes .agent/hooks.log
# (and the lease .agent/hooks.lock) with no action of the operator's: on
# 7d9f97d git add -A staged them; --read-only runs no hook, writes nothing.
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
# The pause is written by a job: up to 10 s on a loaded machine.
check "y pauses" bash -c "for _ in \$(seq 100); do grep -q '\"status\": *\"paused\"' '$S/s-one.json' && exit 0; sleep 0.1; done; exit 1"
keys q
wait_exit
staged=$(cd "$ws" && git add -A && git status --porcelain)
check "git add -A stages no journal ($staged)" bash -c "! grep -q JOURNAL <<<'$staged'"
check "git add -A stages nothing under .agent/" bash -c "! grep -q '\.agent' <<<'$staged'"
check "the user's lines stay" [ "$(head -2 "$ws/.git/info/exclude")" = "$(cat "$ws.exclude")" ]

# Hooks: a second repository, the user's hook set; another writer pauses.
export XDG_CONFIG_HOME=$ws.state/xdg
mkdir -p "$XDG_CONFIG_HOME/agent"
printf '{"hooks": {"onStatusChange": ["true"]}}\n' >"$XDG_CONFIG_HOME/agent/config.json"
rm -rf "${ws:?}/.git" "$ws/.agent" "$ws/JOURNAL.jsonl"
mkdir -p "$S"
put() { # status: written as the seed agent does, whole
  printf '{"id":"s-one","createdAt":"2024-05-01T10:00:00.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"a task","status":"%s","conversationHistory":[],"metadata":{}}\n' \
    "$1" >"$S/s-one.json.tmp" && mv "$S/s-one.json.tmp" "$S/s-one.json"
}
put running
git -C "$ws" init -q
dashboard 120 32 --read-only
wait_for "s-one" >/dev/null
sleep 0.5; put paused
sleep 1.5
keys q
wait_exit
check "--read-only with a hook: no hooks.log, no exclude block" \
  bash -c '[ ! -e "$0/.agent/hooks.log" ] && ! grep -q agentctl "$0/.git/info/exclude"' "$ws"
put running
dashboard 120 32
wait_for "s-one" >/dev/null
sleep 0.5; put paused
for _ in $(seq 50); do [ -s "$ws/.agent/hooks.log" ] || [ -e "$ws/.agent/hooks.lock" ] && break; sleep 0.1; done
sleep 0.5
keys q
wait_exit
check "the hook ran (hooks.lock or hooks.log written)" \
  bash -c '[ -e "$0/.agent/hooks.lock" ] || [ -e "$0/.agent/hooks.log" ]' "$ws"
staged=$(cd "$ws" && git add -A && git status --porcelain)
check "hooks: git add -A stages nothing under .agent/ ($staged)" bash -c "! grep -q '\.agent' <<<'$staged'"
at_exit() { rm -f "$ws.exclude"; }
finish
