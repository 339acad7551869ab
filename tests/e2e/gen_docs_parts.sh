#!/bin/bash
# The man page's dashboard keys and configuration keys are written from
# their tables (tui/keys.c, core/ac_config.c) by agentctl-gen-docs, as its
# command summary is from the command specs: every key of each table is
# listed, a part edited by hand (a key's entry gone) fails --check, and
# --write puts it back. (Before, both lists were written by hand only.)
. "$(dirname "$0")/lib/cli.sh" "$@"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
GEN=$(dirname "$AC")/agentctl-gen-docs
MAN=$TMP/agentctl.1
cp "$SRC/docs/agentctl.1" "$MAN"

check "the committed page is up to date" "$GEN" --check "$MAN"
# The part between a marker line naming SOURCE and the end marker.
part() {
	sed -n "\|generated from $1 by agentctl-gen-docs|,\|end of the generated part|p" "$MAN"
}
check "a dashboard keys part" eval '[ "$(part tui/keys.c | grep -c "^\.TP")" -ge 40 ]'
check "a configuration keys part" eval '[ "$(part core/ac_config.c | grep -c "^\.TP")" -ge 50 ]'
# A few of each table, by what they say.
for key in '"1\-4"' '"Tab"' '"j Down"' '"?"'; do
	check "key $key listed" eval "part tui/keys.c | grep -qxF '.B $key'"
done
for key in maxTokens journal.fsync storage.url notify.bell; do
	check "config key $key listed" eval "part core/ac_config.c | grep -qxF '.B $key'"
done
check "journal.fsync's choices" eval 'part core/ac_config.c | grep -qF "one of never, always"'
check "storage.url's variable" eval 'part core/ac_config.c | grep -qF "AGENT_STORAGE_URL"'

# A key's entry removed by hand: --check names the file and fails;
# --write puts the page back as it was.
for src in tui/keys.c core/ac_config.c; do
	cp "$SRC/docs/agentctl.1" "$MAN"
	line=$(grep -n "generated from $src by" "$MAN" | cut -d: -f1)
	sed -i "$((line + 1)),$((line + 3))d" "$MAN"
	"$GEN" --check "$MAN" 2>"$TMP/err"
	check "$src: an entry gone fails --check" [ $? -eq 1 ]
	check "$src: --check names the file" grep -qF "$MAN" "$TMP/err"
	"$GEN" --write "$MAN"
	check "$src: --write puts it back" cmp -s "$MAN" "$SRC/docs/agentctl.1"
done
finish
