# The body of store_defaults.sh and store_defaults_pg.sh (sourced after
# lib/tmux.sh, not a test): what issue 25 found the database forgot that
# the files did, run the same way on either store. Before: STORE (files or
# pg), ac (agentctl on the workspace and that store), empty_text (what the
# dashboard's empty Sessions pane says), prefix (the dashboard's).
home=$ws.home
rm -rf "$home"
cp -r "$(dirname "$0")/../fixtures/sources/home" "$home"
export HOME=$home XDG_CONFIG_HOME=$ws.xdg
mkdir -p "$ws/.agent"

# An empty store says which store it is (it said .agent/sessions/ on a
# database too).
dashboard 160 30
check "$STORE: the empty Sessions pane names the store" wait_for "$empty_text"
send q
check "$STORE: q quits" wait_gone

# session create needs no --tenant: on a database the default tenant,
# storage.tenant, else the user's name; a session file needs none.
me=$(id -un)
check "$STORE: session create without --tenant" eval 'ac session create "task one" --id s1 >/dev/null'
tenant=$(ac session show s1 --json | jq -r '.metadata.tenantId // "none"')
if [ "$STORE" = pg ]; then want=$me; else want=none; fi
check "$STORE: its tenant is $want" test "$tenant" = "$want"
mkdir -p "$XDG_CONFIG_HOME/agent"
echo '{"storage": {"tenant": "team-a"}}' >"$XDG_CONFIG_HOME/agent/config.json"
check "$STORE: with storage.tenant set" eval 'ac session create "task two" --id s2 >/dev/null'
tenant=$(ac session show s2 --json | jq -r '.metadata.tenantId // "none"')
if [ "$STORE" = pg ]; then want=team-a; else want=none; fi
check "$STORE: its tenant is $want" test "$tenant" = "$want"
echo '{"storage": {"tenant": "bad/tenant"}}' >"$XDG_CONFIG_HOME/agent/config.json"
if [ "$STORE" = pg ]; then
  check "$STORE: a storage.tenant that is no id is refused, exit 2, naming the key" \
    eval 'ac session create "t" --id s3 2>"$ws.err" >/dev/null; [ $? -eq 2 ] && grep -q "storage.tenant" "$ws.err" && ! ac session show s3 >/dev/null 2>&1'
fi
rm "$XDG_CONFIG_HOME/agent/config.json"

# --state is applied (the database listed s1 running for any state).
check "$STORE: --state completed lists no running session" \
  eval '! ac session list --state completed | grep -q "^s1 "'
check "$STORE: --state running lists s1" eval 'ac session list --state running | grep -q "^s1 "'
ac session complete s1 >/dev/null
check "$STORE: --state completed lists s1 once completed" \
  eval 'ac session list --state completed | grep -q "^s1 " && ! ac session list --state running | grep -q "^s1 "'
check "$STORE: --json --state completed: s1 alone" \
  eval 'test "$(ac session list --json --state completed | jq -r "[.[] | .id] | join(\",\")")" = s1'

# --all-projects lists other projects' transcripts (the fixtures' project
# is not this workspace); without it, none.
other=0b0b0b0b-0000-4000-8000-000000000002
check "$STORE: without --all-projects no other project's transcript" \
  eval '! ac session list | grep -q "^$other "'
check "$STORE: --all-projects lists it" eval 'ac session list --all-projects | grep -q "^$other "'
check "$STORE: --all-projects --state completed still filters it out" \
  eval '! ac session list --all-projects --state completed | grep -q "^$other "'
finish
