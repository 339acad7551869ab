#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for
# a while from its seed corpus. A crash, leak or sanitizer report fails the
# run and leaves the input in fuzz/artifacts/.
#
#   fuzz/run.sh [SECONDS_PER_TARGET]     (default 10; CI uses the default)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
out=build-fuzz
mkdir -p "$out" fuzz/artifacts
command -v clang >/dev/null || { echo "fuzz: clang is missing: run scripts/install-deps.sh" >&2; exit 1; }

# The version header CMake generates from include/agentctl/ac_version.h.in.
version=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
IFS=. read -r v_major v_minor v_patch <<<"$version"
mkdir -p "$out/include"
sed -e "s/@PROJECT_VERSION@/$version/" -e "s/@PROJECT_VERSION_MAJOR@/$v_major/" \
    -e "s/@PROJECT_VERSION_MINOR@/$v_minor/" -e "s/@PROJECT_VERSION_PATCH@/$v_patch/" \
    include/agentctl/ac_version.h.in > "$out/include/ac_version.h"

# The core dlopens libgit2 and libpq at first use (core/ac_dl.c): the
# sonames of the ones installed, as CMake finds them.
soname_of() { # pkg-config-name library-name
    local file
    file=$(pkg-config --variable=libdir "$1")/lib$2.so
    objdump -p "$file" | sed -n 's/^ *SONAME *//p'
}
libgit2_soname=$(soname_of libgit2 git2)
libpq_soname=$(soname_of libpq pq)
[ -n "$libgit2_soname" ] && [ -n "$libpq_soname" ] ||
    { echo "fuzz: cannot read the SONAME of libgit2 or libpq (objdump -p)" >&2; exit 1; }

flags=(-g -O1 -std=c11 -D_GNU_SOURCE -DAC_LIBGIT2_SONAME=\"$libgit2_soname\"
       -DAC_LIBPQ_SONAME=\"$libpq_soname\"
       -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -Iinclude/agentctl -Iinclude/agentctl/sys -I"$out/include" -Icore
       $(pkg-config --cflags jansson libgit2 libpq libzstd))
libs=($(pkg-config --libs jansson libgit2 libzstd))

# Compiles and targets run as many at a time as there are cores (each
# fuzzer is one process: two of them on two cores take the time of one).
jobs=$(nproc)
failed="$out/failed"
rm -f "$failed"
slot() { # waits until fewer than $jobs background jobs run
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
}

# The core once, as objects the targets share.
# An object is rebuilt when its source or any header is newer than it.
newest_header=$(ls -t core/*.h include/agentctl/*.h | head -n 1)
objects=()
for src in core/*.c; do
    obj="$out/$(basename "${src%.c}").o"
    if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_header" -nt "$obj" ]; then
        slot
        { clang "${flags[@]/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,}" -c "$src" -o "$obj" ||
              echo "compiling $src" >>"$failed"; } &
    fi
    objects+=("$obj")
done
wait
if [ -s "$failed" ]; then
    echo "fuzz: failed: $(paste -sd, "$failed")" >&2
    exit 1
fi

fuzz_target() { # target
    local target=$1 bin="$out/fuzz_$1" corpus="$out/corpus-$1" runs
    clang "${flags[@]}" "fuzz/fuzz_$target.c" "${objects[@]}" "${libs[@]}" -o "$bin" ||
        { echo "building fuzz_$target" >>"$failed"; return; }
    mkdir -p "$corpus"
    cp -n fuzz/corpus/$target/* "$corpus/" 2>/dev/null || true
    echo "fuzz: $target for ${seconds}s" >&2
    if ! "$bin" "$corpus" -max_total_time="$seconds" -max_len=1048576 -timeout=10 \
        -rss_limit_mb=2048 -artifact_prefix=fuzz/artifacts/"$target"- -print_final_stats=1 \
        2> "$out/$target.log"; then
        echo "fuzz: $target FAILED; see $out/$target.log and fuzz/artifacts/" >&2
        tail -30 "$out/$target.log" >&2
        echo "$target" >>"$failed"
    else
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$target.log" | grep -o '[0-9]*$' || true)
        echo "fuzz: $target ok, $runs inputs" >&2
    fi
}
for target in event query session config oplog gitpath rollback json_exact usage source markdown; do
    slot
    fuzz_target "$target" &
done
wait
if [ -s "$failed" ]; then
    echo "fuzz: failed: $(paste -sd, "$failed")" >&2
    exit 1
fi
