#!/usr/bin/env bash
# Installs agentctl and libagentctl as a user would, moves the install tree
# away from where it was configured, removes the build tree, and uses what
# is left from outside the source tree: every promised file is there, a C
# program links through pkg-config (shared and static) and writes a session
# and a journal event, the installed dashboard finds its themes, the man
# page renders without a warning and covers every command and configuration
# key, and the completions load.
#
# Why a build of its own rather than `cmake --install` of the build under
# test: that build is usually sanitized (CI), and a sanitized libagentctl
# cannot be linked by a plain `cc x.c $(pkg-config ...)`, which is what is
# promised. A build without tests or sanitizers takes a few seconds, and
# configuring it for one prefix and then moving the tree proves that nothing
# depends on the configured prefix, the build tree or the source tree.
. "$(dirname "$0")/lib/cli.sh" "$@"
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
sock="h-install-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"; rm -rf "$TMP"' EXIT
note() { printf 'install: %s\n' "$*" >&2; }
for tool in cmake pkg-config cc gcc readelf nm tmux man groff zsh; do
	command -v "$tool" >/dev/null || { note "$tool is missing: run scripts/install-deps.sh"; exit 1; }
done
[ -r /usr/share/bash-completion/bash_completion ] ||
	{ note "bash-completion is missing: run scripts/install-deps.sh"; exit 1; }

# ---- build, install, move -------------------------------------------------
build=$TMP/build
configured=$TMP/configured
P=$TMP/moved
if ! cmake -S "$src" -B "$build" -DAC_BUILD_TESTS=OFF -DAC_SANITIZE=OFF -DAC_WERROR=OFF \
	-DCMAKE_BUILD_TYPE=None -DCMAKE_INSTALL_PREFIX="$configured" >"$TMP/cmake.log" 2>&1 ||
	! cmake --build "$build" -j2 --target agentctl agentctl-core agentctl-shared \
		agentctl-themes >>"$TMP/cmake.log" 2>&1 ||
	! cmake --install "$build" >>"$TMP/cmake.log" 2>&1; then
	tail -30 "$TMP/cmake.log" >&2
	note "building or installing failed"
	exit 1
fi
mv "$configured" "$P"
rm -rf "$build"
libdir=$(echo "$P"/lib*/pkgconfig)
libdir=${libdir%/pkgconfig}
version=$(sed -n 's/^#define AC_VERSION_STRING "\(.*\)"$/\1/p' "$P/include/agentctl/ac_version.h")
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
soversion=$major
[ "$major" = 0 ] && soversion=$major.$minor

# ---- the files ----------------------------------------------------------
exists() { [ -e "$1" ] || { note "missing: ${1#"$P"/}"; return 1; }; }
check "the version header has a version" test -n "$version"
check "bin/agentctl" test -x "$P/bin/agentctl"
check "lib/libagentctl.a" exists "$libdir/libagentctl.a"
check "libagentctl.so.$version" test -f "$libdir/libagentctl.so.$version"
check "libagentctl.so.$soversion -> libagentctl.so.$version" \
	test "$(readlink "$libdir/libagentctl.so.$soversion")" = "libagentctl.so.$version"
check "libagentctl.so -> libagentctl.so.$soversion" \
	test "$(readlink "$libdir/libagentctl.so")" = "libagentctl.so.$soversion"
check "the SONAME is libagentctl.so.$soversion" \
	bash -c "readelf -d '$libdir/libagentctl.so.$version' | grep -q 'Library soname: \[libagentctl.so.$soversion\]'"
check "the umbrella header" exists "$P/include/agentctl/agentctl.h"
for h in "$src"/include/agentctl/*.h; do
	check "header ${h##*/}" exists "$P/include/agentctl/${h##*/}"
done
for h in "$src"/include/agentctl/sys/*.h; do # the implementer's tier
	check "header sys/${h##*/}" exists "$P/include/agentctl/sys/${h##*/}"
	printf '#include <agentctl/sys/%s>\n' "${h##*/}" >"$TMP/one.c"
	check "<agentctl/sys/${h##*/}> compiles alone" \
		cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$P/include" \
		$(pkg-config --cflags jansson) "$TMP/one.c"
done
for h in "$src"/core/*.h; do
	check "private ${h##*/} is not installed" test ! -e "$P/include/agentctl/${h##*/}"
done
for h in "$P"/include/agentctl/*.h; do
	printf '#include <agentctl/%s>\n' "${h##*/}" >"$TMP/one.c"
	check "<agentctl/${h##*/}> compiles alone" \
		cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$P/include" \
		$(pkg-config --cflags jansson) "$TMP/one.c"
done
# The shared library exports exactly the functions the public headers
# declare (GCC's own list of the prototypes it saw), no internal helper:
# the umbrella's and the implementer's tier's (sys/).
printf '#include <agentctl/agentctl.h>\n' >"$TMP/all.c"
for h in "$P"/include/agentctl/sys/*.h; do
	printf '#include <agentctl/sys/%s>\n' "${h##*/}" >>"$TMP/all.c"
done
gcc -std=c11 -fsyntax-only -aux-info "$TMP/protos.txt" -I"$P/include" \
	$(pkg-config --cflags jansson) "$TMP/all.c"
grep -F "$P/include/agentctl/" "$TMP/protos.txt" | grep -v '\*/ static ' |
	grep -oE '\bac_[a-z0-9_]+ \(' | tr -d ' (' | sort -u >"$TMP/declared.txt"
nm -D --defined-only "$libdir/libagentctl.so.$version" | awk '$2 == "T" { print $3 }' |
	sort -u >"$TMP/exported.txt"
check "the public headers declare functions" test "$(wc -l <"$TMP/declared.txt")" -ge 100
check "libagentctl.so exports every declared function" \
	bash -c "comm -23 '$TMP/declared.txt' '$TMP/exported.txt' | sed 's/^/  not exported: /' >&2; test -z \"\$(comm -23 '$TMP/declared.txt' '$TMP/exported.txt')\""
check "libagentctl.so exports nothing else" \
	bash -c "comm -13 '$TMP/declared.txt' '$TMP/exported.txt' | sed 's/^/  exported: /' >&2; test -z \"\$(comm -13 '$TMP/declared.txt' '$TMP/exported.txt')\""
check "agentctl.pc" exists "$libdir/pkgconfig/agentctl.pc"
for t in "$src"/themes/*.theme; do
	check "theme ${t##*/}" exists "$P/share/agentctl/themes/${t##*/}"
done
check "man page" exists "$P/share/man/man1/agentctl.1"
check "bash completion" exists "$P/share/bash-completion/completions/agentctl"
check "zsh completion" exists "$P/share/zsh/site-functions/_agentctl"
check "the binary does not name the source tree's themes" \
	bash -c "! grep -qaF '$src/themes' '$P/bin/agentctl'"

# ---- the program ----------------------------------------------------------
check "installed agentctl --version" test "$("$P/bin/agentctl" --version)" = "agentctl $version"
check "the build under test has the same version" test "$("$AC" --version)" = "agentctl $version"

# ---- a C agent through pkg-config ---------------------------------------
export PKG_CONFIG_PATH=$libdir/pkgconfig
check "pkg-config --modversion" test "$(pkg-config --modversion agentctl)" = "$version"
mkdir -p "$TMP/agent" "$TMP/ws"
cat >"$TMP/agent/agent.c" <<'EOF'
/* A C agent: one session with a message, one journal event. */
#include <agentctl/agentctl.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	ac_config *config = NULL;
	ac_workspace ws = {0};
	ac_session *session = NULL;
	json_t *messages = NULL;
	char *line = NULL, event_id[AC_EVENT_ID_LEN + 1];
	size_t len;
	int rc = 1;

	if (argc != 2)
		return 2;
	if (strcmp(ac_version(), AC_VERSION_STRING) != 0) {
		fprintf(stderr, "library %s, headers %s\n", ac_version(), AC_VERSION_STRING);
		return 1;
	}
	if (ac_config_load(&config, argv[1]) != 0 || ac_workspace_init(&ws, config) != 0)
		goto done;
	if (ac_session_create(&session, ws.sessions_dir, "from-c", "a task from C", "t1", "u1",
			      "a1") != 0)
		goto done;
	ac_session_free(session);
	session = NULL;
	messages = json_pack("[{s:s, s:s}]", "role", "user", "content", "hello from C");
	if (!messages ||
	    ac_session_append_messages(&session, ws.sessions_dir, "from-c", messages) != 0)
		goto done;
	if (ac_event_prepare(&line, &len, event_id,
			     "{\"agent\":\"Claude\",\"status\":\"SUCCESS\",\"action\":"
			     "{\"type\":\"ANALYSIS\",\"params\":{}},\"result\":"
			     "{\"message\":\"logged from C\"}}", &ws.schema) != 0 ||
	    ac_journal_append(NULL, ws.journal_path, line, len, &ws.journal) != 0)
		goto done;
	printf("%s %s %s\n", ac_version(), ac_session_id(session), event_id);
	rc = 0;
done:
	if (rc)
		fprintf(stderr, "agent: %s\n", ac_error_last());
	free(line);
	json_decref(messages);
	ac_session_free(session);
	ac_workspace_free(&ws);
	ac_config_free(config);
	return rc;
}
EOF
cd "$TMP/agent" || exit 1
# shellcheck disable=SC2046
check "cc agent.c \$(pkg-config --cflags --libs agentctl)" \
	cc -std=c11 -Wall -Wextra -Werror agent.c $(pkg-config --cflags --libs agentctl) -o agent
check "the agent links libagentctl.so.$soversion" \
	bash -c "readelf -d agent | grep -q 'NEEDED.*\[libagentctl.so.$soversion\]'"
check "the agent runs (LD_LIBRARY_PATH)" \
	bash -c "LD_LIBRARY_PATH='$libdir' ./agent '$TMP/ws' >'$TMP/agent.out'"
check "the agent's session is there" \
	bash -c "'$P/bin/agentctl' -w '$TMP/ws' session show from-c --json | grep -q 'hello from C'"
check "the agent's event is in the journal" \
	bash -c "'$P/bin/agentctl' -w '$TMP/ws' journal query 'text~\"logged from C\"' | grep -q 'logged from C'"
# Statically: libagentctl.a (named, since -lagentctl prefers the .so) plus
# what pkg-config --static says it needs.
static_flags=$(pkg-config --static --cflags --libs agentctl)
check "cc agent.c \$(pkg-config --static ...) with libagentctl.a" \
	cc -std=c11 agent.c ${static_flags/-lagentctl/-l:libagentctl.a} -o agent-static
check "the static agent needs no libagentctl.so" \
	bash -c "readelf -d agent-static | grep -q NEEDED && ! readelf -d agent-static | grep -q libagentctl"
rm -rf "$TMP/ws2" && mkdir "$TMP/ws2"
check "the static agent runs" bash -c "./agent-static '$TMP/ws2' | grep -q '^$version from-c evt_'"
cd "$TMP" || exit 1

# ---- the dashboard finds its themes ---------------------------------------
# From an unrelated folder, with no build tree and no configured prefix left.
mkdir -p "$TMP/elsewhere" "$XDG_CONFIG_HOME/agentctl/themes"
cp "$P/share/agentctl/themes/light.theme" "$XDG_CONFIG_HOME/agentctl/themes/mine.theme"
tmux -L "$sock" new-session -d -s boot -x 80 -y 10 "sleep 60"
dash() { # SESSION THEME
	tmux -L "$sock" new-session -d -s "$1" -x 120 -y 30 -c "$TMP/elsewhere" \
		"env XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_STATE_HOME='$XDG_STATE_HOME' '$P/bin/agentctl' -w '$TMP/ws' --theme $2"
}
drawn() { # SESSION: the dashboard is drawn (its hint line)
	for _ in $(seq 50); do
		tmux -L "$sock" capture-pane -p -t "$1" 2>/dev/null | grep -qF '1-4/Tab panes' && return 0
		sleep 0.1
	done
	tmux -L "$sock" capture-pane -p -t "$1" >&2
	return 1
}
no_theme_error() { ! tmux -L "$sock" capture-pane -p -t "$1" | grep -q 'theme:'; }
dash installed light
check "the installed dashboard draws" drawn installed
check "--theme light is found relative to the binary" no_theme_error installed
dash user mine
check "a dashboard with a user theme draws" drawn user
check "--theme mine is found in \$XDG_CONFIG_HOME/agentctl/themes" no_theme_error user
dash missing nosuch
check "a dashboard with a missing theme draws" drawn missing
theme_error() { tmux -L "$sock" capture-pane -p -t "$1" | grep -q 'theme:'; }
check "a missing theme is reported (so the checks above can fail)" theme_error missing
for s in installed user missing; do tmux -L "$sock" send-keys -t "$s" q; done

# ---- the man page ---------------------------------------------------------
man1=$P/share/man/man1/agentctl.1
check "man -l renders without warnings" \
	bash -c "test -z \"\$(MANWIDTH=80 man --warnings -l '$man1' 2>&1 >/dev/null)\""
check "groff -ww renders without warnings" \
	bash -c "test -z \"\$(groff -man -Tutf8 -ww -z '$man1' 2>&1)\""
check "the man page's version is the program's" grep -q "\"agentctl $version\"" "$man1"
# Rendered in ASCII on long lines without hyphenation, so that names stay whole.
LC_ALL=C groff -man -Tascii -rHY=0 -rLL=250n "$man1" 2>/dev/null | col -b >"$TMP/man.txt"
in_man() { # COMMAND SUB: "COMMAND SUB" or "COMMAND a|SUB|b" on one line
	grep -qE "(^|[^a-z-])$1 ([a-z-]+\|)*$2([| ]|$)" "$TMP/man.txt" ||
		{ note "the man page lacks '$1 $2'"; return 1; }
}
# Every command and option that `agentctl --help` shows.
"$P/bin/agentctl" --help >"$TMP/help.txt"
while IFS= read -r entry; do
	set -- $entry
	for sub in ${2//|/ }; do
		case $sub in [a-z]*) ;; *) continue ;; esac
		check "man: $1 $sub" in_man "$1" "$sub"
	done
done < <(sed -n 's/^\(usage:\)\{0,1\} *agentctl \[-w DIR\] //p' "$TMP/help.txt" |
	awk -F' [|] ' '$1 ~ /^[a-z]/ { split($1, w, " "); print w[1], w[2];
		for (i = 2; i <= NF; i++) { split($i, v, " "); print w[1], v[1] } }')
check "man: demo" grep -q '^ *demo ' "$TMP/man.txt"
check "man: help [COMMAND]" grep -q '^ *help \[COMMAND\]' "$TMP/man.txt"
for opt in $(grep -oE -- '--[a-z-]+' "$TMP/help.txt" | sort -u); do
	check "man: option $opt" grep -qF -- "$opt" "$TMP/man.txt"
done
for cmd in "memo read" "memo write" "memo append" "memo list" "artifact list" "artifact show" \
	"trace show" "session create" "session append" "session record-turn" "ops record" \
	"checkpoint create"; do
	check "man: $cmd" in_man $cmd
done
# Every configuration key the library knows (core/ac_config.c).
keys=$(sed -n 's/^[[:space:]]*{"\([A-Za-z.]*\)", T_[A-Z_]*,.*/\1/p' "$src/core/ac_config.c")
check "config keys found in core/ac_config.c" test "$(echo "$keys" | wc -l)" -ge 20
for key in $keys; do
	check "man: config key $key" grep -qE "^ +${key//./\\.}( |\$)" "$TMP/man.txt"
done
# Every key label of the dashboard's key table (tui/keys.c).
sed -n '/^DASHBOARD KEYS/,/^CONFIGURATION/p' "$TMP/man.txt" |
	sed -n 's/^       \([^ ].*\)$/\1/p' | sed 's/  .*//; s/, /\n/g' | sort -u >"$TMP/man-keys.txt"
labels=$(grep -o '\.label = "[^"]*"' "$src/tui/keys.c" | sed 's/^\.label = "//; s/"$//')
check "key labels found in tui/keys.c" test "$(echo "$labels" | wc -l)" -ge 20
# A label lists keys ("n Esc q"), or names one in words ("any key").
while read -r label; do
	if grep -qxF -- "$label" "$TMP/man-keys.txt"; then
		check "man: key $label" true
		continue
	fi
	read -ra keys_of_label <<<"$label" # (not $label unquoted: "?" would glob)
	for key in "${keys_of_label[@]}"; do
		check "man: key $key" grep -qxF -- "$key" "$TMP/man-keys.txt"
	done
done <<<"$labels"

# ---- completion -----------------------------------------------------------
bash_comp=$P/share/bash-completion/completions/agentctl
check "bash: complete -p agentctl" \
	bash -c "source '$bash_comp' && complete -p agentctl | grep -q '_agentctl agentctl\$'"
complete_bash() { # WORDS...: prints the completions of the last word
	PATH="$P/bin:$PATH" bash -c 'source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		_agentctl; printf "%s\n" "${COMPREPLY[@]}"' "$bash_comp" "$@"
}
complete_bash agentctl ses >"$TMP/c-commands"
complete_bash agentctl --theme '' >"$TMP/c-themes"
complete_bash agentctl -w "$TMP/ws" session show '' >"$TMP/c-ids"
check "bash completes commands" grep -qx session "$TMP/c-commands"
check "bash completes theme names" grep -qx high-contrast "$TMP/c-themes"
check "bash completes session ids" grep -qx from-c "$TMP/c-ids"
check "zsh completion parses" zsh -n "$P/share/zsh/site-functions/_agentctl"
check "zsh compinit registers _agentctl" \
	zsh -fc "fpath=('$P/share/zsh/site-functions' \$fpath); autoload -U compinit; compinit -u -d '$TMP/zcompdump'; [[ \${_comps[agentctl]} == _agentctl ]]"

finish
