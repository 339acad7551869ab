#!/usr/bin/env bash
# Seed writers against operator actions: a node agent that follows seed 000
# exactly (tests/torture/seed_agent.js: no lock, "<id>.json.tmp" then
# rename) saves a turn every 0-30 ms, thinking now and then, in both
# patterns found in the wild (load once and save the in-memory copy every
# turn; load, append and save every turn), while agentctl pauses, resumes,
# compacts (with a slow external summariser), takes and rolls back to
# checkpoints, and finally completes or fails the session.
# Pass: no message that existed before and no turn the writer acknowledged
# is lost (each is in the session file or in an archive agentctl keeps);
# the writer never failed to load the file; and agentctl never reported a
# pause as done that the agent had undone.
CASE=seed_race
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v node >/dev/null; then
	check "node is installed (scripts/install-deps.sh installs it)" false
	finish
	exit 1
fi
if [ "$MODE" = short ]; then
	ROUNDS=4 TURNS=50
else
	ROUNDS=${SEED_RACE_ROUNDS:-40} TURNS=${SEED_RACE_TURNS:-150}
fi

# SEED_RACE_ACTIONS narrows the actions (e.g. "pause resume") when hunting.
read -ra ACTIONS <<<"${SEED_RACE_ACTIONS:-pause resume compact checkpoint rollback}"
ws=$WORK/ws
S=$ws/.agent/sessions
mkdir -p "$S" "$WORK/xdg/agent"
# The user's file: its commands are trusted. Quiet 40 ms, so that races
# happen often; a summariser that takes 300 ms.
cat >"$WORK/xdg/agent/config.json" <<'EOF'
{"session": {"quietMs": 40, "waitMs": 300},
 "summarizer": {"command": ["/bin/sh", "-c", "cat >/dev/null; sleep 0.3; echo the turns so far"]}}
EOF
export XDG_CONFIG_HOME=$WORK/xdg
act() { "$AC" -w "$ws" "$@" >>"$WORK/actions.out" 2>>"$WORK/actions.err" </dev/null; }

expected=0 found=0 lost=0 races=0 applied=0 refused=0 load_failures=0
declare -A done_by refused_by
for ((round = 1; round <= ROUNDS; round++)); do
	id=r$round
	mode=$([ $((round % 2)) = 1 ] && echo reload || echo once)
	: >"$WORK/$id.initial"
	for i in $(seq 1 40); do echo "initial $id-$i" >>"$WORK/$id.initial"; done
	jq -Rn --arg id "$id" '{id: $id, createdAt: "2026-01-01T00:00:00.000Z",
		updatedAt: "2026-01-01T00:00:00.000Z", task: "race", status: "running",
		conversationHistory: [inputs | {role: "user", content: .}], metadata: {}}' \
		<"$WORK/$id.initial" >"$S/$id.json"
	node "$here/seed_agent.js" --dir "$S" --id "$id" --mode "$mode" --turns "$TURNS" \
		--tag "$id" --gap-min 0 --gap-max 30 --think 9 --think-ms 150 \
		--ack "$WORK/$id.ack" >"$WORK/$id.writer" 2>&1 &
	writer=$!
	while kill -0 "$writer" 2>/dev/null; do
		action=${ACTIONS[RANDOM % ${#ACTIONS[@]}]}
		case $action in
		pause) act session pause "$id" ;;
		resume) act session resume "$id" ;;
		compact) act session compact "$id" --force ;;
		checkpoint) act checkpoint create "$id" ;;
		rollback) act checkpoint rollback "$id" --latest --yes ;;
		esac
		if [ $? = 0 ]; then
			applied=$((applied + 1)) done_by[$action]=$((${done_by[$action]:-0} + 1))
		else
			refused=$((refused + 1)) refused_by[$action]=$((${refused_by[$action]:-0} + 1))
		fi
		races=$((races + 1))
		sleep "0.0$((RANDOM % 5))"
	done
	wait "$writer"
	if [ $((round % 2)) = 1 ]; then act session complete "$id"; else act session fail "$id"; fi
	races=$((races + 1))
	load_failures=$((load_failures + $(kv load_failures "$(cat "$WORK/$id.writer")")))
	result=$(node "$here/seed_count.js" --dir "$S" --id "$id" --initial "$WORK/$id.initial" \
		--ack "$WORK/$id.ack")
	[ "$(kv lost "$result")" = 0 ] || echo "   $id ($mode): $result"
	expected=$((expected + $(kv expected "$result")))
	found=$((found + $(kv found "$result")))
	lost=$((lost + $(kv lost "$result")))
done
echo "   $ROUNDS sessions x $TURNS turns, $races operator actions ($applied done, $refused refused)"
for action in "${ACTIONS[@]}"; do
	echo "     $action: ${done_by[$action]:-0} done, ${refused_by[$action]:-0} refused"
done
echo "   why actions were refused (first words of each error, most frequent first):"
sed -E "s/^agentctl: //; s/'[^']*'/'ID'/g; s/[0-9]+ ms/N ms/g; s/ \(.*//; s/;.*//" \
	"$WORK/actions.err" | cut -c1-90 | sort | uniq -c | sort -rn | head -8 | sed 's/^/     /'
check "every message and acknowledged turn is kept (expected=$expected found=$found lost=$lost)" \
	eq "$lost" 0
check "the writers acknowledged turns ($expected expected)" test "$expected" -gt $((ROUNDS * 40))
check "the seed writers never failed to load the file (load_failures=$load_failures)" \
	eq "$load_failures" 0
check "operator actions both went through and were refused ($applied / $refused)" \
	test "$applied" -gt 0 -a "$refused" -ge 0
finish "races=$races applied=$applied refused=$refused expected=$expected lost=$lost"
