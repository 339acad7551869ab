#!/usr/bin/env python3
"""Writes a workspace for `agentctl gc`: SESSIONS sessions, each with 10
checkpoints of about 2 KB (versions 1..10, the 10th a tombstone, createdAt
in 2025) and 3 compaction archives (the session names the newest), plus 12
rotated journals. Deterministic; old times throughout, so --older-than 30d
and --keep 2 both find work.

usage: gen_gc.py WORKSPACE SESSIONS"""
import json
import os
import sys


def write(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=2))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ws, count = sys.argv[1], int(sys.argv[2])
    sessions = os.path.join(ws, ".agent", "sessions")
    history = [{"role": "user" if i % 2 == 0 else "assistant",
                "content": "message %d " % i + "x" * 160} for i in range(10)]
    for s in range(count):
        sid = "s%06d" % s
        folder = os.path.join(ws, ".agent", "checkpoints", sid)
        os.makedirs(folder, exist_ok=True)
        for v in range(1, 11):
            cid = "%s-c%02d" % (sid, v)
            write(os.path.join(folder, cid + ".json"), {
                "checkpointId": cid, "sessionId": sid, "agentId": "claude",
                "createdAt": "2025-%02d-%02dT10:00:00.000Z" % (1 + v % 12, 1 + s % 28),
                "version": v, "parentId": None,
                "nodeId": "tombstone" if v == 10 else "act",
                "lastInput": "", "lastInputType": "text", "lastOutput": "done",
                "messageHistory": [] if v == 10 else history, "properties": {}})
        archives = os.path.join(sessions, ".compactions", sid)
        os.makedirs(archives, exist_ok=True)
        names = ["2025%02d01T000000.000Z.json" % m for m in (3, 6, 9)]
        for name in names:
            write(os.path.join(archives, name), {"sessionId": sid, "messages": history})
        write(os.path.join(sessions, sid + ".json"), {
            "id": sid, "createdAt": "2025-01-01T00:00:00.000Z",
            "updatedAt": "2025-09-01T00:00:00.000Z", "task": "gc", "status": "completed",
            "conversationHistory": history[:2],
            "metadata": {"compactions": [{"archive": ".compactions/%s/%s" % (sid, names[-1])}]}})
    for m in range(1, 13):
        with open(os.path.join(ws, "JOURNAL-2025%02d01T000000.000Z.jsonl" % m), "w") as f:
            f.write("{}\n" * 100)
    open(os.path.join(ws, "JOURNAL.jsonl"), "w").close()
    # Old modification times too, as files left for months would have.
    for root, _, files in os.walk(ws):
        for name in files:
            os.utime(os.path.join(root, name), (1735689600, 1735689600))


if __name__ == "__main__":
    main()
