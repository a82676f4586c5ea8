#!/usr/bin/env bash
# Configures and builds a benchmark program (Release, tests off, -j2) in build/bench-VARIANT for each
# VARIANT named: native, simd (WebAssembly SIMD) or scalar (WebAssembly without SIMD). bench/run.sh
# and bench/int8.sh build through it, so a bench build dir is configured in this one place.
#
#   bash bench/build.sh [--target NAME] VARIANT...     (NAME: attnseq_bench by default)
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=attnseq_bench
VARIANTS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) TARGET=$2; shift 2 ;;
    native | simd | scalar) VARIANTS+=("$1"); shift ;;
    *) sed -n '2,6p' "$0"; exit 2 ;;
  esac
done
[ ${#VARIANTS[@]} -gt 0 ] || { sed -n '2,6p' "$0"; exit 2; }

export NODE_PATH=/usr/share/nodejs  # emscripten 3.1.6 -O3 links need acorn (docs/toolchain.md)
for v in "${VARIANTS[@]}"; do
  if [ "$v" = native ]; then
    cmake -S . -B build/bench-native -DCMAKE_BUILD_TYPE=Release -DATTNSEQ_TESTS=OFF >/dev/null
  else
    flag=ON; [ "$v" = scalar ] && flag=OFF
    emcmake cmake -S . -B "build/bench-wasm-$v" -DCMAKE_BUILD_TYPE=Release -DATTNSEQ_TESTS=OFF \
      -DATTNSEQ_WASM_SIMD=$flag -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
  fi
  dir=build/bench-native; [ "$v" = native ] || dir="build/bench-wasm-$v"
  cmake --build "$dir" --target "$TARGET" -j2 >/dev/null
done
