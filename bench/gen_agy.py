#!/usr/bin/env python3
"""Writes COUNT Antigravity CLI (agy) conversations of STEPS steps each,
the same bytes for the same arguments: brain/<id>/.system_generated/logs/
transcript.jsonl (a prompt, then model turns with a tool call and its
output) and one history.jsonl row a conversation, half of them in the
workspace, as tests/fixtures/agy has them.

    gen_agy.py HOME WORKSPACE COUNT STEPS
"""
import json, os, sys

home, ws, count, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
root = os.path.join(home, ".gemini/antigravity-cli")
os.makedirs(os.path.join(root, "brain"), exist_ok=True)

def dump(obj):
    return json.dumps(obj, separators=(",", ":")) + "\n"

with open(os.path.join(root, "history.jsonl"), "w") as history:
    for i in range(count):
        cid = "%08x-0000-4000-8000-%012x" % (i, i)
        where = ws if i % 2 == 0 else "/elsewhere/project-%d" % (i % 7)
        logs = os.path.join(root, "brain", cid, ".system_generated/logs")
        os.makedirs(logs)
        ts = lambda n: "2026-06-%02dT%02d:%02d:%02dZ" % (1 + i % 28, n // 3600 % 24, n // 60 % 60, n % 60)
        lines = [dump({"step_index": 0, "source": "USER_EXPLICIT", "type": "USER_INPUT",
                       "status": "DONE", "created_at": ts(0),
                       "content": "<USER_REQUEST>\nfix test %d\n</USER_REQUEST>\n"
                                  "<ADDITIONAL_METADATA>\nThe current local time is: now.\n"
                                  "</ADDITIONAL_METADATA>" % i})]
        for n in range(1, steps):
            if n % 2:
                lines.append(dump({"step_index": n, "source": "MODEL", "type": "PLANNER_RESPONSE",
                                   "status": "DONE", "created_at": ts(n),
                                   "content": "looking at the parser " * 8,
                                   "tool_calls": [{"name": "view_file",
                                                   "args": {"AbsolutePath": where + "/main.c"}}]}))
            else:
                lines.append(dump({"step_index": n, "source": "MODEL", "type": "VIEW_FILE",
                                   "status": "DONE", "created_at": ts(n),
                                   "content": "1: int main(void) { return 0; }\n" * 20}))
        with open(os.path.join(logs, "transcript.jsonl"), "w") as f:
            f.writelines(lines)
        history.write(dump({"display": "fix test %d" % i, "timestamp": 1781846613000 + i,
                            "workspace": where, "conversationId": cid}))
