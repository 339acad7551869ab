# Beside lib/sources_home.sh's transcripts (sourced after it, not a test):
# copies whose names are not UTF-8, one per source (Claude Code \xff\xfe,
# Codex an overlong '/', Gemini an encoded surrogate) and a Claude Code
# project folder (\xff) holding a copy of S2. $claude, $day and $chats are
# the folders they are in.
claude=$HOME/.claude/projects/$slug
cp "$claude/$S1.jsonl" "$claude/$(printf '\xff\xfe').jsonl"
mkdir "$claude-$(printf '\xff')"
cp "$claude-sub/$S2.jsonl" "$claude-$(printf '\xff')/$S2.jsonl"
day=$HOME/.codex/sessions/2025/10/01
cp "$day"/rollout-*"$C1".jsonl "$day/rollout-2025-10-01T11-00-00-$(printf '\xc0\xaf').jsonl"
chats=$(echo "$HOME"/.gemini/tmp/*/chats)
cp "$chats"/session-*.json "$chats/session-2025-10-01T13-00-$(printf '\xed\xa0\x80').json"
