#!/usr/bin/env python3
"""Gives each session file in DIR TURNS turn usage rows, as agentctl's file
store keeps them (DIR/.usage/<id>.jsonl, one {"turn","timestamp","usage"}
line each, every Usage count and a few other fields), and sets the
document's metadata.usage to the totals the store derives from them, so a
copy finds the two consistent.

usage: gen_turn_usage.py DIR TURNS [--seed S]"""
import json
import os
import random
import sys


def main():
    folder, turns = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    rng = random.Random(seed)
    os.makedirs(os.path.join(folder, ".usage"), exist_ok=True)
    names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    counts = ("inputTokens", "outputTokens", "cacheCreationInputTokens",
              "cacheReadInputTokens", "reasoningTokens", "totalTokens")
    for name in names:
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        sums = dict.fromkeys(counts, 0)
        lines = []
        for t in range(1, turns + 1):
            usage = {c: rng.randint(1, 5000) for c in counts}
            usage.update(model="model-%d" % (t % 3), provider="bench", extra={"n": t})
            for c in counts:
                sums[c] += usage[c]
            stamp = "2025-06-%02dT%02d:%02d:%02d.%03dZ" % (
                1 + t % 28, t % 24, t % 60, (t * 7) % 60, t % 1000)
            lines.append(json.dumps({"turn": t, "timestamp": stamp, "usage": usage},
                                    separators=(",", ":"), ensure_ascii=False))
        with open(os.path.join(folder, ".usage", name[:-5] + ".jsonl"), "w",
                  encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        doc.setdefault("metadata", {})["usage"] = dict(sums, turns=turns)
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
