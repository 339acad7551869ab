#!/usr/bin/env python3
"""bench/compare.sh's report: the measures against their peers, as markdown.

  compare_report.py RESULTS.tsv MACHINE RUNS COMMIT [QUICK [LOAD]]  report on stdout
  compare_report.py --splice FILE                     report (stdin) into FILE

RESULTS.tsv rows (bench/lib/compare.sh): measure, size, unit, target, peer,
agentctl median/min seconds and max RSS KiB, peer median/min seconds and max
RSS KiB, median of the paired ratios, then (rows of 19 fields) the least and
the greatest paired ratio, agentctl's and the peer's median CPU seconds (user
+ system), the 1-minute load before and after the measure, and a note (what
both sides printed); "-" where there is none.
"""

import math
import sys

BEGIN = "<!-- compare:begin -->"
END = "<!-- compare:end -->"
FIELDS = ["measure", "size", "unit", "target", "peer", "a_med", "a_min",
          "a_rss", "b_med", "b_min", "b_rss", "ratio", "ratio_min",
          "ratio_max", "a_cpu", "b_cpu", "load_before", "load_after", "note"]
# Rows from scripts that record the first twelve fields only.
SHORT = 12
# A cost growing by more than this power of the size is flagged.
SUPERLINEAR = 1.1


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
            if len(values) == SHORT:
                values += ["-"] * (len(FIELDS) - SHORT)
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


def spread(row):
    low, high = number(row["ratio_min"]), number(row["ratio_max"])
    if low is None or high is None:
        return "–"
    return f"{low:.2f}–{high:.2f}x"


def load(row):
    before, after = row["load_before"], row["load_after"]
    if before in ("", "-") and after in ("", "-"):
        return "–"
    return f"{before} → {after}"


def cpu(row, side):
    value = number(row[side + "_cpu"])
    return "–" if value is None else seconds(row[side + "_cpu"])


def main_table(rows):
    largest = {}
    for row in rows:
        key = (row["measure"], row["peer"])
        if key not in largest or (row["size_n"] or 0) > (largest[key]["size_n"] or 0):
            largest[key] = row
    lines = ["| measure | size | agentctl | CPU | max RSS | peer | peer time | CPU "
             "| ratio (median) | ratio (min–max) | load before → after | printed "
             "| target | met |",
             "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---|---|---|"]
    for row in largest.values():
        target, met = check_target(row)
        ratio = number(row["ratio"])
        lines.append("| " + " | ".join([
            row["measure"], f"{row['size']} {row['unit']}", seconds(row["a_med"]),
            cpu(row, "a"), kib(row["a_rss"]),
            "–" if row["peer"] == "-" else row["peer"].replace("|", "\\|"),
            seconds(row["b_med"]), cpu(row, "b"),
            "–" if ratio is None else f"{ratio:.2f}x", spread(row), load(row),
            "–" if row["note"] in ("", "-") else row["note"],
            target or "–", {True: "yes", False: "**no**", None: ""}[met]]) + " |")
    return lines


def growth(points, field):
    """Times at each size, the factor of each step and the exponent from
    the first size to the last (1 is linear), flagged when superlinear."""
    times = [number(p[field]) for p in points]
    sizes = [p["size_n"] for p in points]
    shown = ", ".join(seconds(p[field]) for p in points)
    if any(not t for t in times) or any(not s for s in sizes):
        return shown, "–", "–"
    steps, over = [], False
    for i in range(1, len(points)):
        factor, size_factor = times[i] / times[i - 1], sizes[i] / sizes[i - 1]
        over = size_factor > 1 and math.log(factor) / math.log(size_factor) > SUPERLINEAR
        steps.append(f"{factor:.1f}x" + ("!" if over else ""))
    exponent = math.log(times[-1] / times[0]) / math.log(sizes[-1] / sizes[0])
    # The last step is the one fixed costs hide least: it flags too.
    flagged = over or exponent > SUPERLINEAR
    return (shown, ", ".join(steps),
            f"{exponent:.2f}" + (" **superlinear**" if flagged else ""))


def growth_table(rows):
    series = {}
    for row in rows:
        series.setdefault((row["measure"], row["peer"]), []).append(row)
    lines = ["| measure | sizes | agentctl's time at each | growth per step "
             "| exponent | agentctl's CPU at each | exponent (CPU) "
             "| peer's time at each | peer's growth per step |",
             "|---|---|---|---|---:|---|---:|---|---|"]
    for (measure, peer), points in series.items():
        points.sort(key=lambda r: r["size_n"] or 0)
        if len(points) < 2 or not points[0]["size_n"] or points[-1]["size_n"] <= points[0]["size_n"]:
            continue
        sizes = ", ".join(f"{p['size']}" for p in points) + " " + points[0]["unit"]
        a_times, a_steps, a_exp = growth(points, "a_med")
        a_cpus, _, a_cpu_exp = growth(points, "a_cpu")
        b_times, b_steps, _ = growth(points, "b_med")
        label = measure if peer == "-" else f"{measure} (vs {peer})"
        lines.append(f"| {label} | {sizes} | {a_times} | {a_steps} | {a_exp} "
                     f"| {a_cpus} | {a_cpu_exp} "
                     f"| {b_times if peer != '-' else '–'} | {b_steps if peer != '-' else '–'} |")
    return lines


def report(path, machine, runs, commit, quick="0", load_line=""):
    rows = read_rows(path)
    if quick == "1":
        for row in rows:
            row["target"] = "-"
    out = [BEGIN,
           "## Side by side: `bench/compare.sh`",
           "",
           f"- Machine: {machine}",
           f"- Load: {load_line}" if load_line else "- Load: not recorded",
           f"- Commit {commit}; {runs} paired runs per size (agentctl and the peer "
           "alternately, output read through a pipe and discarded, or sent to "
           "/dev/null where the peer's command says so), medians; the ratio is "
           "agentctl's time over the peer's in each pair: their median and their "
           "least and greatest; CPU is user + system time; page cache warm; "
           "\"printed\" counts the lines both sides print (agentctl's query prints "
           "one summary line per event, --json the event's JSON; rg and grep the "
           "line as written).",
           "- Regenerate: `bench/compare.sh` (builds Release, makes the data, "
           "installs missing peers, rewrites this section).",
           "",
           "Quick run: only the smallest size of each measure; the targets are for "
           "the full sizes and are not judged here." if quick == "1" else
           "At the largest size:",
           ""]
    out += main_table(rows)
    out += ["",
            "How each cost grows over sizes 10x apart (growth per step: the time "
            "at a size over the time at the size before, ! where it grew faster "
            "than the size; exponent: log of the time ratio over log of the size "
            "ratio, first to last size; 1 is linear, below 1 means fixed costs "
            "still dominate the small size; flagged superlinear above 1.1, or when "
            "the last step grew faster than the size; on a loaded machine the "
            "CPU time, user + system, is the steadier of the two):",
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
    elif len(sys.argv) in (5, 6, 7):
        print(report(*sys.argv[1:]))
    else:
        sys.exit(__doc__)
