# tests/fixtures/sources-current/home/.claude moved to a real workspace
# (sourced after lib/tmux.sh): its transcripts under $home/.claude/projects
# for $ws, and three live processes (children of the script, in children;
# kill them in at_exit) in place of the recorded pids 40001-40003
# (pid_of[40001]...), so that their status files speak. Defines W B I X
# CL CP (the fixtures' session ids), status (the status folder) and
# put_status PID JSON. The script sets home and cfg first.
FIX=$(cd "$(dirname "$0")/../fixtures/sources-current/home" && pwd)
W=11111111-aaaa-4aaa-8aaa-000000000001
B=11111111-aaaa-4aaa-8aaa-000000000002
I=11111111-aaaa-4aaa-8aaa-000000000003
X=11111111-aaaa-4aaa-8aaa-000000000004
CL=11111111-aaaa-4aaa-8aaa-000000000005
CP=11111111-aaaa-4aaa-8aaa-000000000006
WS=$(realpath "$ws")
mkdir -p "$home" "$cfg/agent"
cp -r "$FIX/.claude" "$home/.claude"
rm -f "$home/.claude/README.md"
grep -rl /work/fixture-project "$home" | xargs sed -i "s|/work/fixture-project|$WS|g"
slug=$(printf %s "$WS" | sed 's/[^a-zA-Z0-9]/-/g')
mv "$home/.claude/projects/-work-fixture-project" "$home/.claude/projects/$slug"
status=$home/.claude/sessions
# Each recorded process is one of ours now: its file renamed to our pid,
# started now (a file older than its process names another one).
children=()
declare -A pid_of
for rec in 40001 40002 40003; do
  sleep 600 &
  p=$!
  children+=("$p")
  pid_of[$rec]=$p
  jq -c ".pid = $p | .startedAt = $(date +%s%3N)" "$status/$rec.json" >"$status/$p.json.tmp"
  mv "$status/$p.json.tmp" "$status/$p.json"
  rm "$status/$rec.json"
done
# Written as Claude Code writes: a whole new file renamed into place.
put_status() { # pid json
  printf '%s\n' "$2" >"$status/$1.json.tmp" && mv "$status/$1.json.tmp" "$status/$1.json"
}
