#!/usr/bin/env bash
# A workspace whose folder name is not valid UTF-8 (pr\xffoj). The Gemini
# CLI session of it (found by the hash of the folder's bytes) takes the
# workspace as its cwd: `session list --json` and `session show --json`
# give it with the name escaped as the text output shows it. Before, jansson
# refused the string: list --json left the session out ([]) and show --json
# printed nothing, both exit 0.
# Usage: sources_odd_workspace.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"

G1=5e1f0c3a-7b2d-4e6f-9a1b-2c3d4e5f6a7b
mkdir -p "$TMP/ws/$(printf 'pr\xffoj')"
WS=$(realpath "$TMP/ws/$(printf 'pr\xffoj')")
export HOME=$TMP/home XDG_CACHE_HOME=$TMP/cache AGENT_SOURCES_STATE_PERMISSION_MS=0
mkdir -p "$HOME/.gemini/tmp"
# What a Node program writes for such a cwd: U+FFFD in place of the byte.
cp -r "$(dirname "$0")/../fixtures/sources/home/.gemini/tmp/"* \
	"$HOME/.gemini/tmp/$(printf %s "$WS" | sha256sum | cut -d' ' -f1)"
grep -rl /work/fixture-project "$HOME" | xargs sed -i "s|/work/fixture-project|$(printf %s "$WS" | sed 's/\xff/\xef\xbf\xbd/')|g"

run session list
check "list: the Gemini session of the workspace" eval "rc_is 0 && grep -q '^$G1' \"\$TMP/out\""
run session list --json
check "list --json: exit 0, the same session" eval "rc_is 0 && [ \"\$(jq -r '[.[].id] | join(\" \")' <\"\$TMP/out\")\" = $G1 ]"
check "list --json: its cwd escaped as the text shows it" \
	eval "[ \"\$(jq -r '.[0].cwd' <\"\$TMP/out\")\" = \"\${WS%/*}/pr\\\\xFFoj\" ]"
run session show "$G1" --json
check "show --json: exit 0, one document naming it" eval "rc_is 0 && jq -e '.id == \"$G1\"' <\"\$TMP/out\" >/dev/null"
check "show --json: no raw byte of the name" eval "! LC_ALL=C grep -q \$'\\xff' \"\$TMP/out\""

finish
