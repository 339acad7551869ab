#!/usr/bin/env bash
# The journal pane reaches the whole journal: S in the journal pane runs a
# query (the query engine's terms, any dotted field) over JOURNAL.jsonl and
# its rotated files, newest first, in bounded steps; n/N go to the next
# (older) / previous match; Enter opens an event in full (pretty JSON);
# Esc goes back, then leaves the search for the live tail. The matches
# here are far behind the 2,000 events the live tail keeps.
# On either store (lib/store.sh: STORE=files|pg; dashboard_jsearch_pg.sh is
# the database's run: the journal files go in by `storage migrate`).
# Usage: [STORE=pg] dashboard_jsearch.sh path/to/agentctl
. "$(dirname "$0")/lib/tmux.sh" "$@"
. "$(dirname "$0")/lib/store.sh"
python3 - "$ws" <<'PY'
import json, sys
ws = sys.argv[1]
def ev(i, msg, corr=None, day="03"):
    e = {"id": "evt_202509%s%06d_%08x" % (day, i % 240000, i), "timestamp": "2025-09-%sT%02d:%02d:%02d.000Z" % (day, i // 3600 % 24, i // 60 % 60, i % 60),
         "agent": "Claude", "status": "SUCCESS", "action": {"type": "CMD_RUN", "params": {"command": "make"}},
         "result": {"message": msg}}
    if corr:
        e["trace"] = {"correlation_id": corr}
    return json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n"
with open(ws + "/JOURNAL-20250902T000000.000Z.jsonl", "w") as f:
    for i in range(3000):
        f.write(ev(i, "old event %d" % i, "needle_x" if i == 1500 else "c%d" % i, "02"))
with open(ws + "/JOURNAL.jsonl", "w") as f:
    for i in range(6000):
        f.write(ev(i, "event %d" % i, "needle_x" if i == 100 else "c%d" % i))
        if i == 200:  # text from a file is never sent raw to the terminal
            f.write(ev(90000, "\x1b]0;owned\x07 title \u202e bidi", "hostile_x"))
PY
if on_pg; then
  store_seed acme || exit 1
  rm -f "$ws"/JOURNAL*.jsonl
fi
before=$(store_sum)
# Where the search looked, and the full event's title: a file and its byte
# offset, or the database (no file there: the event by its id).
in_files="in 2 files" title="Event in JOURNAL.jsonl at byte"
on_pg && in_files="in the database" title="Event evt_20250903000100_00000064"

dashboard 140 40
wait_for "event 5999" >/dev/null
keys 4
check "search: the hint line offers S" bash -c "tmux -L $sock capture-pane -p -t e2e | tail -n 1 | grep -qF 'S search'"
check "search: the tail does not hold the old match" absent "event 100 "
keys S
check "search: S opens the query line" wait_for "search the journal:"
send -l "trace.correlation_id=needle_x"
keys Enter
check "search: the pane says what it searched" wait_for "trace.correlation_id=needle_x"
check "search: every file searched, 2 matches" wait_for "2 matches $in_files"
check "search: the match deep in the journal" wait_for "event 100"
check "search: the match in the rotated file" wait_for "old event 1500"
check "search: the hint line offers n/N" bash -c "tmux -L $sock capture-pane -p -t e2e | tail -n 1 | grep -qF 'n/N match'"
keys n
check "search: n moves to the older match" wait_for "2/2"
keys N
check "search: N back to the newer one" wait_for "1/2"
keys Enter
check "search: Enter opens the event in full" wait_for '"correlation_id": "needle_x"'
check "search: pretty JSON, one field a line" wait_for '"message": "event 100"'
check "search: the file and offset (on pg: the id)" wait_for "$title"
keys Escape
check "search: Esc back to the matches" wait_for "2 matches $in_files"
keys Escape
check "search: Esc again back to the live tail" wait_for "event 5999"
check "search: search closed" absent "2 matches $in_files"
# A field that is not there: nothing found, said so.
keys S
send -l "trace.parent_id=nothing"
keys Enter
check "search: no match said so" wait_for "0 matches $in_files"
keys Escape
# A bad term: the query engine's message.
keys S
send -l "status>>x"
keys Enter
check "search: a bad term is named" wait_for "bad term"
keys Escape
# Escapes in an event: shown as text in the matches and in full.
keys S
send -l "trace.correlation_id=hostile_x"
keys Enter
check "hostile: the match's escapes shown" wait_for "^[]0;owned^G title <U+202E> bidi"
keys Enter
check "hostile: in full, JSON-escaped" wait_for '"message": "\u001B]0;owned\u0007 title'
check "hostile: no OSC set the title" \
  bash -c "! tmux -L $sock display -p -t e2e '#{pane_title}' | grep -q owned"
keys Escape Escape
# Enter on a live-tail event opens it in full too.
keys G Enter
check "tail: Enter opens the last event in full" wait_for '"message": "event 5999"'
keys Escape
send q
wait_gone
check "nothing was written" test "$before" = "$(store_sum)"
finish
