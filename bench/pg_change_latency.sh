#!/usr/bin/env bash
# A change on PostgreSQL -> the dashboard's model, and -> the screen, with
# 1,000, 10,000 and 100,000 sessions in the store (issue 28 item 4); then
# the peak RSS of `session list` (text and --json) on 100,000 sessions.
# Each binary is run in turn on the same database (pairs, alternating):
#   bench/pg_change_latency.sh NEW_AGENTCTL [BASE_AGENTCTL [SIZES...]]
# The dashboard runs in tmux on the store with the frame trace
# (AGENTCTL_TRACE_FRAMES, tui/frame_trace.h) and the store readings noted
# (AGENTCTL_DEBUG_STATS: "<ns> row <id>" once the model holds the row; a
# binary without it shows "-"). pg_agent (built beside NEW_AGENTCTL) makes
# 10 sessions lat-0..9 and appends a message to one after another, each in
# its own transaction, one change at a time; each commit is timed to the
# model and to the frame that draws its row, the next change GAP_MS (50)
# after that frame (longer: the dashboard's work after a frame, O(sessions)
# today, is over before the next commit). Prints medians and p95 in ms,
# the CPU time (user+sys) the dashboard spent, and the load.
# The server: the one PG* variables name, else a throwaway cluster.
set -euo pipefail
new=$(realpath "${1:?usage: pg_change_latency.sh NEW_AGENTCTL [BASE_AGENTCTL [SIZES...]]}")
base=${2:-}
[ -n "$base" ] && base=$(realpath "$base")
shift $(($# >= 2 ? 2 : 1))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
agent=$(dirname "$new")/pg_agent
[ -x "$agent" ] || { echo "pg_change_latency: $agent not built" >&2; exit 1; }
if [ -z "${PGHOST:-}${PGPORT:-}" ]; then
	exec pg_virtualenv -t bash "$0" "$new" "${base:-}" "${sizes[@]}"
fi
changes=${CHANGES:-40}
export GAP_MS=${GAP_MS:-50}
tmp=$(mktemp -d)
: "${tmp:?}"
sock=
trap '[ -n "$sock" ] && { tmux -L "$sock" kill-server 2>/dev/null; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"; }; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws"

# driver URL STATS TRACE CHANGES PID: medians and p95 (ms) to the model
# and to the screen, then the dashboard's CPU seconds while changing.
cat >"$tmp/driver.py" <<'EOF'
import os, statistics, subprocess, sys, time
agent, url, stats_path, trace_path, changes, pid = sys.argv[1:7]
changes, pid = int(changes), int(pid)
gap = int(os.environ.get("GAP_MS", "50")) / 1000

def cpu():
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def wait(f, pending, want, t0, deadline):
    while True:
        chunk = f.read()
        if chunk:
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                parts = line.split(b" ")
                if parts[-1] == want and int(parts[0]) >= t0:
                    return int(parts[0]), pending
        elif time.monotonic() > deadline:
            return None, pending
        else:
            time.sleep(0.0002)

writer = subprocess.Popen([agent, url, "bench-host-b", "latency", "bench", "10"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)
if writer.stdout.readline().strip() != b"ready":
    sys.exit("driver: pg_agent did not start")
trace = open(trace_path, "rb")
stats = open(stats_path, "ab+")
stats.seek(0)
seen, deadline = b"", time.monotonic() + 300
while b"lat-9" not in seen:
    if time.monotonic() > deadline:
        sys.exit("driver: the dashboard did not show the sessions")
    seen += trace.read()
    time.sleep(0.01)
time.sleep(1.5)
trace.seek(0, os.SEEK_END)
stats.seek(0, os.SEEK_END)
pend_t, pend_s, to_model, to_screen = b"", b"", [], []
cpu0 = cpu()
for _ in range(changes):
    writer.stdin.write(b"\n")
    writer.stdin.flush()
    t0, _, row = writer.stdout.readline().strip().partition(b" ")
    t0 = int(t0)
    deadline = time.monotonic() + 10
    drawn, pend_t = wait(trace, pend_t, row, t0, deadline)
    if drawn is None:
        sys.exit("driver: a change was not drawn within 10 s")
    # The model holds the row before the frame draws it: its line is there.
    model, pend_s = wait(stats, pend_s, row, t0, time.monotonic() + 0.05)
    to_screen.append((drawn - t0) / 1e6)
    if model is not None:
        to_model.append((model - t0) / 1e6)
    time.sleep(gap)
spent = cpu() - cpu0
writer.stdin.close()
writer.wait()

def show(v):
    if not v:
        return "- -"
    v = sorted(v)
    return f"{statistics.median(v):.2f} {v[min(len(v) - 1, round(0.95 * (len(v) - 1)))]:.2f}"

print(show(to_model), show(to_screen), f"{spent:.2f}")
EOF

# measure BIN DB: one line of the driver's.
measure() {
	local bin=$1 db=$2 url="dbname=$2" pid
	# A tmux server of its own each time: one killed exits asynchronously.
	sock=pg-change-latency-$$-$RANDOM$RANDOM
	: >"$tmp/trace"
	: >"$tmp/stats"
	tmux -L "$sock" new-session -d -s dash -x 160 -y 48 \
		"exec env AGENT_STORAGE_URL='$url' AGENTCTL_TRACE_FRAMES=$tmp/trace AGENTCTL_DEBUG_STATS=$tmp/stats $bin -w $tmp/ws"
	pid=$(tmux -L "$sock" list-panes -t dash -F '#{pane_pid}')
	python3 "$tmp/driver.py" "$agent" "$url" "$tmp/stats" "$tmp/trace" "$changes" "$pid"
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"
}

seed() { # db count: count sessions a day old (pg_agent's lat-* are newer)
	psql -Atqc "DROP DATABASE IF EXISTS $1" >/dev/null
	psql -Atqc "CREATE DATABASE $1" >/dev/null
	printf '' | "$agent" "dbname=$1" bench-host-b latency bench 10 >/dev/null
	psql -d "$1" -Atq -v ON_ERROR_STOP=1 -c "INSERT INTO agentctl.sessions (tenant, id, user_id,
	    agent, status, created_at, updated_at, written_by_host, task)
	  SELECT 'bench', 'fleet-' || g, 'u', 'a', 'completed', now() - interval '1 day' - g * interval '1 s',
	         now() - interval '1 day' - g * interval '1 s', 'host-a', repeat('task words ', 15) || g
	  FROM generate_series(1, $2) g; ANALYZE agentctl.sessions"
}

echo "load before: $(uptime)"
echo "sessions  binary  to-model median p95 (ms)  to-screen median p95 (ms)  dashboard cpu s ($changes changes)"
for n in "${sizes[@]}"; do
	db=pg_change_latency_$n
	seed "$db" "$n"
	for round in 1 2; do
		for bin in "$base" "$new"; do
			[ -n "$bin" ] || continue
			read -r mm mp sm sp cpu < <(measure "$bin" "$db")
			printf '%8s  %-6s  %8s %8s  %8s %8s  %6s\n' "$n" \
				"$([ "$bin" = "$new" ] && echo new || echo base)" "$mm" "$mp" "$sm" "$sp" "$cpu"
		done
	done
	[ "$n" = "${sizes[-1]}" ] || psql -Atqc "DROP DATABASE IF EXISTS $db" >/dev/null
done

# ---- session list's peak RSS on the largest store ----
url="dbname=pg_change_latency_${sizes[-1]}"
echo "session list on $((${sizes[-1]} + 10)) sessions: peak RSS KB, user s, sys s"
for round in 1 2 3; do
	for bin in "$base" "$new"; do
		[ -n "$bin" ] || continue
		for args in "" "--json"; do
			r=$( (cd "$tmp/ws" && AGENT_STORAGE_URL=$url /usr/bin/time -f '%M %U %S' \
				"$bin" session list $args >/dev/null) 2>&1 | tail -1)
			printf '  %-5s %-6s %s\n' "$([ "$bin" = "$new" ] && echo new || echo base)" \
				"${args:-text}" "$r"
		done
	done
done
psql -Atqc "DROP DATABASE IF EXISTS pg_change_latency_${sizes[-1]}" >/dev/null
echo "load after: $(uptime)"
