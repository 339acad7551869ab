#!/usr/bin/env bash
# Issue 26 item 7: what the seeds' own code (tests/e2e/lib/seed000.js: seed
# 000's JsonSessionStore, ConfigResolver and OperationLog commit message,
# seed 001's compactIfNeeded cut) writes or decides, agentctl reads and
# decides the same way: the compaction cut rounds down, commit messages
# are JSON.stringify's for numbers JavaScript rewrites, gitEnabled false is
# said as such, AGENT_MAX_TOKENS is read as parseInt reads it and stops no
# command, *.tmp.json files are no sessions, session list --json has
# turns, and a project file that is not JSON falls back to .agentrc.json.
# Usage: seed000_interop.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
command -v node >/dev/null || { echo "node missing: skipped"; exit 0; }
SEED=$(cd "$(dirname "$0")/lib" && pwd)/seed000.js
export GIT_CONFIG_NOSYSTEM=1 HOME=$TMP/home
mkdir -p "$HOME"
WS=$TMP/ws
S=$WS/.agent/sessions
mkdir -p "$S"

# A seed session of N plain messages (no tool calls: every cut is safe).
seed_session() { # ID N [METADATA]
	node -e '
const [id, n, meta] = process.argv.slice(1);
const msgs = [];
for (let i = 0; i < Number(n); i++) msgs.push({ role: i % 2 ? "assistant" : "user", content: `message ${i} ` + "x".repeat(200) });
process.stdout.write(JSON.stringify({ id, createdAt: "2025-09-03T14:25:10.591Z", updatedAt: "2025-09-03T14:25:10.591Z",
  task: `task ${id}`, status: "running", conversationHistory: msgs, metadata: JSON.parse(meta || "{}") }));' "$@" |
		node "$SEED" save "$S"
}

# (a) The cut: Math.floor(41 * 0.5) = 20 messages summarised.
seed_session s41 41
want=$(node "$SEED" compact-cut "$S" s41)
run session compact s41 --force
check "(a) compact: exit 0" rc_is 0
check "(a) 41 messages: $want summarised, as seed 001 cuts" \
	eval 'grep -q "^session s41: $want of 41 messages summarised" "$TMP/out"'
check "(a) the seed reads the session back: summary + 21" \
	eval '[ "$(node -e "console.log(JSON.parse(require(\"fs\").readFileSync(process.argv[1])).conversationHistory.length)" "$S/s41.json")" = 22 ]'

# (e) A *.tmp.json file is a writer's temp file: the seed's list() skips it.
cp "$S/s41.json" "$S/half.tmp.json"
run session list --json
check "(e) session list: the ids the seed's list() gives" \
	eval '[ "$(jq -c "[.[].id] | sort" <"$TMP/out")" = "$(node "$SEED" list "$S" | jq -c "[.[].id] | sort")" ]'
# (f) ...and each entry has turns (metadata.usage.turns, 2 after two turns).
run session record-turn s41 --input 10 --output 5
run session record-turn s41 --input 10 --output 5
run session list --json
check "(f) session list --json: turns" jq_is "$TMP/out" '.[] | select(.id == "s41") | .turns' 2
rm -f "$S/half.tmp.json"

# (d) AGENT_MAX_TOKENS=8k: the seed's parseInt gives 8; no command stops.
AGENT_MAX_TOKENS=8k "$AC" -w "$WS" session list >"$TMP/out" 2>"$TMP/err"
RC=$?
check "(d) AGENT_MAX_TOKENS=8k: session list still works" eval '[ "$RC" = 0 ] && grep -q s41 "$TMP/out"'
check "(d) ...saying once how it was read" \
	eval '[ "$(grep -c "AGENT_MAX_TOKENS: .8k. read as 8" "$TMP/err")" = 1 ]'
AGENT_MAX_TOKENS=8k "$AC" -w "$WS" config show --json >"$TMP/out" 2>/dev/null
seedmax=$(cd "$WS" && AGENT_MAX_TOKENS=8k node "$SEED" config "$WS" | jq -r .maxTokens)
check "(d) maxTokens as the seed resolves it ($seedmax)" \
	eval '[ "$(jq -r ".maxTokens // .values.maxTokens // empty" <"$TMP/out")" = "$seedmax" ]'

# (g) A project file that is not JSON: the seed goes on to .agentrc.json.
printf '{"model": "from-config",\n' >"$WS/.agent/config.json"
printf '{"model": "from-agentrc"}\n' >"$WS/.agentrc.json"
run config show --json
check "(g) unparsable .agent/config.json: exit 0" rc_is 0
check "(g) ...model from .agentrc.json, as the seed resolves it" \
	eval '[ "$(jq -r ".model // .values.model // empty" <"$TMP/out")" = "$(node "$SEED" config "$WS" | jq -r .model)" ]'
check "(g) ...one warning line naming the file and the parse error" \
	eval '[ "$(grep -c "config.json: line 2 column .*ignored" "$TMP/err")" = 1 ]'
printf 'not json' >"$WS/.agentrc.json"
run session list
check "(g) both unparsable: the seed's {} (exit 0), two warnings" \
	eval '[ "$RC" = 0 ] && [ "$(grep -c "ignored" "$TMP/err")" = 2 ]'
rm -f "$WS/.agent/config.json" "$WS/.agentrc.json"

# (b) Commit messages as JSON.stringify(details).slice(0, 80) writes them.
git -C "$WS" init -q
git -C "$WS" config user.email e2e@example.com
git -C "$WS" config user.name e2e
for details in '{"n":1E5,"f":1.50,"z":-0}' '{"big":1e400,"i":9007199254740993}' \
	'{"tiny":0.0000001,"e":1e21,"r":0.1,"s":"a\u00E9"}' \
	'{"path":"src/a-very-long-name-that-goes-past-eighty-units.txt","size":12345678901234567890}'; do
	echo "$details" >>"$WS/file.txt"
	run ops record --session s41 --type file_write --details "$details"
	check "(b) ops record $details: exit 0" rc_is 0
	check "(b) commit message of $details is the seed's" \
		eval '[ "$(git -C "$WS" log -1 --format=%B | sed "/^$/d")" = "$(node "$SEED" commit-message file_write "$details")" ]'
done

# (c) gitEnabled false in a git repository: said as that, not "no repository".
echo '{"gitEnabled": false}' >"$WS/.agent/config.json"
run ops record --session s41 --type file_write --details '{"path":"file.txt"}'
check "(c) gitEnabled false: exit 0, no commit" eval '[ "$RC" = 0 ] && [ "$(git -C "$WS" log --oneline | wc -l)" = 4 ]'
check "(c) ...the note names gitEnabled and its file" \
	eval 'grep -q "git is disabled (gitEnabled: false, from .*\.agent/config.json)" "$TMP/err" && ! grep -q "no git repository" "$TMP/err"'

finish
