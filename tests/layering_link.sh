#!/usr/bin/env bash
# The layering, as the linker sees it: a function a lower layer calls must
# be defined in a layer it may see. A prototype in the model's header with
# its body above it (as ui_model_close_patch() was, in tui/patch.c)
# compiles and links within the one dashboard library, so neither
# tests/layering.sh nor the include paths see it; the object files' symbols
# do. Each layer is given as its name and its object files:
#   layering_link.sh NM term OBJ... -- model OBJ... -- views OBJ... -- tui OBJ...
# and each of term, model and views may use only what its own layer, the
# layers it sees and the core define (cli -> tui -> views -> tui/model +
# tui/term -> core). Then it checks itself: with a model object that
# another model object calls counted as the controller's, the same check
# must refuse that call.
set -u
nm=${1:?usage: layering_link.sh NM LAYER OBJ... [-- LAYER OBJ...]...}
shift
declare -A sees=(
  [term]="term"
  [model]="model"
  [views]="views model term"
)
declare -A objects=()
while [ $# -gt 0 ]; do
  layer=$1
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    objects[$layer]+=" $1"
    shift
  done
  [ $# -gt 0 ] && shift
done
for layer in term model views; do
  [ -n "${objects[$layer]:-}" ] || { echo "layering (link): no objects for $layer"; exit 2; }
done

# Each object's defined and undefined symbols, once: "OBJ T|U SYMBOL".
symbols=$(for layer in "${!objects[@]}"; do
  # shellcheck disable=SC2086 # a list of files
  "$nm" -A ${objects[$layer]}
done | awk '{ file = $1; sub(/:[0-9a-f]*$/, "", file) }
  NF == 3 && $2 ~ /^[TDBR]$/ { print file, "T", $3 }
  NF == 3 && $2 == "U" { print file, "U", $3 }')

check() { # layer of each object in $layer_of -> prints each call upward, count in $violations
  local file type symbol from ok
  declare -A home=() # symbol -> the object that defines it
  while read -r file type symbol; do
    [ "$type" = T ] && home[$symbol]=$file
  done <<<"$symbols"
  violations=0
  while read -r file type symbol; do
    [ "$type" = U ] || continue
    [ -n "${home[$symbol]:-}" ] || continue # the core's or the system's
    [ -n "${sees[${layer_of[$file]}]:-}" ] || continue # the controller sees all
    from=${layer_of[${home[$symbol]}]}
    for ok in ${sees[${layer_of[$file]}]}; do [ "$ok" = "$from" ] && continue 2; done
    echo "$file (${layer_of[$file]}) uses $symbol, defined above it in ${home[$symbol]} ($from)"
    violations=$((violations + 1))
  done <<<"$symbols"
}

declare -A layer_of=()
for layer in "${!objects[@]}"; do
  for file in ${objects[$layer]}; do layer_of[$file]=$layer; done
done
check
if [ "$violations" -gt 0 ]; then
  echo "$violations use(s) of a layer above (term and model see the core alone)"
  exit 1
fi

# The check of the check: a call between two model objects, the callee
# counted as the controller's, is refused.
pair=$(awk '$2 == "T" { def[$3] = $1 } $2 == "U" { use[$3] = use[$3] " " $1 }
  END { for (s in use) if (s in def) print def[s], s, use[s] }' <<<"$symbols" |
  while read -r callee symbol callers; do
    [ "${layer_of[$callee]}" = model ] || continue
    for caller in $callers; do
      [ "${layer_of[$caller]}" = model ] && { echo "$callee $symbol"; break 2; }
    done
  done)
[ -n "$pair" ] || { echo "layering (link): no call between two model objects to check the check with"; exit 1; }
layer_of[${pair%% *}]=tui
if ! check >/dev/null || [ "$violations" -eq 0 ]; then
  echo "layering (link): counting ${pair%% *} as the controller's, no call of ${pair#* } was refused"
  exit 1
fi
echo "layering (link): ok (no layer calls one above it; a model call of ${pair#* } moved above is refused)"
