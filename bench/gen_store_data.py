#!/usr/bin/env python3
"""Deterministic data for the compact/trace/memo rows of bench/compare.d:

  gen_store_data.py session DIR ID MESSAGES   one workspace DIR holding session
                                             ID with MESSAGES messages, in the
                                             reference format (seed writer's
                                             JSON.stringify(s, null, 2))
  gen_store_data.py trace DIR ID RECORDS     workspace DIR: session ID of tenant
                                             "bench" and its trace of RECORDS
                                             records (~240 bytes each)
  gen_store_data.py memo DIR MIB             workspace DIR: memo bench/u1/user/BIG.md
                                             of MIB MiB of markdown-like text

Everything comes from one seeded generator, so the same arguments give the
same bytes."""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_sessions import message_pool  # noqa: E402

STAMP = "2025-06-01T10:00:00.000Z"


def conversation(rng, pool, count):
    """count messages: user turns, assistant turns, tool calls with results."""
    history, call = [], 0
    while len(history) < count:
        kind = rng.random()
        if kind < 0.3 or len(history) == count - 1:
            history.append({"role": "user", "content": rng.choice(pool)})
        elif kind < 0.6:
            call += 1
            cid = "toolu_%06d" % call
            history.append({"role": "assistant", "content": [
                {"type": "text", "text": rng.choice(pool)},
                {"type": "tool_use", "id": cid,
                 "name": rng.choice(["read_file", "write_file", "run_command"]),
                 "input": {"path": "src/file%d.c" % rng.randint(1, 50)}}]})
            history.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": cid, "content": rng.choice(pool)}]})
        else:
            history.append({"role": "assistant", "content": rng.choice(pool)})
    return history


def write_session(folder, sid, history):
    sessions = os.path.join(folder, ".agent", "sessions")
    os.makedirs(sessions, exist_ok=True)
    session = {"id": sid, "createdAt": STAMP, "updatedAt": STAMP, "task": "bench " + sid,
               "status": "running", "conversationHistory": history,
               "metadata": {"tenantId": "bench", "userId": "u1", "agentId": "claude"}}
    with open(os.path.join(sessions, sid + ".json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(session, indent=2, ensure_ascii=False))


def cmd_session(folder, sid, count):
    rng = random.Random(14)
    write_session(folder, sid, conversation(rng, message_pool(rng), count))


def cmd_trace(folder, sid, count):
    rng = random.Random(15)
    pool = message_pool(rng)
    write_session(folder, sid, [])
    traces = os.path.join(folder, ".agent", "traces", "bench")
    os.makedirs(traces, exist_ok=True)
    kinds = ["step_start", "tool_call", "tool_result", "model_call", "step_end"]
    with open(os.path.join(traces, sid + ".jsonl"), "w", encoding="utf-8") as f:
        for seq in range(1, count + 1):
            at = "2025-06-01T%02d:%02d:%02d.%03dZ" % (
                seq // 3600000 % 24, seq // 60000 % 60, seq // 1000 % 60, seq % 1000)
            data = {"type": rng.choice(kinds), "step": seq // 5,
                    "detail": rng.choice(pool)[:rng.randint(60, 220)]}
            f.write(json.dumps({"seq": seq, "at": at, "data": data},
                               separators=(",", ":"), ensure_ascii=False) + "\n")


def cmd_memo(folder, mib):
    rng = random.Random(16)
    pool = message_pool(rng)
    memo = os.path.join(folder, ".agent", "memo", "bench", "u1", "user")
    os.makedirs(memo, exist_ok=True)
    want, parts, size = mib * 1024 * 1024, [], 0
    while size < want:
        line = rng.choice(["- ", "## ", "", "\t"]) + rng.choice(pool) + "\n"
        parts.append(line)
        size += len(line.encode("utf-8"))
    with open(os.path.join(memo, "BIG.md"), "w", encoding="utf-8") as f:
        f.write("".join(parts))


def main():
    args = sys.argv[1:]
    if len(args) == 4 and args[0] == "session":
        cmd_session(args[1], args[2], int(args[3]))
    elif len(args) == 4 and args[0] == "trace":
        cmd_trace(args[1], args[2], int(args[3]))
    elif len(args) == 3 and args[0] == "memo":
        cmd_memo(args[1], int(args[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
