# The coding agents' transcripts of tests/fixtures/sources/home under a
# private HOME, moved to a real workspace WS (sourced after lib/cli.sh, not a
# test): S1 S2 (Claude Code), C1 (Codex), G1 (Gemini), OTHER (another
# project), the folder names the tools derive from WS, tree_sum, and the
# out_has / err_has / jq_out helpers over the last run.
ESC=$'\x1b'
FIX=$(cd "$(dirname "$0")/../fixtures/sources" && pwd)
S1=6f1c2a9e-3b7d-4c1e-9a55-0d2e4f6a8b10
S2=a2b4c6d8-1e3f-4a5b-8c7d-9e0f1a2b3c4d
C1=0199a213-81c0-7800-8aa1-bbab2a035a53
G1=5e1f0c3a-7b2d-4e6f-9a1b-2c3d4e5f6a7b
OTHER=0b0b0b0b-0000-4000-8000-000000000002

mkdir -p "$TMP/ws/fixture.project"
WS=$(realpath "$TMP/ws/fixture.project")
export HOME=$TMP/home
cp -r "$FIX/home" "$HOME"
# The fixtures name /work/fixture-project: moved to this workspace, with
# the folder names the tools derive from it.
grep -rl /work/fixture-project "$HOME" | xargs sed -i "s|/work/fixture-project|$WS|g"
slug=$(printf %s "$WS" | sed 's/[^a-zA-Z0-9]/-/g')
mv "$HOME/.claude/projects/-work-fixture-project" "$HOME/.claude/projects/$slug"
mv "$HOME/.claude/projects/-work-fixture-project-sub" "$HOME/.claude/projects/$slug-sub"
hash=$(printf %s "$WS" | sha256sum | cut -d' ' -f1)
mv "$HOME/.gemini/tmp/"* "$HOME/.gemini/tmp/$hash"
# A pending call waits at once; the Codex rollout is two hours quiet.
export AGENT_SOURCES_STATE_PERMISSION_MS=0 XDG_CACHE_HOME=$TMP/cache
touch -d '2 hours ago' "$HOME"/.codex/sessions/2025/10/01/rollout-*"$C1".jsonl
tree_sum() { find "$HOME" -type f -exec sha256sum {} + | sort; }
tree_sum >"$TMP/before"

out_has() { grep -qE -- "$1" "$TMP/out"; }
out_has_text() { grep -qF -- "$1" "$TMP/out"; }
err_has() { grep -qE -- "$1" "$TMP/err"; }
jq_out() { jq -r "$1" <"$TMP/out" 2>/dev/null; }
