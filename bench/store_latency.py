#!/usr/bin/env python3
"""Times "a change on another host -> on screen" on a PostgreSQL store.

usage: store_latency.py PG_AGENT URL TRACE_FILE SESSIONS CHANGES [--pid PID]
                        [--kind KIND --tmux SOCKET:TARGET]

The dashboard must run on the store URL names with
AGENTCTL_TRACE_FRAMES=TRACE_FILE (tui/frame_trace.h): after each frame it
appends "<CLOCK_MONOTONIC ns> <id>" for every session row that changed.
This script starts PG_AGENT (bench/pg_agent.c) as a second machine's agent
(host name "bench-host-b") in its latency mode: it makes SESSIONS sessions,
then for each change appends one message to the next one in a transaction
of its own, and prints the monotonic clock read just before the commit.
The script waits for the frame that shows that session's row (LISTEN/NOTIFY
-> the dashboard reads the listing again -> the row is drawn). Prints one
line: median p95 min max seconds and the count; with --pid, then the
dashboard's max RSS in KiB.

--kind picks what pg_agent changes (bench/pg_agent.c): row (the default,
above), status (a session paused or running again: its row), message (a
message appended to lat-0: the frame that draws its open conversation),
journal (an event: the frame that draws its journal pane line),
checkpoint (a checkpoint of lat-0: the frame that draws its row in the
checkpoints pane). For the last three, once the dashboard is up, the
script sends it the keys (tmux send-keys to SOCKET:TARGET) that open what
shows the change: lat-0's conversation, the journal pane, lat-0's
checkpoints.
"""
import os
import statistics
import subprocess
import sys
import time

TIMEOUT_S = 5.0

# What each kind's change is seen in: the keys that open it.
KEYS = {
    "row": [], "status": [],
    "message": ["/", "lat-0", "Enter", "Enter"],
    "journal": ["4"],
    "checkpoint": ["/", "lat-0", "Enter", "3"],
}


def wait_row(trace, pending, want, t0):
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        chunk = trace.read()
        if chunk:
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                ns, _, row = line.partition(b" ")
                if row == want and int(ns) >= t0:
                    return int(ns), pending
        elif time.monotonic() > deadline:
            sys.exit(f"store_latency: {want.decode()} changed but its row was not drawn "
                     f"within {TIMEOUT_S} s")
        else:
            time.sleep(0.0002)


def main():
    args = sys.argv[1:]
    opts = {"--pid": None, "--kind": "row", "--tmux": None}
    for name in opts:
        if name in args:
            i = args.index(name)
            opts[name] = args[i + 1]
            del args[i:i + 2]
    pid = int(opts["--pid"]) if opts["--pid"] else None
    kind = opts["--kind"]
    if len(args) != 5 or kind not in KEYS or (KEYS[kind] and not opts["--tmux"]):
        sys.exit(__doc__)
    agent, url, trace_path, sessions, changes = args[0], args[1], args[2], int(args[3]), int(args[4])
    writer = subprocess.Popen([agent, url, "bench-host-b", "latency", "bench", str(sessions), kind],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    if writer.stdout.readline().strip() != b"ready":
        sys.exit("store_latency: pg_agent did not start")
    # The dashboard is up once it drew the sessions pg_agent made.
    deadline = time.monotonic() + 120
    trace = open(trace_path, "rb")
    seen = b""
    while b"lat-%d" % (sessions - 1) not in seen:
        if time.monotonic() > deadline:
            sys.exit("store_latency: the dashboard did not show the sessions within 120 s")
        seen += trace.read()
        time.sleep(0.01)
    if KEYS[kind]:
        socket, _, target = opts["--tmux"].partition(":")
        for key in KEYS[kind]:
            subprocess.run(["tmux", "-L", socket, "send-keys", "-t", target, key], check=True)
            time.sleep(0.3)
    time.sleep(0.5)
    trace.seek(0, os.SEEK_END)
    pending = b""
    latencies = []
    for _ in range(changes):
        writer.stdin.write(b"\n")
        writer.stdin.flush()
        t0_text, _, row = writer.stdout.readline().strip().partition(b" ")
        if not row:
            sys.exit(f"store_latency: pg_agent stopped ({kind})")
        drawn, pending = wait_row(trace, pending, row, int(t0_text))
        latencies.append((drawn - int(t0_text)) / 1e9)
        time.sleep(0.02)  # one change at a time: the next after this one settled
    writer.stdin.close()
    writer.wait()
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(round(0.95 * (len(latencies) - 1))))]
    fields = [statistics.median(latencies), p95, latencies[0], latencies[-1]]
    out = " ".join(f"{x:.6f}" for x in fields) + f" {len(latencies)}"
    if pid:
        with open(f"/proc/{pid}/status") as f:
            hwm = next((line.split()[1] for line in f if line.startswith("VmHWM:")), "-")
        out += f" {hwm}"
    print(out)


if __name__ == "__main__":
    main()
