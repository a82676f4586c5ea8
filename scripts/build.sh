#!/usr/bin/env bash
# Builds the npm package's WebAssembly module (wasm SIMD) and puts it in dist/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export NODE_PATH=/usr/share/nodejs
DIR=build/wasm-simd
if [ ! -f "$DIR/CMakeCache.txt" ]; then
  emcmake cmake -S . -B "$DIR" -DCMAKE_BUILD_TYPE=Release -DATTNSEQ_WASM_SIMD=ON \
    -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
fi
cmake --build "$DIR" -j"${JOBS:-2}" --target attnseq_module >/dev/null
mkdir -p dist
cp -f "$DIR/wasm/attnseq-core.mjs" "$DIR/wasm/attnseq-core.wasm" "$DIR/wasm/attnseq-relaxed.wasm" dist/
echo "[build] dist/attnseq-core.mjs + dist/attnseq-core.wasm ($(stat -c %s dist/attnseq-core.wasm) bytes)" \
  "+ dist/attnseq-relaxed.wasm ($(stat -c %s dist/attnseq-relaxed.wasm) bytes)"
