# The Claude Code and Codex transcripts of tests/fixtures/usage under a
# private HOME, their @WS@ made a real workspace WS, and the usage index's
# cache folder in TMP (sourced after lib/cli.sh, not a test).
fixtures=$(cd "$(dirname "$0")/../fixtures/usage" && pwd)
WS=$TMP/ws
mkdir -p "$WS"
WS=$(cd "$WS" && pwd -P)
cp -R "$fixtures/home" "$TMP/home"
grep -rl '@WS@' "$TMP/home" | xargs sed -i "s|@WS@|$WS|g"
export HOME=$TMP/home XDG_CACHE_HOME=$TMP/cache
