#!/usr/bin/env bash
# A number column is dropped or its cell marked, never cut to its first
# digits (issue 27, "Wording and frames": TOKENS 319 shown as `31` at 40
# columns), at 80x24, 120x40 and 200x60 and at 40 columns: a session of
# 123,456 messages shows MSGS 123k (it showed 12345); a checkpoint of
# version 12345678 is marked "…" in VER (it showed 12345); at 40 columns
# the numbers that do not fit are dropped, their headers too, none cut.
. "$(dirname "$0")/lib/tmux.sh" "$@"
S=$ws/.agent/sessions
mkdir -p "$S" "$ws/.agent/checkpoints/s-big"
python3 - "$S/s-big.json" <<'PY'
import json, sys
msgs = [{"role": "user" if i % 2 == 0 else "assistant", "content": "m"} for i in range(123456)]
json.dump({"id": "s-big", "createdAt": "2024-05-01T10:00:00.000Z",
           "updatedAt": "2024-05-01T10:00:00.000Z", "task": "a long one", "status": "running",
           "conversationHistory": msgs, "metadata": {}}, open(sys.argv[1], "w"))
PY
cat >"$ws/.agent/checkpoints/s-big/ck-far.json" <<'JSON'
{"checkpointId":"ck-far","sessionId":"s-big","agentId":"a","createdAt":"2024-05-01T10:00:00.000Z","version":12345678,"parentId":null,"nodeId":"n1","lastInput":null,"lastInputType":null,"lastOutput":null,"messageHistory":[],"properties":{}}
JSON
touch -d '-1 min' "$S"/*.json

rows() { screen | grep -F "$1"; }
for size in 80x24 120x40 200x60 40x20; do
	dashboard "${size%x*}" "${size#*x}"
	wait_for "s-big" >/dev/null
	check "$size: no count cut to its first digits" eval '! rows s-big | grep -qE "12345|1234 |123 "'
	if [ "${size%x*}" -ge 80 ]; then
		check "$size: 123,456 messages shown as 123k" eval 'rows s-big | grep -qF " 123k "'
		check "$size: the headers are whole" eval 'screen | grep -qE "MSGS TOKENS +AGE"'
	else
		check "$size: a header is whole or absent" eval '! screen | grep -qE "MSG$|MSGS? ?T[OKEN]{0,4}$|TOKE$|TOK$"'
	fi
	keys 3
	check "$size: the checkpoint is listed" wait_for "ck-far"
	# (at 200 columns the preview beside it may show "user #123443" on
	# the same screen line: a message's number, not the version)
	check "$size: its version is marked, not cut" eval 'rows ck-far | grep -qF "…" && ! rows ck-far | grep -qE "(^|[^#0-9])1234"'
	keys q
	wait_gone
done
finish
