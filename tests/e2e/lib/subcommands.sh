# Sourced by the command-line e2e scripts that go over every subcommand:
#   subcommands   prints "COMMAND SUBCOMMAND" a line for every form of
#                 `$AC --help` (demo left out: it runs the dashboard; usage's
#                 words are its report kinds, so it is "usage" alone)
subcommands() {
	local cmd rest form sub
	while read -r cmd rest; do
		[ "$cmd" = demo ] && continue
		if [ "$cmd" = usage ]; then
			echo usage
			continue
		fi
		for form in $(printf '%s\n' "$rest" | sed 's/ | /\n/g' | awk '{print $1}'); do
			for sub in ${form//|/ }; do
				case $sub in [a-z]*) echo "$cmd $sub" ;; esac
			done
		done
	done < <("$AC" --help | sed -n 's/^ *\(usage: \)\{0,1\}agentctl \[-w DIR\] //p') | awk '!seen[$0]++'
}
