#!/usr/bin/env bash
# Watching: the real dashboard runs in tmux while the journal is rotated,
# truncated, replaced and regrown, and session files are changed by
# agentctl and replaced by a foreign writer; then again with inotify's
# queue shrunk (fs.inotify.max_queued_events = 16 while the dashboard
# starts; the limit is read when the inotify instance is made) and a burst
# of thousands of changes, so the queue overflows.
# Pass: each change shows up, and in the end the journal pane's last rows
# are `agentctl journal read --last 5` and the sessions pane shows each
# session file's status.
CASE=watch
# Pause and resume wait for a quiet session file (session.quietMs, 1 s by
# default); this case is about watching, so a short quiet will do.
export AGENT_SESSION_QUIET_MS=100
. "$(dirname "$0")/lib.sh"

if ! command -v tmux jq >/dev/null; then
	check "tmux and jq are installed (scripts/install-deps.sh)" false
	finish "tmux or jq missing"
	exit 1
fi
if [ "$MODE" = short ]; then
	BURST=1500 FLIPS=10 REGROW=300
else
	BURST=6000 FLIPS=40 REGROW=3000
fi
ws=$WORK/ws
J=$ws/JOURNAL.jsonl
SD=$ws/.agent/sessions
sock="agentctl-torture-$$"
CLEANUP+=("tmux -L '$sock' kill-server 2>/dev/null"
	"rm -f '${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock'")
mkdir -p "$SD"

screen() { tmux -L "$sock" capture-pane -p -t tt; }
keys() { tmux -L "$sock" send-keys -t tt "$@"; sleep 0.2; }
wait_for() { # text [seconds]: waits for text on screen
	local i
	for i in $(seq $((${2:-5} * 10))); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
# A tmux server exits after its last session, asynchronously: start waits
# for the previous one's process, or new-session could reach it while it
# shuts down ("server exited unexpectedly").
server_pid=
start() {
	rm -f "$WORK/exit"
	if [ -n "$server_pid" ]; then
		for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
	fi
	tmux -L "$sock" new-session -d -s tt -x 160 -y 50 "$AC -w $ws; echo \$? > $WORK/exit"
	server_pid=$(tmux -L "$sock" display-message -p '#{pid}' 2>/dev/null)
}
quit() {
	keys q
	for _ in $(seq 50); do [ -s "$WORK/exit" ] && break; sleep 0.1; done
	check "q quits with status 0" grep -qx 0 "$WORK/exit"
}
append() { "$TW" append --journal "${3:-$J}" --prefix "$1" --count "$2"; }
session() { # id status: writes the file the way a foreign writer does (temp, rename)
	printf '{"id":"%s","createdAt":"2024-05-01T10:00:0%s.000Z","updatedAt":"2024-05-01T10:00:00.000Z","task":"task %s","status":"%s","conversationHistory":[],"metadata":{"userId":"u","agentId":"Codex"}}' \
		"$1" "${1#s}" "$1" "$2" >"$SD/$1.json.tmp"
	mv "$SD/$1.json.tmp" "$SD/$1.json"
}

# The journal pane's last five messages and `journal read --last 5`'s.
journal_rows() {
	keys 4
	keys G
	# Columns: time, status symbol, agent, action, then the message.
	screen | awk '/^TIME +S AGENT/ { on = 1; next } / events seen/ { on = 0 }
		on && NF { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }' | tail -n 5 | tr '\n' '|'
}
journal_expected() {
	"$AC" -w "$ws" journal read --last 5 --json | jq -r '.[].result.message' | tr '\n' '|'
}
# "id status" for each session, from the sessions pane and from the files.
session_rows() {
	keys 1
	# "completed" does not fit the column: it shows as "comple…".
	screen | awk '$2 ~ /^(running|paused|comple|failed)/ && $3 ~ /^s[0-9]+$/ {
		print $3, ($2 ~ /^comple/ ? "completed" : $2) }' | sort | tr '\n' ' '
}
session_expected() {
	local f
	for f in "$SD"/*.json; do jq -r '"\(.id) \(.status)"' "$f"; done | sort | tr '\n' ' '
}
# final_state LABEL: waits up to 15 s for the dashboard to show the files.
final_state() {
	local label=$1 i got want sgot swant
	for i in $(seq 30); do
		got=$(journal_rows) want=$(journal_expected)
		sgot=$(session_rows) swant=$(session_expected)
		[ "$got" = "$want" ] && [ "$sgot" = "$swant" ] && break
		sleep 0.3
	done
	check "$label: the journal pane ends with journal read --last 5 ($want)" eq "$got" "$want"
	[ "$got" = "$want" ] || echo "       | the pane shows: $got"
	check "$label: the sessions pane shows each file's status ($swant)" eq "$sgot" "$swant"
	[ "$sgot" = "$swant" ] || echo "       | the pane shows: $sgot"
}

for i in 1 2 3 4 5 6; do session "s$i" running; done
append start 10

# --- A: rotation, truncation, replacement, regrowth ------------------------
echo " A: the journal rotated, truncated, replaced and regrown under the dashboard"
start
check "A: the dashboard starts and shows the journal" wait_for start-10
keys 4
"$AC" -w "$ws" journal rotate >/dev/null
append rotated 5
check "A: rotated (journal rotate), then appended: shown" wait_for rotated-5
: >"$J"
append truncated 3
check "A: truncated in place, then appended: shown" wait_for truncated-3
append replaced 8 "$WORK/new.jsonl"
mv "$WORK/new.jsonl" "$J"
check "A: replaced by rename: shown" wait_for replaced-8
append regrown "$REGROW" "$WORK/regrow.jsonl"
cat "$WORK/regrow.jsonl" >"$J" # truncated and rewritten, larger, same inode
check "A: truncated and regrown past the old size in one go: shown" wait_for "regrown-$REGROW" 10
rm -f "$J"
append recreated 4
check "A: deleted and re-created: shown" wait_for recreated-4
# Rotations in the middle of a burst of appends.
append burst "$BURST" &
burst=$!
for i in 1 2 3 4 5; do sleep 0.1; "$AC" -w "$ws" journal rotate >/dev/null; done
wait "$burst"
append after-burst 5
"$AC" -w "$ws" session pause s1 >/dev/null
"$AC" -w "$ws" session complete s2 >/dev/null
"$AC" -w "$ws" session fail s3 >/dev/null
session s4 paused
rm -f "$SD/s6.json"
session s7 running
final_state A
quit

# --- B: inotify queue overflow -----------------------------------------------
echo " B: inotify's queue shrunk to 16 events, then a burst"
limit=/proc/sys/fs/inotify/max_queued_events
orig=$(cat "$limit" 2>/dev/null)
if [ -n "$orig" ] && echo 16 2>/dev/null >"$limit"; then
	CLEANUP+=("echo '$orig' > '$limit'")
	start
	wait_for "1 Sessions" 10
	mkdir -p "$WORK/probe"
	probe=$("$TW" inotify-probe --dir "$WORK/probe")
	echo "$orig" >"$limit" # the dashboard has its instance: others need theirs full size
	echo "   max_queued_events was 16 while the dashboard started (restored to $orig);" \
		"a probe instance made then: $probe"
	check "B: the shrunk queue overflows (probe: $probe)" eq "$probe" overflow=1
	OVERFLOW=forced
else
	echo "   cannot write $limit: the burst runs with the normal queue (no overflow forced)"
	start
	wait_for "1 Sessions" 10
	OVERFLOW=not-forced
fi
append overflow "$BURST" &
burst=$!
for i in $(seq "$FLIPS"); do
	"$AC" -w "$ws" session pause s5 >/dev/null 2>&1
	session s4 "$([ $((i % 2)) = 0 ] && echo running || echo paused)"
	"$AC" -w "$ws" session resume s5 >/dev/null 2>&1
	touch "$SD/.ignored.$i.tmp"
done
wait "$burst"
"$AC" -w "$ws" session pause s7 >/dev/null
# The last changes are a burst of their own, so what the dashboard ends
# with depends on how it recovers from an overflow, not on a calm event
# after it.
append final 500 &
burst=$!
for i in $(seq 30); do session s6 "$([ $((i % 2)) = 0 ] && echo failed || echo paused)"; done
wait "$burst"
final_state B
quit

finish "overflow=$OVERFLOW burst=$BURST flips=$FLIPS regrow=$REGROW"
