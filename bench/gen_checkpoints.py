#!/usr/bin/env python3
"""Writes a workspace holding one session and N checkpoints of it of about
SIZE_KB each (default 8), in the reference layout
.agent/checkpoints/<sessionId>/<checkpointId>.json and format
(JSON.stringify(checkpoint, null, 2)): versions 1..N chained by parentId,
the last a tombstone. Prints the session id.

usage: gen_checkpoints.py WORKSPACE N [SIZE_KB] [--seed S]"""
import json
import os
import random
import sys
import uuid

from gen_sessions import conversation, message_pool


def main():
    args = [a for a in sys.argv[1:]]
    seed = 42
    if "--seed" in args:
        at = args.index("--seed")
        seed = int(args[at + 1])
        del args[at:at + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    ws, count = args[0], int(args[1])
    size_kb = int(args[2]) if len(args) > 2 else 8
    rng = random.Random(seed)
    pool = message_pool(rng)
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    folder = os.path.join(ws, ".agent", "checkpoints", sid)
    os.makedirs(folder, exist_ok=True)
    os.makedirs(os.path.join(ws, ".agent", "sessions"), exist_ok=True)
    # A handful of histories, reused: generating one per checkpoint is slow.
    histories = [conversation(rng, pool, size_kb * 1024 * 0.8) for _ in range(16)]
    parent = None
    for v in range(1, count + 1):
        cid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        history = histories[v % len(histories)]
        stamp = "2025-%02d-%02dT%02d:%02d:%02d.%03dZ" % (
            1 + v % 12, 1 + v % 28, v % 24, v % 60, (v * 7) % 60, v % 1000)
        doc = {
            "checkpointId": cid, "sessionId": sid, "agentId": "claude",
            "createdAt": stamp, "version": v, "parentId": parent,
            "nodeId": "tombstone" if v == count else rng.choice(["plan", "act", "review"]),
            "lastInput": history[0]["content"] if isinstance(history[0]["content"], str) else "",
            "lastInputType": "text", "lastOutput": "done",
            "messageHistory": history, "properties": {"step": v},
        }
        with open(os.path.join(folder, cid + ".json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, indent=2, ensure_ascii=False))
        parent = cid
    session = {"id": sid, "createdAt": "2025-01-01T00:00:00.000Z",
               "updatedAt": "2025-01-01T00:00:00.000Z", "task": "checkpoints",
               "status": "completed", "conversationHistory": histories[0],
               "metadata": {"agentId": "claude"}}
    with open(os.path.join(ws, ".agent", "sessions", sid + ".json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(session, indent=2, ensure_ascii=False))
    print(sid)


if __name__ == "__main__":
    main()
