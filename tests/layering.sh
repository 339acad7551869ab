#!/usr/bin/env bash
# Folders depend one way: cli -> tui -> views -> model/terminal -> core
# (DESIGN.md, Layout). This reads every #include of core/, cli/, tui/ and
# views/ and prints each one that goes the wrong way as file:line, then
# exits 1. A quoted header belongs to the folder that holds it.
#
#   core/             (and its public headers, include/agentctl/) nothing from
#                     cli/, tui/ or views/; no curses
#   views/            only view.h, the model (model.h), the terminal
#                     (screen.h, ui_text.h, theme.h) and the core's pure
#                     utilities (ac_buf.h, ac_text.h): no action, key,
#                     dashboard, CLI or store header
#   model/terminal    tui/{model,source,screen,ui_text,theme}.{c,h} (the
#                     source's private source_impl.h and its store half
#                     source_store.c too): only each other and the core
#   tui/              nothing from cli/
#   everywhere        curses only in tui/screen.c; no "../" includes (the
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
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2

model_terminal="model.h source.h source_impl.h source_store.h screen.h ui_text.h theme.h"
view_allowed="view.h model.h screen.h ui_text.h theme.h ac_buf.h ac_text.h"
violations=0

violation() { # file:line what
  echo "$1: $2"
  violations=$((violations + 1))
}

home() { # header name -> the folder that holds it, or "system", in $from
  local dir                # (no subshell: this runs for every include)
  from=core
  [ -e "include/agentctl/$1" ] && return # the core's public headers
  for dir in core cli tui views; do
    [ -e "$dir/$1" ] && { from=$dir; return; }
  done
  from=system
}
# The model/terminal files, .c and .h.
model_terminal_files=$(echo "$model_terminal" | sed 's/\.h//g; s/\([a-z_]*\)/\1.c \1.h/g')

in_list() { # word list...
  local w
  for w in $2; do [ "$w" = "$1" ] && return 0; done
  return 1
}

while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  text=${rest#*:}
  at="$file:$line"
  folder=${file%%/*}
  [ "$folder" = include ] && folder=core
  base=${file##*/}
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
      [ "$file" = tui/screen.c ] || violation "$at" "curses (<$name>) outside tui/screen.c"
      ;;
    esac
    continue
  fi
  case $name in
  */*) violation "$at" "relative include \"$name\": use the include path" ;;
  esac
  header=${name##*/}
  home "$header"
  case $folder in
  core)
    case $from in cli | tui | views) violation "$at" "core includes $from/$header" ;; esac
    ;;
  views)
    in_list "$header" "$view_allowed" ||
      violation "$at" "a view includes $from/$header (allowed: $view_allowed)"
    ;;
  tui)
    if in_list "$base" "$model_terminal_files"; then
      case $from in
      core | system) ;;
      tui) in_list "$header" "$model_terminal" ||
        violation "$at" "model/terminal file includes tui/$header (allowed: $model_terminal and core)" ;;
      *) violation "$at" "model/terminal file includes $from/$header" ;;
      esac
    elif [ "$from" = cli ]; then
      violation "$at" "tui includes cli/$header"
    fi
    ;;
  esac
done < <(grep -n '^[[:space:]]*#[[:space:]]*include' include/agentctl/*.h core/*.[ch] cli/*.[ch] \
  tui/*.[ch] views/*.[ch])

# The store seam: code above the core asks the workspace for its store.
while IFS= read -r hit; do
  file=${hit%%:*}
  [ "$file" = cli/cli_storage_migrate.c ] && continue
  rest=${hit#*:}
  violation "${file}:${rest%%:*}" "chooses a store above the core: ${rest#*:}"
done < <(grep -nE '\<ac_storage_url[[:space:]]*\(|\<ac_backend_pg_[a-z_]+[[:space:]]*\(|(\.|->)name[[:space:]]*,[[:space:]]*"(fs|pg|postgres|postgresql)"|"(fs|pg|postgres|postgresql)"[[:space:]]*,[^,)]*(\.|->)name\>' \
  cli/*.[ch] tui/*.[ch] views/*.[ch])

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
  cli/*.[ch] tui/*.[ch] views/*.[ch])

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
# views/) includes only public headers, but for the exceptions named below.

# Private core headers the program still includes, each with why.
tier_private_ok="
ac_text.h:text utilities (display width, wrapping) the UI shares with the core
ac_json_exact.h:the core's exact JSON writer, so the program prints as the files hold
ac_json_scan.h:the allocation-free scanner, for the journal list's fast path
ac_file.h:ac_atomic.h:ac_proc.h:ac_dl.h:the core's system helpers (files, atomic writes, processes, dlopen)
ac_libgit2.h:ac_prefs.h:the libgit2 loader and the dashboard's saved preferences
ac_source_paths.h:the core's id -> row table, which the sources' listing borrows
"
# Program files that include the implementer's tier, each with why. They
# call the store's operations through its vtable (b->session.get(...)):
# there are no ac_backend_<op>() calls in the application tier yet.
tier_sys_ok="
cli/cli.c cli/cli_request.c cli/cli_sandbox.c cli/cli_session.c
cli/cli_session_export.c cli/cli_session_fork.c cli/cli_session_search.c
cli/cli_store.c cli/main.c cli/cli_config.c
tui/actions.c tui/actions_compact.c tui/csearch.c tui/source.c tui/source_store.c
cli/cli_storage_migrate.c
"

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
      [[ $tier_private_ok =~ (^|[[:space:]:])"$header": ]] && continue
      echo "${hit%:*}: the program includes a private core header ($header)"
      tier_violations=$((tier_violations + 1))
    fi
  done < <(grep -nH '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' cli/*.[ch] tui/*.[ch] \
    views/*.[ch] 2>/dev/null)
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
