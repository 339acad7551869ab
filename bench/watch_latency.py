#!/usr/bin/env python3
"""Times "session file change -> on screen" in a running dashboard.

usage: watch_latency.py SESSIONS_DIR TRACE_FILE CHANGES [--pid PID]

The dashboard must run on the workspace of SESSIONS_DIR with
AGENTCTL_TRACE_FRAMES=TRACE_FILE (tui/frame_trace.h): after each frame it
appends "<CLOCK_MONOTONIC ns> <id>" for every session row that changed.
This script saves CHANGES session files one after the other the way the
seed's writers do (a new updatedAt, written to <id>.json.tmp, renamed over
<id>.json), notes the monotonic clock just before each rename, and waits
for the frame that shows that session's row. Python's time.monotonic_ns()
reads the same CLOCK_MONOTONIC. Prints one line: median p95 min max
seconds and the count; with --pid, then the dashboard's max RSS in KiB.
"""
import os
import statistics
import sys
import time

TIMEOUT_S = 5.0


def main():
    args = sys.argv[1:]
    pid = None
    if "--pid" in args:
        i = args.index("--pid")
        pid = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    sessions, trace_path, changes = args[0], args[1], int(args[2])
    names = sorted(n for n in os.listdir(sessions) if n.endswith(".json") and not n.startswith("."))
    if not names:
        sys.exit(f"watch_latency: no sessions in {sessions}")
    trace = open(trace_path, "rb")
    # The first frame lists every row: the dashboard is up once it is there.
    deadline = time.monotonic() + 120
    while os.path.getsize(trace_path) == 0:
        if time.monotonic() > deadline:
            sys.exit("watch_latency: the dashboard drew no frame within 120 s")
        time.sleep(0.01)
    time.sleep(0.5)
    trace.seek(0, os.SEEK_END)

    step = max(1, len(names) // changes)
    latencies = []
    for k in range(changes):
        name = names[(k * step) % len(names)]
        path = os.path.join(sessions, name)
        with open(path, "rb") as f:
            data = f.read()
        key = b'"updatedAt": "'
        at = data.index(key) + len(key)
        end = data.index(b'"', at)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(2000000000 + k)).encode() + b".000Z"
        data = data[:at] + stamp + data[end:]
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        want = name[:-5].encode()
        t0 = time.monotonic_ns()
        os.rename(path + ".tmp", path)
        seen = None
        pending = b""
        deadline = time.monotonic() + TIMEOUT_S
        while seen is None:
            chunk = trace.read()
            if chunk:
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    ns, _, row = line.partition(b" ")
                    if row == want and int(ns) >= t0:
                        seen = int(ns)
                        break
            elif time.monotonic() > deadline:
                sys.exit(f"watch_latency: {name} changed but its row was not drawn within {TIMEOUT_S} s")
            else:
                time.sleep(0.0002)
        latencies.append((seen - t0) / 1e9)
        time.sleep(0.02)  # one change at a time: the next after this one settled
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
