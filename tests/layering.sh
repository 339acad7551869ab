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
