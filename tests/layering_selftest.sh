#!/usr/bin/env bash
# tests/layering.sh --self-test: checks the checker. The layering check
# must pass on a copy of the tree's source folders, then, with an include
# planted against each of its rules in that copy, report every planted line
# as file:1 and fail. Usage: layering_selftest.sh CHECKER ROOT
set -u
checker=$1
root=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentctl-layering.XXXXXX") || exit 2
trap 'rm -rf -- "${tmp:?}"' EXIT
for folder in include core cli tui views; do
  cp -R "$root/$folder" "$tmp/" || exit 2
done
# The tier check compiles tests/tiers/*.c against the copy's include/.
mkdir -p "$tmp/tests" && cp -R "$root/tests/tiers" "$tmp/tests/" || exit 2

if ! out=$(bash "$checker" "$tmp" 2>&1); then
  echo "self-test: the tree's own copy fails the layering check:"
  echo "$out"
  exit 1
fi

# Runs the checker on the copy: every planted break must be named, and the
# check must exit 1. $1 names the copy in the message.
expect_refused() {
  local out rc p at
  out=$(bash "$checker" "$tmp" 2>&1)
  rc=$?
  for p in "${planted[@]}"; do
    at=${p%% (*}
    if ! grep -qF -- "$at " <<<"$out"; then
      echo "self-test: not refused: $p"
      failures=$((failures + 1))
    fi
  done
  if [ "$rc" -ne 1 ]; then
    echo "self-test: $1 exits $rc, not 1"
    failures=$((failures + 1))
  fi
  if [ "$failures" -gt 0 ]; then
    echo "$out"
    echo "layering self-test: $failures failure(s)"
    exit 1
  fi
}

planted=()
failures=0
plant() { # file (in the copy) text: puts text above the file's first line
  if [ ! -e "$tmp/$1" ]; then
    echo "self-test: no $1 to plant $2 in"
    failures=$((failures + 1))
    return
  fi
  { printf '%s\n' "$2"; cat "$tmp/$1"; } >"$tmp/$1.planted" && mv "$tmp/$1.planted" "$tmp/$1"
  planted+=("$1:1: ($2)")
}
nth() { # n glob (in the copy) -> the nth file it names, in $file
  local files
  # shellcheck disable=SC2206 # a glob, on purpose
  files=("$tmp"/$2)
  file=${files[$1 - 1]#"$tmp"/}
}

# The model and its sources see neither the key table nor the terminal:
# every file of tui/model/ (tui/model_*.c and tui/source_transcripts.c
# were in no rule's list of names before the folders).
for path in "$tmp"/tui/model/*.c; do
  plant "${path#"$tmp"/}" '#include "keys.h"'
done
plant tui/model/model.h '#include "screen.h"'
# The terminal does not see the model.
for path in "$tmp"/tui/term/*.c; do
  plant "${path#"$tmp"/}" '#include "model.h"'
done
# A view draws the model: no controller, source, store or CLI header.
nth 1 'views/*.c' && plant "$file" '#include "dash.h"'
nth 2 'views/*.c' && plant "$file" '#include "source.h"'
nth 3 'views/*.c' && plant "$file" '#include "ac_workspace.h"'
nth 4 'views/*.c' && plant "$file" '#include "cli.h"'
nth 5 'views/*.c' && plant "$file" '#include "../tui/keys.h"'
# The core sees nothing above it; the controller nothing of the CLI.
nth 1 'core/*.c' && plant "$file" '#include "view.h"'
nth 1 'include/agentctl/*.h' && plant "$file" '#include "model.h"'
nth 1 'tui/*.c' && plant "$file" '#include "cli.h"'
nth 2 'tui/*.c' && plant "$file" '#include <curses.h>'
# A folder with no rule is no layer.
mkdir -p "$tmp/tui/extra" && : >"$tmp/tui/extra/extra.c"
plant tui/extra/extra.c '#include "model.h"'

expect_refused "the planted copy"
folder_planted=${#planted[@]}

# The tiers, checked once the folders pass: on a fresh copy, a private core
# header in the CLI, the dashboard and the model (a view's are refused by
# the folder rules already), and the implementer's tier in a file not
# named for it.
for folder in include core cli tui views; do
  rm -r -- "${tmp:?}/$folder" && cp -R "$root/$folder" "$tmp/" || exit 2
done
planted=()
nth 1 'cli/*.c' && plant "$file" '#include "ac_proc.h"'
nth 1 'tui/*.c' && plant "$file" '#include "ac_lock.h"'
nth 1 'tui/model/*.c' && plant "$file" '#include "ac_source_paths.h"'
plant cli/cli_demo.c '#include "ac_backend_sys.h"'
expect_refused "the copy with tier breaks planted"
echo "layering self-test: ok (the tree passes; $folder_planted planted includes each refused," \
  "and ${#planted[@]} against the tiers)"
