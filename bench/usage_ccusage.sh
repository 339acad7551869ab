#!/usr/bin/env bash
# `agentctl usage` beside ccusage on the same transcripts: COUNT Claude Code
# transcripts and Codex rollouts of TOTAL_MB in all (bench/gen_transcripts.py,
# fixed seed; a fifth are Codex) under a HOME of their own, then
#   agentctl usage daily --all-projects --json   cold (no index) and warm
#   ccusage claude daily --json --offline         the Claude Code files
#   ccusage codex daily --json --offline          the Codex rollouts
# each timed with GNU time (wall, max RSS), each ccusage run cut at
# CCUSAGE_TIMEOUT seconds (default 900). The totals are printed side by
# side: agentctl's against the sum of ccusage's two reports. Then a Codex
# fork (a parent of 4,000/900 input/output tokens and its fork, whose
# rollout begins with a copy of the parent's items, token_count events and
# session_meta included, then 2,000/600 of its own), where the right total
# is 6,000/1,500.
#
#   bench/usage_ccusage.sh AGENTCTL CCUSAGE      (COUNT=10000 TOTAL_MB=1000)
#
# CCUSAGE is the ccusage command (a path; `npx ccusage@latest` works too but
# its download is then timed): install it apart, e.g.
#   npm install --prefix /tmp/ccusage-npm ccusage   # + its native package
set -euo pipefail
agentctl=$(realpath "$1")
ccusage=$2
here=$(cd "$(dirname "$0")" && pwd)
count=${COUNT:-10000}
total_mb=${TOTAL_MB:-1000}
limit=${CCUSAGE_TIMEOUT:-900}
data=${DATA:-$here/data/ccusage-$count-$total_mb}
home=$data/home
: "${data:?}"
if [ ! -f "$data/done" ]; then
	echo "usage_ccusage.sh: generating $count transcripts, $total_mb MB, in $home" >&2
	rm -rf "$home"
	python3 "$here/gen_transcripts.py" "$home" "$count" "$total_mb" >/dev/null
	touch "$data/done"
fi
work=$(mktemp -d /tmp/agentctl-ccusage.XXXXXX)
: "${work:?}"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ws"

# timed LABEL CMD...: runs CMD with HOME=$home, output in $work/LABEL.json,
# "wall s, max RSS MB" (or "timed out") in $work/LABEL.time.
timed() {
	local label=$1
	shift
	# time inside timeout: its max RSS is the command's, not timeout's.
	if HOME=$home CODEX_HOME=$home/.codex XDG_CACHE_HOME=$work/cache \
		timeout "$limit" /usr/bin/time -f '%e %M' -o "$work/$label.t" "$@" \
		>"$work/$label.json" 2>"$work/$label.err"; then
		awk '{ printf "%.2f s, %d MB", $1, $2 / 1024 }' "$work/$label.t" >"$work/$label.time"
	else
		echo "failed or timed out after $limit s" >"$work/$label.time"
	fi
}
# totals FILE: "input output cacheCreation cacheRead total"
totals() {
	jq -r '.totals | "\(.inputTokens // 0) \(.outputTokens // 0) \(.cacheCreationTokens // 0) \(.cacheReadTokens // 0) \(.totalTokens // 0)"' "$1" 2>/dev/null || echo "- - - - -"
}
sum2() { paste -d' ' <(echo "$1" | tr ' ' '\n') <(echo "$2" | tr ' ' '\n') | awk '{ if ($1 == "-" || $2 == "-") print "-"; else printf "%.0f\n", $1 + $2 }' | tr '\n' ' ' | sed 's/ $//'; }
row() { # label "in out cc cr total" time
	set -- "$1" $2 "$3"
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7"
}

timed ac_cold "$agentctl" -w "$work/ws" usage daily --all-projects --json
timed ac_warm "$agentctl" -w "$work/ws" usage daily --all-projects --json
timed cc_claude "$ccusage" claude daily --json --offline
timed cc_codex "$ccusage" codex daily --json --offline

files=$(find "$home" -name '*.jsonl' | wc -l)
codex=$(find "$home/.codex" -name '*.jsonl' | wc -l)
mb=$(du -sm "$home" | cut -f1)
ac=$(totals "$work/ac_cold.json")
cl=$(totals "$work/cc_claude.json")
cx=$(totals "$work/cc_codex.json")
echo "## usage beside ccusage: $files transcripts ($codex Codex rollouts), $mb MB"
echo
echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/Mem:/ {print $2}') GiB, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; agentctl $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null), ccusage $("$ccusage" --version 2>/dev/null | head -1)."
echo
echo "| run | input | output | cache create | cache read | total | wall, max RSS |"
echo "|---|---:|---:|---:|---:|---:|---|"
row "agentctl usage, cold (no index)" "$ac" "$(cat "$work/ac_cold.time")"
row "agentctl usage, warm" "$(totals "$work/ac_warm.json")" "$(cat "$work/ac_warm.time")"
row "ccusage claude daily" "$cl" "$(cat "$work/cc_claude.time")"
row "ccusage codex daily" "$cx" "$(cat "$work/cc_codex.time")"
row "ccusage, claude + codex" "$(sum2 "$cl" "$cx")" "-"
if [ "$ac" = "$(sum2 "$cl" "$cx")" ]; then
	echo
	echo "Totals: the same, token for token."
fi

# ---- a Codex fork ----
fh=$work/fork-home
day=$fh/.codex/sessions/2026/05/02
mkdir -p "$day"
python3 - "$day" <<'PY'
import json, sys
day = sys.argv[1]
P, F = "0199f000-0000-7000-8000-00000000000a", "0199f000-0000-7000-8000-00000000000b"
def meta(sid, ts, extra=None):
    p = {"id": sid, "timestamp": ts, "cwd": "/work/p", "originator": "codex_cli_rs", "cli_version": "0.130.0"}
    p.update(extra or {})
    return {"timestamp": ts, "type": "session_meta", "payload": p}
def ctx(ts):
    return {"timestamp": ts, "type": "turn_context", "payload": {"cwd": "/work/p", "model": "gpt-5-codex"}}
def count(ts, total, last):
    u = lambda v: {"input_tokens": v[0], "cached_input_tokens": 0, "output_tokens": v[1],
                   "reasoning_output_tokens": 0, "total_tokens": v[0] + v[1]}
    return {"timestamp": ts, "type": "event_msg", "payload": {"type": "token_count",
            "info": {"total_token_usage": u(total), "last_token_usage": u(last), "model_context_window": 272000}}}
def msg(ts, role, text):
    kind = "input_text" if role == "user" else "output_text"
    return {"timestamp": ts, "type": "response_item", "payload": {"type": "message", "role": role,
            "content": [{"type": kind, "text": text}]}}
parent = [meta(P, "2026-05-02T10:00:00.000Z"), ctx("2026-05-02T10:00:00.000Z"),
          msg("2026-05-02T10:00:01.000Z", "user", "first"), count("2026-05-02T10:00:02.000Z", [1500, 400], [1500, 400]),
          msg("2026-05-02T10:00:03.000Z", "user", "second"), count("2026-05-02T10:00:04.000Z", [4000, 900], [2500, 500])]
fork = [meta(F, "2026-05-02T11:00:00.000Z", {"forked_from_id": P})] + parent + [
          ctx("2026-05-02T11:00:01.000Z"), msg("2026-05-02T11:00:02.000Z", "user", "fork's own"),
          count("2026-05-02T11:00:03.000Z", [6000, 1500], [2000, 600])]
for sid, lines, t in ((P, parent, "10-00-00"), (F, fork, "11-00-00")):
    with open("%s/rollout-2026-05-02T%s-%s.jsonl" % (day, t, sid), "w") as f:
        f.writelines(json.dumps(l, separators=(",", ":")) + "\n" for l in lines)
PY
for who in ac cc; do
	if [ $who = ac ]; then cmd=("$agentctl" -w "$work/ws" usage daily --all-projects --json); else cmd=("$ccusage" codex daily --json --offline); fi
	HOME=$fh CODEX_HOME=$fh/.codex XDG_CACHE_HOME=$work/fork-cache timeout "$limit" "${cmd[@]}" >"$work/fork-$who.json" 2>/dev/null || true
done
echo
echo "A Codex fork (parent 4,000/900 input/output, fork's own 2,000/600: right total 6,000/1,500):"
echo
echo "| run | input | output |"
echo "|---|---:|---:|"
for who in ac cc; do
	set -- $(totals "$work/fork-$who.json")
	echo "| $([ $who = ac ] && echo "agentctl usage" || echo "ccusage codex daily") | $1 | $2 |"
done

# ---- a Claude Code message written twice as it streamed ----
sh=$work/stream-home
mkdir -p "$sh/.claude/projects/-w"
for out in 25 250; do
	printf '{"type":"assistant","timestamp":"2025-01-10T10:00:0%d.000Z","sessionId":"s1","cwd":"/w","message":{"id":"msg_123","model":"claude-opus-4-6","usage":{"input_tokens":100,"output_tokens":%d,"cache_creation_input_tokens":10,"cache_read_input_tokens":5}},"requestId":"req_456"}\n' \
		"$((out / 250))" "$out" >>"$sh/.claude/projects/-w/s1.jsonl"
done
for who in ac cc; do
	if [ $who = ac ]; then cmd=("$agentctl" -w "$work/ws" usage daily --all-projects --json); else cmd=("$ccusage" claude daily --json --offline); fi
	HOME=$sh XDG_CACHE_HOME=$work/stream-cache timeout "$limit" "${cmd[@]}" >"$work/stream-$who.json" 2>/dev/null || true
done
echo
echo "A Claude Code message on two lines with the same message id and requestId, output 25 then 250 tokens (as streamed):"
echo
echo "| run | input | output |"
echo "|---|---:|---:|"
for who in ac cc; do
	set -- $(totals "$work/stream-$who.json")
	echo "| $([ $who = ac ] && echo "agentctl usage" || echo "ccusage claude daily") | $1 | $2 |"
done
