#!/usr/bin/env bash
# The inspector (the session detail beside the list on a wide terminal)
# shows the selected session's recorded usage: the totals from every turn
# row, then the newest turns, each with its counts, cost and model; a model
# name with escape bytes is drawn made visible, never interpreted.
. "$(dirname "$0")/lib/tmux.sh" "$@"

"$agentctl" -w "$ws" session create "usage in the inspector" --id u1 >/dev/null
"$agentctl" -w "$ws" session record-turn u1 --usage \
	'{"inputTokens":1200,"outputTokens":340,"cacheCreationInputTokens":55,"cacheReadInputTokens":9000,"model":"claude-sonnet-4-5","costUsd":0.25}' >/dev/null
"$agentctl" -w "$ws" session record-turn u1 --usage \
	'{"inputTokens":10,"outputTokens":20,"reasoningTokens":7,"model":"gpt\u001b[31m-5"}' >/dev/null

dashboard 180 40
wait_for "usage in the inspector" >/dev/null
check "the totals of both turns" wait_for "usage     2 turns: in 1210  out 360  cache 55 new/9000 read"
check "turn 1 with its cost and model" wait_for "in 1200 out 340 cache 55/9000 \$0.2500 claude-sonnet"
check "turn 2 with reasoning" wait_for "in 10 out 20 cache 0/0 r 7 gpt"
check "the escape byte made visible" bash -c "tmux -L $sock capture-pane -p -t e2e | grep -q 'gpt.*\[31m-5'"
"$agentctl" -w "$ws" session record-turn u1 --input 5 --output 5 >/dev/null
check "a new turn appears live" wait_for "usage     3 turns: in 1215  out 365"
send q
wait_exit
finish
