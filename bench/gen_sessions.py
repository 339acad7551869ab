#!/usr/bin/env python3
"""Writes N session files of about SIZE_KB each, in the reference format
(JSON.stringify(session, null, 2)): tool calls, tool results, some CJK.

usage: gen_sessions.py DIR N SIZE_KB [--seed S]"""
import json
import os
import random
import sys
import uuid


def message_pool(rng):
    words = ("the build fails in src/server.c because the config loader returns null "
             "when the file is missing so we add a check and a test").split()
    cjk = "세션을 다시 시작하고 설정 파일을 확인합니다 設定ファイルを確認します 检查配置文件"
    pool = []
    for i in range(200):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(10, 120)))
        if i % 7 == 0:
            text += " " + cjk
        pool.append(text)
    return pool


def conversation(rng, pool, size):
    history, used, call = [], 0, 0
    while used < size:
        kind = rng.random()
        if kind < 0.3:
            msg = {"role": "user", "content": rng.choice(pool)}
        elif kind < 0.6:
            call += 1
            cid = "toolu_%06d" % call
            msg = {"role": "assistant", "content": [
                {"type": "text", "text": rng.choice(pool)},
                {"type": "tool_use", "id": cid, "name": rng.choice(["read_file", "write_file", "run_command"]),
                 "input": {"path": "src/file%d.c" % rng.randint(1, 50)}}]}
            history.append(msg)
            used += len(json.dumps(msg))
            msg = {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": cid, "content": rng.choice(pool)}]}
        else:
            msg = {"role": "assistant", "content": rng.choice(pool)}
        history.append(msg)
        used += len(json.dumps(msg, ensure_ascii=False))
    return history


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    folder, count, size_kb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    seed = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--seed" else 42
    rng = random.Random(seed)
    pool = message_pool(rng)
    os.makedirs(folder, exist_ok=True)
    statuses = ["running", "paused", "completed", "failed"]
    for i in range(count):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        stamp = "2025-%02d-%02dT%02d:%02d:%02d.%03dZ" % (
            1 + i % 12, 1 + i % 28, i % 24, i % 60, (i * 7) % 60, i % 1000)
        session = {
            "id": sid, "createdAt": stamp, "updatedAt": stamp,
            "task": "task %d: %s" % (i, rng.choice(pool)[:80]),
            "status": statuses[i % 4],
            "conversationHistory": conversation(rng, pool, size_kb * 1024 * 0.82),
            "metadata": {"tenantId": "t%d" % (i % 3), "userId": "user%d" % (i % 50),
                         "agentId": rng.choice(["claude", "codex", "gemini"])},
        }
        with open(os.path.join(folder, sid + ".json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(session, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
