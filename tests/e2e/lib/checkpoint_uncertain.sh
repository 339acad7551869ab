# The body of checkpoint_uncertain.sh and checkpoint_uncertain_pg.sh
# (sourced after lib/cli.sh; not a test itself): a checkpoint rollback
# killed (SIGKILL) while a compensation runs. The compensation must die
# with agentctl, and a retry must not run it again: it names it as
# uncertain (session, checkpoint, tool, call, command) and exits 1 until
# the operator passes UNCERTAIN_FLAG (--skip-uncertain or
# --rerun-uncertain), and then does what the flag says.
# Before sourcing: WS (the workspace), and make_session, which makes
# session s1 with two messages, a checkpoint of it, then two createUser
# calls (t1, then c3, the newest) in the store under test.

COUNT=$TMP/count
PIDFILE=$TMP/compensation.pid
err_has() { grep -qF -- "$1" "$TMP/err"; }
err_is_one_line() { [ "$(wc -l <"$TMP/err")" -eq 1 ]; }
ran() { [ -s "$COUNT" ]; }
runs() { if [ -e "$COUNT" ]; then wc -l <"$COUNT"; else echo 0; fi; }
# A process is gone when kill -0 fails, or it is a zombie nobody reaped yet.
gone() {
	! kill -0 "$1" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]
}
# The createUser compensation, in the user's (trusted) file.
compensation() {
	mkdir -p "$TMP/xdg/agent"
	jq -n --arg cmd "$1" '{rollbackTools: {createUser: ["/bin/sh", "-c", $cmd]}}' \
		>"$TMP/xdg/agent/config.json"
}

compensation "echo \$\$ >'$PIDFILE'; echo ran >>'$COUNT'; sleep 30"
make_session

"$AC" -w "$WS" checkpoint rollback s1 --latest --yes >"$TMP/out" 2>"$TMP/err" </dev/null &
AGENT=$!
check "the compensation starts" wait_until ran
kill -KILL "$AGENT"
wait "$AGENT" 2>/dev/null
CHILD=$(cat "$PIDFILE")
check "killing agentctl ends its compensation" wait_until gone "$CHILD"
check "... and its process group" wait_until eval '! pgrep -g "$CHILD" >/dev/null'

# The retry: the compensation is not run again.
compensation "echo ran >>'$COUNT'"
"$AC" -w "$WS" checkpoint rollback s1 --latest --yes >"$TMP/out" 2>"$TMP/err" </dev/null
RC=$?
check "retry: exit 1" rc_is 1
check "retry: the compensation did not run again" [ "$(runs)" -eq 1 ]
check "retry: one line naming session, checkpoint, tool, call and command" \
	eval 'err_is_one_line && err_has "session '"'"'s1'"'"'" && err_has "checkpoint '"'"'$CKPT'"'"'" &&
	      err_has "tool '"'"'createUser'"'"' call '"'"'c3'"'"'" && err_has "command '"'"'/bin/sh'"'"'" &&
	      err_has "--skip-uncertain" && err_has "--rerun-uncertain"'
"$AC" -w "$WS" checkpoint rollback s1 --latest --yes --skip-uncertain --rerun-uncertain \
	>"$TMP/out" 2>"$TMP/err" </dev/null
RC=$?
check "both flags: exit 2" rc_is 2

"$AC" -w "$WS" checkpoint rollback s1 --latest --yes "$UNCERTAIN_FLAG" >"$TMP/out" 2>"$TMP/err" </dev/null
RC=$?
check "retry $UNCERTAIN_FLAG: exit 0" rc_is 0
if [ "$UNCERTAIN_FLAG" = --skip-uncertain ]; then
	check "retry --skip-uncertain: only t1 ran" [ "$(runs)" -eq 2 ]
else
	check "retry --rerun-uncertain: c3 ran again, then t1" [ "$(runs)" -eq 3 ]
fi
check "retry $UNCERTAIN_FLAG: says so" grep -q "started by an interrupted attempt" "$TMP/out"
