# bash completion for agentctl(1). Installed as
# <datadir>/bash-completion/completions/agentctl; or source it from ~/.bashrc.
#
# Completes options, commands, subcommands and their options, theme names,
# and session ids. Ids come from `agentctl [-w DIR] --read-only session list
# --json`, run with no input, no error output and a 2-second limit; ids are
# agent-written data, so they are matched and inserted quoted, never
# expanded by the shell.

# Theme names: the user's folder, then the install tree this file is part of
# (<datadir>/agentctl/themes), then the one beside the agentctl found in PATH.
_agentctl_themes()
{
	local dir f bin here
	local -a dirs=("${XDG_CONFIG_HOME:-$HOME/.config}/agentctl/themes")
	here=${BASH_SOURCE[0]%/*}
	[[ $here == "${BASH_SOURCE[0]}" ]] && here=.
	dirs+=("$here/../../agentctl/themes")
	if bin=$(type -P agentctl); then
		dirs+=("${bin%/*}/../share/agentctl/themes" "${bin%/*}/themes")
	fi
	for dir in "${dirs[@]}"; do
		for f in "$dir"/*.theme; do
			[[ -f $f ]] || continue
			f=${f##*/}
			printf '%s\n' "${f%.theme}"
		done
	done | sort -u
}

# Session ids of the workspace named by -w/--workspace on the line (else
# the current folder), one a line.
_agentctl_session_ids()
{
	local -a ws=()
	local i bin=${COMP_WORDS[0]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-w | --workspace) ws=(-w "${COMP_WORDS[i + 1]}") ;;
		--workspace=*) ws=(-w "${COMP_WORDS[i]#--workspace=}") ;;
		esac
	done
	# A folder typed with a ~ is expanded here, never evaluated.
	[[ ${ws[1]-} == "~"/* ]] && ws[1]=$HOME/${ws[1]#"~"/}
	[[ ${#ws[@]} -eq 0 || -d ${ws[1]} ]] || return 0
	bin=$(type -P "$bin" 2>/dev/null) || bin=$(type -P agentctl 2>/dev/null) || return 0
	timeout 2 "$bin" "${ws[@]}" --read-only session list --json </dev/null 2>/dev/null |
		sed -n 's/^    "id": "\([^"\\]*\)",\{0,1\}$/\1/p'
}

# Sets COMPREPLY to the lines of standard input that start with $cur,
# quoted for the command line.
_agentctl_reply_lines()
{
	local line
	COMPREPLY=()
	while IFS= read -r line; do
		[[ -n $line && $line == "$cur"* ]] && COMPREPLY+=("$(printf '%q' "$line")")
	done
}

# ---- generated from cli/cli_specs.c by agentctl-gen-docs: do not edit ----
_agentctl_commands="demo journal session ops checkpoint memo artifact trace sandbox storage usage sources gc config help"
_agentctl_globals="-w --workspace --storage --theme --read-only --poll"
# The options that take a value (the next word is not an argument).
_agentctl_valued="-w --workspace --storage --theme --seconds --last --status --user --state --id --tenant --agent --request-id --usage --input --output --messages --limit --at --checkpoint --format -o --session --type --details --node --input-type --version --to --from --since --keep --older-than --sha256"

# The subcommands of command $1.
_agentctl_subs()
{
	case $1 in
	journal) echo "log read query check rotate" ;;
	session) echo "list show create append record-turn pause resume complete fail compact search fork export" ;;
	ops) echo "list show record rollback revert" ;;
	checkpoint) echo "list create rollback auto" ;;
	memo) echo "read write append list" ;;
	artifact) echo "list show" ;;
	trace) echo "show" ;;
	sandbox) echo "mirror sync" ;;
	storage) echo "check migrate" ;;
	sources) echo "check" ;;
	config) echo "show trust" ;;
	esac
}

# The options of $1, a command or COMMAND/SUBCOMMAND.
_agentctl_opts()
{
	case $1 in
	demo) echo "--no-ui --seconds" ;;
	journal/read) echo "--last --all --json --strict" ;;
	journal/query) echo "--last --all --json --strict" ;;
	journal/check) echo "--all" ;;
	session/list) echo "--json --status --user --state --all-projects --children" ;;
	session/show) echo "--json" ;;
	session/create) echo "--id --resume --tenant --user --agent --json --request-id" ;;
	session/append) echo "--json --request-id" ;;
	session/record-turn) echo "--usage --input --output --messages --json --request-id" ;;
	session/pause) echo "--request-id" ;;
	session/resume) echo "--request-id" ;;
	session/complete) echo "--request-id" ;;
	session/fail) echo "--request-id" ;;
	session/compact) echo "--force --request-id" ;;
	session/search) echo "--json --limit --all-projects" ;;
	session/fork) echo "--at --checkpoint --id --json" ;;
	session/export) echo "--format -o --output" ;;
	ops/list) echo "--session --json" ;;
	ops/show) echo "-p --patch" ;;
	ops/record) echo "--session --type --details --json" ;;
	ops/rollback) echo "--finish --undo --dry-run -y --yes" ;;
	ops/revert) echo "--finish --undo --dry-run -y --yes" ;;
	checkpoint/list) echo "--json" ;;
	checkpoint/create) echo "--node --input --input-type --id --version --tombstone --json" ;;
	checkpoint/rollback) echo "--latest --yes --skip-uncertain --rerun-uncertain" ;;
	memo/list) echo "--json" ;;
	artifact/list) echo "--json" ;;
	trace/show) echo "--json" ;;
	storage/migrate) echo "--to --from --tenant --dry-run --json" ;;
	usage) echo "--since --all-projects --json" ;;
	sources/check) echo "--all-projects --json" ;;
	gc) echo "--keep --older-than --dry-run" ;;
	config/show) echo "--origin --json" ;;
	config/trust) echo "--sha256" ;;
	esac
}

# What argument $2 of $1, COMMAND/SUBCOMMAND, is (for the commands whose
# spec names them): :session, :dir, or the words offered.
_agentctl_arg()
{
	case $1/$2 in
	journal/log/1) echo "-" ;;
	session/show/1) echo ":session" ;;
	session/append/1) echo ":session" ;;
	session/append/2) echo "-" ;;
	session/record-turn/1) echo ":session" ;;
	session/pause/1) echo ":session" ;;
	session/resume/1) echo ":session" ;;
	session/complete/1) echo ":session" ;;
	session/fail/1) echo ":session" ;;
	session/compact/1) echo ":session" ;;
	session/fork/1) echo ":session" ;;
	session/export/1) echo ":session" ;;
	checkpoint/list/1) echo ":session" ;;
	checkpoint/create/1) echo ":session" ;;
	checkpoint/rollback/1) echo ":session" ;;
	checkpoint/auto/1) echo ":session" ;;
	memo/read/3) echo "session user agent" ;;
	memo/write/3) echo "session user agent" ;;
	memo/write/5) echo "-" ;;
	memo/append/3) echo "session user agent" ;;
	memo/append/5) echo "-" ;;
	memo/list/3) echo "session user agent" ;;
	artifact/list/1) echo ":session" ;;
	artifact/show/1) echo ":session" ;;
	trace/show/1) echo ":session" ;;
	sandbox/mirror/2) echo ":session" ;;
	sandbox/mirror/3) echo ":dir" ;;
	sandbox/sync/2) echo ":session" ;;
	sandbox/sync/3) echo ":dir" ;;
	esac
}
# ---- end of the generated part ----

_agentctl()
{
	local cur prev i cmd= sub= cmd_at=0
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}

	# The command is the first word that is not an option or an option's
	# value, the subcommand the next such word (the global options may
	# come between and after them).
	for ((i = 1; i < COMP_CWORD; i++)); do
		case " $_agentctl_valued " in
		*" ${COMP_WORDS[i]} "*) ((i++)); continue ;;
		esac
		case ${COMP_WORDS[i]} in
		-*) ;;
		*)
			if [[ -z $cmd ]]; then
				cmd=${COMP_WORDS[i]}; cmd_at=$i
			else
				sub=${COMP_WORDS[i]}; break
			fi
			;;
		esac
	done

	case $prev in
	-w | --workspace)
		COMPREPLY=($(compgen -d -- "$cur"))
		compopt -o filenames 2>/dev/null
		return
		;;
	--theme)
		_agentctl_reply_lines < <(_agentctl_themes)
		return
		;;
	--storage | --to | --from)
		return
		;;
	--status)
		COMPREPLY=($(compgen -W "running paused completed failed" -- "$cur"))
		return
		;;
	--session)
		_agentctl_reply_lines < <(_agentctl_session_ids)
		return
		;;
	--type)
		COMPREPLY=($(compgen -W "file_write file_delete command_run" -- "$cur"))
		return
		;;
	-o)
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		return
		;;
	esac
	# Any other option's value: nothing to offer.
	case " $_agentctl_valued " in
	*" $prev "*) return ;;
	esac

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$_agentctl_globals -h --help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$_agentctl_commands" -- "$cur"))
		fi
		return
	fi

	local subs opts
	case " $_agentctl_commands " in
	*" $cmd "*) ;;
	*) return ;;
	esac
	if [[ $cmd == help ]]; then
		if [[ -z $sub ]]; then
			COMPREPLY=($(compgen -W "${_agentctl_commands% help}" -- "$cur"))
		elif ((COMP_CWORD == cmd_at + 2)); then
			COMPREPLY=($(compgen -W "$(_agentctl_subs "$sub")" -- "$cur"))
		fi
		return
	fi
	subs=$(_agentctl_subs "$cmd")
	if [[ -n $subs && -z $sub ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help $_agentctl_globals" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$subs" -- "$cur"))
		fi
		return
	fi
	# usage's kinds are arguments; - is standard input.
	case $cmd/$sub in
	usage/*) opts=$(_agentctl_opts usage) ;;
	journal/log) opts="-" ;;
	session/append) opts="- $(_agentctl_opts session/append)" ;;
	*) opts=$(_agentctl_opts "$cmd${sub:+/$sub}") ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts --help $_agentctl_globals" -- "$cur"))
		return
	fi
	if [[ $cmd == usage && -z $sub ]]; then
		COMPREPLY=($(compgen -W "daily session block" -- "$cur"))
		return
	fi
	# The spec says what this argument is.
	local n=1 arg
	for ((i = cmd_at + 2; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} == -* ]] || ((n++))
	done
	arg=$(_agentctl_arg "$cmd/$sub" $n)
	case $arg in
	"") ;;
	:session) _agentctl_reply_lines < <(_agentctl_session_ids) ;;
	:dir) COMPREPLY=($(compgen -d -- "$cur")) ;;
	*) COMPREPLY=($(compgen -W "$arg" -- "$cur")) ;;
	esac
}

complete -F _agentctl agentctl
