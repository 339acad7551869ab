#!/usr/bin/env bash
# Trust and the running dashboard (issue 27, "Wording and frames"), in tmux
# with real keys at 80x24, 120x40 and 200x60:
#  - `agentctl config trust` run in a shell is noticed by a dashboard that
#    is already running: r then says y starts resumeCommand, not that it is
#    untrusted (no restart);
#  - C reviews the project file: what changed since it was last trusted, as
#    a diff, its text sanitised (an escape sequence in it is shown, never
#    sent); y trusts exactly that content, and the dashboard uses it;
#  - trusting keeps a copy of the trusted bytes, private to the operator
#    (0600 in a 0700 folder under $XDG_STATE_HOME), and the trust store
#    keeps its format.
. "$(dirname "$0")/lib/tmux.sh" "$@"
command -v jq >/dev/null || { echo "jq is missing"; echo "0 passed, 1 failed"; exit 1; }
S=$ws/.agent/sessions
mkdir -p "$S" "$ws.cfg/agent"
export XDG_CONFIG_HOME=$ws.cfg
at_exit() { rm -rf "$ws.cfg"; }
jq -n '{id: "s1", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z",
  task: "resume me", status: "paused", conversationHistory: [], metadata: {}}' >"$S/s1.json"
touch -d '-1 min' "$S/s1.json"
store=$ws.cfg/agent/trusted.json
copies=$XDG_STATE_HOME/agent/trusted

for size in 80x24 120x40 200x60; do
  rm -rf "$store" "$copies"
  printf '{\n  "resumeCommand": ["./resume-one.sh", "{id}"]\n}\n' >"$ws/.agent/config.json"
  prefix="env XDG_CONFIG_HOME=$ws.cfg" dashboard "${size%x*}" "${size#*x}"
  wait_for "resume me" >/dev/null
  keys r
  check "$size: untrusted: r says resumeCommand is not trusted" wait_for "configured but not trusted"
  keys n
  "$agentctl" -w "$ws" config trust >/dev/null 2>&1
  check "$size: config trust in a shell is noticed" wait_for "agent/trusted.json"
  keys r
  check "$size: ... r now starts resumeCommand, no restart" wait_for "starts resumeCommand: ./resume-one.sh"
  keys n
  # An agent edits the project file: its command is no longer trusted.
  printf '{\n  "resumeCommand": ["./resume-two.sh", "\\u001b]0;owned\\u0007", "{id}"],\n  "theme": "dark\\u001b[2J"\n}\n' >"$ws/.agent/config.json"
  check "$size: the edit is noticed" wait_for "reloaded ($ws/.agent/con"
  keys C
  check "$size: C reviews the file" wait_for "for this workspace?"
  check "$size: ... as a change since it was last trusted" wait_for "changed since it was last trusted"
  check "$size: ... the trusted line removed" wait_for '-  "resumeCommand": ["./resume-one.sh", "{id}"]'
  check "$size: ... the new lines added" wait_for '+  "theme": "dark'
  check "$size: ... counted" wait_for "2 lines added (+), 1 removed (-)"
  check "$size: ... escapes are text, never sent" wait_for '\u001b]0;owned\u0007'
  check "$size: ... nothing trusted before y" bash -c "! '$agentctl' -w '$ws' config show 2>/dev/null | grep -q ': trusted'"
  keys y
  check "$size: y trusts it" bash -c "for i in \$(seq 30); do '$agentctl' -w '$ws' config show 2>/dev/null | grep -q ': trusted\$' && exit 0; sleep 0.1; done; exit 1"
  check "$size: ... and the dashboard reads the configuration again" wait_for "agent/trusted.json"
  keys r
  check "$size: ... and the dashboard uses it" wait_for "starts resumeCommand: ./resume-two.sh"
  keys n
  check "$size: the trust store keeps its format" jq -e --arg w "$(realpath "$ws")" \
    '.workspaces[$w] | (.file == ".agent/config.json") and (.sha256 | length == 64) and (.trustedAt | type == "string")' "$store"
  check "$size: the trusted copy is the file's bytes" cmp -s "$ws/.agent/config.json" "$copies"/*.json
  check "$size: ... private: 0600 in a 0700 folder" bash -c "[ \"\$(stat -c %a $copies/*.json)\" = 600 ] && [ \"\$(stat -c %a $copies)\" = 700 ]"
  send q
  wait_gone
done
finish
