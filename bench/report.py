#!/usr/bin/env python3
"""Turn bench/journal.sh's results into a markdown report (on stdout).

Usage: report.py RESULTS.tsv IDCHECK.txt
RESULTS.tsv rows: key, group, shown command, median seconds (or FAILED),
runs, output lines, exit status. The machine, journal and tool descriptions
come from the environment (R_MACHINE, R_JOURNAL, R_TOOLS).
"""

import os
import sys

# agentctl row -> the peers it is compared with
PEERS = {
    "read10": [("tail10", "tail")],
    "read1000": [("tail1000", "tail")],
    "query_agent": [("grep_agent", "grep"), ("jq_agent", "jq")],
    "query_needle": [("grep_needle", "grep"), ("jq_needle", "jq")],
    "check": [("jq_check", "jq")],
}

# (label, agentctl row, peer row, limit, agentctl must be faster by limit)
TARGETS = [
    ("`read --last 10` vs `tail -n 10`", "read10", "tail10", 3, False),
    ("`query agent=Codex` vs `jq`", "query_agent", "jq_agent", 10, True),
    ("`query agent=Codex` vs `grep -F`", "query_agent", "grep_agent", 3,
     False),
]

# rows that must print the same number of lines
SAME_OUTPUT = [("grep_agent", "jq_agent", "query_agent"),
               ("grep_needle", "jq_needle", "query_needle")]


def fmt(x):
    if x is None:
        return "failed"
    if x < 0.01:
        return f"{x:.5f}"
    if x < 1:
        return f"{x:.4f}"
    return f"{x:.3f}"


def main(argv):
    rows = [line.rstrip("\n").split("\t") for line in open(argv[1])
            if line.strip()]
    idcheck = [line.rstrip("\n") for line in open(argv[2]) if line.strip()]
    by = {r[0]: r for r in rows}

    def secs(key):
        r = by.get(key)
        if not r or r[3] == "FAILED":
            return None
        return float(r[3])

    def versus(key):
        mine = secs(key)
        out = []
        for peer, name in PEERS.get(key, []):
            p = secs(peer)
            if not mine or not p:
                continue
            if mine >= p:
                out.append(f"{mine / p:.2f}x the time of {name}")
            else:
                out.append(f"{p / mine:.1f}x faster than {name}")
        return "; ".join(out)

    print("- Machine: " + os.environ.get("R_MACHINE", "?"))
    print("- Journal: " + os.environ.get("R_JOURNAL", "?"))
    print("- Tools: " + os.environ.get("R_TOOLS", "?"))
    print("- Median wall time; page cache warm; every command's output is "
          "read through a pipe and discarded.")
    print()
    print("| Command | Median (s) | Runs | Output lines | agentctl vs peer |")
    print("|---|---:|---:|---:|---|")
    for key, _group, shown, med, runs, lines, rc in rows:
        shown = shown.replace("|", "\\|")
        m = f"failed (exit {rc})" if med == "FAILED" else fmt(float(med))
        print(f"| `{shown}` | {m} | {runs} | {lines} | {versus(key)} |")
    print()

    if any(t[1] in by for t in TARGETS):
        print("Targets:")
        for label, key, peer, limit, faster in TARGETS:
            a, p = secs(key), secs(peer)
            if a is None or p is None:
                print(f"- {label}: not measured")
            elif faster:
                x = p / a
                ok = "met" if x >= limit else "MISSED"
                print(f"- {label}: {x:.1f}x faster "
                      f"(target: at least {limit}x faster): {ok}")
            else:
                x = a / p
                ok = "met" if x <= limit else "MISSED"
                print(f"- {label}: {x:.2f}x the time "
                      f"(target: at most {limit}x): {ok}")
        print()

    if idcheck:
        print("Same events? (event ids of agentctl's `--json` output against "
              "grep's and tail's lines):")
        for line in idcheck:
            print("- " + line)
        print()

    for keys in SAME_OUTPUT:
        counts = [(by[k][2], by[k][5]) for k in keys if k in by]
        if len({c for _, c in counts}) > 1:
            print("WARNING: different output line counts for one query: " +
                  ", ".join(f"`{s}` {c}" for s, c in counts))
            print()
    for key, want in (("read10", "10"), ("read1000", "1000")):
        if key in by and by[key][5] != want:
            print(f"NOTE: `{by[key][2]}` printed {by[key][5]} lines "
                  f"(tail: {want}).")
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
