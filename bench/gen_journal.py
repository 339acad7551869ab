#!/usr/bin/env python3
"""Write a realistic, deterministic JOURNAL.jsonl for benchmarks.

Usage: gen_journal.py OUT SIZE_MB [--seed N]

One compact JSON object per line, in the journal schema of DESIGN.md
("Journal"): id, timestamp, agent, status, action{type,input?,params},
result{message,artifacts?}, trace?{correlation_id,parent_id?}.

What makes it realistic enough to measure a reader against:
  - agents weighted unevenly (Claude 35%, Codex 25%, Gemini 25%, Human 10%,
    System 5%), three statuses, all six action types;
  - strictly increasing millisecond timestamps, ids `evt_<YYYYMMDDhhmmss>_<hex8>`
    whose seconds match the timestamp;
  - messages of 50..1500 bytes (most short, a few long), some Korean,
    Japanese and emoji text, some escaped quotes, backslashes and newlines;
  - a few "needle" events (agent Human, trace.correlation_id "needle_corr")
    so that selective queries can be measured; the string needle_corr
    appears nowhere else in the file.

Speed: every string field is drawn from a pool encoded with json.dumps once,
so a line is assembled by concatenating ready-made JSON fragments. The result
is byte-for-byte what json.dumps(obj, ensure_ascii=False,
separators=(',', ':')) gives for the same object. The file is written once
SIZE_MB MiB (1 MiB = 1048576 bytes) have been reached, ending on a whole line.
"""

import argparse
import json
import random
import sys
import time

NEEDLE_CORR = "needle_corr"
# Average gap between two needle events, in lines.
NEEDLE_EVERY = 100_000

AGENTS = ["Claude", "Codex", "Gemini", "Human", "System"]
AGENT_WEIGHTS = [35, 25, 25, 10, 5]
STATUSES = ["SUCCESS", "FAILED", "IN_PROGRESS"]
STATUS_WEIGHTS = [80, 12, 8]
ACTIONS = ["FILE_CREATE", "FILE_EDIT", "FILE_DELETE", "CMD_RUN", "ANALYSIS",
           "SESSION_START"]
ACTION_WEIGHTS = [15, 35, 5, 25, 15, 5]

# 2025-09-03T14:25:10.591Z, the example event of the journal design.
START_MS = 1756909510591

WORDS = (
    "the build parser journal session checkpoint rollback agent workspace "
    "config module test fixture header buffer offset index query filter "
    "thread lock writer reader append rename atomic commit branch merge "
    "review refactor cleanup error warning line column token stream file "
    "directory path schema field value array object string number null "
    "compile link run deploy cache retry timeout signal socket pipe").split()

NON_ASCII = [
    "세션을 다시 시작했습니다",
    "저널 파일을 읽는 중 오류가 발생했습니다",
    "테스트가 모두 통과했습니다 ✅",
    "チェックポイントを保存しました",
    "ファイルの書き込みに失敗しました",
    "エージェントが応答しません",
    "🚀 deploy finished",
    "🐛 fixed off-by-one in offset math",
    "⚠️ lock held by pid 4242",
    "🔥🔥 hot path rewritten",
    "café naïve résumé — “quoted” ‘text’",
]

TRICKY = [
    'replaced "foo" with "bar" in header',
    'error: expected "}" at line 12, column 4',
    "path C:\\Users\\dev\\agents-workspace\\src\\main.c not found",
    "stack trace:\n  at parse (journal.c:120)\n  at main (main.c:33)",
    "output:\n\tok 1 - reads\n\tok 2 - writes\n",
    'said: "don\'t touch \\n literally"',
    "tab\there and a form feed\f and a bell-free line",
]

DIRS = ["src", "core", "tui", "views", "tests", "docs", "scripts", "lib",
        "include", "bench", "src/net", "src/store", "tests/fixtures"]
EXTS = [".c", ".h", ".md", ".json", ".py", ".sh", ".ts", ".txt"]
COMMANDS = [
    "make test", "make build", "ctest --output-on-failure", "git status",
    "git diff --stat", "npm test", "npm run lint", "pytest -q",
    "cmake -S . -B build", "cmake --build build -j2", "ls -la src",
    "grep -rn TODO src", "valgrind ./build/agentctl journal check",
    "git log --oneline -n 20", "clang-format -i core/*.c",
]
MODELS = ["claude-sonnet-4", "gpt-5-codex", "gemini-2.5-pro", "local-llama"]


def enc(s):
    """One JSON string literal, exactly as json.dumps writes it here."""
    return json.dumps(s, ensure_ascii=False)


def sentence(rng, nbytes):
    """Text of about nbytes UTF-8 bytes, sometimes non-ASCII or tricky."""
    parts = []
    size = 0
    while size < nbytes:
        r = rng.random()
        if r < 0.03:
            p = rng.choice(NON_ASCII)
        elif r < 0.06:
            p = rng.choice(TRICKY)
        else:
            p = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9)))
        parts.append(p)
        size += len(p.encode("utf-8")) + 2
    text = ". ".join(parts)
    raw = text.encode("utf-8")[:nbytes - 1]
    text = raw.decode("utf-8", errors="ignore")
    # A cut inside a multi-byte character drops its bytes; pad with dots so
    # the length stays within the asked range.
    text += "." * (nbytes - 1 - len(text.encode("utf-8")))
    return text + "."


def message_length(rng):
    """50..1500 bytes; most are short, a long tail keeps lines ~350 bytes."""
    r = rng.random()
    if r < 0.85:
        return rng.randint(50, 70)
    if r < 0.99:
        return rng.randint(75, 250)
    return rng.randint(250, 1500)


def build_pools(rng):
    paths = []
    for _ in range(2048):
        d = rng.choice(DIRS)
        name = "_".join(rng.choice(WORDS) for _ in range(rng.randint(1, 2)))
        paths.append(f"{d}/{name}{rng.choice(EXTS)}")
    # A few Windows paths, as the reference writers produce.
    for i in range(0, len(paths), 50):
        paths[i] = "c:\\Users\\etlov\\agents-workspace\\" + \
            paths[i].replace("/", "\\")

    messages = [enc(sentence(rng, message_length(rng))) for _ in range(8192)]
    inputs = [enc(sentence(rng, rng.randint(15, 60))) for _ in range(4096)]
    summaries = [enc(sentence(rng, rng.randint(10, 35))) for _ in range(2048)]
    return {
        "paths": [enc(p) for p in paths],
        "messages": messages,
        "inputs": inputs,
        "summaries": summaries,
        "commands": [enc(c) for c in COMMANDS],
        "models": [enc(m) for m in MODELS],
    }


def make_params(rng, atype, pools, path):
    """The action.params object, as JSON text."""
    if atype in ("FILE_CREATE", "FILE_EDIT"):
        return ('{"path":' + path + ',"content_summary":' +
                rng.choice(pools["summaries"]) + '}')
    if atype == "FILE_DELETE":
        return '{"path":' + path + '}'
    if atype == "CMD_RUN":
        return ('{"command":' + rng.choice(pools["commands"]) +
                ',"exit_code":' +
                str(rng.choice((0, 0, 0, 0, 1, 2))) + '}')
    if atype == "ANALYSIS":
        return ('{"scope":' + path + ',"depth":' +
                str(rng.randint(1, 5)) + '}')
    # SESSION_START
    return ('{"session_id":"sess_' + format(rng.getrandbits(48), "012x") +
            '","model":' + rng.choice(pools["models"]) + '}')


def generate(out, size_mb, seed):
    rng = random.Random(seed)
    pools = build_pools(rng)
    target = int(size_mb * 1024 * 1024)

    paths = pools["paths"]
    messages = pools["messages"]
    inputs = pools["inputs"]

    # Draws in bulk are much faster than one choices() call per line.
    batch = 65536
    ts_ms = START_MS
    sec_cache = -1
    id_prefix = ts_prefix = ""
    corr_pool = [f"task_{rng.getrandbits(24):06x}_{i}" for i in range(4096)]
    corr_pool = [enc(c) for c in corr_pool]
    next_needle = rng.randint(100, 2000)
    written = 0
    lines = 0
    needles = 0

    with open(out, "wb", buffering=8 * 1024 * 1024) as f:
        while written < target:
            agents = rng.choices(AGENTS, AGENT_WEIGHTS, k=batch)
            statuses = rng.choices(STATUSES, STATUS_WEIGHTS, k=batch)
            actions = rng.choices(ACTIONS, ACTION_WEIGHTS, k=batch)
            chunk = []
            for i in range(batch):
                ts_ms += rng.randint(1, 2500)
                sec = ts_ms // 1000
                if sec != sec_cache:
                    sec_cache = sec
                    tm = time.gmtime(sec)
                    id_prefix = time.strftime("%Y%m%d%H%M%S", tm)
                    ts_prefix = time.strftime("%Y-%m-%dT%H:%M:%S", tm)
                ms = ts_ms % 1000
                hex8 = format(rng.getrandbits(32), "08x")

                agent = agents[i]
                atype = actions[i]
                path = rng.choice(paths)
                needle = lines == next_needle
                if needle:
                    agent = "Human"
                    next_needle += rng.randint(NEEDLE_EVERY // 2,
                                               NEEDLE_EVERY * 3 // 2)
                    needles += 1

                action = '{"type":"' + atype + '"'
                if rng.random() < 0.5:
                    action += ',"input":' + rng.choice(inputs)
                action += (',"params":' +
                           make_params(rng, atype, pools, path) + '}')

                result = '{"message":' + rng.choice(messages)
                if atype.startswith("FILE_"):
                    result += ',"artifacts":[' + path + ']'
                result += '}'

                line = ('{"id":"evt_' + id_prefix + '_' + hex8 +
                        '","timestamp":"' + ts_prefix + '.%03dZ' % ms +
                        '","agent":"' + agent +
                        '","status":"' + statuses[i] +
                        '","action":' + action +
                        ',"result":' + result)
                if needle:
                    line += ',"trace":{"correlation_id":"' + NEEDLE_CORR + '"}'
                elif rng.random() < 0.75:
                    line += ',"trace":{"correlation_id":' + rng.choice(corr_pool)
                    if rng.random() < 0.1:
                        line += (',"parent_id":"evt_' + id_prefix + '_' +
                                 format(rng.getrandbits(32), "08x") + '"')
                    line += '}'
                b = (line + '}\n').encode("utf-8")
                chunk.append(b)
                written += len(b)
                lines += 1
                if written >= target:
                    break
            f.write(b"".join(chunk))
    return written, lines, needles


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("size_mb", type=float)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args(argv)
    if a.size_mb <= 0:
        ap.error("SIZE_MB must be positive")
    t0 = time.monotonic()
    written, lines, needles = generate(a.out, a.size_mb, a.seed)
    dt = time.monotonic() - t0
    print(f"{a.out}: {written} bytes, {lines} lines, {needles} needle events, "
          f"{dt:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
