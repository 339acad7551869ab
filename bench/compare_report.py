#!/usr/bin/env python3
"""bench/compare.sh's report: the measures against their peers, as markdown.

  compare_report.py RESULTS.tsv MACHINE RUNS COMMIT [QUICK]   report on stdout
  compare_report.py --splice FILE                     report (stdin) into FILE

RESULTS.tsv rows (bench/lib/compare.sh): measure, size, unit, target, peer,
agentctl median/min seconds and max RSS KiB, peer median/min seconds and max
RSS KiB, median of the paired ratios; "-" where there is none.
"""

import math
import sys

BEGIN = "<!-- compare:begin -->"
END = "<!-- compare:end -->"
FIELDS = ["measure", "size", "unit", "target", "peer", "a_med", "a_min",
          "a_rss", "b_med", "b_min", "b_rss", "ratio"]


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def read_rows(path):
    rows = []
    with open(path, encoding="utf-8") as results:
        for line in results:
            values = line.rstrip("\n").split("\t")
            if len(values) != len(FIELDS):
                sys.exit(f"compare_report: {path}: bad row: {line.strip()}")
            row = dict(zip(FIELDS, values))
            row["size_n"] = number(row["size"])
            rows.append(row)
    return rows


def seconds(text):
    value = number(text)
    if value is None:
        return "–"
    if value < 0.01:
        return f"{value * 1000:.2f} ms"
    if value < 1:
        return f"{value * 1000:.0f} ms"
    return f"{value:.2f} s"


def kib(text):
    value = number(text)
    if value is None:
        return "–"
    return f"{value / 1024:.1f} MiB"


def check_target(row):
    """(text, met) for the row's target, or ("", None) without one."""
    if row["target"] in ("", "-"):
        return "", None
    verdicts = []
    met = True
    for condition in row["target"].split(","):
        name, _, limit_text = condition.partition("<=")
        limit = number(limit_text)
        value = {"ratio": number(row["ratio"]), "time": number(row["a_med"]),
                 "rss": number(row["a_rss"])}.get(name.strip())
        if limit is None or value is None:
            verdicts.append(f"{condition}: cannot judge")
            met = False
            continue
        ok = value <= limit
        met = met and ok
        shown = {"ratio": f"≤ {limit:g}x", "time": f"≤ {seconds(limit_text)}",
                 "rss": f"≤ {kib(limit_text)}"}[name.strip()]
        verdicts.append(shown)
    return ", ".join(verdicts), met


def main_table(rows):
    largest = {}
    for row in rows:
        key = (row["measure"], row["peer"])
        if key not in largest or (row["size_n"] or 0) > (largest[key]["size_n"] or 0):
            largest[key] = row
    lines = ["| measure | size | agentctl | agentctl max RSS | peer | peer time "
             "| ratio | target | met |",
             "|---|---:|---:|---:|---|---:|---:|---|---|"]
    for row in largest.values():
        target, met = check_target(row)
        ratio = number(row["ratio"])
        lines.append("| {} | {} {} | {} | {} | {} | {} | {} | {} | {} |".format(
            row["measure"], row["size"], row["unit"], seconds(row["a_med"]),
            kib(row["a_rss"]), "–" if row["peer"] == "-" else row["peer"],
            seconds(row["b_med"]), "–" if ratio is None else f"{ratio:.2f}x",
            target or "–", {True: "yes", False: "**no**", None: ""}[met]))
    return lines


def growth_table(rows):
    series = {}
    for row in rows:
        series.setdefault((row["measure"], row["peer"]), []).append(row)
    lines = ["| measure | sizes | agentctl's time at each | growth exponent "
             "| peer's time at each |",
             "|---|---|---|---:|---|"]
    for (measure, peer), points in series.items():
        points.sort(key=lambda r: r["size_n"] or 0)
        if len(points) < 2:
            continue
        sizes = ", ".join(f"{p['size']}" for p in points) + " " + points[0]["unit"]
        times = ", ".join(seconds(p["a_med"]) for p in points)
        peers = ", ".join(seconds(p["b_med"]) for p in points)
        first, last = points[0], points[-1]
        t1, t2 = number(first["a_med"]), number(last["a_med"])
        s1, s2 = first["size_n"], last["size_n"]
        exponent = "–"
        if t1 and t2 and s1 and s2 and s2 > s1:
            value = math.log(t2 / t1) / math.log(s2 / s1)
            exponent = f"{value:.2f}" + (" **faster than linear**" if value > 1.1 else "")
        label = measure if peer == "-" else f"{measure} (vs {peer})"
        lines.append(f"| {label} | {sizes} | {times} | {exponent} | {peers} |")
    return lines


def report(path, machine, runs, commit, quick="0"):
    rows = read_rows(path)
    if quick == "1":
        for row in rows:
            row["target"] = "-"
    out = [BEGIN,
           "## Side by side: `bench/compare.sh`",
           "",
           f"- Machine: {machine}",
           f"- Commit {commit}; {runs} paired runs per size (agentctl and the peer "
           "alternately, output read through a pipe and discarded), medians; the "
           "ratio is the median of the pairs' ratios; page cache warm.",
           "- Regenerate: `bench/compare.sh` (builds Release, makes the data, "
           "installs missing peers, rewrites this section).",
           "",
           "Quick run: only the smallest size of each measure; the targets are for "
           "the full sizes and are not judged here." if quick == "1" else
           "At the largest size:",
           ""]
    out += main_table(rows)
    out += ["",
            "How each cost grows over sizes 10x apart (exponent: log of the time "
            "ratio over log of the size ratio, first to last size; 1 is linear, "
            "below 1 means fixed costs still dominate the small size):",
            ""]
    out += growth_table(rows)
    out += [END]
    return "\n".join(out)


def splice(path, text):
    with open(path, encoding="utf-8") as doc:
        content = doc.read()
    start, stop = content.find(BEGIN), content.find(END)
    if start >= 0 and stop > start:
        content = content[:start] + text.strip() + content[stop + len(END):]
    else:
        content = content.rstrip("\n") + "\n\n" + text.strip() + "\n"
    with open(path, "w", encoding="utf-8") as doc:
        doc.write(content)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--splice":
        splice(sys.argv[2], sys.stdin.read())
    elif len(sys.argv) in (5, 6):
        print(report(*sys.argv[1:]))
    else:
        sys.exit(__doc__)
