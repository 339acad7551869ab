#!/usr/bin/env bash
# Pause and resume against agents written to seed 000 (tests/torture/
# seed_agent.js, run by node): an agent that keeps writing is never told
# "paused"; a pause the agent overrides is reported and journaled; a
# cooperating agent honours the request; resume leaves the session paused
# for the agent's resumeOrCreate and waits for the takeover, and says so
# when the command is missing, dies at once or never takes over; and
# pauseSignal stops and continues an agent agentctl started.
# Usage: pause_resume.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
AGENT=$(cd "$(dirname "$0")/../torture" && pwd)/seed_agent.js
command -v node >/dev/null || { echo "node is missing (scripts/install-deps.sh)"; echo "0 passed, 1 failed"; exit 1; }
export XDG_CONFIG_HOME=$TMP/xdg
mkdir -p "$XDG_CONFIG_HOME/agent"

# new_ws QUIET_MS WAIT_MS [EXTRA_JSON]: a workspace with session s1 (3
# messages), its settings in the user's (trusted) file.
new_ws() {
	WS=$(mktemp -d "$TMP/ws.XXXXXX")
	S=$WS/.agent/sessions
	mkdir -p "$S"
	jq -n '{id: "s1", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z",
		task: "t", status: "running", metadata: {},
		conversationHistory: [range(3) | {role: "user", content: "m\(.)"}]}' >"$S/s1.json"
	jq -n --argjson q "$1" --argjson w "$2" --argjson extra "${3:-{\}}" \
		'{session: {quietMs: $q, waitMs: $w}} + $extra' >"$XDG_CONFIG_HOME/agent/config.json"
}
status_of() { jq -r .status "$S/s1.json"; }
events() { "$AC" -w "$WS" journal query agent=Human --json 2>/dev/null | jq -c "$1"; }
agent() { node "$AGENT" --dir "$S" --id s1 --tag s1 "$@" >"$TMP/agent.out" 2>&1; }

# --- an agent that keeps writing ---------------------------------------------
# A quiet window (1.5 s) far longer than the wait (1 s) and than any stall
# a loaded machine gives the agent, which writes every 5-10 ms for 2-4 s.
new_ws 1500 1000
agent --mode once --turns 400 --gap-min 5 --gap-max 10 --ack "$TMP/ack" &
apid=$!
sleep 0.3
run session pause s1
check "busy agent: pause exits 1" rc_is 1
check "busy agent: says the agent is writing and where the request waits" \
	eval 'grep -q "being written by its agent" "$TMP/err" && grep -q ".requests/s1.json" "$TMP/err"'
check "busy agent: one line on stderr" eval '[ "$(wc -l <"$TMP/err")" = 1 ]'
check "busy agent: never paused in the file" eval '[ "$(status_of)" = running ]'
check "busy agent: the request waits for the agent" jq_is "$S/.requests/s1.json" .request pause
check "busy agent: journaled as in progress, not done" \
	eval '[ "$(events "[.[] | .status]")" = "[\"IN_PROGRESS\"]" ]'
run session list
check "busy agent: session list says it is pausing" grep -q "s1: pausing" "$TMP/err"
wait "$apid"
check "busy agent: every acknowledged turn is in the file" \
	eval '[ "$(jq "[.conversationHistory[] | select(.content | startswith(\"turn\"))] | length" "$S/s1.json")" = "$(wc -l <"$TMP/ack")" ]'

# --- an agent that overrides the pause ---------------------------------------
# It saves its in-memory copy (status running) every 300 ms; the pause
# lands after 200 quiet ms and is watched for 200 ms more, so the agent's
# next save always falls inside that watch.
new_ws 200 3000
agent --mode once --turns 8 --gap-min 300 --gap-max 300 --ack "$TMP/ack2" &
apid=$!
sleep 0.6
run session pause s1
check "overriding agent: pause exits 1" rc_is 1
check "overriding agent: says the pause was overridden" grep -q "pause overridden by the agent" "$TMP/err"
check "overriding agent: journaled as failed" \
	eval 'events "[.[] | select(.status == \"FAILED\") | .result.message]" | grep -q overridden'
wait "$apid"
run session list --json
check "overriding agent: list --json says so" \
	eval '[ "$(jq -r ".[0].pending" "$TMP/out")" = "pause overridden by the agent" ]'
run session show s1
check "overriding agent: show says so" grep -q "pending  pause overridden by the agent" "$TMP/out"
# The operator takes the pause back: resume of the running session
# withdraws the request, and nothing is pending any more.
run session resume s1
check "withdraw: resume of the running session exits 0" rc_is 0
check "withdraw: says the request was withdrawn" grep -q "s1: still running; its pause request withdrawn" "$TMP/out"
check "withdraw: no request left" test ! -e "$S/.requests/s1.json"
check "withdraw: still running" eval '[ "$(status_of)" = running ]'
check "withdraw: journaled" eval 'events "[.[] | .result.message]" | grep -q "Pause request withdrawn"'
run session list --json
check "withdraw: list --json has nothing pending" eval '[ -z "$(jq -r ".[0].pending" "$TMP/out")" ]'
run session resume s1
check "withdraw: a second resume is the usual refusal" bash -c "[ $RC = 1 ] && grep -q 'running already' '$TMP/err'"

# --- a cooperating agent ------------------------------------------------------
new_ws 2000 4000
agent --mode reload --turns 400 --gap-min 5 --gap-max 10 --honour-requests --ack "$TMP/ack3" &
apid=$!
sleep 0.3
run session pause s1
check "cooperating agent: pause exits 0" rc_is 0
check "cooperating agent: the file says paused" eval '[ "$(status_of)" = paused ]'
wait "$apid"
check "cooperating agent: it stopped at the request (fewer than 400 turns)" \
	eval '[ "$(wc -l <"$TMP/ack3")" -lt 400 ]'
check "cooperating agent: every acknowledged turn is in the file" \
	eval '[ "$(jq "[.conversationHistory[] | select(.content | startswith(\"turn\"))] | length" "$S/s1.json")" = "$(wc -l <"$TMP/ack3")" ]'

# --- resume -------------------------------------------------------------------
resume_ws() {
	new_ws 50 1000 "$1"
	jq '.status = "paused"' "$S/s1.json" >"$S/s1.json.tmp" && mv "$S/s1.json.tmp" "$S/s1.json"
	touch -d '-1 min' "$S/s1.json"
}
resume_ws "{\"resumeCommand\": [\"node\", \"$AGENT\", \"--dir\", \".agent/sessions\", \"--id\", \"{id}\", \"--resume\", \"--turns\", \"1\", \"--tag\", \"r\"]}"
run session resume s1
check "resume: exit 0 once the seed agent took over" rc_is 0
check "resume: the agent resumed this session (no new one)" \
	eval '[ "$(ls "$S" | grep -c "\.json$")" = 1 ] && jq_is "$S/s1.json" ".conversationHistory[-1].content" "turn r-1"'
check "resume: the file says running" eval '[ "$(status_of)" = running ]'
check "resume: no request left" test ! -e "$S/.requests/s1.json"
# The newest process record (each workspace's has a name of its own).
record() { ls -t "$XDG_STATE_HOME"/agent/processes/*.json 2>/dev/null | head -n 1; }
check "resume: the process is recorded in the operator's state folder" \
	eval 'jq -e ".pid > 1 and .startTicks > 0 and .sessionId == \"s1\"" "$(record)" >/dev/null'
check "resume: not in the workspace" test ! -e "$S/.processes"
rm -rf "$XDG_STATE_HOME"

resume_ws '{"resumeCommand": ["no-such-agent-program", "{id}"]}'
run session resume s1
check "missing program: exit 1" rc_is 1
check "missing program: names it" grep -q "no-such-agent-program" "$TMP/err"
check "missing program: still paused" eval '[ "$(status_of)" = paused ]'
check "missing program: journaled FAILED" eval '[ "$(events "[.[] | .status] | last")" = "\"FAILED\"" ]'
run session list
check "missing program: list says resume failed" grep -q "s1: resume failed" "$TMP/err"

resume_ws '{"resumeCommand": ["/bin/sh", "-c", "exit 3"]}'
run session resume s1
check "command exits at once: exit 1" rc_is 1
check "command exits at once: says it exited before the takeover" grep -q "exited before the agent took" "$TMP/err"
check "command exits at once: still paused" eval '[ "$(status_of)" = paused ]'

resume_ws '{"resumeCommand": ["sleep", "3"], "resume": {"timeoutMs": 600}}'
run session resume s1
check "no takeover: exit 1" rc_is 1
check "no takeover: says so with the time" grep -q "did not take the session over within 600 ms" "$TMP/err"
check "no takeover: still paused" eval '[ "$(status_of)" = paused ]'
check "no takeover: journaled FAILED" eval 'events "[.[] | select(.status == \"FAILED\") | .result.message]" | grep -q "No takeover"'

# --- pauseSignal --------------------------------------------------------------
resume_ws "{\"pauseSignal\": \"SIGSTOP\", \"resumeCommand\": [\"node\", \"$AGENT\", \"--dir\", \".agent/sessions\", \"--id\", \"{id}\", \"--resume\", \"--mode\", \"once\", \"--turns\", \"100000\", \"--gap-min\", \"20\", \"--gap-max\", \"20\", \"--tag\", \"g\"]}"
run session resume s1
check "pauseSignal: resumed by the started agent" rc_is 0
pid=$(jq -r .pid "$(record)")
run session pause s1
check "pauseSignal: pause exits 0" rc_is 0
check "pauseSignal: says the agent was stopped" grep -q "stopped" "$TMP/out"
# A stopped process shows T once the kernel has delivered the signal,
# which on a loaded machine takes a moment.
state_becomes() { # pid state: up to 3 s
	for _ in $(seq 60); do
		[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.05
	done
	return 1
}
state_leaves() { # pid state: up to 3 s
	local now
	for _ in $(seq 60); do
		now=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
		[ -n "$now" ] && [ "$now" != "$2" ] && return 0
		sleep 0.05
	done
	return 1
}
check "pauseSignal: the agent process is stopped" state_becomes "$pid" T
sleep 0.2
check "pauseSignal: the pause holds (the stopped agent cannot override it)" eval '[ "$(status_of)" = paused ]'
run session resume s1
check "pauseSignal: resume exits 0" rc_is 0
check "pauseSignal: the agent runs again" state_leaves "$pid" T
check "pauseSignal: the file says running" eval '[ "$(status_of)" = running ]'
kill "$pid" 2>/dev/null

# A record planted in the workspace (agents write there) naming another
# process of the operator's is never signalled.
resume_ws '{"pauseSignal": "SIGSTOP"}'
jq '.status = "running"' "$S/s1.json" >"$S/s1.json.tmp" && mv "$S/s1.json.tmp" "$S/s1.json"
touch -d '-1 min' "$S/s1.json"
sleep 60 &
victim=$!
mkdir -p "$S/.processes"
jq -n --argjson pid "$victim" --arg host "$(hostname)" \
	--argjson ticks "$(awk '{print $22}' "/proc/$victim/stat")" \
	'{pid: $pid, host: $host, startTicks: $ticks}' >"$S/.processes/s1.json"
run session pause s1
check "planted process record: the named process is not stopped (3 s watched)" \
	eval '! state_becomes "$victim" T'
check "planted process record: the pause is written as usual" eval '[ "$(status_of)" = paused ]'
kill "$victim" 2>/dev/null

finish
