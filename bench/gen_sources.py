#!/usr/bin/env python3
"""Writes COUNT coding-agent transcripts of about SIZE_KB each, the same
bytes for the same arguments (a fixed seed): Claude Code sessions of the
workspace (90%) in ~/.claude/projects/<folder>/, and Codex rollouts (10%,
half of them in another folder) in ~/.codex/sessions/YYYY/MM/DD/. Lines
follow the tools' public examples (tool calls, tool results, usage).

    gen_sources.py HOME WORKSPACE COUNT SIZE_KB
"""
import json, os, random, re, sys

home, ws, count, size_kb = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(17)
words = ("parser token build test fix error module config cache index file read write "
         "refactor call result ok fail review patch commit branch merge").split()
folder = re.sub(r"[^a-zA-Z0-9]", "-", ws)
claude_dir = os.path.join(home, ".claude/projects", folder)
os.makedirs(claude_dir, exist_ok=True)

def text(n):
    return " ".join(rng.choice(words) for _ in range(n))

def dump(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"

def claude(i, target):
    sid = "%08x-0000-4000-8000-%012x" % (i, i)
    out, size, n, parent = [], 0, 0, None
    while size < target:
        ts = "2025-10-%02dT%02d:%02d:%02d.000Z" % (1 + i % 28, n // 3600 % 24, n // 60 % 60, n % 60)
        base = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": ws,
                "sessionId": sid, "version": "1.0.98", "gitBranch": "main", "timestamp": ts}
        uuid = "%s-%d" % (sid, n)
        if n == 0:
            e = dict(base, type="user", uuid=uuid, message={"role": "user", "content": "Task %d: %s" % (i, text(12))})
        elif n % 3 == 1:
            e = dict(base, type="assistant", uuid=uuid, requestId="req_%d" % n, message={
                "id": "msg_%d" % n, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "text", "text": text(30)},
                            {"type": "tool_use", "id": "toolu_%d" % n, "name": "Bash",
                             "input": {"command": "make test %s" % text(3)}}],
                "stop_reason": "tool_use", "usage": {"input_tokens": 1000 + n, "output_tokens": 50}})
        elif n % 3 == 2:
            e = dict(base, type="user", uuid=uuid, toolUseResult={"stdout": "ok", "stderr": ""}, message={
                "role": "user", "content": [{"tool_use_id": "toolu_%d" % (n - 1), "type": "tool_result",
                                             "content": text(rng.randint(200, 1200))}]})
        else:
            e = dict(base, type="assistant", uuid=uuid, message={
                "id": "msg_%d" % n, "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "text", "text": text(60)}], "stop_reason": "end_turn"})
        line = dump(e)
        out.append(line)
        size += len(line)
        parent = uuid
        n += 1
    with open(os.path.join(claude_dir, sid + ".jsonl"), "w") as f:
        f.writelines(out)

def codex(i, target):
    cid = "0199a213-81c0-7800-8aa1-%012x" % i
    cwd = ws if i % 2 == 0 else "/elsewhere/project"
    d = os.path.join(home, ".codex/sessions/2025/10/%02d" % (1 + i % 28))
    os.makedirs(d, exist_ok=True)
    lines = [dump({"timestamp": "2025-10-01T00:00:00.000Z", "type": "session_meta",
                   "payload": {"id": cid, "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.44.0"}}),
             dump({"timestamp": "2025-10-01T00:00:01.000Z", "type": "turn_context",
                   "payload": {"cwd": cwd, "model": "gpt-5-codex", "approval_policy": "on-request"}})]
    size, n = 0, 0
    while size < target:
        ts = "2025-10-01T00:%02d:%02d.000Z" % (n // 60 % 60, n % 60)
        k = n % 4
        if k == 0:
            p = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text(15)}]}
        elif k == 1:
            p = {"type": "function_call", "name": "shell", "call_id": "call_%d" % n,
                 "arguments": json.dumps({"command": ["bash", "-lc", text(4)]})}
        elif k == 2:
            p = {"type": "function_call_output", "call_id": "call_%d" % (n - 1),
                 "output": json.dumps({"output": text(rng.randint(200, 1200)), "metadata": {"exit_code": 0}})}
        else:
            p = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text(50)}]}
        line = dump({"timestamp": ts, "type": "response_item", "payload": p})
        lines.append(line)
        size += len(line)
        n += 1
    with open(os.path.join(d, "rollout-2025-10-01T00-00-00-%s.jsonl" % cid), "w") as f:
        f.writelines(lines)

for i in range(count):
    # Sizes spread from a tenth to twice the mean, as real sessions are.
    target = int(size_kb * 1024 * rng.uniform(0.1, 1.9))
    (codex if i % 10 == 9 else claude)(i, target)
