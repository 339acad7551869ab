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

_agentctl_commands="demo help journal session ops checkpoint memo artifact trace sandbox storage usage sources gc config"

_agentctl()
{
	local cur prev i cmd= sub= cmd_at=0
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}

	# The command is the first word that is not an option or an option's value.
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-w | --workspace | --storage | --theme) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; cmd_at=$i; break ;;
		esac
	done
	if [[ -n $cmd ]] && ((cmd_at + 1 < COMP_CWORD)); then
		sub=${COMP_WORDS[cmd_at + 1]}
	fi

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
	--last | --seconds | --keep | --older-than | --user | --id | --tenant | --request-id | --agent | --node | --input | \
		--input-type | --output | --details)
		return
		;;
	esac

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "-w --workspace --storage --theme --read-only --poll -h --help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$_agentctl_commands" -- "$cur"))
		fi
		return
	fi

	local subs= opts=
	case $cmd in
	help)
		[[ -z $sub ]] && COMPREPLY=($(compgen -W "${_agentctl_commands/help /}" -- "$cur"))
		return
		;;
	demo) opts="--no-ui --seconds --help" ;;
	gc) opts="--keep --older-than --dry-run --help" ;;
	usage) opts="daily session block --since --all-projects --json --help" ;;
	journal) subs="log read query check rotate" ;;
	session) subs="list show create append record-turn pause resume complete fail compact search fork export" ;;
	ops) subs="list show record rollback revert" ;;
	checkpoint) subs="list create rollback auto" ;;
	memo) subs="read write append list" ;;
	artifact) subs="list show" ;;
	trace) subs="show" ;;
	sandbox) subs="mirror sync" ;;
	storage) subs="check migrate" ;;
	sources) subs="check" ;;
	config) subs="show trust" ;;
	*) return ;;
	esac
	if [[ -n $subs && -z $sub ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$subs" -- "$cur"))
		fi
		return
	fi

	case $cmd/$sub in
	journal/log) opts="-" ;;
	journal/read) opts="--last --all --json --strict" ;;
	journal/query) opts="--last --all --json --strict" ;;
	journal/check) opts="--all" ;;
	session/list) opts="--json --status --user --state --all-projects --children" ;;
	session/show) opts="--json" ;;
	session/create) opts="--id --resume --tenant --user --agent --json --request-id" ;;
	session/append) opts="- --json --request-id" ;;
	session/record-turn) opts="--usage --input --output --messages --json --request-id" ;;
	session/compact) opts="--force --request-id" ;;
	session/search) opts="--json --limit" ;;
	session/fork) opts="--at --checkpoint --id --json" ;;
	session/export) opts="--format -o" ;;
	ops/list) opts="--session --json" ;;
	ops/record) opts="--session --type --details --json" ;;
	ops/rollback | ops/revert) opts="--dry-run --yes --finish --undo" ;;
	checkpoint/list) opts="--json" ;;
	checkpoint/create) opts="--node --input --input-type --id --version --tombstone --json" ;;
	checkpoint/rollback) opts="--latest --yes --skip-uncertain --rerun-uncertain" ;;
	memo/list) opts="--json" ;;
	artifact/list) opts="--json" ;;
	trace/show) opts="--json" ;;
	config/show) opts="--origin --json" ;;
	config/trust) opts="--sha256" ;;
	storage/migrate) opts="--to --from --tenant --dry-run --json" ;;
	sources/check) opts="--all-projects --json" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	# The first argument after these subcommands is a session id.
	case $cmd/$sub in
	session/show | session/append | session/record-turn | session/pause | \
		session/resume | session/complete | session/fail | session/compact | \
		session/fork | session/export | \
		checkpoint/list | checkpoint/create | checkpoint/rollback | \
		artifact/list | artifact/show | trace/show)
		local n=0
		for ((i = cmd_at + 2; i < COMP_CWORD; i++)); do
			[[ ${COMP_WORDS[i]} == -* ]] || ((n++))
		done
		if ((n == 0)); then
			_agentctl_reply_lines < <(_agentctl_session_ids)
		fi
		;;
	sandbox/mirror | sandbox/sync)
		# TENANT SESSION DIR: the session id second, a folder third.
		local n=0
		for ((i = cmd_at + 2; i < COMP_CWORD; i++)); do
			[[ ${COMP_WORDS[i]} == -* ]] || ((n++))
		done
		if ((n == 1)); then
			_agentctl_reply_lines < <(_agentctl_session_ids)
		elif ((n == 2)); then
			COMPREPLY=($(compgen -d -- "$cur"))
		fi
		;;
	esac
}

complete -F _agentctl agentctl
