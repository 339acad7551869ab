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
#                     the database its command line names, not the workspace's
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

if [ "$violations" -gt 0 ]; then
  echo "$violations include(s) or store choice(s) against the layering (cli -> tui -> views -> model/terminal -> core)"
  exit 1
fi
echo "layering: ok (cli -> tui -> views -> model/terminal -> core)"
