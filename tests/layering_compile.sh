#!/usr/bin/env bash
# The layering, as the compiler sees it: each dashboard layer is compiled
# with the include path of the folders it may see (CMakeLists.txt,
# ac_ui_layer), so a header from a layer above it is not found. This takes
# one file of each layer with its own compile command (the build's
# compile_commands.json), checks that a copy of it compiles, then that the
# copy with a forbidden #include planted on top does not, for want of that
# header. tests/layering.sh checks the same rules (and narrower ones) by
# reading the includes. Usage: layering_compile.sh BUILD_DIR
set -u
build=${1:?usage: layering_compile.sh BUILD_DIR}
db=$build/compile_commands.json
[ -r "$db" ] || { echo "no $db: configure with CMAKE_EXPORT_COMPILE_COMMANDS"; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentctl-layering-compile.XXXXXX") || exit 2
trap 'rm -rf -- "${tmp:?}"' EXIT
failures=0

fail() {
  echo "$1"
  failures=$((failures + 1))
}

compile() { # source copy -> compiles copy with source's command; output in $out
  local cmd dir
  cmd=$(jq -r --arg f "$1" 'first(.[] | select(.file == $f)) | .command' "$db")
  dir=$(jq -r --arg f "$1" 'first(.[] | select(.file == $f)) | .directory' "$db")
  if [ -z "$cmd" ] || [ "$cmd" = null ]; then
    out="no compile command for $1 in $db"
    return 2
  fi
  cmd=${cmd/ -c "$1"/ -fsyntax-only -c "$2"}
  out=$(cd "$dir" && eval "$cmd" 2>&1)
}

refuses() { # folder header: a file of folder does not compile with header
  local src copy
  src=$(jq -r '.[].file' "$db" | grep -E "/$1/[^/]+\.c$" | sort | head -n 1)
  if [ -z "$src" ]; then
    fail "no file of $1/ in $db"
    return
  fi
  copy=$tmp/${src##*/}
  cp "$src" "$copy" || exit 2
  if ! compile "$src" "$copy"; then
    fail "$src does not compile alone, planted nothing: $out"
    return
  fi
  { printf '#include "%s"\n' "$2"; cat "$src"; } >"$copy"
  if compile "$src" "$copy"; then
    fail "$1/ compiles with #include \"$2\" (planted in a copy of $src)"
  elif ! grep -qF "$2: No such file" <<<"$out"; then
    fail "$1/ with #include \"$2\" fails, but not for want of the header: $out"
  else
    echo "refused: #include \"$2\" in $1/ (${src##*/})"
  fi
}

refuses tui/model keys.h   # the model sees neither the controller
refuses tui/model view.h   # nor the views
refuses tui/model screen.h # nor the terminal
refuses tui/term model.h   # the terminal does not see the model
refuses views keys.h       # the views do not see the controller
refuses views cli.h
if [ "$failures" -gt 0 ]; then
  echo "layering (compile): $failures failure(s)"
  exit 1
fi
echo "layering (compile): ok"
