#!/usr/bin/env python3
"""Writes N Claude Code transcripts and Codex rollouts of TOTAL_MB in all,
deterministically (same arguments, same bytes), for `agentctl usage`
benchmarks: HOME-relative .claude/projects/<project>/<session>.jsonl and
.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, in the tools' formats.

Like real transcripts, most bytes are not usage: user turns and tool
results carry long text, each assistant message is written on two lines
(streamed) with its usage, some lines are sidechains, and a fifth of the
files are Codex rollouts. Half the sessions ran in CWD, the rest elsewhere.

usage: gen_transcripts.py HOME N TOTAL_MB [--seed S] [--cwd DIR]"""
import json
import os
import random
import sys
import uuid

MODELS = ["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-haiku-4-5-20251001"]


def filler_pool(rng):
    words = ("the build fails in src/server.c because the config loader returns null when "
             "the file is missing so we add a check and a test then rerun the suite").split()
    return [" ".join(rng.choice(words) for _ in range(rng.randint(50, 900))) for _ in range(64)]


def claude_file(rng, pool, size, cwd, day):
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    out, used, n = [], 0, 0
    t = day * 86400 + rng.randint(0, 80000)
    while used < size:
        n += 1
        t += rng.randint(5, 400)
        ts = "%sT%02d:%02d:%02d.000Z" % (date_of(t), (t // 3600) % 24, (t // 60) % 60, t % 60)
        side = "true" if n % 9 == 0 else "false"
        text = pool[rng.randrange(len(pool))]
        user = ('{"parentUuid":null,"isSidechain":%s,"userType":"external","cwd":%s,'
                '"sessionId":"%s","version":"2.0.0","type":"user","message":{"role":"user",'
                '"content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":%s}]},'
                '"uuid":"u-%d","timestamp":"%s"}\n') % (side, json.dumps(cwd), sid, n,
                                                       json.dumps(text), n, ts)
        usage = ('{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,'
                 '"output_tokens":%d,"service_tier":"standard"}') % (
            rng.randint(1, 50), rng.randint(0, 4000), rng.randint(0, 60000), rng.randint(1, 2000))
        model = MODELS[n % len(MODELS)]
        reply = pool[rng.randrange(len(pool))][: rng.randint(100, 2000)]
        for part in range(2):  # one message, streamed on two lines
            line = ('{"parentUuid":"u-%d","isSidechain":%s,"userType":"external","cwd":%s,'
                    '"sessionId":"%s","version":"2.0.0","type":"assistant","message":{"id":"msg_%s_%d",'
                    '"type":"message","role":"assistant","model":"%s","content":[{"type":"text",'
                    '"text":%s}],"stop_reason":null,"usage":%s},"requestId":"req_%s_%d",'
                    '"uuid":"a-%d-%d","timestamp":"%s"}\n') % (
                n, side, json.dumps(cwd), sid, sid[:8], n, model,
                json.dumps(reply[: len(reply) // (2 - part)]), usage, sid[:8], n, n, part, ts)
            out.append(line)
            used += len(line)
        out.append(user)
        used += len(user)
    return sid, "".join(out)


def codex_file(rng, pool, size, cwd, day):
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    t = day * 86400 + rng.randint(0, 80000)
    ts = lambda: "%sT%02d:%02d:%02d.000Z" % (date_of(t), (t // 3600) % 24, (t // 60) % 60, t % 60)
    out = [json.dumps({"timestamp": ts(), "type": "session_meta", "payload": {
        "id": sid, "timestamp": ts(), "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.58.0",
        "instructions": pool[0]}}) + "\n",
           json.dumps({"timestamp": ts(), "type": "turn_context", "payload": {
               "cwd": cwd, "approval_policy": "on-request", "model": "gpt-5-codex"}}) + "\n"]
    used = sum(len(x) for x in out)
    total = [0, 0, 0, 0]
    while used < size:
        t += rng.randint(5, 400)
        text = pool[rng.randrange(len(pool))]
        item = ('{"timestamp":"%s","type":"response_item","payload":{"type":"message","role":"assistant",'
                '"content":[{"type":"output_text","text":%s}]}}\n') % (ts(), json.dumps(text))
        last = [rng.randint(1000, 30000), 0, rng.randint(10, 3000), rng.randint(0, 1000)]
        last[1] = rng.randint(0, last[0])
        total = [a + b for a, b in zip(total, last)]
        u = lambda v: ('{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,'
                       '"reasoning_output_tokens":%d,"total_tokens":%d}') % (v[0], v[1], v[2], v[3], v[0] + v[2])
        count = ('{"timestamp":"%s","type":"event_msg","payload":{"type":"token_count","info":'
                 '{"total_token_usage":%s,"last_token_usage":%s,"model_context_window":272000},'
                 '"rate_limits":null}}\n') % (ts(), u(total), u(last))
        out += [item, count]
        used += len(item) + len(count)
    return sid, "".join(out), date_of(day * 86400)


def date_of(t):
    import datetime
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d")


def main():
    args = sys.argv[1:]
    seed, cwd = 1, "/work/bench-project"
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    if "--cwd" in args:
        i = args.index("--cwd")
        cwd = args[i + 1]
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    home, n, total_mb = args[0], int(args[1]), float(args[2])
    rng = random.Random(seed)
    pool = filler_pool(rng)
    per = int(total_mb * 1e6 / n)
    first_day = 20400  # 2025-11-08
    for i in range(n):
        size = rng.randint(per // 4, per * 7 // 4)
        where = cwd if i % 2 == 0 else "/elsewhere/project-%d" % (i % 37)
        day = first_day + rng.randint(0, 29)
        if i % 5 == 4:
            sid, text, date = codex_file(rng, pool, size, where, day)
            folder = os.path.join(home, ".codex/sessions", date[0:4], date[5:7], date[8:10])
            name = "rollout-%sT00-00-00-%s.jsonl" % (date, sid)
        else:
            sid, text = claude_file(rng, pool, size, where, day)
            folder = os.path.join(home, ".claude/projects", where.replace("/", "-"))
            name = sid + ".jsonl"
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
