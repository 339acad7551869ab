#!/usr/bin/env bash
# The dashboard's first screen from the session cache (issue 28 item 4):
# the second start finds the listing the first one left
# ($XDG_CACHE_HOME/agentctl/sessions-*.bin) and shows the same first screen
# as a start without it; a session file rewritten in place since, to the
# same size and mtime, is shown as it is now (its ctime moved), not as
# the cache remembers it.
. "$(dirname "$0")/lib/tmux.sh" "$@"
export XDG_CACHE_HOME=$ws.cache HOME=$ws.cache/home
mkdir -p "$HOME" "$ws/.agent/sessions"
S=$ws/.agent/sessions
statuses=(running paused completed failed)
for i in $(seq 10 39); do
  printf '{"id":"s%d","createdAt":"2025-01-%02dT00:00:00.000Z","updatedAt":"2025-02-01T00:00:00.000Z","task":"task number %d","status":"%s","conversationHistory":[{"role":"user","content":"hi"}],"metadata":{"userId":"u%d","agentId":"a"}}' \
    "$i" "$((i - 9))" "$i" "${statuses[$((i % 4))]}" "$((i % 3))" >"$S/s$i.json"
done
touch -d '2 hours ago' "$S"/*.json
# A stamp younger than 2 s is not cached (ac_session_index.c, RACY_NS).
sleep 2.1

first_screen() { # OUT: the screen once the listing is on it, then quit
  dashboard 160 40
  wait_for "task number 39" >/dev/null
  sleep 0.3
  screen >"$1"
  send q
  wait_gone
}
export NO_COLOR=1
first_screen "$ws.cache/cold"
check "the first start wrote the cache" eval 'ls "$XDG_CACHE_HOME"/agentctl/sessions-*.bin >/dev/null 2>&1'
check "(the first screen lists the sessions)" grep -q "task number 30" "$ws.cache/cold"
first_screen "$ws.cache/warm"
check "the warm first screen is the cold one" cmp -s "$ws.cache/cold" "$ws.cache/warm" ||
  diff "$ws.cache/cold" "$ws.cache/warm"

# In place, same size, mtime put back: the cache says "task number 39".
f=$S/s39.json
stamp=$(stat -c %y "$f")
sed 's/task number 39/TASK NUMBER 39/' "$f" >"$ws.cache/in_place"
cat "$ws.cache/in_place" >"$f"
touch -d "$stamp" "$f"
dashboard 160 40
check "a file rewritten in place is shown as it is now" wait_for "TASK NUMBER 39"
check "not as the cache remembers it" absent "task number 39"
send q
check "q quits cleanly" eval 'wait_exit && [ "$(cat "$ws.exit")" = 0 ]'
wait_gone
finish
