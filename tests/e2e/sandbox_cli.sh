#!/usr/bin/env bash
# End-to-end checks of `agentctl sandbox mirror|sync TENANT SESSION DIR`
# (seed 001 §6-7): the mirror layout read by a reference program written to
# the seed (lib/sandbox_memo.js, node), the agent's edits written back byte
# for byte, the conflict rule, the refresh after `session compact` (7a) and
# after USER.md consolidation through memory.consolidateCommand (7b),
# compaction.minMessages, a hostile mirror folder, and usage errors.
# Usage: sandbox_cli.sh path/to/agentctl
set -u

. "$(dirname "$0")/lib/cli.sh" "$@"
JS=$(dirname "$(realpath "$0")")/lib/sandbox_memo.js

WS=$TMP/ws
M=$TMP/mirror
OUTSIDE=$TMP/outside
mkdir -p "$WS" "$OUTSIDE"

err_has() { grep -qF -- "$1" "$TMP/err"; }
out_has() { grep -qF -- "$1" "$TMP/out"; }
err_lines() { [ "$(wc -l <"$TMP/err")" -eq "$1" ]; }
# same_bytes FILE SCOPE OWNER NAME: the store's document is FILE's bytes.
same_memo() {
	"$AC" -w "$WS" memo read T "$3" "$2" "$4" >"$TMP/memo" 2>/dev/null && cmp -s "$1" "$TMP/memo"
}

run session create "sandboxed work" --id s1 --tenant T --user U --agent A
check "setup: a tenant's session" rc_is 0
printf 'notes line\n' >"$TMP/notes"
printf 'I am U\n' >"$TMP/user"
printf 'agent rules\n' >"$TMP/agent"
"$AC" -w "$WS" memo write T s1 session NOTES.md - <"$TMP/notes" >/dev/null
"$AC" -w "$WS" memo write T U user USER.md - <"$TMP/user" >/dev/null
"$AC" -w "$WS" memo write T A agent AGENT.md - <"$TMP/agent" >/dev/null
# An artifact as compaction leaves it (the file backend's layout).
mkdir -p "$WS/.agent/artifacts/T/s1"
printf 'full tool output\n' >"$WS/.agent/artifacts/T/s1/call_1"

# ---- mirror ----
run sandbox mirror T s1 "$M"
check "mirror: exit 0" rc_is 0
check "mirror: says how many files" out_has "4 files written"
check "mirror: session/NOTES.md byte for byte" cmp -s "$M/session/NOTES.md" "$TMP/notes"
check "mirror: user/USER.md byte for byte" cmp -s "$M/user/USER.md" "$TMP/user"
check "mirror: agent/AGENT.md byte for byte" cmp -s "$M/agent/AGENT.md" "$TMP/agent"
check "mirror: artifacts/call_1" cmp -s "$M/artifacts/call_1" "$WS/.agent/artifacts/T/s1/call_1"
check "mirror: registered under .agent/sandboxes/T/s1" \
	eval '[ "$(ls "$WS/.agent/sandboxes/T/s1" | grep -c "\.json$")" -eq 1 ]'
check "mirror: the registration names the folder" \
	jq_is "$(ls "$WS/.agent/sandboxes/T/s1/"*.json)" .dir "$(realpath "$M")"
check "mirror: no manifest in the agent's folder" eval '[ "$(ls -A "$M" | tr "\n" " ")" = "agent artifacts session user " ]'

# ---- interop: the seed's reference program reads the mirror, edits it ----
if command -v node >/dev/null; then
	node "$JS" "$M" dump >"$TMP/dump.json"
	check "node: the seed's reader sees the session's documents" \
		jq_is "$TMP/dump.json" '.memo.session["NOTES.md"]' 'notes line'
	check "node: ... the user's and the agent's" \
		jq_is "$TMP/dump.json" '[.memo.user["USER.md"], .memo.agent["AGENT.md"]] | join("|")' $'I am U\n|agent rules'
	check "node: listToolResultArtifactIds + readToolResultArtifact" \
		jq_is "$TMP/dump.json" '.artifacts | to_entries | map(.key + "=" + .value) | join(",")' 'call_1=full tool output'
	# Bytes that are not UTF-8, a CR, a NUL: written by node, back byte for byte.
	printf 'appended \r\n\x00\xff\xfe bytes\n' >"$TMP/more"
	node "$JS" "$M" append session NOTES.md "$TMP/more"
	printf 'a note the agent made\n' >"$TMP/new"
	node "$JS" "$M" write agent NEW.md "$TMP/new"
	cat "$TMP/notes" "$TMP/more" >"$TMP/notes2"
	run sandbox sync T s1 "$M"
	check "sync: exit 0" rc_is 0
	check "sync: says 2 written back" out_has "2 written back, 0 conflicts, 0 refused"
	# memo read shows control bytes made visible: the store's file itself.
	check "sync: NOTES.md in the store is node's bytes exactly" \
		cmp -s "$TMP/notes2" "$WS/.agent/memo/T/s1/session/NOTES.md"
	# Notes folded into USER.md must be text (JSON input): back to text.
	"$AC" -w "$WS" memo write T s1 session NOTES.md - <"$TMP/notes" >/dev/null
	run sandbox sync T s1 "$M"
	check "sync: a host change with no edit is refreshed" cmp -s "$M/session/NOTES.md" "$TMP/notes"
	check "sync: a new agent document" same_memo "$TMP/new" agent A NEW.md
	check "sync: the untouched USER.md stays" same_memo "$TMP/user" user U USER.md
	run sandbox sync T s1 "$M"
	check "sync again: nothing to write back" out_has "0 written back, 0 conflicts, 0 refused; mirror: 0 files written"
fi

# ---- a host change through agentctl refreshes the mirror at once (§6) ----
printf 'host todo\n' >"$TMP/todo"
run memo write T s1 session TODO.md "host todo
"
check "memo write: the session's mirror has it at once" cmp -s "$M/session/TODO.md" "$TMP/todo"
printf 'agent note\n' >"$TMP/anote"
run memo write T A agent RULES.md "agent note
"
check "memo write: the agent's sessions' mirrors too" cmp -s "$M/agent/RULES.md" "$TMP/anote"

# ---- the conflict rule ----
printf 'host version\n' >"$TMP/host"
printf 'agent version\n' >"$TMP/agentv"
# The agent edits, then the host writes (its refresh keeps the edit).
cp "$TMP/agentv" "$M/user/USER.md"
"$AC" -w "$WS" memo write T U user USER.md - <"$TMP/host" >/dev/null
check "host write: the agent's unsynced edit is kept in the mirror" cmp -s "$M/user/USER.md" "$TMP/agentv"
run sandbox sync T s1 "$M"
check "conflict: exit 1" rc_is 1
check "conflict: one line naming the document" eval 'err_lines 1 && err_has "conflict: memo T/U/user/USER.md changed in the store since the mirror was taken"'
check "conflict: the store's version stays" same_memo "$TMP/host" user U USER.md
check "conflict: the mirror gets the store's version" cmp -s "$M/user/USER.md" "$TMP/host"
CONFLICT=$("$AC" -w "$WS" memo list T U user | grep conflict)
check "conflict: the agent's version is kept as USER.md.conflict-UTC" \
	eval '[[ "$CONFLICT" == USER.md.conflict-* ]] && same_memo "$TMP/agentv" user U "$CONFLICT"'
check "conflict: ... and mirrored" cmp -s "$M/user/$CONFLICT" "$TMP/agentv"

# ---- 7a: compaction refreshes the mirror ----
printf 'written by the host\n' >"$TMP/later"
# Written into the store by another process (the file backend's layout),
# so only the compaction's refresh can bring it into the mirror.
cp "$TMP/later" "$WS/.agent/memo/T/s1/session/LATER.md"
check "before compaction: the mirror does not have it" test ! -e "$M/session/LATER.md"
for i in $(seq 1 6); do
	printf '[{"role":"user","content":"question %s"},{"role":"assistant","content":"answer %s"}]' "$i" "$i" |
		"$AC" -w "$WS" session append s1 - >/dev/null
done
mkdir -p "$TMP/xdg/agent"
printf '{"compaction.triggerTokens": 1}' >"$TMP/xdg/agent/config.json"
run session compact s1
check "minMessages: 12 messages are not compacted by the trigger (default 20)" \
	eval 'rc_is 0 && out_has "compaction.minMessages"'
printf '{"compaction.minMessages": 4, "compaction.triggerTokens": 1}' >"$TMP/xdg/agent/config.json"
run session compact s1
check "compaction: exit 0" rc_is 0
check "compaction: summarised (over minMessages 4 and the trigger)" out_has "messages summarised"
check "compaction: the registered mirror got the host's new document" cmp -s "$M/session/LATER.md" "$TMP/later"

# ---- 7b: USER.md consolidation through memory.consolidateCommand ----
cat >"$TMP/fold.sh" <<'EOF'
#!/bin/sh
# A stub summariser: the input JSON kept, the notes' names listed.
cat >"$(dirname "$0")/fold-input.json"
printf '# profile of %s\n' "$(jq -r .userId <"$(dirname "$0")/fold-input.json")"
jq -r '.sessions[].notes[] | "- " + .name' <"$(dirname "$0")/fold-input.json"
EOF
chmod +x "$TMP/fold.sh"
printf '{"compaction.minMessages": 4, "compaction.triggerTokens": 1, "memory.consolidateCommand": ["%s"]}' \
	"$TMP/fold.sh" >"$TMP/xdg/agent/config.json"
for i in 1 2; do
	printf '[{"role":"user","content":"more %s"},{"role":"assistant","content":"reply %s"}]' "$i" "$i" |
		"$AC" -w "$WS" session append s1 - >/dev/null
done
run session compact s1 --force
check "consolidation: compaction exit 0" rc_is 0
check "consolidation: said on stderr" err_has "USER.md of user T/U consolidated from 3 notes of 1 session"
printf '# profile of U\n- LATER.md\n- NOTES.md\n- TODO.md\n' >"$TMP/folded"
check "consolidation: USER.md is the summariser's output" same_memo "$TMP/folded" user U USER.md
check "consolidation: the summariser got the current USER.md" jq_is "$TMP/fold-input.json" .current 'host version'
check "consolidation: ... and the notes' content" jq_is "$TMP/fold-input.json" '.sessions[0].notes[0].content' 'written by the host'
check "consolidation: the mirror's USER.md refreshed (7b)" cmp -s "$M/user/USER.md" "$TMP/folded"
# A command key from the project file (written by agents) needs trust.
rm "$TMP/xdg/agent/config.json"
printf '{"compaction.minMessages": 4, "memory.consolidateCommand": ["/bin/false"]}' >"$WS/.agentrc.json"
run session compact s1 --force
check "untrusted consolidateCommand: compaction still done" rc_is 0
check "untrusted consolidateCommand: refused with the reason" eval 'err_has "memory.consolidateCommand" && err_has "not trusted"'
check "untrusted consolidateCommand: USER.md unchanged" same_memo "$TMP/folded" user U USER.md
rm "$WS/.agentrc.json"

# ---- a hostile mirror folder ----
printf 'secret\n' >"$OUTSIDE/secret"
ln -s "$OUTSIDE/secret" "$M/session/link"
ln "$OUTSIDE/secret" "$M/session/hardlink" 2>/dev/null || cp "$OUTSIDE/secret" "$M/session/.hidden"
mkdir "$M/session/sub"
mkfifo "$M/session/fifo"
printf 'x' >"$M/session/.hidden"
printf 'x' >"$M/session/x.lock"
truncate -s 17M "$M/session/huge"
rm -rf "$M/agent"
ln -s "$OUTSIDE" "$M/agent"
before=$("$AC" -w "$WS" memo list T s1 session | tr '\n' ' ')
timeout 20 "$AC" -w "$WS" sandbox sync T s1 "$M" >"$TMP/out" 2>"$TMP/err"
RC=$?
check "hostile: sync ends (a FIFO does not hang it), exit 1" rc_is 1
check "hostile: a symbolic link is refused" err_has "session/link: is a symbolic link: not written back"
check "hostile: a hard link is refused" err_has "session/hardlink: has other hard links"
check "hostile: a folder is refused" err_has "session/sub: not a regular file"
check "hostile: a FIFO is refused" err_has "session/fifo: not a regular file"
check "hostile: a name starting with . is refused" err_has "'.hidden': must not start with '.'"
check "hostile: a name ending in .lock is refused" err_has "x.lock"
check "hostile: a file over 16 MiB is refused" err_has "session/huge: larger than 16777216 bytes"
check "hostile: a scope folder that is a link is refused" err_has "/agent: not a folder (a link or a file)"
check "hostile: nothing new in the store" eval '[ "$("$AC" -w "$WS" memo list T s1 session | tr "\n" " ")" = "$before" ]'
check "hostile: the file outside is untouched" eval '[ "$(cat "$OUTSIDE/secret")" = secret ]'
check "hostile: nothing written through the agent folder link" eval '[ "$(ls "$OUTSIDE" | tr "\n" " ")" = "secret " ]'
# A link planted where a document goes is neither written through nor
# replaced (it is what the agent left there); removed, the document is back.
cp "$M/session/NOTES.md" "$TMP/notes.mirrored"
rm -f "$M/session/NOTES.md"
ln -s "$OUTSIDE/secret" "$M/session/NOTES.md"
"$AC" -w "$WS" sandbox mirror T s1 "$M" >/dev/null 2>&1
check "hostile: mirror leaves a planted link, not written through" eval '[ -L "$M/session/NOTES.md" ] && [ "$(cat "$OUTSIDE/secret")" = secret ]'
rm -f "$M/session/NOTES.md"
"$AC" -w "$WS" sandbox mirror T s1 "$M" >/dev/null 2>&1
check "hostile: the link removed, mirror brings the document back" cmp -s "$M/session/NOTES.md" "$TMP/notes.mirrored"
# An edit of a document over the 16 MiB cap (issue 23 item 9): refused in
# one line naming it, exit 1, and the agent's file stays byte for byte
# (the store's copy does not replace it, now or on a later refresh).
head -c 17825792 /dev/urandom >"$M/session/NOTES.md"
cp "$M/session/NOTES.md" "$TMP/notes.big"
run sandbox sync T s1 "$M"
check "17 MiB edit: sync exit 1" rc_is 1
check "17 MiB edit: one line naming it and why" eval '[ "$(grep -c "session/NOTES.md: larger than 16777216 bytes: not written back; left as it is" "$TMP/err")" = 1 ]'
check "17 MiB edit: the agent's file survives sync" cmp -s "$M/session/NOTES.md" "$TMP/notes.big"
"$AC" -w "$WS" memo write T s1 session NOTES.md "host change" >/dev/null 2>&1
check "17 MiB edit: and a store change's refresh" cmp -s "$M/session/NOTES.md" "$TMP/notes.big"
rm -f "$TMP/notes.big"

# ---- usage and errors ----
run sandbox mirror T s1
check "usage: three arguments needed (exit 2, one line naming the missing one)" \
	eval 'rc_is 2 && err_lines 1 && err_has "sandbox mirror: missing DIR"'
run sandbox sync T s1 "$M" extra
check "usage: one too many (exit 2, one line naming it)" \
	eval "rc_is 2 && err_lines 1 && err_has \"sandbox sync: unexpected 'extra'\""
run sandbox
check "usage: sandbox alone (exit 2, the forms)" \
	eval 'rc_is 2 && err_has "usage: sandbox mirror|sync TENANT SESSION DIR"'
run sandbox mirror --help
check "sandbox mirror --help: its synopsis and each argument's help" \
	eval 'rc_is 0 && out_has "sandbox mirror TENANT SESSION DIR" && out_has "    DIR      the mirror folder"'
(cd / && "$AC" sandbox mirror T s1 "$TMP/m5" -w "$WS") >"$TMP/out" 2>"$TMP/err"
RC=$?
check "-w after sandbox mirror's arguments" eval 'rc_is 0 && out_has "sandbox T/s1:"'
run sandbox copy T s1 "$M"
check "usage: unknown verb (exit 2)" rc_is 2
run sandbox mirror ../T s1 "$M"
check "usage: a tenant outside the id rules (exit 2)" eval 'rc_is 2 && err_lines 1'
run sandbox mirror other s1 "$TMP/m2"
check "another tenant's session: exit 1, one line" eval 'rc_is 1 && err_lines 1 && err_has "tenant other has no session s1"'
check "another tenant's session: no folder made" eval '[ ! -e "$TMP/m2" ]'
run sandbox mirror T nosuch "$TMP/m4"
check "an unknown session: exit 1, named, no folder made" \
	eval 'rc_is 1 && err_lines 1 && err_has "tenant T has no session nosuch" && [ ! -e "$TMP/m4" ]'
mkdir -p "$TMP/m3"
run sandbox sync T s1 "$TMP/m3"
check "sync of a folder never mirrored: exit 1, one line" eval 'rc_is 1 && err_lines 1 && err_has "sandbox mirror first"'
"$AC" -w "$WS" --read-only sandbox sync T s1 "$M" >/dev/null 2>"$TMP/err"
RC=$?
check "--read-only forbids sync (exit 2)" rc_is 2
run help sandbox
check "help sandbox: the form" out_has "sandbox mirror|sync TENANT SESSION DIR"

finish
