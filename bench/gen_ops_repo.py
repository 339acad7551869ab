#!/usr/bin/env python3
"""Write a deterministic git workspace with an operation log, for timing
`agentctl ops rollback` against `git checkout H^ -- .`.

Usage: gen_ops_repo.py OUT [--files 20000] [--ops 2000]

OUT becomes a git repository (built with one `git fast-import`, fixed dates,
so every run gives the same commit hashes) holding FILES text files of
~400 bytes in 100 folders, then OPS commits, each recorded as one
`file_write` line of .agent/operations.jsonl (DESIGN.md, "Operation log").
The last three operations change disjoint sets of 900, 90 and 10 files, so
rolling back the newest restores 10 files, the one before 100 (90 + 10), the
one before that 1,000; every earlier operation changes one file.

Writes OUT/.agent/rollback-targets: "<files restored> <operation id> <commit>" per
line, smallest first, and leaves the worktree checked out at HEAD.
"""

import argparse
import os
import subprocess
import sys

LAST_OPS = [900, 90, 10]  # files changed by the newest three operations
EPOCH = 1763900000  # 2025-11-23T12:13:20Z: fixed, so hashes are stable


def path_of(i):
    return f"src/m{i % 100:02d}/f{i:05d}.txt"


def content(i, version):
    line = f"file {i} version {version}: the quick brown fox jumps over the lazy dog\n"
    return (line * 5).encode()


def op_id(n):
    return f"00000000-0000-4000-8000-{n:012d}"


def iso(seconds):
    import datetime
    t = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def blob_cmd(out, data):
    out.write(b"data %d\n" % len(data))
    out.write(data)
    out.write(b"\n")


def commit(out, mark, when, message, changes, parent_mark):
    out.write(b"commit refs/heads/main\nmark :%d\n" % mark)
    who = b"bench <bench@example.invalid> %d +0000\n" % when
    out.write(b"author " + who + b"committer " + who)
    blob_cmd(out, message.encode())
    if parent_mark:
        out.write(b"from :%d\n" % parent_mark)
    for path, data in changes:
        out.write(b"M 100644 inline %s\n" % path.encode())
        blob_cmd(out, data)
    out.write(b"\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--ops", type=int, default=2000)
    args = ap.parse_args()
    if args.ops < len(LAST_OPS) + 1 or args.files < sum(LAST_OPS) + args.ops:
        sys.exit("gen_ops_repo: too few files or operations")

    os.makedirs(args.out)
    git = ["git", "-C", args.out]
    subprocess.run(git + ["init", "-q", "-b", "main"], check=True)
    marks = os.path.join(args.out, ".git", "bench-marks")
    imp = subprocess.Popen(git + ["fast-import", "--quiet", f"--export-marks={marks}"],
                           stdin=subprocess.PIPE)
    out = imp.stdin
    base = [(".gitignore", b".agent/\nJOURNAL*.jsonl\n")]
    base += [(path_of(i), content(i, 0)) for i in range(args.files)]
    commit(out, 1, EPOCH, "base\n", base, 0)

    # Early operations change one file each, from the files the last three
    # do not touch, so those sets stay exactly the sizes above.
    last_start = args.files - sum(LAST_OPS)
    changed_by = []
    for n in range(1, args.ops + 1):
        left = args.ops - n
        if left < len(LAST_OPS):
            size = LAST_OPS[len(LAST_OPS) - 1 - left]
            start = last_start + sum(LAST_OPS[:len(LAST_OPS) - 1 - left])
            files = range(start, start + size)
        else:
            files = [(n * 7919) % last_start]
        commit(out, n + 1, EPOCH + n, f"operation {n}\n",
               [(path_of(i), content(i, n)) for i in files], n)
        changed_by.append(len(files))
    out.close()
    if imp.wait() != 0:
        sys.exit("gen_ops_repo: git fast-import failed")

    hashes = {}
    with open(marks) as f:
        for line in f:
            mark, sha = line.split()
            hashes[int(mark[1:])] = sha
    os.makedirs(os.path.join(args.out, ".agent"))
    with open(os.path.join(args.out, ".agent", "operations.jsonl"), "w") as f:
        for n in range(1, args.ops + 1):
            f.write('{"id":"%s","timestamp":"%s","sessionId":"bench","type":"file_write",'
                    '"details":{"files":%d},"gitCommitHash":"%s"}\n'
                    % (op_id(n), iso(EPOCH + n), changed_by[n - 1], hashes[n + 1]))
    with open(os.path.join(args.out, ".agent", "rollback-targets.new"), "w") as f:
        restored = 0
        for k, size in enumerate(reversed(LAST_OPS)):
            n = args.ops - k
            restored += size
            f.write(f"{restored} {op_id(n)} {hashes[n + 1]}\n")
    subprocess.run(git + ["checkout", "-q", "-f", "main"], check=True)
    os.rename(os.path.join(args.out, ".agent", "rollback-targets.new"),
              os.path.join(args.out, ".agent", "rollback-targets"))


if __name__ == "__main__":
    main()
