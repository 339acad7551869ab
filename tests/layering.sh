#!/usr/bin/env bash
# Folders depend one way: cli -> tui -> views -> tui/model + tui/term -> core
# (DESIGN.md, Layout). This reads every #include of core/, cli/, tui/ and
# views/ and prints each one that goes the wrong way as file:line, then
# exits 1. A file belongs to its folder's layer, and a quoted header to the
# folder that holds it (its includer's own folder first, as the compiler
# looks). The build gives each layer the include path of the folders it may
# see (CMakeLists.txt, ac_ui_layer), so most of what is refused here does
# not compile either; tests/layering_compile.sh checks that, and
# tests/layering_link.sh that no layer calls a function defined above it.
#
#   core/             (and its public headers, include/agentctl/) only core/
#   tui/term/         the terminal (screen, ui_text, theme): itself and the
#                     core
#   tui/model/        the model and its sources, which fill it from the
#                     core: itself and the core; not the terminal either
#   views/            itself, the terminal, of the model folder the model
#                     (model.h) alone, and of the core its pure utilities
#                     (ac_buf.h, ac_text.h): no action, key, dashboard,
#                     source, CLI or store header
#   tui/              (the controller: loop, keys, actions, dialogs)
#                     anything but cli/
#   a folder under tui/ that is not named above is refused until it has a
#                     rule here (and an include path in CMakeLists.txt)
#   everywhere        curses only in tui/term/screen.c; no "../" includes (the
#                     build's include paths name the folders)
#   above core/       (cli/, tui/, views/) never chooses a store: no call of
#                     ac_storage_url() or ac_backend_pg_*(), no test of a
#                     backend's name (ac_workspace_store() is the one seam;
#                     what one store alone can do is asked of b->optional).
#                     cli/cli_storage_migrate.c is the exception: it opens
#                     the database its command line names, not the workspace's.
#                     Nor does it read storage.url or the seam's URL
#                     (ac_workspace_store_url()), start a store watch itself
#                     (ac_store_watch_new(): it is b->optional.watch), open a
#                     backend of its own (ac_backend_fs_init(), migrate
#                     excepted), or ask the dashboard's source for a store's
#                     name to decide (ui_source_store_name() is gone)
#   core/             only the seam (ac_workspace_store.c) and ac_storage.c
#                     read "storage.url" or call ac_storage_url(); only the
#                     seam and the PostgreSQL store's own files
#                     (ac_backend_pg*, ac_pg*, *_pg.c) name ac_backend_pg_*
#                     (an unfold or a watch is b->optional's); what lives
#                     beside the sessions (ac_journal_store.c,
#                     ac_checkpoint_runtime.c, ac_gc_pg.c) takes the seam's
#                     URL (ac_workspace_store_url()), nothing else does.
#                     Comments are not code: they may name these.
#
# tests/layering.sh --self-test [ROOT] checks the checker: on a copy of
# ROOT's source folders it must pass, then fail, naming the line, for each
# include planted against a rule (a key table header in the model, the
# model in the terminal, ...).
set -u
if [ "${1:-}" = --self-test ]; then
  exec bash "$(dirname "$0")/layering_selftest.sh" "$0" "${2:-$(dirname "$0")/..}"
fi
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2

# What each layer may include from the folders of the tree (the core's
# public headers, include/agentctl/, count as core).
declare -A sees=(
  [core]="core"
  [tui/term]="tui/term core"
  [tui/model]="tui/model core"
  [views]="views tui/model tui/term core"
  [tui]="tui views tui/model tui/term core"
  [cli]="cli tui views tui/model tui/term core"
)
# Narrower still: of these folders, a view includes only these headers.
declare -A view_only=(
  [tui/model]="model.h"
  [core]="ac_buf.h ac_text.h"
)
violations=0

violation() { # file:line what
  echo "$1: $2"
  violations=$((violations + 1))
}

layer_of() { # file -> its layer in $layer ("" outside every layer)
  case $1 in
  include/agentctl/* | core/*) layer=core ;;
  cli/*) layer=cli ;;
  tui/term/*) layer=tui/term ;;
  tui/model/*) layer=tui/model ;;
  tui/*/*) layer="" ;;
  tui/*) layer=tui ;;
  views/*) layer=views ;;
  *) layer="" ;;
  esac
}

home() { # header name, includer's folder -> the layer that holds it, or "system", in $from
  local dir                # (no subshell: this runs for every include)
  if [ -e "$2/$1" ]; then
    layer_of "$2/$1"
    from=$layer
    return
  fi
  from=core
  [ -e "include/agentctl/$1" ] && return # the core's public headers
  for dir in core cli tui tui/model tui/term views; do
    [ -e "$dir/$1" ] && { from=$dir; return; }
  done
  from=system
}

in_list() { # word list...
  local w
  for w in $2; do [ "$w" = "$1" ] && return 0; done
  return 1
}

# The sources above the core, every folder under tui/ included.
above_core=(cli/*.[ch] tui/*.[ch] tui/*/*.[ch] views/*.[ch])

while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  text=${rest#*:}
  at="$file:$line"
  layer_of "$file"
  if [ -z "$layer" ]; then
    violation "$at" "${file%/*}/ is no layer: give it a rule in tests/layering.sh"
    continue
  fi
  mine=$layer
  if [[ $text =~ \#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
    name=${BASH_REMATCH[1]}
    quoted=yes
  elif [[ $text =~ \#[[:space:]]*include[[:space:]]*\<([^\>]+)\> ]]; then
    name=${BASH_REMATCH[1]}
    quoted=no
  else
    continue
  fi
  if [ "$quoted" = no ]; then
    case $name in
    curses.h | ncurses.h | ncursesw/* | ncurses/* | term.h)
      [ "$file" = tui/term/screen.c ] || violation "$at" "curses (<$name>) outside tui/term/screen.c"
      ;;
    esac
    continue
  fi
  case $name in
  */*) violation "$at" "relative include \"$name\": use the include path" ;;
  esac
  header=${name##*/}
  home "$header" "${file%/*}"
  [ "$from" = system ] && continue
  if ! in_list "$from" "${sees[$mine]}"; then
    violation "$at" "$mine/ includes $from/$header (it sees: ${sees[$mine]})"
  elif [ "$mine" = views ] && [ -n "${view_only[$from]:-}" ] &&
    ! in_list "$header" "${view_only[$from]}"; then
    violation "$at" "a view includes $from/$header (of $from/ only: ${view_only[$from]})"
  fi
done < <(grep -n '^[[:space:]]*#[[:space:]]*include' include/agentctl/*.h core/*.[ch] "${above_core[@]}")

# The store seam: code above the core asks the workspace for its store.
while IFS= read -r hit; do
  file=${hit%%:*}
  [ "$file" = cli/cli_storage_migrate.c ] && continue
  rest=${hit#*:}
  violation "${file}:${rest%%:*}" "chooses a store above the core: ${rest#*:}"
done < <(grep -nE '\<ac_storage_url[[:space:]]*\(|\<ac_backend_pg_[a-z_]+[[:space:]]*\(|(\.|->)name[[:space:]]*,[[:space:]]*"(fs|pg|postgres|postgresql)"|"(fs|pg|postgres|postgresql)"[[:space:]]*,[^,)]*(\.|->)name\>' \
  "${above_core[@]}")

code_of() { # a grep -n hit's text -> $code, without its comment ("" for a comment line)
  code=$1
  [[ $code =~ ^[[:space:]]*(\*|/\*|//) ]] && code=""
  code=${code%%/\**}
}

# ... nor asks for the URL, starts a watch or opens a backend itself.
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  code_of "${rest#*:}"
  [ -n "$code" ] || continue
  if [ "$file" = cli/cli_storage_migrate.c ] && [[ $code =~ ac_backend_fs_init ]]; then
    continue
  fi
  case $file in
  cli/main.c | cli/cli_config.c) # --storage sets the key; config show redacts it
    [[ $code =~ \"storage\.url\" ]] && ! [[ $code =~ ac_config_(string|get|command) ]] && continue ;;
  esac
  violation "${file}:${rest%%:*}" "chooses a store above the core: ${rest#*:}"
done < <(grep -nE '\<ac_workspace_store_url[[:space:]]*\(|\<ac_store_watch_new[[:space:]]*\(|\<ac_backend_fs_init[[:space:]]*\(|\<ac_backend_open[[:space:]]*\(|\<ui_source_store_name\>|"storage\.url"' \
  "${above_core[@]}")

# In the core, one place chooses: the seam. Each name below is allowed in
# the files listed after it, and nowhere else in core/.
core_rule() { # extended regex, then the files (basename globs) allowed to use it
  local re=$1 hit file rest base glob ok
  shift
  while IFS= read -r hit; do
    file=${hit%%:*}
    rest=${hit#*:}
    code_of "${rest#*:}"
    [[ $code =~ $re ]] || continue
    base=${file##*/}
    ok=no
    for glob in "$@"; do
      # shellcheck disable=SC2053 # a glob, on purpose
      [[ $base == $glob ]] && ok=yes
    done
    [ "$ok" = yes ] || violation "${file}:${rest%%:*}" "chooses a store outside the seam: ${rest#*:}"
  done < <(grep -nE "$re" core/*.[ch])
}
core_rule '"storage\.url"' ac_workspace_store.c ac_storage.c ac_config.c
core_rule '\<ac_storage_url[[:space:]]*\(' ac_workspace_store.c ac_storage.c
core_rule '\<ac_backend_open[[:space:]]*\(' # gone: ac_workspace_store() opens
core_rule '\<ac_workspace_store_url[[:space:]]*\(' ac_workspace_store.c ac_journal_store.c \
  ac_checkpoint_runtime.c ac_gc_pg.c
core_rule '\<ac_backend_pg_[a-z_]+\>' ac_workspace_store.c 'ac_backend_pg*.[ch]' '*_pg.c' 'ac_pg*.[ch]'

if [ "$violations" -gt 0 ]; then
  echo "$violations include(s) or store choice(s) against the layering (cli -> tui -> views -> model/terminal -> core)"
  exit 1
fi
echo "layering: ok (cli -> tui -> views -> model/terminal -> core)"

# ---- The public API's tiers (issue 29) -------------------------------------
# Kept apart from the folder rules above. libagentctl has two tiers, as
# libgit2's git2.h and git2/sys/:
#   application   <agentctl/agentctl.h>, the umbrella: never the implementer's
#                 tier (include/agentctl/sys/: the backend vtable, the file
#                 backend's test hook, the backends' own inits)
#   implementer   <agentctl/sys/*.h>: what a backend's author fills in
# Both compile from a copy of include/agentctl/ laid out as an install puts
# it, nothing else on the path: tests/tiers/app.c against the umbrella
# alone, tests/tiers/backend.c against sys/. And the program (cli/, tui/,
# views/) includes only public headers (include/agentctl/): a private core
# header (core/*.h) is refused, with no exception; what the program needs
# of the core is a public call. Of the implementer's tier, only the files
# named below.

# Program files that include the implementer's tier, each with why. The
# store's operations are application calls (ac_backend_<table>_<op>(),
# ac_backend_has_*() in ac_backend.h), so only a file that builds stores
# itself belongs here.
tier_sys_ok="
cli/cli_storage_migrate.c
"
# cli/cli_storage_migrate.c: opens the source and the target store by kind
# (ac_backend_fs_init(), ac_backend_pg_init()) and copies through their
# copy table, which is for a store's author, not an application.

tier_check() {
  local tmp cc jflags hit file name header
  local tier_violations=0
  cc=${CC:-cc}
  tmp=$(mktemp -d) || return 2
  mkdir -p "$tmp/agentctl/sys"
  cp include/agentctl/*.h "$tmp/agentctl/" && cp include/agentctl/sys/*.h "$tmp/agentctl/sys/"
  sed 's/@PROJECT_VERSION_MAJOR@/0/; s/@PROJECT_VERSION_MINOR@/0/; s/@PROJECT_VERSION_PATCH@/0/;
       s/@PROJECT_VERSION@/0.0.0/' include/agentctl/ac_version.h.in >"$tmp/agentctl/ac_version.h"
  jflags=$(pkg-config --cflags jansson 2>/dev/null)
  # shellcheck disable=SC2086 # jflags: several words, on purpose
  for file in tests/tiers/app.c tests/tiers/backend.c; do
    if ! "$cc" -std=c11 -Wall -Wextra -Werror -pedantic -I"$tmp" $jflags -c "$file" \
      -o "$tmp/out.o" 2>"$tmp/err"; then
      sed 's/^/    /' "$tmp/err"
      echo "$file: does not compile against include/agentctl/ alone"
      tier_violations=$((tier_violations + 1))
    fi
  done
  while IFS= read -r hit; do # the public headers: never the implementer's tier
    [[ $hit =~ \#[[:space:]]*include[[:space:]]*[\"\<]([^\"\>]+)[\"\>] ]] || continue
    name=${BASH_REMATCH[1]}
    case $name in
    agentctl/sys/* | sys/* | ../sys/*) ;;
    */*) continue ;;
    *) [ -e "include/agentctl/sys/$name" ] || continue ;;
    esac
    echo "${hit%:*}: a public header includes the implementer's tier ($name)"
    tier_violations=$((tier_violations + 1))
  done < <(grep -nH '^[[:space:]]*#[[:space:]]*include' include/agentctl/*.h | grep -v '<sys/[a-z]*\.h>')
  [ -n "$tmp" ] && rm -r -- "$tmp"
  while IFS= read -r hit; do
    file=${hit%%:*}
    [[ $hit =~ \#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]] || continue
    name=${BASH_REMATCH[1]}
    header=${name##*/}
    if [ -e "include/agentctl/sys/$header" ]; then
      in_list "$file" "$tier_sys_ok" && continue
      echo "${hit%:*}: the program includes the implementer's tier (sys/$header)"
      tier_violations=$((tier_violations + 1))
    elif [ -e "core/$header" ] && [ ! -e "include/agentctl/$header" ]; then
      echo "${hit%:*}: the program includes a private core header ($header)"
      tier_violations=$((tier_violations + 1))
    fi
  done < <(grep -nH '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' cli/*.[ch] tui/*.[ch] \
    tui/*/*.[ch] views/*.[ch] 2>/dev/null)
  # Inside the core: the operation log sits below the operator's actions
  # (they record through it and through ac_journal_operator_event()).
  while IFS= read -r hit; do
    echo "${hit%:*}: the operation log includes the operator's actions (ac_operator.h)"
    tier_violations=$((tier_violations + 1))
  done < <(grep -nH '^[[:space:]]*#[[:space:]]*include[[:space:]]*"ac_operator\.h"' core/ac_oplog*.[ch])
  if [ "$tier_violations" -gt 0 ]; then
    echo "$tier_violations break(s) of the public API's tiers (application <agentctl/agentctl.h>, implementer <agentctl/sys/>)"
    return 1
  fi
  echo "tiers: ok (application tier compiles alone; implementer tier apart)"
}
tier_check || exit 1
